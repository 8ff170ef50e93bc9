// The generation loop with sampling on the GPU and steps in flight, on the
// tiny ExecuTorch Llama fixture (tests/fixtures/llama, fast on lavapipe):
// greedy tokens equal the CPU sampler's whatever the number of steps in
// flight; seeded sampling repeats across runs and across K; stopping with
// steps in flight keeps only the tokens taken, and the next generation
// continues from the right position; bad options fail before anything runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <regex>

#include "gpu_test_env.h"
#include "llm/generate.h"
#include "llm/grammar.h"
#include "wgrt/json_schema.h"
#include "llm/llm_model.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

std::string llama_fixture(const std::string& name) { return std::string(WGRT_FIXTURES_DIR) + "/llama/" + name; }

class GenerateGpuTest : public test::GpuTest {
 protected:
  void SetUp() override {
    test::GpuTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    load(-1);
  }

  // The fixture model, its passes submitted every `submit_every` dispatches
  // (Tuning::submit_every; -1: once per pass).
  void load(int64_t submit_every) {
    llm::LlmLoadOptions o;
    o.path = llama_fixture("tiny_llama.pte");
    o.tokenizer_path = llama_fixture("byte_tokenizer.gguf");
    o.graph = test::load_options();
    o.graph.tuning.submit_every = submit_every;
    model_ = llm::LlmModel::load(device(), o);
  }

  std::vector<llm::TokenId> run(const llm::GenerateOptions& options, std::span<const llm::TokenId> prompt) {
    model_->reset();
    std::vector<llm::TokenId> out;
    llm::generate(*model_, prompt, options, [&](llm::TokenId id, std::string_view) {
      if (id >= 0) out.push_back(id);
      return true;
    });
    return out;
  }

  // Each step of a run from an empty cache that drew a token (its text and logprobs too).
  std::vector<llm::Generation::Step> steps(const llm::GenerateOptions& options) {
    model_->reset();
    std::vector<llm::Generation::Step> out;
    llm::Generation gen(*model_, prompt_, options);
    while (auto step = gen.next()) {
      if (step->token >= 0) out.push_back(std::move(*step));
    }
    return out;
  }

  llm::GenerateOptions options(bool gpu, int32_t in_flight, float temperature) {
    llm::GenerateOptions o;
    o.max_tokens = 12;
    o.ignore_eos = true;
    o.gpu_sampling = gpu;
    o.in_flight = in_flight;
    o.sampler.temperature = temperature;
    o.sampler.seed = 11;
    return o;
  }

  std::unique_ptr<llm::LlmModel> model_;
  const std::vector<llm::TokenId> prompt_ = {72, 101, 108, 108, 111};
};

TEST_F(GenerateGpuTest, GreedyMatchesTheCpuSamplerAtEveryDepth) {
  const auto want = run(options(false, 1, 0), prompt_);
  ASSERT_EQ(want.size(), 12u);
  for (int32_t k : {1, 2, 4, 7}) EXPECT_EQ(run(options(true, k, 0), prompt_), want) << "in flight " << k;
}

TEST_F(GenerateGpuTest, SameSeedSameTokensAcrossRunsAndDepths) {
  llm::GenerateOptions o = options(true, 4, 1.0f);
  o.sampler.top_k = 0;
  o.sampler.top_p = 1;
  o.sampler.min_p = 0;
  o.sampler.repeat_penalty = 1.3f;
  const auto a = run(o, prompt_);
  ASSERT_EQ(a.size(), 12u);
  EXPECT_EQ(run(o, prompt_), a);
  for (int32_t k : {1, 3, 6}) {
    o.in_flight = k;
    EXPECT_EQ(run(o, prompt_), a) << "in flight " << k;
  }
  o.sampler.seed = 12;
  EXPECT_NE(run(o, prompt_), a);
}

