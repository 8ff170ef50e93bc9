// The public C++ API (include/wgrt) on its own, as a program outside wgrt
// uses it: what it reports matches the engine underneath (adapter, limits,
// operators, dispatches), .npy files round-trip, and the LLM's generation
// options (stop strings, cancel, logits, validation before load) act as
// documented. The examples (examples/) cover the installed package.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <optional>

#include <unistd.h>

#include "api/api_test.h"
#include "gpu_test_env.h"
#include "graph/op_registry.h"
#include "wgrt/error.h"
#include "wgrt/wgrt.h"

namespace wgrt {
namespace {

std::string fixture(const std::string& name) { return std::string(WGRT_FIXTURES_DIR) + "/" + name; }

template <typename Fn>
Error error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected a wgrt::Error";
  return Error(ErrorCode::Internal, "none thrown");
}

class PublicApiTest : public test::ApiTest {};

TEST_F(PublicApiTest, RuntimeDescribesTheEnginesAdapter) {
  const api::AdapterInfo a = runtime_->adapter_info();
  EXPECT_EQ(a.name, device().adapter_info().name);
  EXPECT_EQ(a.backend, device().adapter_info().backend);
  EXPECT_EQ(a.implementation, device().implementation_version());
  EXPECT_EQ(runtime_->limits().max_buffer_size, device().limits().max_buffer_size);
  EXPECT_EQ(runtime_->limits().max_compute_workgroup_size_x, device().limits().max_compute_workgroup_size_x);
  const api::AdapterFeatures on = runtime_->features(), offered = runtime_->offered_features();
  EXPECT_TRUE(!on.shader_f16 || offered.shader_f16);
  EXPECT_TRUE(!on.timestamp_query || offered.timestamp_query);
  EXPECT_TRUE(!on.subgroups || offered.subgroups);
  EXPECT_EQ(offered.timestamp_query, device().adapter_features().timestamp_query);
}

// The process's runtime is made once: a later call asking for other limits
// or another adapter is refused by name, not handed the first one silently;
// naming the runtime's own adapter gets it.
TEST(PublicApi, TheProcessRuntimeRefusesOtherLimitsOrAnotherAdapter) {
  const api::Runtime made = api::Runtime::process_default();
  const std::vector<api::AdapterInfo> adapters = api::list_adapters();
  api::RuntimeOptions other;
  other.adapter = int(adapters.size());  // no such adapter, so not the runtime's
  const Error e = error_of([&] { api::Runtime::process_default(other); });
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(std::string(e.what()).find("cannot be made again on adapter " + std::to_string(adapters.size())),
            std::string::npos)
      << e.what();
  other = {};
  other.limits = made.limits_mode() == api::LimitsMode::Default ? api::LimitsMode::Adapter : api::LimitsMode::Default;
  EXPECT_EQ(error_of([&] { api::Runtime::process_default(other); }).code(), ErrorCode::InvalidArgument);
  size_t own = 0;
  for (size_t i = 0; i < adapters.size(); ++i) {
    if (adapters[i].name != made.adapter_info().name || adapters[i].backend != made.adapter_info().backend) continue;
    other = {};
    other.limits = made.limits_mode();
    other.adapter = int(i);
    EXPECT_EQ(api::Runtime::process_default(other).adapter_info().name, made.adapter_info().name);
    ++own;
  }
  EXPECT_GE(own, 1u) << "the runtime's adapter is among those listed";
}

TEST(PublicApi, SupportedOperatorsAreTheRegistrysSorted) {
  const std::vector<api::OperatorInfo> ops = api::supported_operators();
  ASSERT_EQ(ops.size(), OpRegistry::builtin().names().size());
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.name < b.name; }));
  const auto add = std::find_if(ops.begin(), ops.end(), [](const auto& o) { return o.name == "aten.add.Tensor"; });
  ASSERT_NE(add, ops.end());
  EXPECT_EQ(add->dtypes, OpRegistry::builtin().find("aten.add.Tensor")->dtypes);
  EXPECT_FALSE(add->dtypes.empty());
}

