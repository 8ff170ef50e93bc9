// The GPU sampler (ops/sampling/) against the CPU sampler (llm::Sampler),
// which defines the distribution: greedy equals argmax (ties to the lowest
// id) on 1,000 random vectors, and in steps whose maximum comes from spans; for temperature, top-k (through ties), top-p,
// min-p, their mix, the repetition penalty and the two large-vocabulary
// paths, a chi-square test of 20,000 GPU draws against the exact CPU
// distribution; the same seed and counter give the same draws.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <vector>

#include "gpu/buffer.h"
#include "gpu/command_batch.h"
#include "gpu_test_env.h"
#include "llm/sampler.h"
#include "ops/sampling/gpu_sampler.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

using ops::GpuSampler;
using ops::SamplingParams;

constexpr uint32_t kDraws = 20000;
constexpr uint32_t kRow0[] = {0};  // a one-row sampler's step

llm::SamplerOptions cpu_options(const SamplingParams& p) {
  llm::SamplerOptions o;
  o.temperature = p.temperature;
  o.top_k = p.top_k;
  o.top_p = p.top_p;
  o.min_p = p.min_p;
  o.repeat_penalty = p.repeat_penalty;
  o.repeat_window = p.repeat_window;
  o.seed = p.seed;
  return o;
}

SamplingParams plain(float temperature) {
  SamplingParams p;
  p.temperature = temperature;
  p.top_k = 0;
  p.top_p = 1;
  p.min_p = 0;
  return p;
}

