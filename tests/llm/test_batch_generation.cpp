// Continuous batching (llm/batch_generation.h) on the tiny Q4_0 GGUF Llama
// with the f32 matmul path (tests' default tuning): requests of different
// lengths arriving at different times each get exactly the greedy tokens
// they get alone on a one-slot model; a seeded sampler's tokens do not depend
// on what runs beside it; a batched step issues as many dispatches as a
// one-sequence step; a chat's next turn reuses its slot's cache; cancel and
// bad requests behave.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "gpu_test_env.h"
#include "llm/llm_test_helpers.h"
#include "llm/batch_generation.h"
#include "llm/generate.h"
#include "llm/llm_model.h"
#include "llm/grammar.h"
#include "llm/json_prefix.h"
#include "llm/json_schema.h"
#include "wgrt/json_schema.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

std::string fixture(const std::string& name) { return std::string(WGRT_FIXTURES_DIR) + "/" + name; }

constexpr int64_t kContext = 96;

class BatchGenerationTest : public test::GpuTest {
 protected:
  std::unique_ptr<llm::LlmModel> load(int64_t slots, int64_t chunk = 16) {
    llm::LlmLoadOptions o;
    o.path = fixture("gguf/tiny_llama_q4_0.gguf");
    o.context = kContext;
    o.chunk = chunk;
    o.slots = slots;
    o.graph = test::load_options();
    return llm::LlmModel::load(device(), o);
  }

  static std::vector<llm::TokenId> prompt(size_t n, int32_t salt) {
    std::vector<llm::TokenId> p;
    for (size_t i = 0; i < n; ++i) p.push_back(1 + int32_t((i * 7 + size_t(salt) * 13) % 60));
    return p;
  }

  static llm::GenerateOptions greedy(int32_t max_tokens) { return test::greedy_options(max_tokens); }

  static std::vector<llm::TokenId> alone(llm::LlmModel& model, const std::vector<llm::TokenId>& p,
                                         const llm::GenerateOptions& o) {
    return test::generate_tokens(model, p, o);
  }

  // Queues a request whose tokens land in out_[key] and whose end sets
  // stats_[key] and errors_[key]; keys count requests across generators from
  // 1 (a fresh generator's own ids, used by cancel, count from 1 too).
  uint64_t add(llm::BatchGenerator& gen, std::vector<llm::TokenId> p, llm::GenerateOptions o) {
    llm::BatchRequest r;
    r.prompt = std::move(p);
    r.options = std::move(o);
    auto* tokens = &out_;
    auto* stats = &stats_;
    auto* errors = &errors_;
    const uint64_t next = next_id_++;
    r.on_token = [tokens, next](llm::TokenId id, std::string_view) {
      if (id >= 0) (*tokens)[next].push_back(id);
      return true;
    };
    r.on_done = [stats, errors, next](const llm::GenerateStats& s, const std::string& error) {
      (*stats)[next] = s;
      (*errors)[next] = error;
    };
    gen.add(std::move(r));
    return next;
  }

  uint64_t next_id_ = 1;
  std::map<uint64_t, std::vector<llm::TokenId>> out_;
  std::map<uint64_t, llm::GenerateStats> stats_;
  std::map<uint64_t, std::string> errors_;
};

