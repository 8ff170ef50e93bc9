#include "ops/sampling/gpu_sampler.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "gpu/command_batch.h"
#include "gpu/device.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr const char* kShader = "sampling/sample.wgsl";
constexpr uint32_t kSpan = 1024;  // logits per partial_max workgroup (SPAN in sample.wgsl)

struct Params {
  uint32_t vocab = 0;
  uint32_t top_k = 0;
  uint32_t window = 0;
  uint32_t seed_lo = 0;
  uint32_t seed_hi = 0;
  float temperature = 0;
  float top_p = 1;
  float log_min_p = 0;
  float penalty = 1;
  uint32_t partials = 0;
  float presence = 0;
  float frequency = 0;
  uint32_t bias_count = 0;
  uint32_t row = 0;
  uint32_t row_stride = 0;
  uint32_t out_index = 0;
};
static_assert(sizeof(Params) == 64, "must match Params in sample.wgsl");

// Whether a penalty reads the window of recent tokens.
bool penalizes(const SamplingParams& p) {
  return (p.repeat_penalty != 1.0f || p.presence_penalty != 0.0f || p.frequency_penalty != 0.0f) &&
         p.repeat_window > 0;
}

}  // namespace

void GpuSampler::validate(const SamplingParams& p, int64_t vocab) {
  auto bad = [](const std::string& what) { return Error(ErrorCode::InvalidArgument, "sampling: " + what); };
  if (!(p.temperature >= 0) || !std::isfinite(p.temperature)) {
    throw bad("temperature must be >= 0 (0 is greedy), got " + std::to_string(p.temperature));
  }
  if (p.top_k < 0 || p.top_k > vocab) {
    throw bad("top-k must be in [0, " + std::to_string(vocab) + "] (0 is off; the vocabulary has " +
              std::to_string(vocab) + " tokens), got " + std::to_string(p.top_k));
  }
  if (!(p.top_p > 0 && p.top_p <= 1)) throw bad("top-p must be in (0, 1], got " + std::to_string(p.top_p));
  if (!(p.min_p >= 0 && p.min_p <= 1)) throw bad("min-p must be in [0, 1], got " + std::to_string(p.min_p));
  if (!(p.repeat_penalty > 0) || !std::isfinite(p.repeat_penalty)) {
    throw bad("repeat penalty must be > 0 (1 is off), got " + std::to_string(p.repeat_penalty));
  }
  for (const auto& [name, value] : {std::pair{"presence", p.presence_penalty}, std::pair{"frequency", p.frequency_penalty}}) {
    if (!std::isfinite(value)) throw bad(std::string(name) + " penalty must be finite, got " + std::to_string(value));
  }
  if (p.logit_bias.size() > kMaxLogitBias) {
    throw bad("at most " + std::to_string(kMaxLogitBias) + " logit biases, got " + std::to_string(p.logit_bias.size()));
  }
  for (const auto& [token, bias] : p.logit_bias) {
    if (token < 0 || token >= vocab) {
      throw bad("logit bias for token " + std::to_string(token) + ", outside the vocabulary of " +
                std::to_string(vocab) + " tokens");
    }
    if (!std::isfinite(bias)) throw bad("logit bias for token " + std::to_string(token) + " is not finite");
  }
  if (p.repeat_window < 0 || p.repeat_window > kMaxWindow) {
    throw bad("repeat window must be in [0, " + std::to_string(kMaxWindow) + "], got " +
              std::to_string(p.repeat_window));
  }
}

void GpuSampler::prepare_pipelines(gpu::Device& device, ShaderChecks checks) {
  for (const char* entry : {"sample", "penalize", "partial_max", "apply_mask"}) {
    device.pipelines().get(kShader, entry, {}, checks);
  }
}

