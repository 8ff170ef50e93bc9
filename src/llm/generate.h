// The generation loop: prefill the prompt, then sample and feed back one
// token at a time, streaming text as it completes, until EOS, a stop string,
// the token budget, a full context, or the caller says stop.
//
// By default the token never visits the host on its way to the next step:
// the GPU sampler (ops/sampling/) writes it into the model's token input, the
// next forward pass reads it there, and `in_flight` steps are queued ahead of
// the host. Token ids come back through a ring of mapped readback buffers as
// their steps finish. When generation stops (EOS, stop string, budget, cancel), the steps
// still in flight are waited for and their tokens dropped; the model's cache
// is rewound to the tokens kept, and the KV rows those steps wrote past it
// are overwritten by whatever runs next.
//
// However generation ends (either sampler), the cache then holds the prompt
// and every generated token but the last: to continue a conversation, feed
// that last token first.
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "llm/json_constraint.h"
#include "llm/llm_model.h"
#include "llm/logprobs.h"
#include "llm/sampler.h"
#include "gpu/readback_ring.h"
#include "llm/stop_strings.h"
#include "llm/tokenizer/utf8_stream.h"
#include "ops/sampling/gpu_sampler.h"

namespace wgrt::llm {

struct GenerateOptions {
  int32_t max_tokens = 128;
  SamplerOptions sampler;
  // Sample on the GPU and feed the token back there (false: read the logits
  // back and sample on the host with llm::Sampler, one wait per token).
  bool gpu_sampling = true;
  // GPU sampling: steps queued ahead of the host (>= 1; 1 waits for each token).
  int32_t in_flight = 8;
  // Checked between tokens; set from a signal handler to stop cleanly.
  const std::atomic<bool>* cancel = nullptr;
  bool ignore_eos = false;
  // Generation ends where the text first contains one of these; the stop
  // string is not part of the output.
  std::vector<std::string> stop;
  // Sees each logits vector a token is sampled from: the prompt's last
  // position first, then one per decode step. Setting it samples on the CPU
  // (every step's logits must come back to the host).
  std::function<void(std::span<const float>)> on_logits;
  // >= 0: each step carries its token's log-probability and this many of
  // the most likely alternatives (llm/logprobs.h; at most kMaxTopLogprobs).
  // With GPU sampling each step's logits are copied back too (vocabulary x
  // 4 bytes a token).
  int32_t logprobs = -1;
  // The text must be one JSON object (llm/json_constraint.h). The allowed
  // tokens depend on the text so far, so a constrained step waits for its
  // token: with GPU sampling the next forward pass is queued behind the
  // draw, the host finds its mask while it runs, and only the mask (a bit
  // per token) goes to the GPU; with CPU sampling the logits come back and
  // are masked there. When no token can continue the text, generation fails
  // with Error(InvalidArgument).
  bool json_object = false;
  // The text must be one value of this schema (llm/json_schema.h); as json_object otherwise.
  std::shared_ptr<const JsonSchema> json_schema;
  // The text must be a sentence of this GBNF grammar (llm/grammar.h); the
  // same way. At most one of json_object, json_schema and grammar.
  std::shared_ptr<const Grammar> grammar;
};
constexpr int32_t kMaxTopLogprobs = 20;

struct GenerateStats {
  size_t prompt_tokens = 0;
  size_t cached_tokens = 0;  // of prompt_tokens: found in the KV cache (batch_generation.h), not run again
  size_t generated_tokens = 0;
  double prompt_seconds = 0;    // prefill, including the first token's logits
  double generate_seconds = 0;  // every decode step after that
  double wait_seconds = 0;      // of generate_seconds: the host blocked on a token (GPU sampling)
  bool stopped_at_eos = false;
  bool stopped_at_stop_string = false;
  bool cancelled = false;
  bool context_full = false;