TEST_F(BatchGenerationTest, ConcurrentGreedyRequestsEqualTheirTokensAlone) {
  auto single = load(1);
  struct Req {
    size_t prompt_len;
    int32_t max_tokens;
  };
  // Prompts from 1 token to several chunks; budgets that end at different steps.
  const std::vector<Req> reqs = {{3, 9}, {40, 14}, {1, 6}, {17, 20}, {25, 4}, {8, 17}, {33, 11}, {12, 8}};
  std::vector<std::vector<llm::TokenId>> want;
  for (size_t i = 0; i < reqs.size(); ++i) {
    want.push_back(alone(*single, prompt(reqs[i].prompt_len, int32_t(i)), greedy(reqs[i].max_tokens)));
    ASSERT_EQ(want.back().size(), size_t(reqs[i].max_tokens));
  }
  single.reset();

  auto model = load(4);
  llm::BatchGenerator gen(*model, 3);
  size_t added = 0;
  auto add_next = [&](size_t n) {
    for (size_t k = 0; k < n && added < reqs.size(); ++k, ++added) {
      add(gen, prompt(reqs[added].prompt_len, int32_t(added)), greedy(reqs[added].max_tokens));
    }
  };
  // Arrivals between rounds: 3 at once, then more while those decode.
  add_next(3);
  for (int round = 0; round < 3; ++round) gen.step();
  add_next(3);
  for (int round = 0; round < 5; ++round) gen.step();
  add_next(2);
  gen.run();
  for (size_t i = 0; i < reqs.size(); ++i) {
    EXPECT_EQ(out_[i + 1], want[i]) << "request " << i;
    EXPECT_EQ(errors_[i + 1], "") << "request " << i;
    EXPECT_EQ(stats_[i + 1].generated_tokens, size_t(reqs[i].max_tokens)) << "request " << i;
  }
  EXPECT_EQ(gen.running(), 0u);
  EXPECT_EQ(gen.waiting(), 0u);
}

// A JSON object, a schema and a grammar join the batch beside unconstrained
// requests: each constrained one draws under its own mask on its own sampler
// row, and every request gets exactly its tokens alone.
TEST_F(BatchGenerationTest, ConstrainedRequestsJoinTheBatchAndEqualTheirTokensAlone) {
  std::vector<llm::GenerateOptions> opts(5, greedy(14));
  opts[0].json_object = true;
  opts[1].json_schema = api::parse_json_schema(R"({"type": "object", "properties": {"n": {"type": "integer"},
      "s": {"enum": ["ab", "cd"]}}, "required": ["n", "s"], "additionalProperties": false})");
  opts[3].grammar = llm::parse_gbnf("root ::= (\"yes\" | \"no\") \", \" [0-9]{2,3} \".\"\n");
  for (size_t i : {0, 1, 3}) opts[i].ignore_eos = false;  // a finished text ends at its EOS
  const std::vector<size_t> lens = {5, 19, 2, 11, 30};
  auto single = load(1);
  std::vector<std::vector<llm::TokenId>> want;
  for (size_t i = 0; i < opts.size(); ++i) {
    want.push_back(alone(*single, prompt(lens[i], int32_t(i)), opts[i]));
    ASSERT_FALSE(want.back().empty()) << "request " << i;
  }
  single.reset();

  auto model = load(4);
  llm::BatchGenerator gen(*model, 3);
  for (size_t i = 0; i < 3; ++i) add(gen, prompt(lens[i], int32_t(i)), opts[i]);
  for (int round = 0; round < 4; ++round) gen.step();
  for (size_t i = 3; i < opts.size(); ++i) add(gen, prompt(lens[i], int32_t(i)), opts[i]);
  gen.run();
  for (size_t i = 0; i < opts.size(); ++i) {
    EXPECT_EQ(out_[i + 1], want[i]) << "request " << i;
    EXPECT_EQ(errors_[i + 1], "") << "request " << i;
  }
  // The constrained texts are what their constraints allow, not merely equal
  // (the tokens up to an end-of-generation token).
  auto text = [&](size_t i) {
    std::vector<llm::TokenId> ids;
    for (llm::TokenId t : out_[i + 1]) {
      if (model->tokenizer().is_end_of_generation(t)) break;
      ids.push_back(t);
    }
    return model->tokenizer().decode(ids);
  };
  EXPECT_TRUE(llm::JsonObjectPrefix().accepts(text(0))) << text(0);
  EXPECT_TRUE(llm::JsonSchemaMatcher(opts[1].json_schema).accepts(text(1))) << text(1);
  EXPECT_TRUE(llm::GrammarMatcher(opts[3].grammar).accepts(text(3))) << text(3);
  EXPECT_TRUE(text(3).rfind("yes", 0) == 0 || text(3).rfind("no", 0) == 0) << text(3);
}