GpuSampler::GpuSampler(gpu::Device& device, const gpu::Buffer& logits, const gpu::Buffer& tokens, uint32_t vocab,
                       const SamplingParams& params, SamplerRow row, ShaderChecks checks)
    : device_(device), params_(params), vocab_(vocab) {
  validate(params, vocab);
  const uint64_t stride = row.stride == 0 ? vocab : row.stride;
  if (stride < vocab || logits.size() < (uint64_t(row.index) * stride + vocab) * 4 ||
      tokens.size() < (uint64_t(row.index) + 1) * 4) {
    throw Error(ErrorCode::InvalidArgument, "sampling: the logits buffer holds " + std::to_string(logits.size() / 4) +
                                                " values and the tokens buffer " + std::to_string(tokens.size() / 4) +
                                                ", too few for row " + std::to_string(row.index) + " of " +
                                                std::to_string(stride) + " (vocabulary " + std::to_string(vocab) + ")");
  }
  window_ = penalizes(params) ? uint32_t(params.repeat_window) : 0;
  penalizing_ = window_ > 0 || !params.logit_bias.empty();
  state_ = gpu::Buffer::create(device, 12, gpu::BufferKind::Storage, "sampler state");
  // The window's slots, then the logit biases as (token, bits of the bias) pairs.
  const uint64_t ring_words = window_ + 2 * params.logit_bias.size();
  ring_ = gpu::Buffer::create(device, std::max<uint64_t>(4, ring_words * 4), gpu::BufferKind::Storage,
                              "sampler window and biases");
  if (!params.logit_bias.empty()) {
    std::vector<int32_t> words;
    for (const auto& [token, bias] : params.logit_bias) {
      words.push_back(token);
      int32_t bits;
      std::memcpy(&bits, &bias, 4);
      words.push_back(bits);
    }
    ring_.write(uint64_t(window_) * 4, words.data(), words.size() * 4);
  }
  uniform_ = gpu::Buffer::create(device, sizeof(Params), gpu::BufferKind::Uniform, "sampler params");
  spans_ = (vocab + kSpan - 1) / kSpan;
  // Past one dimension of workgroups (a vocabulary of 67M), no spans: sample
  // walks the row itself (its loop when params.partials is 0).
  if (spans_ > device.limits().max_compute_workgroups_per_dimension) spans_ = 0;
  partials_ = gpu::Buffer::create(device, uint64_t(spans_) * 8, gpu::BufferKind::Storage, "sampler partial maxima");
  // Every token allowed until set_mask (a 4-byte stand-in when unmasked: the binding is always there).
  const std::vector<uint32_t> all(params.token_mask ? (uint64_t(vocab) + 31) / 32 : 1, ~0u);
  mask_ = gpu::Buffer::create(device, all.size() * 4, gpu::BufferKind::Storage, "sampler token mask");
  mask_.write(0, all.data(), all.size() * 4);
  Params u;
  u.vocab = vocab;
  u.row = row.index;
  u.row_stride = uint32_t(stride);
  u.out_index = row.index;
  u.top_k = params.top_k >= 0 && int64_t(params.top_k) < int64_t(vocab) ? uint32_t(params.top_k) : 0;
  u.window = window_;
  u.seed_lo = uint32_t(params.seed);
  u.seed_hi = uint32_t(params.seed >> 32);
  u.temperature = params.temperature;
  u.top_p = params.top_p;
  u.log_min_p = params.min_p > 0 ? std::log(params.min_p) : -3.4e38f;
  u.penalty = params.repeat_penalty;
  u.presence = params.presence_penalty;
  u.frequency = params.frequency_penalty;
  u.bias_count = uint32_t(params.logit_bias.size());
  u.partials = spans_;
  uniform_.write(0, &u, sizeof u);

  sample_ = &device.pipelines().get(kShader, "sample", {}, checks);
  penalize_ = &device.pipelines().get(kShader, "penalize", {}, checks);
  partial_max_ = &device.pipelines().get(kShader, "partial_max", {}, checks);
  if (params.token_mask) apply_mask_ = &device.pipelines().get(kShader, "apply_mask", {}, checks);
  // Every entry point has the same bindings (keep_bindings in sample.wgsl);
  // a bind group still serves only the pipeline whose layout made it.
  const gpu::BufferBinding bindings[] = {{&logits}, {&tokens},   {&state_}, {&ring_},
                                         {&uniform_}, {&partials_}, {&mask_}};
  sample_group_ = gpu::BindGroup::create(device, *sample_, bindings);
  partial_max_group_ = gpu::BindGroup::create(device, *partial_max_, bindings);
  if (penalizing_) penalize_group_ = gpu::BindGroup::create(device, *penalize_, bindings);
  if (apply_mask_) mask_group_ = gpu::BindGroup::create(device, *apply_mask_, bindings);
  reset({});
}

void GpuSampler::set_mask(std::span<const uint32_t> words) {
  const uint64_t expected = (uint64_t(vocab_) + 31) / 32;
  if (!params_.token_mask || words.size() != expected) {
    throw Error(ErrorCode::InvalidArgument,
                params_.token_mask ? "sampling: a token mask of " + std::to_string(expected) + " words (vocabulary " +
                                         std::to_string(vocab_) + "), got " + std::to_string(words.size())
                                   : std::string("sampling: set_mask on a sampler made without token_mask"));
  }
  mask_.write(0, words.data(), words.size() * 4);
}

void GpuSampler::read_row(uint32_t row) {
  const uint32_t value = row;
  uniform_.write(offsetof(Params, row), &value, sizeof value);
}

void GpuSampler::reset(std::span<const int32_t> history, uint32_t counter) {
  const size_t n = std::min<size_t>(history.size(), window_);
  const uint32_t state[3] = {counter, uint32_t(n), 1};  // draw counter, ring count, draws per step
  state_.write(0, state, sizeof state);
  if (n > 0) ring_.write(0, history.data() + (history.size() - n), n * 4);
}

void GpuSampler::record_penalty(gpu::CommandBatch& batch) const {
  if (penalizing_) batch.dispatch(*penalize_, penalize_group_, {1, 1, 1}, "sampling.penalize");
}

void GpuSampler::record(gpu::CommandBatch& batch) const {
  record_penalty(batch);
  if (apply_mask_) {
    const uint32_t groups = std::clamp<uint32_t>((vocab_ + 255) / 256, 1, device_.limits().max_compute_workgroups_per_dimension);
    batch.dispatch(*apply_mask_, mask_group_, {groups, 1, 1}, "sampling.apply_mask");
  }
  batch.dispatch(*partial_max_, partial_max_group_, {spans_, 1, 1}, "sampling.partial_max");
  batch.dispatch(*sample_, sample_group_, {1, 1, 1}, "sampling.sample");
}

void GpuSampler::record_batch(gpu::CommandBatch& batch, uint32_t rows, uint32_t draws) const {
  const uint32_t limit = device_.limits().max_compute_workgroups_per_dimension;
  if (rows == 0 || rows > limit || draws == 0) {
    throw Error(ErrorCode::InvalidArgument, "sampling: a batch needs 1 to " + std::to_string(limit) +
                                                " rows and at least one draw, got " + std::to_string(rows) +
                                                " rows of " + std::to_string(draws));
  }
  state_.write(8, &draws, 4);
  // One row reads its maximum from partial_max's spans, as a step does.
  if (rows == 1) batch.dispatch(*partial_max_, partial_max_group_, {spans_, 1, 1}, "sampling.partial_max");
  batch.dispatch(*sample_, sample_group_, {rows, 1, 1}, "sampling.batch");
}

}  // namespace wgrt::ops
