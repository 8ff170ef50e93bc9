// Many sequences generated at once (continuous batching) on a model whose
// KV cache holds several slots (LlmLoadOptions::slots).
//
// Requests wait in arrival order for a free slot. Each round (step()) runs
// up to a chunk of admitted prompts' tokens (oldest first: one long prompt's
// chunk, or many short prompts), then queues one batched decode step that
// advances every decoding sequence by a token in one forward pass
// (LlmModel::submit_batch), so a long prompt never holds the others up for
// more than a chunk. Each sequence has its own row of the model's sampler
// (the graph's tail: its parameters, seed and repetition window) reading its
// row of the logits and writing its next token where the next step reads it,
// all rows drawing in the same few dispatches: tokens stay on the GPU, and up
// to `in_flight` steps are queued ahead of the host, as in generate.h. Token ids come back through a
// readback ring; a sequence that stops (EOS, stop string, budget, full
// context, cancel) drops its steps still in flight and its slot is rewound
// to the tokens it kept.
//
// A finished sequence leaves its cache in its slot: a later request whose
// prompt starts with it (a chat's next turn) is put in that slot and runs
// only the rest (GenerateStats::cached_tokens).
//
// Single-threaded: the caller's thread drives the device.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gpu/buffer.h"
#include "gpu/command_batch.h"
#include "gpu/readback_ring.h"
#include "llm/generate.h"
#include "llm/llm_model.h"
#include "ops/sampling/gpu_sampler.h"

namespace wgrt::llm {

struct BatchRequest {
  std::vector<TokenId> prompt;
  // GPU sampling only: on_logits and logprobs are refused (they need the
  // logits on the host); in_flight is the generator's. A JSON constraint or
  // grammar is a mask on the sequence's sampler, found on the host from the
  // text so far: such a sequence draws once its last token is back.
  GenerateOptions options;
  bool cache_prompt = true;  // start from a slot's cached prefix of the prompt
  // Each generated token and the text it completes; at the end, token -1
  // with any text held back. Return false to stop.
  TokenCallback on_token;
  // Once, however the sequence ended; `error` is empty unless it failed.
  std::function<void(const GenerateStats&, const std::string& error)> on_done;
};

class BatchGenerator {
 public:
  // `in_flight`: batched steps queued ahead of the host (>= 1).
  explicit BatchGenerator(LlmModel& model, int32_t in_flight = 4);
  // Waits for the steps in flight; unfinished sequences are dropped unannounced.
  ~BatchGenerator();
  BatchGenerator(const BatchGenerator&) = delete;
  BatchGenerator& operator=(const BatchGenerator&) = delete;

  // Checks the request (Error(InvalidArgument) naming what is wrong; nothing
  // is queued then) and queues it; returns its id.
  uint64_t add(BatchRequest request);
  // Ends a sequence at its next round (a waiting one never starts).
  void cancel(uint64_t id);
  // One round; false once nothing runs or waits.
  bool step();
  // Rounds until every request has ended.
  void run() {
    while (step()) {
    }
  }
  size_t running() const;
  size_t waiting() const { return waiting_.size(); }
  // Profiling: the next batched decode step is timed dispatch by dispatch
  // (and waited for); step_timings() then holds its kernels' GPU times.
  void time_next_step() { time_next_step_ = true; }
  const std::vector<gpu::DispatchTiming>& step_timings() const { return step_timings_; }

 private:
  struct Sequence;
  // A submit's draws: which sequences' tokens its readback carries.
  struct Event {
    size_t ring_slot = 0;
    std::vector<std::pair<size_t, uint64_t>> draws;  // (slot, sequence id)
  };

  void admit();
  size_t pick_slot(const std::vector<TokenId>& prompt, bool cache_prompt) const;
  void prefill_chunk(Sequence& seq);
  bool decode_step();
  bool wants_step(const Sequence& seq) const;
  // A constrained sequence's mask for its next draw, given to its sampler;
  // at a dead end (no token allowed) the sequence ends with that error and
  // this returns false. True at once for an unconstrained one.
  bool mask_next_draw(Sequence& seq);
  bool constrained_in_flight() const;
  size_t free_ring_slot();
  Sequence* oldest_prefilling() const;
  size_t next_chunk(const Sequence& seq) const;  // prompt tokens its next pass runs
  void take_event();
  void deliver(Sequence& seq, TokenId token);
  void stop(Sequence& seq);
  // Ends sequences that have stopped and have nothing in flight.
  void retire();
  void finish(size_t slot, const std::string& error = {});

  LlmModel& model_;
  const int32_t in_flight_;
  uint64_t next_id_ = 1;
  std::deque<std::unique_ptr<Sequence>> waiting_;
  std::vector<std::unique_ptr<Sequence>> slots_;  // by KV-cache slot; null: free
  ops::GpuSampler& sampler_;                      // the model's; row s: slot s's sequence
  gpu::ReadbackRing ring_;                        // copies of the model's sampled tokens
  std::vector<bool> ring_busy_;
  std::deque<Event> events_;                      // submitted, oldest first
  std::vector<int32_t> taken_;                    // one readback
  bool time_next_step_ = false;
  std::vector<gpu::DispatchTiming> step_timings_;
};

}  // namespace wgrt::llm