std::vector<float> random_logits(size_t n, uint64_t seed, float scale = 2.0f) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> d(0, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// P(chi-square with k degrees of freedom > x), by Wilson and Hilferty's cube-root
// normal approximation (ample for a threshold of 0.001).
double chi_square_p(double x, double k) {
  const double z = (std::cbrt(x / k) - (1 - 2 / (9 * k))) / std::sqrt(2 / (9 * k));
  return 0.5 * std::erfc(z / std::sqrt(2.0));
}

class GpuSamplerTest : public test::GpuTest {
 protected:
  // `draws` GPU draws from `logits` (after the penalty over `history`, if on).
  std::vector<int32_t> gpu_draws(const std::vector<float>& logits, const SamplingParams& params, uint32_t draws,
                                 std::span<const int32_t> history = {}, uint32_t counter = 0) {
    auto logit_buf = gpu::Buffer::create(device(), logits.size() * 4, gpu::BufferKind::Storage, "logits");
    auto out = gpu::Buffer::create(device(), uint64_t(draws) * 4, gpu::BufferKind::Storage, "draws");
    logit_buf.write(0, logits.data(), logits.size() * 4);
    GpuSampler sampler(device(), logit_buf, out, uint32_t(logits.size()));
    sampler.configure(0, params);
    sampler.reset(0, history, counter);
    gpu::CommandBatch batch(device());
    sampler.record_penalty(batch);
    sampler.record_batch(batch, 1, draws);
    batch.wait();
    return test::as_vector<int32_t>(out.read(0, uint64_t(draws) * 4));
  }

  void expect_distribution(const std::vector<float>& logits, const SamplingParams& params,
                           std::span<const int32_t> history = {}) {
    llm::Sampler cpu(cpu_options(params));
    const auto dist = cpu.distribution(logits, history);
    const auto draws = gpu_draws(logits, params, kDraws, history);
    std::map<int32_t, double> expected;
    for (const auto& [t, p] : dist) expected[t] = p * kDraws;
    std::map<int32_t, double> seen;
    for (int32_t t : draws) {
      ASSERT_TRUE(expected.count(t)) << "drew token " << t << ", which the CPU sampler gives probability 0";
      seen[t] += 1;
    }
    // Bins with fewer than 5 expected draws are pooled into one.
    double chi2 = 0, pooled_e = 0, pooled_o = 0;
    int bins = 0;
    for (const auto& [t, e] : expected) {
      const double o = seen.count(t) ? seen[t] : 0;
      if (e < 5) {
        pooled_e += e;
        pooled_o += o;
        continue;
      }
      chi2 += (o - e) * (o - e) / e;
      ++bins;
    }
    if (pooled_e > 0) {
      chi2 += (pooled_o - pooled_e) * (pooled_o - pooled_e) / pooled_e;
      ++bins;
    }
    if (bins < 2) {  // one outcome: every draw must be it (checked above)
      return;
    }
    const double p = chi_square_p(chi2, bins - 1);
    EXPECT_GT(p, 0.001) << "chi-square " << chi2 << " over " << bins << " bins (" << dist.size()
                        << " tokens possible)";
  }
};

TEST_F(GpuSamplerTest, GreedyIsArgmaxWithTiesToTheLowestId) {
  constexpr size_t kVocab = 700, kRows = 1000;
  std::vector<float> all;
  std::vector<int32_t> want;
  std::mt19937_64 rng(7);
  for (size_t v = 0; v < kRows; ++v) {
    std::vector<float> logits = random_logits(kVocab, 1000 + v);
    if (v % 3 == 0) {  // coarse values: many ties, including at the maximum
      for (auto& x : logits) x = std::round(x);
    }
    if (v % 5 == 1) {  // the maximum repeated at random places
      const float top = *std::max_element(logits.begin(), logits.end()) + 1;
      for (int r = 0; r < 3; ++r) logits[rng() % kVocab] = top;
    }
    want.push_back(int32_t(std::max_element(logits.begin(), logits.end()) - logits.begin()));
    all.insert(all.end(), logits.begin(), logits.end());
  }
  auto logit_buf = gpu::Buffer::create(device(), all.size() * 4, gpu::BufferKind::Storage, "logits");
  auto out = gpu::Buffer::create(device(), kRows * 4, gpu::BufferKind::Storage, "tokens");
  logit_buf.write(0, all.data(), all.size() * 4);
  GpuSampler sampler(device(), logit_buf, out, kVocab);
  sampler.configure(0, plain(0));
  gpu::CommandBatch batch(device());
  sampler.record_batch(batch, kRows, 1);
  batch.wait();
  const auto got = test::as_vector<int32_t>(out.read(0, kRows * 4));
  for (size_t v = 0; v < kRows; ++v) ASSERT_EQ(got[v], want[v]) << "vector " << v;
}

TEST_F(GpuSamplerTest, GreedyOverNaNOrInfiniteLogitsDrawsNoToken) {
  // NaN weights make every logit NaN; greedy then has no maximum and writes
  // no token (-1), which the host refuses, as at a temperature. One row
  // through the batch path, one as a step over spans (a vocabulary of 5,000).
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN(), kInf = std::numeric_limits<float>::infinity();
  for (const size_t vocab : {300, 5000}) {
    for (const float bad : {kNaN, kInf}) {
      std::vector<float> logits(vocab, bad == kNaN ? kNaN : 0.5f);
      logits[vocab / 3] = bad;
      auto logit_buf = gpu::Buffer::create(device(), vocab * 4, gpu::BufferKind::Storage, "logits");
      auto out = gpu::Buffer::create(device(), 4, gpu::BufferKind::Storage, "token");
      logit_buf.write(0, logits.data(), vocab * 4);
      GpuSampler sampler(device(), logit_buf, out, uint32_t(vocab));
      sampler.configure(0, plain(0));
      gpu::CommandBatch batch(device());
      if (vocab > 1000) {
        sampler.record(batch, kRow0);
      } else {
        sampler.record_batch(batch, 1, 1);
      }
      batch.wait();
      EXPECT_EQ(test::as_vector<int32_t>(out.read(0, 4))[0], -1) << "vocab " << vocab << ", " << bad;
    }
  }
}

TEST_F(GpuSamplerTest, WithTheShaderChecksOnItDrawsTheSame) {
  // WGRT_SHADER_CHECKS reaches the sampler (the model's Tuning): built with
  // wgpu's runtime checks, a step draws what the unchecked one does, at a
  // temperature with every filter and the penalty, over spans.
  const std::vector<float> logits = random_logits(5000, 21);
  SamplingParams p = plain(0.9f);
  p.top_k = 50;
  p.top_p = 0.9f;
  p.min_p = 0.02f;
  p.repeat_penalty = 1.3f;
  p.repeat_window = 16;
  p.seed = 5;
  std::vector<int32_t> draws[2];
  for (const ShaderChecks checks : {ShaderChecks::None, ShaderChecks::All}) {
    auto logit_buf = gpu::Buffer::create(device(), logits.size() * 4, gpu::BufferKind::Storage, "logits");
    auto out = gpu::Buffer::create(device(), 4, gpu::BufferKind::Storage, "token");
    GpuSampler sampler(device(), logit_buf, out, uint32_t(logits.size()), 1, checks);
    sampler.configure(0, p);
    sampler.reset(0, std::vector<int32_t>{3, 9, 27});
    for (int step = 0; step < 4; ++step) {
      logit_buf.write(0, logits.data(), logits.size() * 4);
      gpu::CommandBatch batch(device());
      sampler.record(batch, kRow0);
      batch.wait();
      draws[checks == ShaderChecks::All].push_back(test::as_vector<int32_t>(out.read(0, 4))[0]);
    }
  }
  EXPECT_EQ(draws[0], draws[1]);
  for (int32_t t : draws[1]) EXPECT_TRUE(t >= 0 && t < 5000) << t;
}

TEST_F(GpuSamplerTest, GreedyStepsWriteTheTokenAndAdvance) {
  // record(): one draw into tokens[0]; the counter and the window advance on
  // the GPU, so the penalty of the next step sees the token just drawn.
  std::vector<float> logits = random_logits(300, 12);
  SamplingParams p = plain(0);
  p.repeat_penalty = 100;
  p.repeat_window = 8;
  auto logit_buf = gpu::Buffer::create(device(), logits.size() * 4, gpu::BufferKind::Storage, "logits");
  auto out = gpu::Buffer::create(device(), 4, gpu::BufferKind::Storage, "token");
  GpuSampler sampler(device(), logit_buf, out, 300);
  sampler.configure(0, p);
  llm::Sampler cpu(cpu_options(p));
  std::vector<int32_t> history = {5, 7};
  sampler.reset(0, history);
  for (int step = 0; step < 6; ++step) {
    logit_buf.write(0, logits.data(), logits.size() * 4);  // a forward pass would rewrite them
    gpu::CommandBatch batch(device());
    sampler.record(batch, kRow0);
    batch.wait();
    const int32_t got = test::as_vector<int32_t>(out.read(0, 4))[0];
    const int32_t want = cpu.sample(logits, history);
    ASSERT_EQ(got, want) << "step " << step;
    history.push_back(got);
  }
}

TEST_F(GpuSamplerTest, GreedyStepsOverManySpansTieToTheLowestId) {
  // A step's maximum comes from partial_max's spans of 1,024 logits: a
  // vocabulary of several spans, not a multiple of one, with the maximum
  // repeated in other spans (before and after), on a span's first and last
  // logit, in the partial last span, and twice in one thread's share of a span.
  constexpr uint32_t kVocab = 5000;
  auto logit_buf = gpu::Buffer::create(device(), kVocab * 4, gpu::BufferKind::Storage, "logits");
  auto out = gpu::Buffer::create(device(), 4, gpu::BufferKind::Storage, "token");
  GpuSampler sampler(device(), logit_buf, out, kVocab);
  sampler.configure(0, plain(0));
  std::mt19937_64 rng(11);
  const std::vector<std::vector<uint32_t>> top_at = {
      {4999}, {1023, 1024}, {3072, 1024, 4096}, {4500, 4999}, {0, 2047}, {}, {2048, 2049, 1500}, {3584, 3328}};
  for (size_t c = 0; c < 40; ++c) {
    std::vector<float> logits = random_logits(kVocab, 500 + c);
    if (c % 2 == 0) {
      for (auto& x : logits) x = std::round(x);
    }
    const float top = *std::max_element(logits.begin(), logits.end()) + 1;
    for (uint32_t i : top_at[c % top_at.size()]) logits[i] = top;
    if (c >= top_at.size()) logits[rng() % kVocab] = top + 1;  // a lone maximum anywhere
    logit_buf.write(0, logits.data(), kVocab * 4);
    gpu::CommandBatch batch(device());
    sampler.record(batch, kRow0);
    batch.wait();
    const int32_t want = int32_t(std::max_element(logits.begin(), logits.end()) - logits.begin());
    ASSERT_EQ(test::as_vector<int32_t>(out.read(0, 4))[0], want) << "case " << c;
  }
}

TEST_F(GpuSamplerTest, Temperature) { expect_distribution(random_logits(300, 1), plain(0.7f)); }

TEST_F(GpuSamplerTest, TopK) {
  SamplingParams p = plain(1.0f);
  p.top_k = 20;
  expect_distribution(random_logits(300, 2), p);
}

TEST_F(GpuSamplerTest, TopKThroughTies) {
  // Logits on a coarse grid: the 17th largest is shared, so the lowest ids
  // among the tied tokens complete the top-k.
  std::vector<float> logits = random_logits(400, 3);
  for (auto& x : logits) x = std::round(x * 2) / 2;
  SamplingParams p = plain(1.5f);
  p.top_k = 17;
  expect_distribution(logits, p);
}

TEST_F(GpuSamplerTest, TopP) {
  SamplingParams p = plain(1.0f);
  p.top_p = 0.8f;
  expect_distribution(random_logits(300, 4), p);
}

TEST_F(GpuSamplerTest, MinP) {
  SamplingParams p = plain(1.0f);
  p.min_p = 0.1f;
  expect_distribution(random_logits(300, 5, 0.7f), p);  // narrow logits: dozens survive
}

TEST_F(GpuSamplerTest, AllFiltersTogether) {
  SamplingParams p = plain(0.8f);
  p.top_k = 50;
  p.top_p = 0.9f;
  p.min_p = 0.02f;
  expect_distribution(random_logits(500, 6), p);
}

TEST_F(GpuSamplerTest, RepetitionPenalty) {
  SamplingParams p = plain(1.0f);
  p.repeat_penalty = 1.8f;
  p.repeat_window = 16;
  std::vector<float> logits = random_logits(200, 7);
  // The history repeats tokens (each penalized once) and reaches past the window.
  std::vector<int32_t> history;
  std::vector<size_t> order(logits.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return logits[a] > logits[b]; });
  for (int r = 0; r < 30; ++r) history.push_back(int32_t(order[r % 12]));
  history.push_back(int32_t(order[40]));  // a negative-logit token too
  expect_distribution(logits, p, history);
}

