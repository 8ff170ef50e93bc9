// wgrt.sample_tokens, the sampler as an op at a graph's tail: a run draws
// exactly the rows named for it (greedy rows give each row's argmax), a run
// that names none dispatches nothing and leaves the tokens, a run of the
// tail alone (ExecutableGraph::run_tail) draws from the logits the last full
// run left, and the op's state is reached by type through the graph.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <vector>

#include "gpu/command_batch.h"
#include "gpu/readback_ring.h"
#include "gpu_test_env.h"
#include "graph/executable_graph.h"
#include "host_tensors.h"
#include "ops/sampling/gpu_sampler.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

constexpr int64_t kRows = 3, kVocab = 1500, kTokens = 4;

struct TailGraph {
  std::unique_ptr<ExecutableGraph> graph;
  ValueId tokens = 0;
  size_t sample_op = 0;
};

// logits = x + x ([1, 3, 1500]), then the sampler with 3 rows over 4 tokens.
TailGraph tail_graph(gpu::Device& device) {
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {1, kRows, kVocab});
  b.mark_input(x);
  const ValueId logits = b.add_tensor(DType::F32, {1, kRows, kVocab});
  b.add_op("aten.add.Tensor", {x, x, b.add_int(1), logits});
  b.mark_output(logits);
  const ValueId tokens = b.add_state(DType::I32, {kTokens});
  b.add_op(ops::kSampleTokensOp, {logits, b.add_int(kVocab), b.add_int(kRows), tokens});
  TailGraph t;
  t.graph = ExecutableGraph::load(device, std::move(b).build(), test::load_options());
  t.tokens = tokens;
  t.sample_op = t.graph->op_index(ops::kSampleTokensOp);
  return t;
}

class SampleTokensOpTest : public test::GpuTest {
 protected:
  // Runs the graph on `x` (null: its tail alone, from the sampling op) with
  // the tokens copied out after it.
  std::vector<int32_t> run(TailGraph& t, const std::vector<float>* x) {
    gpu::ReadbackRing ring(device(), 1, kTokens * sizeof(int32_t));
    const auto copy = [&](gpu::CommandBatch& batch) { ring.record_copy(batch, t.graph->tensor_buffer(t.tokens), 0, 0); };
    if (x != nullptr) {
      ExecuteOptions options;
      options.encode_after = copy;
      options.wait = false;
      const HostTensorView in{DType::F32, {1, kRows, kVocab}, test::bytes_of(*x)};
      t.graph->run(std::vector<InputView>{in}, options);
    } else {
      t.graph->run_tail(t.sample_op, copy);
    }
    ring.request(0, t.graph->last_submission());
    std::vector<int32_t> out(kTokens);
    ring.take(0, out.data());
    return out;
  }
};

int32_t argmax_row(const std::vector<float>& x, int64_t row) {
  const auto begin = x.begin() + row * kVocab;
  return int32_t(std::max_element(begin, begin + kVocab) - begin);
}

TEST_F(SampleTokensOpTest, ARunDrawsTheRowsNamedForItAndNoOthers) {
  TailGraph t = tail_graph(device());
  auto& sampler = t.graph->op_state<ops::GpuSampler>(ops::kSampleTokensOp);
  for (uint32_t r = 0; r < kRows; ++r) {
    ops::SamplingParams greedy;
    greedy.temperature = 0;
    sampler.configure(r, greedy, ops::SamplerRow{r, uint32_t(kVocab)});
  }
  const std::vector<float> a = test::random_floats(kRows * kVocab, 3, -4.0f, 4.0f);
  const std::array<uint32_t, 2> rows = {0, 2};
  sampler.draw_next(rows);
  const std::vector<int32_t> first = run(t, &a);
  EXPECT_EQ(first[0], argmax_row(a, 0));
  EXPECT_EQ(first[2], argmax_row(a, 2));
  EXPECT_EQ(first[1], 0) << "row 1 was not named: its token stays as the state began";
  EXPECT_EQ(first[3], 0);

  // Named for one run only: the next draws nothing and dispatches nothing.
  const std::vector<float> b = test::random_floats(kRows * kVocab, 4, -4.0f, 4.0f);
  EXPECT_EQ(run(t, &b), first);
  EXPECT_EQ(t.graph->last_host_times().dispatches, 1u) << "only the add ran";

  // The tail alone draws from the logits the last full run left (2 * b): the
  // add before it does not run, though its input now holds a.
  t.graph->tensor_buffer(t.graph->graph().inputs[0]).write(0, a.data(), a.size() * sizeof(float));
  const std::array<uint32_t, 1> row1 = {1};
  sampler.draw_next(row1);
  const std::vector<int32_t> third = run(t, nullptr);
  EXPECT_EQ(third[1], argmax_row(b, 1));
  EXPECT_NE(argmax_row(a, 1), argmax_row(b, 1)) << "the two inputs must tell the runs apart";
  EXPECT_EQ(third[0], first[0]);
  EXPECT_EQ(t.graph->last_host_times().dispatches, 2u) << "the spans' maxima and the draw; no mask or penalty";
}

TEST_F(SampleTokensOpTest, TheStateIsReachedByNameAndType) {
  TailGraph t = tail_graph(device());
  EXPECT_THROW(t.graph->op_state<ops::SamplingParams>(ops::kSampleTokensOp), Error);
  try {
    t.graph->op_index("wgrt.no_such_op");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("0 ops named wgrt.no_such_op"), std::string::npos) << e.what();
  }
  auto& sampler = t.graph->op_state<ops::GpuSampler>(ops::kSampleTokensOp);
  const std::array<uint32_t, 1> bad = {kRows};
  EXPECT_THROW(sampler.draw_next(bad), Error) << "a row past the sampler's";
}

TEST(SampleTokensOpCheck, RefusesTokensThatAreNotState) {
  GraphBuilder b;
  const ValueId logits = b.add_tensor(DType::F32, {1, 2, 8});
  b.mark_input(logits);
  const ValueId tokens = b.add_tensor(DType::I32, {2});
  b.add_op(ops::kSampleTokensOp, {logits, b.add_int(8), b.add_int(2), tokens});
  b.mark_output(tokens);
  const Graph g = std::move(b).build();
  try {
    OpRegistry::builtin().check_graph(g);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("expected a state tensor"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace wgrt
