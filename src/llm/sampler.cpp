#include "llm/sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <unordered_set>

#include "wgrt/error.h"

namespace wgrt::llm {

Sampler::Sampler(const SamplerOptions& options) : options_(options), rng_(options.seed) {
  if (options.temperature < 0 || options.top_k < 0 || options.top_p <= 0 || options.top_p > 1 || options.min_p < 0 ||
      options.min_p > 1 || options.repeat_penalty <= 0) {
    throw Error(ErrorCode::InvalidArgument,
                "sampler: need temperature >= 0, top_k >= 0, 0 < top_p <= 1, 0 <= min_p <= 1, repeat_penalty > 0");
  }
}

int32_t Sampler::sample(std::span<const float> logits, std::span<const int32_t> history) {
  const size_t n = logits.size();
  if (n == 0) throw Error(ErrorCode::InvalidArgument, "sampler: empty logits");
  scratch_.assign(logits.begin(), logits.end());

  if (options_.repeat_penalty != 1.0f && !history.empty()) {
    const size_t from = history.size() > size_t(options_.repeat_window) ? history.size() - options_.repeat_window : 0;
    std::unordered_set<int32_t> seen(history.begin() + from, history.end());
    for (int32_t t : seen) {
      if (t < 0 || size_t(t) >= n) continue;
      float& l = scratch_[t];
      l = l > 0 ? l / options_.repeat_penalty : l * options_.repeat_penalty;
    }
  }
  if (options_.temperature == 0.0f) {
    return int32_t(std::max_element(scratch_.begin(), scratch_.end()) - scratch_.begin());
  }

  // Candidates by descending logit; top-k bounds how many we sort.
  const size_t k = options_.top_k > 0 ? std::min<size_t>(n, options_.top_k) : n;
  order_.resize(n);
  std::iota(order_.begin(), order_.end(), 0);
  std::partial_sort(order_.begin(), order_.begin() + k, order_.end(),
                    [&](int32_t a, int32_t b) { return scratch_[a] > scratch_[b]; });
  order_.resize(k);

  // Softmax at the temperature over the candidates.
  const float top = scratch_[order_[0]];
  std::vector<double> p(k);
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
  std::discrete_distribution<size_t> pick(p.begin(), p.begin() + keep);
  return order_[pick(rng_)];
}

}  // namespace wgrt::llm
