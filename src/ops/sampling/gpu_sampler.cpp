#include "ops/sampling/gpu_sampler.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <string>
#include <utility>
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
  uint32_t state_at = 0;
  uint32_t ring_at = 0;
  uint32_t mask_at = 0;
  uint32_t partials_at = 0;
  uint32_t masked = 0;
  uint32_t pad[3] = {};
};
static_assert(sizeof(Params) == 96, "must match Params in sample.wgsl");

// Per sampler row: state words (counter, ring count, draws per step, spare)
// and ring words (the largest window, then the largest bias list as pairs).
constexpr uint32_t kStateWords = 4;
constexpr uint64_t kRingWords = uint64_t(GpuSampler::kMaxWindow) + 2 * GpuSampler::kMaxLogitBias;

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


GpuSampler::GpuSampler(gpu::Device& device, const gpu::Buffer& logits, const gpu::Buffer& tokens, uint32_t vocab,
                       uint32_t rows, ShaderChecks checks)
    : device_(device), rows_(rows), logits_(&logits), tokens_(&tokens), vocab_(vocab) {
  if (rows == 0 || vocab == 0) {
    throw Error(ErrorCode::InvalidArgument, "sampling: a sampler needs at least one row and one token, got " +
                                                std::to_string(rows) + " rows of " + std::to_string(vocab));
  }
  spans_ = (vocab + kSpan - 1) / kSpan;
  // Past one dimension of workgroups (a vocabulary of 67M), no spans: sample
  // walks the row itself (its loop when params.partials is 0).
  if (spans_ > device.limits().max_compute_workgroups_per_dimension) spans_ = 0;
  mask_words_ = (uint64_t(vocab) + 31) / 32;
  // The state buffer starts with the list of rows a dispatch serves (one
  // word a row), then each row's state.
  state_ = gpu::Buffer::create(device, uint64_t(rows) * (1 + kStateWords) * 4, gpu::BufferKind::Storage,
                               "sampler state");
  ring_ = gpu::Buffer::create(device, rows * kRingWords * 4, gpu::BufferKind::Storage, "sampler windows and biases");
  params_ = gpu::Buffer::create(device, uint64_t(rows) * sizeof(Params), gpu::BufferKind::Storage, "sampler params");
  partials_ = gpu::Buffer::create(device, std::max<uint64_t>(8, uint64_t(rows) * spans_ * 8), gpu::BufferKind::Storage,
                                  "sampler partial maxima");
  mask_ = gpu::Buffer::create(device, rows * mask_words_ * 4, gpu::BufferKind::Storage, "sampler token masks");

  sample_ = &device.pipelines().get(kShader, "sample", {}, checks);
  penalize_ = &device.pipelines().get(kShader, "penalize", {}, checks);
  partial_max_ = &device.pipelines().get(kShader, "partial_max", {}, checks);
  apply_mask_ = &device.pipelines().get(kShader, "apply_mask", {}, checks);
  SamplingParams greedy;
  greedy.temperature = 0;
  for (uint32_t r = 0; r < rows; ++r) configure(r, greedy, SamplerRow{r, 0});
}

const GpuSampler::Row& GpuSampler::row(uint32_t r) const {
  if (r >= rows_.size()) {
    throw Error(ErrorCode::InvalidArgument, "sampling: row " + std::to_string(r) + " of a sampler of " +
                                                std::to_string(rows_.size()) + " rows");
  }
  return rows_[r];
}

