#include "llm/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <unordered_map>

#include "wgrt/error.h"

namespace wgrt::llm {

Sampler::Sampler(const SamplerOptions& options) : options_(options), rng_(options.seed) {
  auto bad = [](const std::string& what) { return Error(ErrorCode::InvalidArgument, "sampler: " + what); };
  if (!(options.temperature >= 0)) throw bad("temperature must be >= 0, got " + std::to_string(options.temperature));
  if (options.top_k < 0) throw bad("top-k must be >= 0, got " + std::to_string(options.top_k));
  if (!(options.top_p > 0 && options.top_p <= 1)) {
    throw bad("top-p must be in (0, 1], got " + std::to_string(options.top_p));
  }
  if (!(options.min_p >= 0 && options.min_p <= 1)) {
    throw bad("min-p must be in [0, 1], got " + std::to_string(options.min_p));
  }
  if (!(options.repeat_penalty > 0)) {
    throw bad("repeat penalty must be > 0, got " + std::to_string(options.repeat_penalty));
  }
  if (options.repeat_window < 0) throw bad("repeat window must be >= 0, got " + std::to_string(options.repeat_window));
}

std::vector<std::pair<int32_t, double>> Sampler::distribution(std::span<const float> logits,
                                                              std::span<const int32_t> history) {
  const size_t n = logits.size();
  if (n == 0) throw Error(ErrorCode::InvalidArgument, "sampler: empty logits");
  scratch_.assign(logits.begin(), logits.end());
  for (const auto& [t, bias] : options_.logit_bias) {
    if (t >= 0 && size_t(t) < n) scratch_[size_t(t)] += bias;
  }
  const bool penalties =
      options_.repeat_penalty != 1.0f || options_.presence_penalty != 0.0f || options_.frequency_penalty != 0.0f;
  if (penalties && !history.empty()) {
    const size_t window = size_t(options_.repeat_window);
    const size_t from = history.size() > window ? history.size() - window : 0;
    std::unordered_map<int32_t, int32_t> counts;
    for (size_t i = from; i < history.size(); ++i) ++counts[history[i]];
    for (const auto& [t, count] : counts) {
      if (t < 0 || size_t(t) >= n) continue;
      float& l = scratch_[t];
      l = l > 0 ? l / options_.repeat_penalty : l * options_.repeat_penalty;
      l -= options_.frequency_penalty * float(count) + options_.presence_penalty;
    }
  }
  // NaN or infinite logits (a broken model, an overflowing penalty or bias)
  // have no distribution; sorting them would break the comparisons' order.
  for (float l : scratch_) {
    if (std::isnan(l) || l == std::numeric_limits<float>::infinity()) {
      throw Error(ErrorCode::InvalidArgument,
                  "sampling found no token to draw: the logits hold NaN or infinite values (the model's weights, or "
                  "a penalty or bias that overflows)");
    }
  }
  if (options_.temperature == 0.0f) {  // the first maximum: the lowest id wins ties
    return {{int32_t(std::max_element(scratch_.begin(), scratch_.end()) - scratch_.begin()), 1.0}};
  }

  // Candidates by descending logit, then ascending id; top-k bounds how many we sort.
  const size_t k = options_.top_k > 0 ? std::min<size_t>(n, options_.top_k) : n;
  order_.resize(n);
  std::iota(order_.begin(), order_.end(), 0);
  std::partial_sort(order_.begin(), order_.begin() + k, order_.end(), [&](int32_t a, int32_t b) {
    return scratch_[a] > scratch_[b] || (scratch_[a] == scratch_[b] && a < b);
  });
  order_.resize(k);

  // Softmax at the temperature over the candidates.
  const float top = scratch_[order_[0]];
  std::vector<double>& p = weights_;
  p.resize(k);
  double sum = 0;
  for (size_t i = 0; i < k; ++i) sum += p[i] = std::exp(double(scratch_[order_[i]] - top) / options_.temperature);
  for (auto& x : p) x /= sum;

  // min-p: drop tokens below min_p times the best one's probability; top-p:
  // keep the smallest prefix whose mass reaches top_p. The first always stays.
  size_t keep = k;
  for (size_t i = 1; i < keep; ++i) {
    if (p[i] < options_.min_p * p[0]) keep = i;
  }
  double mass = 0;
  for (size_t i = 0; i < keep; ++i) {
    mass += p[i];
    if (mass >= options_.top_p) {
      keep = i + 1;
      break;
    }
  }
  double kept = 0;
  for (size_t i = 0; i < keep; ++i) kept += p[i];
  std::vector<std::pair<int32_t, double>> out(keep);
  for (size_t i = 0; i < keep; ++i) out[i] = {order_[i], p[i] / kept};
  return out;
}

int32_t Sampler::sample(std::span<const float> logits, std::span<const int32_t> history) {
  const auto dist = distribution(logits, history);
  if (dist.size() == 1) return dist[0].first;
  weights_.resize(dist.size());
  for (size_t i = 0; i < dist.size(); ++i) weights_[i] = dist[i].second;
  std::discrete_distribution<size_t> pick(weights_.begin(), weights_.end());
  return dist[pick(rng_)].first;
}

}  // namespace wgrt::llm
