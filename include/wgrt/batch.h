// Many generations at once on one model (continuous batching), for servers
// and batch jobs: requests queue in arrival order for one of the model's
// LlmOptions::parallel slots; each step() runs one prompt chunk of a newly
// admitted request and one forward pass that advances every running request
// by a token, with tokens sampled and fed back on the GPU. A finished
// request leaves its cache in its slot, and a later prompt that starts with
// it (a chat's next turn) reuses it (GenerateResult::cached_tokens).
//
// Threads: the thread that calls step() runs the model; add, cancel and the
// callbacks happen on it too (a server hands requests over through its own
// queue). Conventions: wgrt/runtime.h.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "wgrt/llm.h"

namespace wgrt::api {

struct BatchCallbacks {
  // Each generated token and the text it completes; at the end, token -1
  // with any text held back. Return false to stop the request.
  std::function<bool(int32_t token, std::string_view text)> on_token;
  // Once, however the request ended: its result (tokens and text are left
  // empty: on_token saw them), and an error message when it failed.
  std::function<void(const GenerateResult& result, const std::string& error)> on_done;
};

class Batch {
 public:
  // `in_flight`: forward passes queued ahead of the host (>= 1).
  explicit Batch(Llm& llm, int32_t in_flight = 4);
  ~Batch();
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;

  // Whether a request with these options can join a batch: GPU sampling,
  // no logprobs or on_logits (those need the logits on the host; run them
  // with Llm::generate). A JSON constraint or grammar joins: its mask goes
  // to the sequence's sampler, and its next draw waits for its last token.
  static bool accepts(const GenerateOptions& options);
  // Queues a request; returns its id. Error(InvalidArgument) naming what is
  // wrong (options, an empty prompt, a token outside the vocabulary, a
  // prompt longer than the context), NotSupported when !accepts(options).
  // `cache_prompt` false starts from an empty cache.
  uint64_t add(std::vector<int32_t> prompt, const GenerateOptions& options, BatchCallbacks callbacks,
               bool cache_prompt = true);
  // Ends a request at the next step (a waiting one never starts).
  void cancel(uint64_t id);
  // One round; false once nothing runs or waits.
  bool step();
  // Steps until every request has ended.
  void run();
  size_t running() const;
  size_t waiting() const;

  // Profiling (needs timestamp-query): the next step's batched forward pass
  // is timed dispatch by dispatch and waited for; last_timed_step() then
  // returns its kernels' GPU times (empty until such a step has run).
  void time_next_step();
  std::vector<DispatchTime> last_timed_step() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace wgrt::api