TEST_F(BatchGenerationTest, ASeededRequestDrawsTheSameTokensWhateverRunsBesideIt) {
  auto model = load(4);
  llm::GenerateOptions sampled = greedy(12);
  sampled.sampler.temperature = 1.0f;
  sampled.sampler.top_k = 0;
  sampled.sampler.top_p = 1;
  sampled.sampler.min_p = 0;
  sampled.sampler.repeat_penalty = 1.2f;
  sampled.sampler.seed = 7;
  {
    llm::BatchGenerator gen(*model);
    add(gen, prompt(10, 1), sampled);
    gen.run();
  }
  const std::vector<llm::TokenId> solo = out_[1];
  ASSERT_EQ(solo.size(), 12u);
  {
    llm::BatchGenerator gen(*model);
    add(gen, prompt(5, 2), greedy(20));
    gen.step();
    add(gen, prompt(10, 1), sampled);  // the same request, now beside another
    llm::GenerateOptions other = sampled;
    other.sampler.seed = 99;
    add(gen, prompt(7, 3), other);
    gen.run();
  }
  EXPECT_EQ(out_[3], solo);
  EXPECT_NE(out_[4], solo);  // another seed draws otherwise (12 draws over a 64-token vocabulary)
}

TEST_F(BatchGenerationTest, ABatchedStepIssuesAsManyDispatchesAsOneSequencesStep) {
  auto model = load(4);
  const llm::TokenId token = 5;
  model->forward(std::span(&token, 1));  // slot 0 now caches one position
  model->forward(std::span(&token, 1));
  const size_t one = model->graph().last_host_times().dispatches;
  std::vector<llm::LlmModel::BatchRow> rows;
  for (int32_t s = 0; s < 4; ++s) {
    model->select_slot(size_t(s));
    rows.push_back({int32_t(model->cached()), s});
  }
  model->submit_batch(rows, {}, {});
  device().wait_idle();
  EXPECT_EQ(model->graph().last_host_times().dispatches, one);
  EXPECT_GT(one, 0u);
}

// A round runs up to a chunk of prompt tokens, oldest prompt first: a burst
// of short prompts all run in the first round (they decode together from the
// next), while a long prompt runs a chunk a round and holds the others back
// by no more than that.
TEST_F(BatchGenerationTest, ARoundRunsAChunkOfPromptTokensOldestFirst) {
  auto cached = [](llm::LlmModel& m) {
    int64_t sum = 0;
    for (size_t s = 0; s < m.slots(); ++s) {
      m.select_slot(s);
      sum += m.cached();
    }
    return sum;
  };
  auto model = load(4, 16);
  {
    llm::BatchGenerator gen(*model, 2);
    for (int32_t i = 0; i < 4; ++i) add(gen, prompt(3, i), greedy(4));
    gen.step();
    for (size_t s = 0; s < model->slots(); ++s) {
      model->select_slot(s);
      EXPECT_GE(model->cached(), 3) << "slot " << s << " has not run its prompt in the first round";
    }
    gen.run();
  }
  for (uint64_t k = 1; k <= 4; ++k) EXPECT_EQ(out_[k].size(), 4u) << "request " << k;
  model->reset(true);
  llm::BatchGenerator gen(*model, 2);
  add(gen, prompt(40, 9), greedy(2));  // three chunks: 16, 16, 8
  for (int32_t i = 0; i < 3; ++i) add(gen, prompt(3, 10 + i), greedy(2));
  gen.step();
  EXPECT_EQ(cached(*model), 16);  // the long prompt's first chunk, nothing else
  gen.step();
  EXPECT_EQ(cached(*model), 32);
  gen.run();
  for (uint64_t k = 5; k <= 8; ++k) EXPECT_EQ(out_[k].size(), 2u) << "request " << k;
}

