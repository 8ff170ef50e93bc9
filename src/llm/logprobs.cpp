#include "llm/logprobs.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace wgrt::llm {

TokenLogprobs token_logprobs(std::span<const float> logits, int32_t token, size_t top_n) {
  const double top_logit = *std::max_element(logits.begin(), logits.end());
  double sum = 0;
  for (float l : logits) sum += std::exp(double(l) - top_logit);
  const double log_total = top_logit + std::log(sum);  // log of the softmax's denominator
  TokenLogprobs out;
  out.logprob = float(double(logits[size_t(token)]) - log_total);
  top_n = std::min(top_n, logits.size());
  std::vector<int32_t> order(logits.size());
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(top_n), order.end(), [&](int32_t a, int32_t b) {
    return logits[size_t(a)] > logits[size_t(b)] || (logits[size_t(a)] == logits[size_t(b)] && a < b);
  });
  for (size_t i = 0; i < top_n; ++i) out.top.emplace_back(order[i], float(double(logits[size_t(order[i])]) - log_total));
  return out;
}

}  // namespace wgrt::llm
