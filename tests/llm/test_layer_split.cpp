// A model split by layers across devices (llm/layer_split.h), tested on one
// adapter with a device per part: a tiny random 4-layer Q4_0 Llama split in
// two and in three gives the logits, the greedy tokens of GPU-fed decoding
// and the tokens of batched decoding that it gives on one device; the split
// balances bytes (SmolLM2's 30 layers); bad device lists are refused by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "api/api_test.h"
#include "gpu_test_env.h"
#include "llm/llm_test_helpers.h"
#include "llm/batch_generation.h"
#include "llm/default_model.h"
#include "llm/generate.h"
#include "llm/grammar.h"
#include "llm/layer_split.h"
#include "llm/llm_model.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

const std::string kModel = std::string(WGRT_FIXTURES_DIR) + "/gguf/tiny_llama4_q4_0.gguf";

class LayerSplitTest : public test::GpuTest {
 protected:
  // The model on the test device, and on `parts - 1` more devices made on
  // the same adapter.
  std::unique_ptr<llm::LlmModel> load(size_t parts, int64_t slots = 1) {
    llm::LlmLoadOptions o;
    o.path = kModel;
    o.context = 64;
    o.chunk = 16;
    o.slots = slots;
    o.graph = test::load_options();
    while (more_.size() + 1 < parts) more_.push_back(gpu::Device::create(test::device_options_from_env()));
    for (size_t i = 0; i + 1 < parts; ++i) o.more_devices.push_back(more_[i].get());
    return llm::LlmModel::load(device(), o);
  }

  static std::vector<llm::TokenId> prompt(size_t n, int32_t salt) {
    std::vector<llm::TokenId> p;
    for (size_t i = 0; i < n; ++i) p.push_back(int32_t((i * 37 + size_t(salt) * 101) % 190));
    return p;
  }

  static llm::GenerateOptions greedy(int32_t n) { return test::greedy_options(n); }

  static std::vector<llm::TokenId> generated(llm::LlmModel& model, const std::vector<llm::TokenId>& p, int32_t n) {
    return test::generate_tokens(model, p, greedy(n));
  }

  std::vector<std::unique_ptr<gpu::Device>> more_;
};

// Logits of a 20-token prompt (two chunks) and of one decode step after it.
std::vector<std::vector<float>> two_passes(llm::LlmModel& model) {
  const std::vector<llm::TokenId> p = {1, 54, 158, 82, 60, 145, 30, 16, 104, 117,
                                       191, 28, 136, 114, 53, 133, 82, 53, 179, 30};
  std::vector<std::vector<float>> out;
  const auto a = model.forward(p);
  out.emplace_back(a.begin(), a.end());
  const llm::TokenId next = 98;
  const auto b = model.forward(std::span(&next, 1));
  out.emplace_back(b.begin(), b.end());
  return out;
}

TEST_F(LayerSplitTest, SplitAcrossTwoAndThreeDevicesGivesTheLogitsOfOne) {
  auto one = load(1);
  ASSERT_EQ(one->device_count(), 1u);
  const auto want = two_passes(*one);
  const std::vector<llm::TokenId> p = prompt(12, 1);
  const std::vector<llm::TokenId> want_tokens = generated(*one, p, 10);
  // Constrained decoding: the draw goes to the last device before the next
  // pass reads its token back for the first.
  llm::GenerateOptions constrained = greedy(12);
  constrained.grammar = llm::parse_gbnf("root ::= [a-z]{3,6} \" \" [0-9]{2,4}\n");
  const std::vector<llm::TokenId> want_constrained = test::generate_tokens(*one, p, constrained);
  ASSERT_FALSE(want_constrained.empty());
  const uint64_t one_kv = one->memory_stats().state_bytes;
  one.reset();

  for (size_t parts : {2u, 3u}) {
    auto split = load(parts);
    ASSERT_EQ(split->device_count(), parts);
    const std::vector<llm::LayerRange> ranges = split->layer_split();
    ASSERT_EQ(ranges.size(), parts);
    EXPECT_EQ(ranges.front().first, 0);
    EXPECT_EQ(ranges.back().end, 4);
    for (size_t i = 1; i < parts; ++i) EXPECT_EQ(ranges[i].first, ranges[i - 1].end) << "part " << i;
    // Each device holds its layers' KV cache: together, the one device's.
    EXPECT_EQ(split->memory_stats().state_bytes, one_kv);

    const auto got = two_passes(*split);
    for (size_t pass = 0; pass < 2; ++pass) {
      ASSERT_EQ(got[pass].size(), want[pass].size());
      float worst = 0, scale = 0;
      for (size_t i = 0; i < want[pass].size(); ++i) {
        worst = std::max(worst, std::fabs(got[pass][i] - want[pass][i]));
        scale = std::max(scale, std::fabs(want[pass][i]));
      }
      // The same kernels on the same values; only how the fusion passes
      // join ops at a part's edge may round otherwise.
      EXPECT_LE(worst, 1e-4f * scale) << parts << " parts, pass " << pass;
      const auto argmax = [](const std::vector<float>& v) { return std::max_element(v.begin(), v.end()) - v.begin(); };
      EXPECT_EQ(argmax(got[pass]), argmax(want[pass])) << parts << " parts, pass " << pass;
    }
    // GPU sampling with steps in flight: each step's token comes back from
    // the last device to the first.
    EXPECT_EQ(generated(*split, p, 10), want_tokens) << parts << " parts";
    EXPECT_EQ(test::generate_tokens(*split, p, constrained), want_constrained) << parts << " parts, constrained";
  }
}