void GpuSampler::configure(uint32_t r, const SamplingParams& params, SamplerRow place,
                           std::span<const int32_t> history) {
  row(r);
  validate(params, vocab_);
  const uint64_t stride = place.stride == 0 ? vocab_ : place.stride;
  if (stride < vocab_ || logits_->size() < (uint64_t(place.index) * stride + vocab_) * 4 ||
      tokens_->size() < (uint64_t(place.index) + 1) * 4) {
    throw Error(ErrorCode::InvalidArgument, "sampling: the logits buffer holds " + std::to_string(logits_->size() / 4) +
                                                " values and the tokens buffer " + std::to_string(tokens_->size() / 4) +
                                                ", too few for row " + std::to_string(place.index) + " of " +
                                                std::to_string(stride) + " (vocabulary " + std::to_string(vocab_) + ")");
  }
  Row& rw = rows_[r];
  rw.params = params;
  rw.window = penalizes(params) ? uint32_t(params.repeat_window) : 0;
  rw.penalizing = rw.window > 0 || !params.logit_bias.empty();
  if (!params.logit_bias.empty()) {
    std::vector<int32_t> words;
    for (const auto& [token, bias] : params.logit_bias) {
      words.push_back(token);
      int32_t bits;
      std::memcpy(&bits, &bias, 4);
      words.push_back(bits);
    }
    ring_.write((r * kRingWords + rw.window) * 4, words.data(), words.size() * 4);
  }
  if (params.token_mask) {
    // Every token allowed until set_mask.
    const std::vector<uint32_t> all(mask_words_, ~0u);
    mask_.write(r * mask_words_ * 4, all.data(), all.size() * 4);
  }
  Params u;
  u.vocab = vocab_;
  u.row = place.index;
  u.row_stride = uint32_t(stride);
  u.out_index = place.index;
  u.top_k = params.top_k >= 0 && int64_t(params.top_k) < int64_t(vocab_) ? uint32_t(params.top_k) : 0;
  u.window = rw.window;
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
  u.state_at = uint32_t(rows_.size() + r * kStateWords);
  u.ring_at = uint32_t(r * kRingWords);
  u.mask_at = uint32_t(r * mask_words_);
  u.partials_at = r * spans_;
  u.masked = params.token_mask ? 1 : 0;
  params_.write(r * sizeof(Params), &u, sizeof u);
  reset(r, history);
}

void GpuSampler::set_mask(uint32_t r, std::span<const uint32_t> words) {
  const bool masked = row(r).params.token_mask;
  if (!masked || words.size() != mask_words_) {
    throw Error(ErrorCode::InvalidArgument,
                masked ? "sampling: a token mask of " + std::to_string(mask_words_) + " words (vocabulary " +
                             std::to_string(vocab_) + "), got " + std::to_string(words.size())
                       : std::string("sampling: set_mask on a sampler row made without token_mask"));
  }
  mask_.write(r * mask_words_ * 4, words.data(), words.size() * 4);
}

void GpuSampler::read_row(uint32_t r, uint32_t logits_row) {
  row(r);
  params_.write(r * sizeof(Params) + offsetof(Params, row), &logits_row, sizeof logits_row);
}

void GpuSampler::reset(uint32_t r, std::span<const int32_t> history, uint32_t counter) {
  const uint32_t window = row(r).window;
  const size_t n = std::min<size_t>(history.size(), window);
  const uint32_t state[3] = {counter, uint32_t(n), 1};  // draw counter, ring count, draws per step
  state_.write((rows_.size() + r * kStateWords) * 4, state, sizeof state);
  if (n > 0) ring_.write(r * kRingWords * 4, history.data() + (history.size() - n), n * 4);
}

void GpuSampler::make_bind_groups() {
  if (sample_group_.raw() != nullptr) return;
  // Every entry point has the same bindings (keep_bindings in sample.wgsl);
  // a bind group still serves only the pipeline whose layout made it.
  const std::vector<gpu::BufferBinding> b = bindings();
  sample_group_ = gpu::BindGroup::create(device_, *sample_, b);
  partial_max_group_ = gpu::BindGroup::create(device_, *partial_max_, b);
  penalize_group_ = gpu::BindGroup::create(device_, *penalize_, b);
  mask_group_ = gpu::BindGroup::create(device_, *apply_mask_, b);
}

std::vector<gpu::BufferBinding> GpuSampler::bindings() const {
  return {{logits_}, {tokens_}, {&state_}, {&ring_}, {&params_}, {&partials_}, {&mask_}};
}

std::array<const gpu::ComputePipeline*, GpuSampler::kStepDispatches> GpuSampler::step_pipelines() const {
  return {penalize_, apply_mask_, partial_max_, sample_};
}

std::array<const char*, GpuSampler::kStepDispatches> GpuSampler::step_labels() const {
  return {"sampling.penalize", "sampling.apply_mask", "sampling.partial_max", "sampling.sample"};
}