  double prompt_tokens_per_second() const { return prompt_seconds > 0 ? prompt_tokens / prompt_seconds : 0; }
  // 0 for one token or none: the first token comes with the prompt, so no
  // decode step was timed (its near-zero time gave absurd rates).
  double generate_tokens_per_second() const {
    return generate_seconds > 0 && generated_tokens > 1 ? generated_tokens / generate_seconds : 0;
  }
};

// The GPU sampler's form of the sampling options.
ops::SamplingParams gpu_sampling_params(const SamplerOptions& options);

// Checks options that need no model (temperature, top-p, min-p, penalty,
// in_flight); with `vocab` > 0 also top-k against it. Throws
// Error(InvalidArgument) naming the option.
void validate(const GenerateOptions& options, int64_t vocab = 0);

// The constraint the options ask for (json_schema, json_object or grammar),
// or null, over the model's sampling vocabulary.
std::unique_ptr<TokenConstraint> make_token_constraint(const LlmModel& model, const GenerateOptions& options);
// The tokens a constraint allows next, as bytes in `allowed` and as the GPU
// sampler's mask bits in `words` (ops::GpuSampler::set_mask); returns how many.
size_t constraint_mask(const TokenConstraint& constraint, size_t vocab, std::vector<uint8_t>& allowed,
                       std::vector<uint32_t>& words);
// Why a constrained generation ended at a dead end: no token can continue it.
std::string dead_end_message(const GenerateOptions& options, int64_t generated);

// The same loop one token at a time, for callers that pull (a Python
// iterator): each next() returns the next token and the text it completes;
// after the last token, one more step with token -1 carries any text still
// held back (an unfinished UTF-8 sequence), then next() returns nothing.
class Generation {
 public:
  struct Step {
    TokenId token = -1;
    std::string text;
    std::optional<TokenLogprobs> logprobs;  // with GenerateOptions::logprobs, for each token
  };
  // Nothing runs until the first next(), which runs the prompt.
  Generation(LlmModel& model, std::span<const TokenId> prompt, const GenerateOptions& options);
  // Waits for the steps still in flight (their tokens are dropped).
  ~Generation();
  Generation(const Generation&) = delete;
  Generation& operator=(const Generation&) = delete;
  std::optional<Step> next();
  // Ends the loop early: the next next() returns the held-back text, if any.
  void stop() { stopping_ = true; }
  const GenerateStats& stats() const { return stats_; }

 private:
  std::optional<Step> finish();
  std::optional<TokenId> next_token();
  std::optional<TokenId> next_token_on_gpu();
  void start_on_gpu();
  // Queues steps until in_flight are pending or no more are needed.
  void fill_pipeline();
  // A step's draw (GPU sampling: the model's sampler, row 0): records the
  // readback of its token (and logits, for logprobs) into the step's submit,
  // asks for them once submitted, and takes the oldest pending one.
  void record_copies(gpu::CommandBatch& batch, size_t slot);
  void request_draw(size_t slot);
  TokenId take_draw();
  // Waits for and drops the steps in flight; rewinds the cache to the prompt
  // and the tokens taken but the last.
  void drop_in_flight();

  LlmModel& model_;
  GenerateOptions options_;
  Sampler sampler_;
  StreamDecoder decoder_;
  StopStrings stops_;
  std::vector<TokenId> prompt_;   // the tokens to run
  std::vector<TokenId> history_;  // what penalties see: the cache, the prompt, each token taken
  std::span<const float> logits_;
  GenerateStats stats_;
  bool started_ = false, stopping_ = false, finished_ = false;
  int32_t produced_ = 0;
  // GPU sampling state.
  std::unique_ptr<gpu::ReadbackRing> ring_;
  std::unique_ptr<gpu::ReadbackRing> logits_ring_;  // logprobs: each step's logits
  std::vector<float> host_logits_;  // a pass's logits read back (logprobs, constrained decoding)
  std::deque<size_t> pending_;  // ring slots of steps in flight, oldest first
  int32_t queued_ = 0;          // draws submitted so far
  size_t next_slot_ = 0;
  int64_t prompt_end_ = 0;      // cached positions after the prompt
  std::optional<TokenId> first_;  // taken while timing the prompt
  std::optional<TokenLogprobs> logprobs_;  // of the token next_token() returned last
  // Constrained decoding: the tokens the constraint allows next are found
  // while the GPU runs the pass whose logits they mask.
  std::span<const float> forward_masked(std::span<const TokenId> tokens);
  // GPU sampling: the step whose forward pass is queued gets its draw once
  // find_mask() has found its mask (submit_draw), and the next step's
  // forward pass is queued behind the draw (queue_masked_step);
  // take_masked() takes the draw and feeds the constraint.
  bool find_mask();  // false: no token can continue the text
  void submit_draw();
  void queue_masked_step();
  TokenId take_masked();
  [[noreturn]] void throw_dead_end() const;
  std::vector<uint32_t> mask_words_;  // allowed_ as the sampler's bits
  bool forward_queued_ = false;       // the next step's forward pass is queued
  std::unique_ptr<TokenConstraint> json_;  // json_object, json_schema or grammar
  std::unique_ptr<gpu::ReadbackRing> masked_ring_;  // the pass's logits
  std::vector<float> masked_;                       // the logits the constraint left
  std::vector<uint8_t> allowed_;                    // by forward_masked, for the pass it ran
  size_t allowed_count_ = 0;
};

// Called with each generated token and the text it completes ("" while a
// UTF-8 sequence is unfinished). Return false to stop.
using TokenCallback = std::function<bool(TokenId, std::string_view)>;

// Continues from the model's current cache with `prompt` appended.
GenerateStats generate(LlmModel& model, std::span<const TokenId> prompt, const GenerateOptions& options,
                       const TokenCallback& on_token);

}  // namespace wgrt::llm