TEST_F(GpuSamplerTest, LargeVocabularyWithoutFilters) {
  // More survivors than fit in workgroup memory: Gumbel-max over the vocabulary.
  expect_distribution(random_logits(3000, 8, 1.0f), plain(1.0f));
}

TEST_F(GpuSamplerTest, LargeVocabularyTopP) {
  // The same with top-p: its cut found by binary search over the logits' bits.
  SamplingParams p = plain(1.0f);
  p.top_p = 0.5f;
  expect_distribution(random_logits(3000, 9, 1.0f), p);
}

TEST_F(GpuSamplerTest, SameSeedSameDraws) {
  const std::vector<float> logits = random_logits(300, 10);
  SamplingParams p = plain(1.0f);
  p.seed = 42;
  const auto a = gpu_draws(logits, p, 500);
  const auto b = gpu_draws(logits, p, 500);
  EXPECT_EQ(a, b);
  // A draw depends only on (seed, counter): draws 100.. again from counter 100.
  const auto c = gpu_draws(logits, p, 400, {}, 100);
  EXPECT_TRUE(std::equal(c.begin(), c.end(), a.begin() + 100));
  p.seed = 43;
  EXPECT_NE(gpu_draws(logits, p, 500), a);
}

TEST_F(GpuSamplerTest, OnlyTheGivenVocabularyIsDrawn) {
  // Padded rows past the tokenizer's vocabulary hold the largest logits: never drawn.
  std::vector<float> logits = random_logits(256, 11);
  for (size_t i = 200; i < 256; ++i) logits[i] = 100;
  auto logit_buf = gpu::Buffer::create(device(), logits.size() * 4, gpu::BufferKind::Storage, "logits");
  auto out = gpu::Buffer::create(device(), 1000 * 4, gpu::BufferKind::Storage, "draws");
  logit_buf.write(0, logits.data(), logits.size() * 4);
  for (float t : {0.0f, 1.0f}) {
    GpuSampler sampler(device(), logit_buf, out, 200);
    sampler.configure(0, plain(t));
    gpu::CommandBatch batch(device());
    sampler.record_batch(batch, 1, 1000);
    batch.wait();
    for (int32_t id : test::as_vector<int32_t>(out.read(0, 4000))) ASSERT_LT(id, 200);
  }
}