TEST(PublicApi, NpyRoundTripsAndBadFilesAreNamed) {
  const auto dir = std::filesystem::temp_directory_path() / ("wgrt_api_npy_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::vector<float> values = {1.5f, -2.0f, 0.0f, 3.25f, 1e-7f, -0.5f};
  const api::Tensor t(DType::F32, {2, 3},
                      std::span(reinterpret_cast<const uint8_t*>(values.data()), values.size() * sizeof(float)));
  const std::string path = (dir / "t.npy").string();
  api::write_npy(path, t);
  const api::Tensor back = api::read_npy(path);
  EXPECT_EQ(back.dtype(), DType::F32);
  EXPECT_EQ(back.shape(), (std::vector<int64_t>{2, 3}));
  const auto got = back.values<float>();
  EXPECT_TRUE(std::equal(got.begin(), got.end(), values.begin(), values.end()));

  EXPECT_EQ(error_of([&] { api::read_npy((dir / "missing.npy").string()); }).code(), ErrorCode::NotFound);
  const std::string junk = (dir / "junk.npy").string();
  std::ofstream(junk) << "not numpy";
  const Error e = error_of([&] { api::read_npy(junk); });
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(std::string(e.what()).find(junk), std::string::npos) << e.what();
  std::filesystem::remove_all(dir);
}

TEST_F(PublicApiTest, MethodCountsAndTimesItsDispatches) {
  const api::Program program = api::Program::load(*runtime_, fixture("pte/mlp.pte"));
  api::Method method = program.method("forward");
  std::vector<api::Tensor> inputs;
  for (const api::TensorInfo& info : method.inputs()) inputs.emplace_back(info.dtype, info.max_shape);
  ASSERT_GT(method.dispatch_count(), 0u);
  method.run(inputs);
  EXPECT_TRUE(method.last_dispatch_times().empty());  // not timed
  api::RunOptions timed;
  timed.time_dispatches = true;
  method.run(inputs, timed);
  const std::vector<api::DispatchTime> times = method.last_dispatch_times();
  if (!runtime_->features().timestamp_query) {
    EXPECT_TRUE(times.empty());
    return;
  }
  // mlp's three linears each record a GEMV and a GEMM; at 4 rows only the GEMMs run.
  ASSERT_GT(times.size(), 0u);
  ASSERT_LT(times.size(), method.dispatch_count());
  for (const api::DispatchTime& t : times) {
    EXPECT_FALSE(t.label.empty());
    EXPECT_GE(t.ms, 0.0);
  }
}

// describe_program against the fixtures' manifests (tools/export wrote them
// from ExecuTorch's own view of each program).
TEST(PublicApi, DescribeProgramMatchesTheFixtureManifests) {
  const api::ProgramInfo mlp = api::describe_program(fixture("pte/mlp.pte"));
  ASSERT_EQ(mlp.methods.size(), 1u);
  EXPECT_EQ(mlp.methods[0].name, "forward");
  EXPECT_TRUE(mlp.missing_named_data.empty());
  EXPECT_TRUE(mlp.methods[0].cpu_kernels.empty());
  EXPECT_EQ(mlp.methods[0].delegates, 1u);
  ASSERT_FALSE(mlp.methods[0].operators.empty());
  for (const api::OperatorUse& op : mlp.methods[0].operators) {
    EXPECT_TRUE(op.supported) << op.name;
    EXPECT_GT(op.count, 0) << op.name;
  }
  ASSERT_EQ(mlp.methods[0].inputs.size(), 1u);
  EXPECT_EQ(mlp.methods[0].inputs[0].kind, "Tensor");

  // Without its .ptd: described, with the missing keys listed; with it, none.
  const api::ProgramInfo bare = api::describe_program(fixture("pte/external_weights.pte"));
  EXPECT_FALSE(bare.missing_named_data.empty());
  const api::ProgramInfo full =
      api::describe_program(fixture("pte/external_weights.pte"), fixture("pte/external_weights.ptd"));
  EXPECT_TRUE(full.missing_named_data.empty());

  const api::ProgramInfo partial = api::describe_program(fixture("pte/partial_cpu.pte"));
  ASSERT_FALSE(partial.methods.empty());
  EXPECT_FALSE(partial.methods[0].cpu_kernels.empty());

  EXPECT_EQ(error_of([] { api::describe_program(fixture("pte/no_such.pte")); }).code(), ErrorCode::NotFound);
}

// The tiny ExecuTorch Llama (fast on lavapipe) with its byte tokenizer.
class PublicLlmTest : public PublicApiTest {
 protected:
  api::LlmOptions options() const {
    api::LlmOptions o;
    o.path = fixture("llama/tiny_llama.pte");
    o.tokenizer_path = fixture("llama/byte_tokenizer.gguf");
    return o;
  }
  static api::GenerateOptions greedy(int32_t n) {
    api::GenerateOptions g;
    g.max_tokens = n;
    g.temperature = 0;
    g.ignore_eos = true;
    return g;
  }
  const std::vector<int32_t> prompt_ = {72, 101, 108, 108, 111};
};

TEST_F(PublicLlmTest, BadOptionsFailBeforeLoadingAndTopKIsCheckedAgainstTheVocabulary) {
  api::GenerateOptions bad = greedy(4);
  bad.temperature = -1;
  EXPECT_EQ(error_of([&] { api::validate(bad); }).code(), ErrorCode::InvalidArgument);
  bad = greedy(4);
  bad.top_k = 1 << 30;
  api::validate(bad);  // no vocabulary yet: fine
  api::LlmOptions o = options();
  o.check = bad;
  const uint64_t live = runtime_->live_buffer_bytes();
  const Error e = error_of([&] { api::Llm::load(*runtime_, o); });
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(std::string(e.what()).find("top"), std::string::npos) << e.what();
  EXPECT_EQ(runtime_->live_buffer_bytes(), live);  // nothing was left on the GPU
}

TEST_F(PublicLlmTest, StopStringsCancelAndLogitsActAsDocumented) {
  api::Llm llm = api::Llm::load(*runtime_, options());
  EXPECT_EQ(llm.path(), options().path);
  EXPECT_FALSE(llm.description().empty());
  EXPECT_TRUE(llm.can_sample_on_gpu());

  const api::GenerateResult full = llm.generate(std::span<const int32_t>(prompt_), greedy(12));
  ASSERT_EQ(full.tokens.size(), 12u);
  EXPECT_EQ(full.text, llm.detokenize(full.tokens));
  EXPECT_GT(full.prompt_seconds, 0.0);
  EXPECT_FALSE(full.stopped_at_stop_string);

  // A stop string taken from the middle of that text: the same generation
  // ends before it, and it is not part of the text.
  ASSERT_GE(full.text.size(), 6u);
  api::GenerateOptions stop = greedy(12);
  stop.stop = {full.text.substr(3, 2)};
  const size_t at = full.text.find(stop.stop[0]);
  llm.reset();
  const api::GenerateResult stopped = llm.generate(std::span<const int32_t>(prompt_), stop);
  EXPECT_TRUE(stopped.stopped_at_stop_string);
  EXPECT_EQ(stopped.text, full.text.substr(0, at));

  // The logits each token came from: one vector per token, and (greedy)
  // each token is its vector's largest entry.
  api::GenerateOptions with_logits = greedy(5);
  std::vector<int32_t> argmax;
  with_logits.on_logits = [&](std::span<const float> logits) {
    argmax.push_back(int32_t(std::max_element(logits.begin(), logits.end()) - logits.begin()));
  };
  llm.reset();
  const api::GenerateResult logged = llm.generate(std::span<const int32_t>(prompt_), with_logits);
  EXPECT_EQ(argmax, logged.tokens);
  EXPECT_EQ(std::vector<int32_t>(full.tokens.begin(), full.tokens.begin() + 5), logged.tokens);

  // Cancelled before the first token: nothing is generated, and it says so.
  std::atomic<bool> cancel{true};
  api::GenerateOptions cancelled = greedy(12);
  cancelled.cancel = &cancel;
  llm.reset();
  const api::GenerateResult none = llm.generate(std::span<const int32_t>(prompt_), cancelled);
  EXPECT_TRUE(none.cancelled);
  EXPECT_TRUE(none.tokens.empty());
}

// The pull-style Generation gives the tokens and text generate() gives;
// forward() gives the logits the first greedy token comes from.
TEST_F(PublicLlmTest, GenerationStepsAndForwardAgreeWithGenerate) {
  api::Llm llm = api::Llm::load(*runtime_, options());
  const api::GenerateResult want = llm.generate(std::span<const int32_t>(prompt_), greedy(8));
  ASSERT_EQ(want.tokens.size(), 8u);

  llm.reset();
  std::vector<int32_t> tokens;
  std::string text;
  {
    api::Generation g(llm, prompt_, greedy(8));
    while (std::optional<api::GenerationStep> step = g.next()) {
      if (step->token >= 0) tokens.push_back(step->token);
      text += step->text;
    }
    EXPECT_EQ(g.stats().generated_tokens, 8u);
    EXPECT_EQ(g.stats().prompt_tokens, prompt_.size());
  }
  EXPECT_EQ(tokens, want.tokens);
  EXPECT_EQ(text, want.text);

  llm.reset();
  const std::vector<float> logits = llm.forward(prompt_);
  ASSERT_EQ(logits.size(), llm.vocab_size());
  EXPECT_EQ(int32_t(std::max_element(logits.begin(), logits.end()) - logits.begin()), want.tokens[0]);
  EXPECT_EQ(llm.cached_tokens(), int64_t(prompt_.size()));

  api::GenerateOptions bad = greedy(8);
  bad.in_flight = 0;
  EXPECT_EQ(error_of([&] { api::Generation g(llm, prompt_, bad); }).code(), ErrorCode::InvalidArgument);
}

}  // namespace
}  // namespace wgrt