TEST_F(BatchGenerationTest, ATimedStepReportsTheBatchedPassKernelByKernel) {
  auto model = load(4);
  llm::BatchGenerator gen(*model, 2);
  for (int32_t i = 0; i < 3; ++i) add(gen, prompt(2, i), greedy(8));
  for (int i = 0; i < 3; ++i) gen.step();  // the prompts, then decode steps
  EXPECT_TRUE(gen.step_timings().empty());
  gen.time_next_step();
  gen.step();
  const auto& timings = gen.step_timings();
  if (!device().features().timestamp_query) {
    EXPECT_TRUE(timings.empty());  // nothing to time with; the step still ran
  } else {
    ASSERT_FALSE(timings.empty());
    auto has = [&](const std::string& label) {
      return std::any_of(timings.begin(), timings.end(), [&](const auto& t) { return t.label == label; });
    };
    EXPECT_TRUE(has("sdpa batch decode"));   // the batched attention ran, once per layer
    EXPECT_TRUE(has("sampling.sample"));     // and the samplers behind it
  }
  gen.run();
  for (uint64_t k = 1; k <= 3; ++k) EXPECT_EQ(out_[k].size(), 8u) << "request " << k;
}

TEST_F(BatchGenerationTest, AChatsNextTurnReusesItsSlotsCacheAndMatchesAColdRun) {
  auto model = load(2);
  const std::vector<llm::TokenId> first = prompt(20, 5);
  {
    llm::BatchGenerator gen(*model);
    add(gen, first, greedy(6));
    gen.run();
  }
  // The next turn: the conversation so far and more.
  std::vector<llm::TokenId> second = first;
  second.insert(second.end(), out_[1].begin(), out_[1].end());
  const std::vector<llm::TokenId> more = prompt(9, 6);
  second.insert(second.end(), more.begin(), more.end());
  {
    llm::BatchGenerator gen(*model);
    add(gen, second, greedy(7));
    gen.run();
  }
  // All of the first turn but its last token (never fed) comes from the cache.
  EXPECT_EQ(stats_[2].cached_tokens, first.size() + out_[1].size() - 1);
  auto cold = load(1);
  EXPECT_EQ(out_[2], alone(*cold, second, greedy(7)));
}

TEST_F(BatchGenerationTest, CancelEndsARunningAndAWaitingRequest) {
  auto model = load(2);
  llm::BatchGenerator gen(*model, 2);
  const uint64_t a = add(gen, prompt(4, 1), greedy(40));
  add(gen, prompt(4, 2), greedy(40));
  const uint64_t c = add(gen, prompt(4, 3), greedy(40));  // waits: two slots
  for (int round = 0; round < 4; ++round) gen.step();
  EXPECT_EQ(gen.waiting(), 1u);
  gen.cancel(c);
  gen.cancel(a);
  gen.step();
  gen.step();
  EXPECT_TRUE(stats_[a].cancelled);
  EXPECT_TRUE(stats_[c].cancelled);
  EXPECT_LT(out_[a].size(), 40u);
  EXPECT_TRUE(out_[c].empty());
  gen.run();
  EXPECT_EQ(out_[2].size(), 40u);
}

TEST_F(BatchGenerationTest, BadRequestsAreRefusedNamingWhatIsWrong) {
  auto model = load(2);
  llm::BatchGenerator gen(*model);
  auto refused = [&](std::vector<llm::TokenId> p, llm::GenerateOptions o, const std::string& what) {
    llm::BatchRequest r;
    r.prompt = std::move(p);
    r.options = std::move(o);
    try {
      gen.add(std::move(r));
      ADD_FAILURE() << "accepted; wanted a refusal naming " << what;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  refused({}, greedy(4), "empty prompt");
  refused({1, 2, 100000}, greedy(4), "prompt token 2 is id 100000");
  llm::GenerateOptions lp = greedy(4);
  lp.logprobs = 2;
  refused({1, 2}, lp, "logprobs");
  refused(prompt(size_t(kContext) + 1, 0), greedy(4), "longer than the context");
  EXPECT_EQ(gen.waiting(), 0u);
  // A failed GPU allocation while loading several slots names the KV cache's bytes.
  device().fail_nth_allocation_for_test(1);
  try {
    load(4);
    ADD_FAILURE() << "the load met no failed allocation";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::OutOfMemory);
    EXPECT_NE(std::string(e.what()).find("the KV cache of 4 sequences x 96 tokens is"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load(0), Error);
  EXPECT_THROW(load(33), Error);
  EXPECT_THROW(load(4, 2), Error);  // a batched step is one pass: the chunk must hold every slot
}

}  // namespace
}  // namespace wgrt