// A token mask (constrained decoding): a step sets every logit the mask
// leaves out to -inf in place, after the penalties, and draws among the rest;
// greedy takes the largest allowed logit although larger ones are masked.
TEST_F(GpuSamplerTest, MaskedStepsDrawOnlyAllowedTokens) {
  constexpr uint32_t kVocab = 3000;  // several of partial_max's spans
  std::vector<float> logits = random_logits(kVocab, 21);
  std::vector<uint32_t> words((kVocab + 31) / 32, 0);
  std::vector<bool> allowed(kVocab);
  std::mt19937_64 rng(5);
  for (uint32_t i = 0; i < kVocab; ++i) {
    allowed[i] = rng() % 10 == 0 && i != 2999;
    if (allowed[i]) words[i / 32] |= 1u << (i % 32);
  }
  logits[2999] = 100;  // the largest logit, masked
  auto logit_buf = gpu::Buffer::create(device(), kVocab * 4, gpu::BufferKind::Storage, "logits");
  auto out = gpu::Buffer::create(device(), 4, gpu::BufferKind::Storage, "token");
  for (float t : {0.0f, 1.0f}) {
    SamplingParams p = plain(t);
    p.token_mask = true;
    GpuSampler sampler(device(), logit_buf, out, kVocab);
    sampler.configure(0, p);
    sampler.set_mask(0, words);
    for (int step = 0; step < 20; ++step) {
      logit_buf.write(0, logits.data(), kVocab * 4);
      gpu::CommandBatch batch(device());
      sampler.record(batch, kRow0);
      batch.wait();
      const int32_t got = test::as_vector<int32_t>(out.read(0, 4))[0];
      ASSERT_TRUE(got >= 0 && got < int32_t(kVocab) && allowed[size_t(got)]) << "drew " << got << " at T " << t;
      if (t == 0) {
        int32_t want = -1;
        for (uint32_t i = 0; i < kVocab; ++i) {
          if (allowed[i] && (want < 0 || logits[i] > logits[size_t(want)])) want = int32_t(i);
        }
        ASSERT_EQ(got, want);
      }
    }
    const auto masked = test::as_vector<float>(logit_buf.read(0, kVocab * 4));
    for (uint32_t i = 0; i < kVocab; ++i) {
      if (allowed[i]) {
        ASSERT_EQ(masked[i], logits[i]) << i;
      } else {
        ASSERT_EQ(masked[i], -std::numeric_limits<float>::infinity()) << i;
      }
    }
  }
  // A mask of the wrong size, or on a sampler made without one, is refused.
  SamplingParams p = plain(0);
  p.token_mask = true;
  GpuSampler masked(device(), logit_buf, out, kVocab);
  masked.configure(0, p);
  EXPECT_THROW(masked.set_mask(0, std::vector<uint32_t>(words.size() - 1, ~0u)), Error);
  GpuSampler unmasked(device(), logit_buf, out, kVocab);
  unmasked.configure(0, plain(0));
  EXPECT_THROW(unmasked.set_mask(0, words), Error);
}

