// Injected GPU failures at every GPU call that can fail (buffer, shader
// module, compute pipeline, bind group and query set creation, buffer mapping,
// queue submit), walked one call at a time over a .pte load + run and a GGUF
// load + generate: each failure is a clear wgrt::Error, the device's GPU bytes
// go back to where they were, and the next, unarmed call succeeds (the same
// greedy tokens). Device loss is in test_device_loss.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu/pipeline_cache.h"
#include "gpu_test_env.h"
#include "runtime/fault_walk.h"

namespace wgrt {
namespace {

using test::Site;
using test::site_name;

class FaultInjection : public test::GpuTest {};

// add_chain.pte loaded and run; pipelines compiled afresh every run, so every
// kind of call is walked.
TEST_F(FaultInjection, EveryGpuCallOfAPteLoadAndRun) {
  auto work = [&] { test::load_and_run_add_chain(device()); };
  const test::WalkResult r = test::walk(device(), work, [&] { device().pipelines().clear_for_test(); });
  test::print_walk("add_chain.pte load + run", r);
  EXPECT_GT(r.calls, 5u);
  for (Site s : {Site::Buffer, Site::ShaderModule, Site::Pipeline, Site::BindGroup, Site::BufferMap, Site::Submit}) {
    EXPECT_GT(r.hits.count(s), 0u) << site_name(s) << " was never failed";
  }
  if (device().features().timestamp_query) EXPECT_GT(r.hits.count(Site::QuerySet), 0u) << "query set was never failed";
}

// The tiny GGUF Llama loaded and asked for 3 greedy tokens. Pipelines stay
// compiled between runs here (one cold run per call would take minutes on
// lavapipe); the next test walks its shader and pipeline creations.
TEST_F(FaultInjection, EveryGpuCallOfAGgufLoadAndGenerate) {
  const std::vector<llm::TokenId> first = test::load_and_generate_tiny_llama(device());
  auto work = [&] {
    EXPECT_EQ(test::load_and_generate_tiny_llama(device()), first) << "greedy tokens changed after an injected failure";
  };
  const test::WalkResult r = test::walk(device(), work);
  test::print_walk("tiny_llama_q4_0.gguf load + generate 3 tokens, warm", r);
  EXPECT_GT(r.calls, 10u);
  for (Site s : {Site::Buffer, Site::BindGroup, Site::BufferMap, Site::Submit}) {
    EXPECT_GT(r.hits.count(s), 0u) << site_name(s) << " was never failed";
  }
}

// The same over generate alone, on one model loaded once: a failed generate
// must leave the model usable (KV cache, token buffers, sampler, readback
// ring), so the next conversation on it (reset(), then generate) gives the
// same tokens.
TEST_F(FaultInjection, EveryGpuCallOfAGenerateOnALoadedModel) {
  auto model = test::load_tiny_llama(device());
  const std::vector<llm::TokenId> first = test::generate_3_tokens(*model);
  auto work = [&] {
    model->reset();  // a new conversation: generate appends to the cache
    EXPECT_EQ(test::generate_3_tokens(*model), first) << "greedy tokens changed after an injected failure";
  };
  const test::WalkResult r = test::walk(device(), work);
  test::print_walk("generate 3 tokens on a loaded tiny_llama_q4_0.gguf", r);
  EXPECT_GT(r.calls, 3u);
  for (Site s : {Site::BufferMap, Site::Submit}) {
    EXPECT_GT(r.hits.count(s), 0u) << site_name(s) << " was never failed";
  }
}

// Every shader module and compute pipeline the GGUF load + generate creates,
// failed one at a time: the pipeline is forgotten alone, so the run compiles
// just that one (a cold run per pipeline would take minutes on lavapipe).
// The failed compile must leave nothing behind: the next run compiles it and
// gives the same tokens.
TEST_F(FaultInjection, EveryShaderAndPipelineOfAGgufLoadAndGenerate) {
  // Only the tiny Llama's pipelines: others that earlier tests of this
  // process compiled would never be asked for, and their walk would fail.
  device().pipelines().clear_for_test();
  const std::vector<llm::TokenId> first = test::load_and_generate_tiny_llama(device());
  const size_t pipelines = device().pipelines().size();
  ASSERT_GT(pipelines, 5u);
  test::WalkResult r;
  for (size_t i = 0; i < pipelines; ++i) {
    for (Site site : {Site::ShaderModule, Site::Pipeline}) {
      const std::string what = "pipeline " + std::to_string(i) + ", " + site_name(site);
      device().pipelines().forget_for_test(i);
      const uint64_t baseline = device().live_buffer_bytes();
      device().fail_nth_gpu_call_for_test(1, site);
      const bool failed = test::expect_injected_failure([&] { test::load_and_generate_tiny_llama(device()); }, what);
      device().fail_nth_gpu_call_for_test(0);
      if (!failed) return;
      ++r.hits[device().last_injected_site()];
      EXPECT_EQ(device().live_buffer_bytes(), baseline) << "GPU bytes leaked after failing " << what;
      EXPECT_EQ(test::load_and_generate_tiny_llama(device()), first) << "the run after failing " << what;
      ASSERT_EQ(device().pipelines().size(), pipelines) << "a run compiled a pipeline the first did not";
      if (HasFailure()) return;
    }
  }
  r.calls = uint32_t(2 * pipelines);
  test::print_walk("tiny_llama_q4_0.gguf shader and pipeline creations", r);
  EXPECT_EQ(r.hits[Site::ShaderModule], pipelines);
  EXPECT_EQ(r.hits[Site::Pipeline], pipelines);
}

}  // namespace
}  // namespace wgrt