void GpuSampler::write_list(std::span<const uint32_t> rows) {
  if (rows.empty() || rows.size() > rows_.size()) {
    throw Error(ErrorCode::InvalidArgument, "sampling: a step for 1 to " + std::to_string(rows_.size()) +
                                                " rows, got " + std::to_string(rows.size()));
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    row(rows[i]);
    if (std::find(rows.begin(), rows.begin() + i, rows[i]) != rows.begin() + i) {
      throw Error(ErrorCode::InvalidArgument, "sampling: row " + std::to_string(rows[i]) + " listed twice in a step");
    }
  }
  if (std::equal(rows.begin(), rows.end(), listed_.begin(), listed_.end())) return;
  state_.write(0, rows.data(), rows.size() * 4);
  listed_.assign(rows.begin(), rows.end());
}

void GpuSampler::list_rows(const gpu::CommandBatch& batch, std::span<const uint32_t> rows) {
  const bool same = std::equal(rows.begin(), rows.end(), listed_.begin(), listed_.end());
  // The list is one buffer, written ahead of the submit: a second list in
  // the same batch would overwrite the first one's before either runs.
  if (!same && batch.serial() == listed_for_) {
    throw Error(ErrorCode::Internal, "sampling: two steps for different rows recorded into one submit");
  }
  write_list(rows);
  listed_for_ = batch.serial();
}

void GpuSampler::draw_next(std::span<const uint32_t> rows) {
  if (rows.empty()) {
    next_step_ = kNoStep;
    return;
  }
  write_list(rows);
  next_step_ = step_groups(rows);
}

std::array<gpu::WorkgroupCount, GpuSampler::kStepDispatches> GpuSampler::take_step() {
  return std::exchange(next_step_, kNoStep);
}

// Rows without a penalty or a mask pass through those dispatches at once; a
// step with none of either skips them.
std::array<gpu::WorkgroupCount, GpuSampler::kStepDispatches> GpuSampler::step_groups(
    std::span<const uint32_t> rows) const {
  const uint32_t n = uint32_t(rows.size());
  bool penalizing = false, masked = false;
  for (uint32_t r : rows) {
    penalizing = penalizing || rows_[r].penalizing;
    masked = masked || rows_[r].params.token_mask;
  }
  const uint32_t mask_groups =
      std::clamp<uint32_t>((vocab_ + 255) / 256, 1, device_.limits().max_compute_workgroups_per_dimension);
  return {gpu::WorkgroupCount{penalizing ? 1u : 0u, n, 1}, gpu::WorkgroupCount{masked ? mask_groups : 0u, n, 1},
          gpu::WorkgroupCount{spans_, n, 1}, gpu::WorkgroupCount{1, n, 1}};
}

void GpuSampler::record_penalty(gpu::CommandBatch& batch) {
  const uint32_t first = 0;
  list_rows(batch, std::span(&first, 1));
  make_bind_groups();
  if (rows_[0].penalizing) batch.dispatch(*penalize_, penalize_group_, {1, 1, 1}, "sampling.penalize");
}

void GpuSampler::record(gpu::CommandBatch& batch, std::span<const uint32_t> rows) {
  list_rows(batch, rows);
  make_bind_groups();
  const auto groups = step_groups(rows);
  const gpu::BindGroup* bind[] = {&penalize_group_, &mask_group_, &partial_max_group_, &sample_group_};
  const auto pipelines = step_pipelines();
  const auto labels = step_labels();
  for (size_t k = 0; k < kStepDispatches; ++k) {
    if (groups[k].x > 0) batch.dispatch(*pipelines[k], *bind[k], groups[k], labels[k]);
  }
}

void GpuSampler::record_batch(gpu::CommandBatch& batch, uint32_t count, uint32_t draws) {
  const uint32_t limit = device_.limits().max_compute_workgroups_per_dimension;
  if (count == 0 || count > limit || draws == 0) {
    throw Error(ErrorCode::InvalidArgument, "sampling: a batch needs 1 to " + std::to_string(limit) +
                                                " rows and at least one draw, got " + std::to_string(count) +
                                                " rows of " + std::to_string(draws));
  }
  const uint32_t first = 0;
  list_rows(batch, std::span(&first, 1));
  make_bind_groups();
  state_.write((rows_.size() + 2) * 4, &draws, 4);
  // One row reads its maximum from partial_max's spans, as a step does.
  if (count == 1 && spans_ > 0) batch.dispatch(*partial_max_, partial_max_group_, {spans_, 1, 1}, "sampling.partial_max");
  batch.dispatch(*sample_, sample_group_, {count, 1, 1}, "sampling.batch");
}

}  // namespace wgrt::ops