// Rows of one sampler (a batch's sequences): each with its own parameters,
// seed, window, bias and mask, reading its own row of logits and writing its
// own token, drawing together in one set of dispatches. Each row's tokens
// must equal a one-row sampler's given the same logits and steps, whichever
// rows draw alongside; a row that does not draw in a step keeps its token,
// counter and window.
TEST_F(GpuSamplerTest, RowsDrawTogetherAsEachDrawsAlone) {
  constexpr uint32_t kVocab = 2500, kRows = 4;
  std::vector<SamplingParams> params(kRows, plain(0));
  params[1] = plain(0.8f);
  params[1].top_k = 40;
  params[1].seed = 7;
  params[2] = plain(1.0f);
  params[2].repeat_penalty = 1.5f;
  params[2].repeat_window = 8;
  params[2].presence_penalty = 0.5f;
  params[2].seed = 9;
  params[2].logit_bias = {{17, 6.0f}};
  params[3] = plain(0.6f);
  params[3].token_mask = true;
  params[3].top_p = 0.8f;
  params[3].seed = 11;
  std::vector<uint32_t> words((kVocab + 31) / 32, 0);
  for (uint32_t i = 0; i < kVocab; i += 7) words[i / 32] |= 1u << (i % 32);
  const std::vector<int32_t> history = {3, 17, 3, 250};
  // Which rows draw in each step (every row skips at least one).
  const std::vector<std::vector<uint32_t>> steps = {{0, 1, 2, 3}, {2, 0}, {3, 1}, {1, 2, 3}, {0}, {3, 2, 1, 0}};
  std::vector<std::vector<float>> logits(kRows);
  std::vector<float> all;
  for (uint32_t r = 0; r < kRows; ++r) {
    logits[r] = random_logits(kVocab, 300 + r);
    all.insert(all.end(), logits[r].begin(), logits[r].end());
  }

  auto logit_buf = gpu::Buffer::create(device(), all.size() * 4, gpu::BufferKind::Storage, "logits");
  auto out = gpu::Buffer::create(device(), kRows * 4, gpu::BufferKind::Storage, "tokens");
  const std::vector<int32_t> untouched(kRows, -7);
  out.write(0, untouched.data(), kRows * 4);
  GpuSampler rows(device(), logit_buf, out, kVocab, kRows);
  for (uint32_t r = 0; r < kRows; ++r) rows.configure(r, params[r], ops::SamplerRow{r, kVocab}, history);
  rows.set_mask(3, words);
  std::vector<std::vector<int32_t>> together(kRows);
  for (const auto& step : steps) {
    logit_buf.write(0, all.data(), all.size() * 4);  // a forward pass rewrites them
    gpu::CommandBatch batch(device());
    rows.record(batch, step);
    batch.wait();
    const auto got = test::as_vector<int32_t>(out.read(0, kRows * 4));
    for (uint32_t r : step) together[r].push_back(got[r]);
    if (together[0].empty()) ASSERT_EQ(got[0], -7) << "row 0 was written before it drew";
  }

  for (uint32_t r = 0; r < kRows; ++r) {
    auto one_logits = gpu::Buffer::create(device(), kVocab * 4, gpu::BufferKind::Storage, "logits");
    auto one_out = gpu::Buffer::create(device(), 4, gpu::BufferKind::Storage, "token");
    GpuSampler alone(device(), one_logits, one_out, kVocab);
    alone.configure(0, params[r], {}, history);
    if (params[r].token_mask) alone.set_mask(0, words);
    std::vector<int32_t> want;
    for (const auto& step : steps) {
      if (std::find(step.begin(), step.end(), r) == step.end()) continue;
      one_logits.write(0, logits[r].data(), kVocab * 4);
      gpu::CommandBatch batch(device());
      alone.record(batch, kRow0);
      batch.wait();
      want.push_back(test::as_vector<int32_t>(one_out.read(0, 4))[0]);
    }
    EXPECT_EQ(together[r], want) << "row " << r;
    for (int32_t t : want) EXPECT_TRUE(t >= 0 && t < int32_t(kVocab)) << "row " << r << " drew " << t;
  }
  for (int32_t t : together[3]) EXPECT_EQ(t % 7, 0) << "row 3 drew " << t << ", outside its mask";
}