TEST_F(GenerateGpuTest, StoppingWithStepsInFlightKeepsOnlyTakenTokens) {
  const auto greedy = run(options(false, 1, 0), prompt_);
  // Stop after 3 tokens with 6 steps queued: the cache holds the prompt and
  // the 2 tokens that were fed (the third was never fed).
  model_->reset();
  llm::GenerateOptions o = options(true, 6, 0);
  llm::Generation gen(*model_, prompt_, o);
  std::vector<llm::TokenId> got;
  for (int i = 0; i < 3; ++i) got.push_back(gen.next()->token);
  gen.stop();
  EXPECT_FALSE(gen.next().has_value() && gen.next().has_value());
  EXPECT_EQ(got, std::vector<llm::TokenId>(greedy.begin(), greedy.begin() + 3));
  EXPECT_EQ(model_->cached(), int64_t(prompt_.size()) + 2);
  // Continuing from there with the third token gives the rest of the greedy run.
  std::vector<llm::TokenId> rest;
  o.max_tokens = 5;
  llm::generate(*model_, std::span(&greedy[2], 1), o, [&](llm::TokenId id, std::string_view) {
    if (id >= 0) rest.push_back(id);
    return true;
  });
  EXPECT_EQ(rest, std::vector<llm::TokenId>(greedy.begin() + 3, greedy.begin() + 8));
}

// The prompt cache (issue 33): the model records which token sits at each
// cached position, GPU-fed ones included, so a prompt that repeats the
// cache's start (a chat's next turn) runs only the rest, and sampling with a
// repeat penalty then equals a run of the whole prompt from an empty cache.
// A GBNF grammar: sampled text (temperature 1, several seeds, the random
// model's own preferences overruled) is always a sentence, and generation
// ends at the end-of-generation token once the sentence is whole.
TEST_F(GenerateGpuTest, AGrammarShapesSampledTextIntoItsSentences) {
  llm::GenerateOptions o = options(true, 4, 1.0f);
  o.max_tokens = 24;
  o.ignore_eos = false;
  o.grammar = llm::parse_gbnf("root ::= (\"yes\" | \"no\") \", \" [0-9]{2,3} \".\"\n");
  const std::regex sentence("(yes|no), [0-9]{2,3}[.]");
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    o.sampler.seed = seed;
    model_->reset();
    std::string text;
    const llm::GenerateStats stats = llm::generate(*model_, prompt_, o, [&](llm::TokenId, std::string_view piece) {
      text += piece;
      return true;
    });
    EXPECT_TRUE(std::regex_match(text, sentence)) << "seed " << seed << ": '" << text << "'";
    EXPECT_TRUE(stats.stopped_at_eos) << "seed " << seed;
  }
}

TEST_F(GenerateGpuTest, ACachedPrefixIsReusedAndSamplesAsTheWholePrompt) {
  const auto greedy = run(options(true, 4, 0), prompt_);  // tokens fed back on the GPU, 4 steps ahead
  std::vector<llm::TokenId> held = prompt_;
  held.insert(held.end(), greedy.begin(), greedy.end() - 1);  // the last token was never fed
  const auto ids = model_->cached_ids();
  EXPECT_EQ(std::vector<llm::TokenId>(ids.begin(), ids.end()), held);
  EXPECT_EQ(model_->cached_prefix(held), int64_t(held.size()) - 1);  // the last one must run
  std::vector<llm::TokenId> next(held.begin(), held.begin() + int64_t(prompt_.size()) + 5);
  next.insert(next.end(), {65, 66, 67});
  const int64_t reused = model_->cached_prefix(next);
  EXPECT_EQ(reused, int64_t(prompt_.size()) + 5);

  llm::GenerateOptions o = options(true, 4, 1.0f);
  o.sampler.top_k = 0;
  o.sampler.top_p = 1;
  o.sampler.min_p = 0;
  o.sampler.repeat_penalty = 1.5f;  // looks back over the cached prefix too
  model_->rewind(reused);
  std::vector<llm::TokenId> warm;
  llm::generate(*model_, std::span(next).subspan(size_t(reused)), o, [&](llm::TokenId id, std::string_view) {
    if (id >= 0) warm.push_back(id);
    return true;
  });
  EXPECT_EQ(warm, run(o, next));
}