TEST_F(LayerSplitTest, BatchedDecodingOnASplitModelGivesEachRequestsTokensAlone) {
  auto one = load(1);
  std::vector<std::vector<llm::TokenId>> want;
  const std::vector<size_t> lengths = {5, 19, 2};
  const std::vector<int32_t> budgets = {7, 4, 9};
  for (size_t i = 0; i < lengths.size(); ++i) want.push_back(generated(*one, prompt(lengths[i], int32_t(i)), budgets[i]));
  one.reset();

  auto split = load(2, 4);
  llm::BatchGenerator gen(*split, 2);
  std::vector<std::vector<llm::TokenId>> got(lengths.size());
  for (size_t i = 0; i < lengths.size(); ++i) {
    llm::BatchRequest r;
    r.prompt = prompt(lengths[i], int32_t(i));
    r.options = greedy(budgets[i]);
    r.on_token = [&got, i](llm::TokenId id, std::string_view) {
      if (id >= 0) got[i].push_back(id);
      return true;
    };
    gen.add(std::move(r));
    gen.step();  // arrivals between steps
  }
  gen.run();
  for (size_t i = 0; i < lengths.size(); ++i) EXPECT_EQ(got[i], want[i]) << "request " << i;
}

TEST_F(LayerSplitTest, TheSplitBalancesBytesAndRefusesMorePartsThanLayers) {
  const gguf::GgufFile file = gguf::GgufFile::open(llm::default_model_path());
  const std::vector<llm::LayerRange> two = llm::split_layers(file, 30, 2);
  ASSERT_EQ(two.size(), 2u);
  // SmolLM2's layers are alike and its head is tied to the embeddings, which
  // both ends hold: the parts differ by at most a layer or two.
  EXPECT_NEAR(double(two[0].end), 15.0, 2.0);
  const std::vector<llm::LayerRange> thirty = llm::split_layers(file, 30, 30);
  for (int64_t i = 0; i < 30; ++i) EXPECT_EQ(thirty[size_t(i)].end - thirty[size_t(i)].first, 1) << i;
  try {
    llm::split_layers(file, 30, 31);
    FAIL() << "31 parts of 30 layers were accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("30 layers"), std::string::npos) << e.what();
  }
}

class SplitOptionsTest : public test::ApiTest {};

TEST_F(SplitOptionsTest, ARepeatedMissingOrNegativeAdapterIsRefusedByName) {
  auto refused = [&](std::vector<int> devices, ErrorCode code, const std::string& says) {
    api::LlmOptions o;
    o.path = kModel;
    o.context = 32;
    o.devices = std::move(devices);
    try {
      api::Llm::load(*runtime_, o);
      ADD_FAILURE() << "accepted; expected: " << says;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused({0, 0}, ErrorCode::InvalidArgument, "adapter 0 is named twice (entries 0 and 1)");
  refused({-1}, ErrorCode::InvalidArgument, "entry 0 is -1");
  const size_t adapters = api::list_adapters().size();
  ASSERT_GE(adapters, 1u);
  refused({int(adapters)}, ErrorCode::NotFound,
          "no GPU adapter " + std::to_string(adapters) + ": this machine has " + std::to_string(adapters));
}

TEST_F(SplitOptionsTest, TheApiSplitsOnOneAdapterForTestsAndSaysSoInTheDescription) {
  api::LlmOptions o;
  o.path = kModel;
  o.context = 32;
  o.devices = {0, 0};
  o.devices_may_repeat_for_test = true;
  api::Llm model = api::Llm::load(*runtime_, o);
  EXPECT_NE(model.description().find("layers split across 2 devices: 0-"), std::string::npos) << model.description();
  api::GenerateOptions g;
  g.max_tokens = 4;
  g.temperature = 0;
  g.ignore_eos = true;
  EXPECT_EQ(model.generate("the cat sat on the mat", g).tokens.size(), 4u);
}

}  // namespace
}  // namespace wgrt