TEST_F(GpuSamplerTest, RowsOutsideTheSamplerAreRefused) {
  auto logit_buf = gpu::Buffer::create(device(), 2 * 100 * 4, gpu::BufferKind::Storage, "logits");
  auto out = gpu::Buffer::create(device(), 2 * 4, gpu::BufferKind::Storage, "tokens");
  GpuSampler rows(device(), logit_buf, out, 100, 2);
  gpu::CommandBatch batch(device());
  const uint32_t third[] = {0, 2};
  EXPECT_THROW(rows.record(batch, third), Error);
  EXPECT_THROW(rows.record(batch, std::span<const uint32_t>()), Error);
  EXPECT_THROW(rows.configure(2, plain(0)), Error);
  // A place past the buffers: row 2 of the logits, element 2 of the tokens.
  EXPECT_THROW(rows.configure(1, plain(0), ops::SamplerRow{2, 100}), Error);
  EXPECT_THROW(GpuSampler(device(), logit_buf, out, 100, 0), Error);
  // One list of rows a submit: other rows into the same batch are refused,
  // the same rows again (or other rows in the next batch) are not.
  const uint32_t zero[] = {0}, one[] = {1};
  gpu::CommandBatch two_lists(device());
  rows.record(two_lists, zero);
  EXPECT_NO_THROW(rows.record(two_lists, zero));
  EXPECT_THROW(rows.record(two_lists, one), Error);
  gpu::CommandBatch next(device());
  EXPECT_NO_THROW(rows.record(next, one));
}

TEST(GpuSamplerValidate, NamesTheBadOption) {
  auto message = [](const SamplingParams& p) {
    try {
      GpuSampler::validate(p, 1000);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      return std::string(e.what());
    }
    return std::string();
  };
  SamplingParams p;
  p.top_k = 1001;
  EXPECT_NE(message(p).find("top-k"), std::string::npos);
  p = {};
  p.top_p = 0;
  EXPECT_NE(message(p).find("top-p"), std::string::npos);
  p.top_p = 1.5f;
  EXPECT_NE(message(p).find("top-p"), std::string::npos);
  p = {};
  p.temperature = -0.1f;
  EXPECT_NE(message(p).find("temperature"), std::string::npos);
  p = {};
  p.top_k = 1000;
  EXPECT_EQ(message(p), "");
}

}  // namespace
}  // namespace wgrt
