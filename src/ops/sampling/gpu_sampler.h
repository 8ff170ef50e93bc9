// Sampling on the GPU (sample.wgsl): each recorded step reads a row of logits
// in a GPU buffer and writes one token id into another, with no host round
// trip. The token buffer can be a graph's token input, so the next step's
// embedding reads the id where the sampler left it. The repetition window
// and the draw counter live on the GPU too.
//
// Made once per generation (its buffers and bind groups are made here, never
// per token); record() only records dispatches.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "gpu/buffer.h"
#include "gpu/pipeline_cache.h"

namespace wgrt::gpu {
class CommandBatch;
class Device;
}  // namespace wgrt::gpu

namespace wgrt::ops {

// The CPU sampler's options (llm::SamplerOptions), repeated here because ops
// sit below llm.
struct SamplingParams {
  float temperature = 0.8f;  // 0: greedy
  int32_t top_k = 40;        // 0: off
  float top_p = 0.95f;       // 1: off
  float min_p = 0.05f;       // 0: off
  float repeat_penalty = 1.0f;
  // OpenAI's: subtracted once from the logit of each token in the window
  // (presence) and once per occurrence there (frequency); 0: off.
  float presence_penalty = 0.0f;
  float frequency_penalty = 0.0f;
  int32_t repeat_window = 64;
  uint64_t seed = 0;
  // Added to those tokens' logits before any penalty (OpenAI's logit_bias).
  std::vector<std::pair<int32_t, float>> logit_bias;
  // Each step draws only among the tokens set_mask() allows (constrained
  // decoding); the others' logits become -inf after the penalties.
  bool token_mask = false;
};

// Which row of logits a sampler's steps read, `stride` values apart (0: the
// vocabulary), and which element of the tokens they write: the row's own (a
// batch's rows each have a sampler).
struct SamplerRow {
  uint32_t index = 0;
  uint32_t stride = 0;
};

class GpuSampler {
 public:
  // The most tokens the repetition window may hold on the GPU.
  static constexpr int32_t kMaxWindow = 4096;
  // The most logit_bias entries (OpenAI allows 300).
  static constexpr size_t kMaxLogitBias = 1024;

  // Throws Error(InvalidArgument) naming the option when `params` is out of
  // range for a vocabulary of `vocab` tokens; needs no device.
  static void validate(const SamplingParams& params, int64_t vocab);
  // Compiles the pipelines now (at load), so the first step does not.
  static void prepare_pipelines(gpu::Device& device, ShaderChecks checks = ShaderChecks::None);

  // `logits`: f32, at least `vocab` values (rows of them for record_batch) (only [0, vocab) are drawn);
  // `tokens`: i32, where step draws are written (element 0). Both must
  // outlive the sampler. With `penalize`, the penalty is applied to `logits`
  // in place (they are rewritten by the next forward pass anyway).
  // `checks`: the runtime checks wgpu adds to its kernels (the model's
  // Tuning::shader_checks, so WGRT_SHADER_CHECKS covers sampling too).
  GpuSampler(gpu::Device& device, const gpu::Buffer& logits, const gpu::Buffer& tokens, uint32_t vocab,
             const SamplingParams& params, SamplerRow row = {}, ShaderChecks checks = ShaderChecks::None);

  // Starts a generation: the repetition window gets the last tokens of
  // `history` (the prompt) and the draw counter `counter` (normally 0).
  // Queued writes: ordered before the next submit.
  void reset(std::span<const int32_t> history, uint32_t counter = 0);
  // Which row of logits later steps read (queued: ordered before the next
  // submit); the token still goes to tokens[Row::index]. A batch sampler
  // reads row 0 after a prompt (one sequence's pass) and its own row after
  // a batched step.
  void read_row(uint32_t row);
  // One step: penalty (if on), the maxima of spans of the logits over many
  // workgroups, then one draw into tokens[row]; the window and the counter
  // advance on the GPU.
  void record(gpu::CommandBatch& batch) const;
  // Batches for tests, from the logits as they are (no penalty): `rows`
  // rows of `vocab` logits each, and from each row `draws` draws with
  // counters counter .. counter + draws - 1, into tokens[row * draws + d].
  // With draws > 1 no state changes; reset() goes back to steps. One row
  // takes its maximum from the spans as a step does; several rows each walk
  // their own row.
  void record_batch(gpu::CommandBatch& batch, uint32_t rows, uint32_t draws) const;
  // Applies the repetition penalty to the logits in place (what record()
  // does first), for tests that then call record_batch().
  void record_penalty(gpu::CommandBatch& batch) const;

  // The tokens later steps may draw (params.token_mask): bit i % 32 of word
  // i / 32 allows token i; ceil(vocab / 32) words. Queued: ordered before
  // the next submit.
  void set_mask(std::span<const uint32_t> words);

  const SamplingParams& params() const { return params_; }

 private:
  gpu::Device& device_;
  SamplingParams params_;
  uint32_t window_ = 0;
  bool penalizing_ = false;  // a bias or a penalty: the penalize pass runs
  uint32_t spans_ = 0;  // partial_max workgroups: ceil(vocab / its span), 0 for none
  uint32_t vocab_ = 0;
  gpu::Buffer state_, ring_, uniform_, partials_, mask_;
  const gpu::ComputePipeline* sample_ = nullptr;
  const gpu::ComputePipeline* penalize_ = nullptr;
  const gpu::ComputePipeline* partial_max_ = nullptr;
  const gpu::ComputePipeline* apply_mask_ = nullptr;
  gpu::BindGroup sample_group_, partial_max_group_, penalize_group_, mask_group_;
};

}  // namespace wgrt::ops