// Constrained decoding samples on the GPU behind the constraint's mask (a bit
// per token, found on the host while the forward pass runs): greedy runs
// give the tokens the CPU sampler gives on the logits masked on the host,
// and the logprobs of the logits masked in place on the GPU equal those
// the CPU sampler reports, for each kind of constraint.
TEST_F(GenerateGpuTest, ConstrainedDecodingIsTheSameOnBothSamplers) {
  auto steps_of = [&](bool gpu, llm::GenerateOptions o) {
    o.gpu_sampling = gpu;
    return steps(o);
  };
  llm::GenerateOptions json = options(true, 4, 0), schema = json, grammar = json;
  json.json_object = true;
  schema.json_schema = api::parse_json_schema(R"({"type": "object", "properties": {"n": {"type": "integer"}},
                                             "required": ["n"], "additionalProperties": false})");
  grammar.grammar = llm::parse_gbnf("root ::= (\"yes\" | \"no\") \", \" [0-9]{2,3} \".\"\n");
  for (auto* o : {&json, &schema, &grammar}) {
    o->max_tokens = 16;
    o->ignore_eos = false;
    o->logprobs = 2;
  }
  for (const auto& [name, o] : {std::pair{"json_object", json}, {"json_schema", schema}, {"grammar", grammar}}) {
    SCOPED_TRACE(name);
    const auto gpu = steps_of(true, o), cpu = steps_of(false, o);
    ASSERT_FALSE(cpu.empty());
    ASSERT_EQ(gpu.size(), cpu.size());
    for (size_t i = 0; i < gpu.size(); ++i) {
      ASSERT_EQ(gpu[i].token, cpu[i].token) << "step " << i;
      ASSERT_TRUE(gpu[i].logprobs && cpu[i].logprobs);
      EXPECT_NEAR(gpu[i].logprobs->logprob, cpu[i].logprobs->logprob, 1e-5) << "step " << i;
      ASSERT_EQ(gpu[i].logprobs->top.size(), cpu[i].logprobs->top.size());
      for (size_t k = 0; k < gpu[i].logprobs->top.size(); ++k) {
        EXPECT_EQ(gpu[i].logprobs->top[k].first, cpu[i].logprobs->top[k].first) << "step " << i;
      }
    }
  }
  // A pass submitted in pieces: the draw is submitted before the next pass
  // (ahead of all of it, not only of its end).
  const auto want = steps_of(false, grammar);
  load(3);
  ASSERT_FALSE(model_->graph().submits_once());
  const auto pieces = steps_of(true, grammar);
  ASSERT_EQ(pieces.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(pieces[i].token, want[i].token) << "submitted in pieces, step " << i;
    ASSERT_TRUE(pieces[i].logprobs && want[i].logprobs);
    EXPECT_NEAR(pieces[i].logprobs->logprob, want[i].logprobs->logprob, 1e-5) << "submitted in pieces, step " << i;
  }
  // Sampled at a temperature on the GPU: the same seed gives the same text.
  grammar.sampler.temperature = 1.0f;
  grammar.logprobs = -1;
  const auto a = steps_of(true, grammar), b = steps_of(true, grammar);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].token, b[i].token) << "step " << i;
}

// Logprobs (OpenAI's): the log-softmax of the logits after the logit biases
// and the repetition, presence and frequency penalties. With GPU sampling
// they come from logits copied back after the sampler adjusted them, with the
// CPU sampler from its own; greedy runs of both give the same tokens, so the
// two must agree (and so the GPU's penalties equal the CPU's).
TEST_F(GenerateGpuTest, LogprobsAgreeBetweenTheGpuAndCpuSamplers) {
  auto logprob_run = [&](bool gpu) {
    llm::GenerateOptions o = options(gpu, 4, 0);
    o.sampler.repeat_penalty = 1.3f;
    o.sampler.presence_penalty = 0.6f;
    o.sampler.frequency_penalty = 0.35f;
    o.sampler.logit_bias = {{101, 1.5f}, {108, -2.0f}, {33, 0.75f}};
    o.logprobs = 3;
    return steps(o);
  };
  const auto gpu = logprob_run(true), cpu = logprob_run(false);
  ASSERT_EQ(gpu.size(), 12u);
  ASSERT_EQ(cpu.size(), 12u);
  for (size_t i = 0; i < gpu.size(); ++i) {
    SCOPED_TRACE("step " + std::to_string(i));
    ASSERT_EQ(gpu[i].token, cpu[i].token);
    ASSERT_TRUE(gpu[i].logprobs && cpu[i].logprobs);
    EXPECT_NEAR(gpu[i].logprobs->logprob, cpu[i].logprobs->logprob, 1e-5);
    EXPECT_LE(gpu[i].logprobs->logprob, 0.0f);
    ASSERT_EQ(gpu[i].logprobs->top.size(), 3u);
    EXPECT_EQ(gpu[i].logprobs->top[0].first, gpu[i].token);  // greedy: the likeliest
    for (size_t k = 0; k < 3; ++k) {
      EXPECT_EQ(gpu[i].logprobs->top[k].first, cpu[i].logprobs->top[k].first);
      EXPECT_NEAR(gpu[i].logprobs->top[k].second, cpu[i].logprobs->top[k].second, 1e-5);
    }
  }
}

