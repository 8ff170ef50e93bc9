// Injected GPU failures at every resource creation (buffer, shader module,
// compute pipeline, bind group, query set) and buffer mapping, walked one
// call at a time over a .pte load + run and a GGUF load + generate: each
// failure is a clear wgrt::Error, the device's GPU bytes go back to where
// they were, and the next, unarmed call succeeds. Then a lost device:
// DeviceLost, and a new device afterwards works.
#include <gtest/gtest.h>

#include <functional>
#include <iostream>
#include <map>

#include "core/npy.h"
#include "gpu/pipeline_cache.h"
#include "gpu_test_env.h"
#include "llm/generate.h"
#include "llm/llm_model.h"
#include "runtime/program.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

using Site = gpu::Device::Site;

const char* site_name(Site s) {
  switch (s) {
    case Site::Buffer: return "buffer";
    case Site::ShaderModule: return "shader module";
    case Site::Pipeline: return "compute pipeline";
    case Site::BindGroup: return "bind group";
    case Site::QuerySet: return "query set";
    case Site::BufferMap: return "buffer mapping";
  }
  return "?";
}

struct WalkResult {
  uint32_t calls = 0;             // GPU calls one whole run makes
  std::map<Site, uint32_t> hits;  // failures injected, by site
};

// Walks N = 1, 2, ...: the Nth GPU call of `work` fails. Each failure must be
// a wgrt::Error saying it was injected, with the device's live GPU bytes back
// at their value before `work`, and `work` must then succeed unarmed. The
// walk ends when a run finishes before its Nth call (every call was failed
// once). `cold` forgets compiled pipelines before every run, so shader and
// pipeline creations are walked too (and every run makes the same calls).
WalkResult walk(gpu::Device& device, const std::function<void()>& work, bool cold) {
  WalkResult r;
  for (uint32_t n = 1;; ++n) {
    if (cold) device.pipelines().clear_for_test();
    const uint64_t baseline = device.live_buffer_bytes();
    device.fail_nth_gpu_call_for_test(n);
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

void print(const char* what, const WalkResult& r) {
  std::cout << "[ fault walk: " << what << " ] " << r.calls << " GPU calls failed one at a time:";
  for (const auto& [site, count] : r.hits) std::cout << " " << site_name(site) << " " << count << ",";
  std::cout << "\n";
}

std::string fixture(const std::string& path) { return std::string(WGRT_FIXTURES_DIR) + "/" + path; }

class FaultInjection : public test::GpuTest {};

// add_chain.pte, loaded and run with timed dispatches (a query set) and its
// output read back (a mapping); pipelines compiled afresh every run.
TEST_F(FaultInjection, EveryGpuCallOfAPteLoadAndRun) {
  const HostTensor in0 = read_npy(fixture("pte/add_chain.in0.npy"));
  const HostTensor in1 = read_npy(fixture("pte/add_chain.in1.npy"));
  const HostTensor want = read_npy(fixture("pte/add_chain.out0.npy"));
  auto work = [&] {
    auto program = Program::load(device(), fixture("pte/add_chain.pte"));
    const HostTensorView views[] = {{in0.dtype, in0.dims, in0.data}, {in1.dtype, in1.dims, in1.data}};
    ExecuteOptions options;
    options.time_dispatches = true;
    const auto out = program->method("forward").graph().execute(views, options);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].data, want.data);
  };
  WalkResult r = walk(device(), work, /*cold=*/true);
  print("add_chain.pte load + run", r);
  EXPECT_GT(r.calls, 5u);
  for (Site s : {Site::Buffer, Site::ShaderModule, Site::Pipeline, Site::BindGroup, Site::BufferMap}) {
    EXPECT_GT(r.hits[s], 0u) << site_name(s) << " was never failed";
  }
  if (device().features().timestamp_query) EXPECT_GT(r.hits[Site::QuerySet], 0u) << "query set was never failed";
}

// A tiny random Llama GGUF (tests/fixtures/gguf/tiny_llama_q4_0.gguf, 1 layer,
// hidden 64, vocab 512), loaded and asked for 3 greedy tokens. Pipelines stay
// compiled between runs here (one cold run per shader would take minutes on
// lavapipe); the .pte walk above covers shader and pipeline failures.
TEST_F(FaultInjection, EveryGpuCallOfAGgufLoadAndGenerate) {
  std::vector<llm::TokenId> first;
  auto work = [&] {
    llm::LlmLoadOptions options;
    options.path = fixture("gguf/tiny_llama_q4_0.gguf");
    options.context = 32;
    auto model = llm::LlmModel::load(device(), options);
    llm::GenerateOptions gen;
    gen.max_tokens = 3;
    gen.sampler.temperature = 0;
    gen.ignore_eos = true;
    const llm::TokenId prompt[] = {1, 2, 3};
    std::vector<llm::TokenId> tokens;
    llm::generate(*model, prompt, gen, [&](llm::TokenId t, std::string_view) {
      tokens.push_back(t);
      return true;
    });
    ASSERT_EQ(tokens.size(), 3u);
    if (first.empty()) first = tokens;
    EXPECT_EQ(tokens, first) << "greedy tokens changed after an injected failure";
  };
  work();  // compiles the pipelines, and sets the tokens every run must give
  WalkResult r = walk(device(), work, /*cold=*/false);
  print("tiny_llama_q4_0.gguf load + generate 3 tokens", r);
  EXPECT_GT(r.calls, 10u);
  for (Site s : {Site::Buffer, Site::BindGroup, Site::BufferMap}) {
    EXPECT_GT(r.hits[s], 0u) << site_name(s) << " was never failed";
  }
}

// A device lost mid-run (destroyed by the test hook, as a driver reset would):
// the run fails with DeviceLost, so do later calls, and a new device works.
// Uses a device of its own: the shared one must survive for other tests.
TEST_F(FaultInjection, LostDeviceIsDeviceLostAndANewDeviceWorks) {
  const HostTensor in0 = read_npy(fixture("pte/add_chain.in0.npy"));
  const HostTensor in1 = read_npy(fixture("pte/add_chain.in1.npy"));
  const HostTensor want = read_npy(fixture("pte/add_chain.out0.npy"));
  const HostTensorView views[] = {{in0.dtype, in0.dims, in0.data}, {in1.dtype, in1.dims, in1.data}};
  auto expect_lost = [](const std::function<void()>& fn, const char* what) {
    try {
      fn();
      ADD_FAILURE() << what << ": expected DeviceLost";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::DeviceLost) << what << ": " << e.what();
    }
  };
  {
    auto doomed = gpu::Device::create();
    auto program = Program::load(*doomed, fixture("pte/add_chain.pte"));
    ExecutableGraph& graph = program->method("forward").graph();
    EXPECT_EQ(graph.execute(views)[0].data, want.data);
    doomed->lose_for_test();
    expect_lost([&] { graph.execute(views); }, "a run after the loss");
    expect_lost([&] { graph.execute(views); }, "a second run");
    expect_lost([&] { Program::load(*doomed, fixture("pte/add_chain.pte")); }, "a load on the lost device");
  }  // the program and the lost device are destroyed without a crash
  auto fresh = gpu::Device::create();
  auto program = Program::load(*fresh, fixture("pte/add_chain.pte"));
  EXPECT_EQ(program->method("forward").graph().execute(views)[0].data, want.data);
}

}  // namespace
}  // namespace wgrt
