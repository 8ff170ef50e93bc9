// Shared by the fault-injection and device-loss tests: the two workloads they
// break (a .pte load + run, a GGUF load + generate) and the walk that fails
// each GPU call of a workload in turn.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpu/device.h"
#include "llm/llm_model.h"
#include "llm/tokenizer/tokenizer.h"

namespace wgrt::test {

using Site = gpu::Device::Site;

const char* site_name(Site s);
std::string fault_fixture(const std::string& path);

// add_chain.pte loaded on `device` and run with timed dispatches (a query set)
// and its output read back (a mapping); checks the output.
void load_and_run_add_chain(gpu::Device& device);

// tests/fixtures/gguf/tiny_llama_q4_0.gguf (1 layer, hidden 64, vocab 512)
// loaded on `device`, with a context of 32.
std::unique_ptr<llm::LlmModel> load_tiny_llama(gpu::Device& device);
// 3 greedy tokens after the prompt 1 2 3, sampled on the GPU (token ids come
// back through the readback ring).
std::vector<llm::TokenId> generate_3_tokens(llm::LlmModel& model);
// Both.
std::vector<llm::TokenId> load_and_generate_tiny_llama(gpu::Device& device);

struct WalkResult {
  uint32_t calls = 0;             // GPU calls one whole run makes (or the walk's length)
  std::map<Site, uint32_t> hits;  // failures injected, by site
};

// Walks N = 1, 2, ...: the Nth GPU call of `work` (counting only `only`'s
// calls when given) fails. Each failure must be a wgrt::Error saying it was
// injected, with the device's live GPU bytes back at their value before
// `work`, and `work` must then succeed unarmed. The walk ends when a run
// finishes before its Nth call (every call was failed once). `before_each`
// runs before every armed run (e.g. forgetting compiled pipelines, so that
// shader and pipeline creations happen again).
WalkResult walk(gpu::Device& device, const std::function<void()>& work, const std::function<void()>& before_each = {},
                std::optional<Site> only = std::nullopt);

// Checks one injected failure: `work` must throw a wgrt::Error naming the
// injection; false (with a test failure) when it did not.
bool expect_injected_failure(const std::function<void()>& work, const std::string& what);

void print_walk(const char* what, const WalkResult& r);

}  // namespace wgrt::test
