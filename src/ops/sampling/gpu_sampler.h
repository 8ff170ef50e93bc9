// Sampling on the GPU (sample.wgsl): each recorded step reads rows of logits
// in a GPU buffer and writes token ids into another, with no host round
// trip. The token buffer can be a graph's token input, so the next step's
// embedding reads the ids where the sampler left them. The repetition
// windows and the draw counters live on the GPU too.
//
// Made once per generation or batch (its buffers and bind groups are made
// here, never per token); record() records dispatches, and a small write
// when the rows drawing change.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "gpu/buffer.h"
#include "gpu/pipeline_cache.h"
#include "gpu/workgroups.h"

namespace wgrt::gpu {
class CommandBatch;
class Device;
}  // namespace wgrt::gpu

namespace wgrt::ops {

// The op that samples at an LLM graph's tail (sample_tokens.cpp); its state
// is a GpuSampler.
inline constexpr const char* kSampleTokensOp = "wgrt.sample_tokens";

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

// Where a sampler row's steps read and write: row `index` of the logits,
// `stride` values apart (0: the vocabulary), and element `index` of the tokens.
struct SamplerRow {
  uint32_t index = 0;
  uint32_t stride = 0;
};

// Several sampler rows (a batch's sequences, or one for a single
// generation), each with its own parameters, draw counter, repetition window
// and token mask, drawing together: a step for any set of rows is the same
// four dispatches (penalty, mask, span maxima, draw), whatever their number.
class GpuSampler {
 public:
  // The most tokens the repetition window may hold on the GPU.
  static constexpr int32_t kMaxWindow = 4096;
  // The most logit_bias entries (OpenAI allows 300).
  static constexpr size_t kMaxLogitBias = 1024;

  // Throws Error(InvalidArgument) naming the option when `params` is out of
  // range for a vocabulary of `vocab` tokens; needs no device.
  static void validate(const SamplingParams& params, int64_t vocab);

  // `rows` sampler rows over `logits` (f32; only [0, vocab) of a row are
  // drawn) writing into `tokens` (i32); both must outlive the sampler. Every
  // row starts greedy, reading logits row r into tokens[r], until configure().
  // A penalty rewrites the logits in place (the next forward pass rewrites
  // them anyway). `checks`: the runtime checks wgpu adds to its kernels (the
  // model's Tuning::shader_checks, so WGRT_SHADER_CHECKS covers sampling too).
  // Its buffers hold the largest window, bias list and mask a row may have,
  // so a row is reconfigured without allocating.
  GpuSampler(gpu::Device& device, const gpu::Buffer& logits, const gpu::Buffer& tokens, uint32_t vocab,
             uint32_t rows = 1, ShaderChecks checks = ShaderChecks::None);

  // Gives row r its parameters and place, and starts it (reset(r, history)).
  // Queued writes, as everything below: ordered before the next submit.
  void configure(uint32_t r, const SamplingParams& params, SamplerRow place = {},
                 std::span<const int32_t> history = {});
  // Starts a generation on row r: its repetition window gets the last
  // tokens of `history` (the prompt) and its draw counter `counter`.
  void reset(uint32_t r, std::span<const int32_t> history, uint32_t counter = 0);
  // Which row of logits row r's later steps read; its token still goes to
  // tokens[place.index]. A batch's row reads row 0 after its own prompt (one
  // sequence's pass) and its own row after a batched step.
  void read_row(uint32_t r, uint32_t logits_row);
  // The tokens row r's later steps may draw (its params.token_mask): bit
  // i % 32 of word i / 32 allows token i; ceil(vocab / 32) words.
  void set_mask(uint32_t r, std::span<const uint32_t> words);

  // One step for each of `rows` (distinct, each < rows()): bias and penalty
  // (where a row has them), mask (where it has one), the maxima of spans of
  // its logits, then one draw into its token; each window and counter
  // advances on the GPU. The rows drawing are written for the GPU when they
  // differ from the last step's: a second record for other rows into the
  // same batch is refused (Error(Internal)).
  void record(gpu::CommandBatch& batch, std::span<const uint32_t> rows);

  // The same step as dispatches a graph records once (the sampling op at an
  // LLM graph's tail, sample_tokens.cpp): its pipelines and bindings, and
  // per run the workgroups of each. draw_next() names the rows the next run
  // draws (none: it draws nothing); take_step() gives that run's workgroups
  // and forgets them, so each run draws only what was asked for it.
  static constexpr size_t kStepDispatches = 4;  // penalize, apply_mask, partial_max, sample
  std::array<const gpu::ComputePipeline*, kStepDispatches> step_pipelines() const;
  std::array<const char*, kStepDispatches> step_labels() const;
  std::vector<gpu::BufferBinding> bindings() const;
  void draw_next(std::span<const uint32_t> rows);
  std::array<gpu::WorkgroupCount, kStepDispatches> take_step();
  // Batches for tests, from row 0's logits as they are (no penalty): `count`
  // rows of `vocab` logits from its logits row on, and from each `draws`
  // draws with counters counter .. counter + draws - 1, into
  // tokens[row * draws + d]. With draws > 1 no state changes; reset() goes
  // back to steps. One row takes its maximum from the spans as a step does;
  // several rows each walk their own row.
  void record_batch(gpu::CommandBatch& batch, uint32_t count, uint32_t draws);
  // Applies row 0's bias and penalty to the logits in place (what record()
  // does first), for tests that then call record_batch().
  void record_penalty(gpu::CommandBatch& batch);

 private:
  struct Row {
    SamplingParams params;
    uint32_t window = 0;
    bool penalizing = false;  // a bias or a penalty: the penalize pass serves it
  };
  const Row& row(uint32_t r) const;
  void list_rows(const gpu::CommandBatch& batch, std::span<const uint32_t> rows);
  // Checks `rows` and writes them for the GPU when they are not its list already.
  void write_list(std::span<const uint32_t> rows);
  std::array<gpu::WorkgroupCount, kStepDispatches> step_groups(std::span<const uint32_t> rows) const;
  void make_bind_groups();  // for record() and the tests' batches, on first use

  gpu::Device& device_;
  std::vector<Row> rows_;
  std::vector<uint32_t> listed_;  // the rows the GPU's list holds now
  // A step that draws nothing: every dispatch sized to zero (skipped).
  static constexpr std::array<gpu::WorkgroupCount, kStepDispatches> kNoStep = {
      gpu::WorkgroupCount{0, 1, 1}, gpu::WorkgroupCount{0, 1, 1}, gpu::WorkgroupCount{0, 1, 1},
      gpu::WorkgroupCount{0, 1, 1}};
  std::array<gpu::WorkgroupCount, kStepDispatches> next_step_ = kNoStep;  // draw_next()'s, until taken
  uint64_t listed_for_ = 0;       // the batch (CommandBatch::serial) they were listed for
  const gpu::Buffer* logits_ = nullptr;
  const gpu::Buffer* tokens_ = nullptr;
  uint32_t spans_ = 0;  // partial_max workgroups a row: ceil(vocab / its span), 0 for none
  uint32_t vocab_ = 0;
  uint64_t mask_words_ = 0;  // a row's
  gpu::Buffer state_, ring_, params_, partials_, mask_;
  const gpu::ComputePipeline* sample_ = nullptr;
  const gpu::ComputePipeline* penalize_ = nullptr;
  const gpu::ComputePipeline* partial_max_ = nullptr;
  const gpu::ComputePipeline* apply_mask_ = nullptr;
  gpu::BindGroup sample_group_, partial_max_group_, penalize_group_, mask_group_;
};

}  // namespace wgrt::ops
