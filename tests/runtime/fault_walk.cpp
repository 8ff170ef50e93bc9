#include "runtime/fault_walk.h"

#include <gtest/gtest.h>

#include <iostream>

#include "core/npy.h"
#include "gpu_test_env.h"
#include "llm/generate.h"
#include "runtime/program.h"
#include "wgrt/error.h"

namespace wgrt::test {

const char* site_name(Site s) {
  switch (s) {
    case Site::Buffer: return "buffer";
    case Site::ShaderModule: return "shader module";
    case Site::Pipeline: return "compute pipeline";
    case Site::BindGroup: return "bind group";
    case Site::QuerySet: return "query set";
    case Site::BufferMap: return "buffer mapping";
    case Site::Submit: return "queue submit";
  }
  return "?";
}

std::string fault_fixture(const std::string& path) { return std::string(WGRT_FIXTURES_DIR) + "/" + path; }

void load_and_run_add_chain(gpu::Device& device) {
  static const HostTensor in0 = read_npy(fault_fixture("pte/add_chain.in0.npy"));
  static const HostTensor in1 = read_npy(fault_fixture("pte/add_chain.in1.npy"));
  static const HostTensor want = read_npy(fault_fixture("pte/add_chain.out0.npy"));
  auto program = Program::load(device, fault_fixture("pte/add_chain.pte"), "", test::load_options());
  const HostTensorView views[] = {{in0.dtype, in0.dims, in0.data}, {in1.dtype, in1.dims, in1.data}};
  ExecuteOptions options;
  options.time_dispatches = true;
  const auto out = program->method("forward").graph().execute(views, options);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].data, want.data);
}

std::unique_ptr<llm::LlmModel> load_tiny_llama(gpu::Device& device) {
  llm::LlmLoadOptions options;
  options.path = fault_fixture("gguf/tiny_llama_q4_0.gguf");
  options.context = 32;
  options.graph = test::load_options();
  return llm::LlmModel::load(device, options);
}

std::vector<llm::TokenId> generate_3_tokens(llm::LlmModel& model) {
  llm::GenerateOptions gen;
  gen.max_tokens = 3;
  gen.sampler.temperature = 0;
  gen.ignore_eos = true;
  const llm::TokenId prompt[] = {1, 2, 3};
  std::vector<llm::TokenId> tokens;
  llm::generate(model, prompt, gen, [&](llm::TokenId t, std::string_view) {
    tokens.push_back(t);
    return true;
  });
  EXPECT_EQ(tokens.size(), 3u);
  return tokens;
}

std::vector<llm::TokenId> load_and_generate_tiny_llama(gpu::Device& device) {
  auto model = load_tiny_llama(device);
  return generate_3_tokens(*model);
}

bool expect_injected_failure(const std::function<void()>& work, const std::string& what) {
  try {
    work();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("injected failure"), std::string::npos) << what << ": " << e.what();
    EXPECT_TRUE(e.code() == ErrorCode::OutOfMemory || e.code() == ErrorCode::Internal)
        << what << ": " << to_string(e.code()) << ": " << e.what();
    return true;
  }
  ADD_FAILURE() << what << ": the run went on as if the call had not failed";
  return false;
}

WalkResult walk(gpu::Device& device, const std::function<void()>& work, const std::function<void()>& before_each,
                std::optional<Site> only) {
  WalkResult r;
  for (uint32_t n = 1;; ++n) {
    if (before_each) before_each();
    const uint64_t baseline = device.live_buffer_bytes();
    device.fail_nth_gpu_call_for_test(n, only);
    bool failed = false;
    try {
      work();
    } catch (const Error& e) {
      failed = true;
      EXPECT_NE(std::string(e.what()).find("injected failure"), std::string::npos)
          << "call " << n << ": " << e.what();
      EXPECT_TRUE(e.code() == ErrorCode::OutOfMemory || e.code() == ErrorCode::Internal)
          << "call " << n << ": " << to_string(e.code()) << ": " << e.what();
    }
    const bool pending = device.injected_failure_pending();
    device.fail_nth_gpu_call_for_test(0);
    if (!failed) {
      EXPECT_TRUE(pending) << "call " << n << " (" << site_name(device.last_injected_site())
                           << ") failed, but the run went on as if it had not";
      r.calls = n - 1;
      return r;
    }
    ++r.hits[device.last_injected_site()];
    EXPECT_EQ(device.live_buffer_bytes(), baseline)
        << "GPU bytes leaked after failing call " << n << " (" << site_name(device.last_injected_site()) << ")";
    EXPECT_NO_THROW(work()) << "the run after failing call " << n;
    if (::testing::Test::HasFailure()) return r;
  }
}

void print_walk(const char* what, const WalkResult& r) {
  std::cout << "[ fault walk: " << what << " ] " << r.calls << " GPU calls:";
  for (const auto& [site, count] : r.hits) std::cout << " " << site_name(site) << " " << count << ",";
  std::cout << "\n";
}

}  // namespace wgrt::test