// The CPU sampler's adjustments against the definition, on the first step:
// biases added, then for each distinct token among the last 64 (here the
// prompt) the repetition penalty, minus frequency x count and presence.
TEST_F(GenerateGpuTest, BiasAndPenaltiesFollowOpenAIsDefinition) {
  llm::GenerateOptions o = options(false, 1, 0);
  o.max_tokens = 1;
  o.sampler.repeat_penalty = 1.25f;
  o.sampler.presence_penalty = 0.5f;
  o.sampler.frequency_penalty = 0.75f;
  o.sampler.logit_bias = {{108, 2.5f}, {72, -1.0f}, {200, 3.0f}};
  o.logprobs = 6;
  std::vector<float> raw;
  o.on_logits = [&](std::span<const float> l) { raw.assign(l.begin(), l.end()); };
  model_->reset();
  llm::Generation gen(*model_, prompt_, o);
  const auto step = gen.next();
  ASSERT_TRUE(step && step->logprobs);
  raw.resize(size_t(model_->sampling_vocab()));
  std::vector<double> want(raw.begin(), raw.end());
  for (const auto& [t, b] : o.sampler.logit_bias) want[size_t(t)] += b;
  std::map<int32_t, int> counts;  // the prompt "Hello": l twice
  for (llm::TokenId t : prompt_) ++counts[t];
  for (const auto& [t, n] : counts) {
    double& l = want[size_t(t)];
    l = l > 0 ? l / 1.25 : l * 1.25;
    l -= 0.75 * n + 0.5;
  }
  const double top = *std::max_element(want.begin(), want.end());
  double sum = 0;
  for (double l : want) sum += std::exp(l - top);
  std::vector<std::pair<double, int32_t>> ranked;
  for (size_t i = 0; i < want.size(); ++i) ranked.emplace_back(-(want[i] - top - std::log(sum)), int32_t(i));
  std::sort(ranked.begin(), ranked.end());
  ASSERT_EQ(step->logprobs->top.size(), 6u);
  EXPECT_EQ(step->token, ranked[0].second);
  for (size_t k = 0; k < 6; ++k) {
    EXPECT_EQ(step->logprobs->top[k].first, ranked[k].second) << "rank " << k;
    EXPECT_NEAR(step->logprobs->top[k].second, -ranked[k].first, 1e-5) << "rank " << k;
  }
}

TEST_F(GenerateGpuTest, CancelWithStepsInFlightEndsCleanly) {
  std::atomic<bool> cancel{false};
  llm::GenerateOptions o = options(true, 8, 0.7f);
  o.cancel = &cancel;
  model_->reset();
  int seen = 0;
  const auto stats = llm::generate(*model_, prompt_, o, [&](llm::TokenId, std::string_view) {
    if (++seen == 2) cancel = true;
    return true;
  });
  EXPECT_TRUE(stats.cancelled);
  EXPECT_EQ(stats.generated_tokens, 2u);
  EXPECT_EQ(model_->cached(), int64_t(prompt_.size()) + 1);
}

TEST_F(GenerateGpuTest, BadOptionsFailBeforeAnythingRuns) {
  auto fails = [&](llm::GenerateOptions o, const char* what) {
    model_->reset();
    try {
      llm::Generation gen(*model_, prompt_, o);
      ADD_FAILURE() << "accepted bad " << what;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
    EXPECT_EQ(model_->cached(), 0);
  };
  llm::GenerateOptions o = options(true, 4, 0.8f);
  o.sampler.top_k = int32_t(model_->sampling_vocab()) + 1;
  fails(o, "top-k");
  o = options(true, 4, 0.8f);
  o.sampler.top_p = 0;
  fails(o, "top-p");
  o.sampler.top_p = 1.01f;
  fails(o, "top-p");
  o = options(true, 4, -1);
  fails(o, "temperature");
  o = options(true, 0, 0.8f);
  fails(o, "in flight");
}

}  // namespace
}  // namespace wgrt
