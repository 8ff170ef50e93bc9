// Bad graphs and bad inputs: each a clear error, and the graph still runs.
#include <gtest/gtest.h>

#include <limits>

#include "gpu_test_env.h"
#include "graph/executable_graph.h"
#include "host_tensors.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

// Expects `fn` to throw wgrt::Error with `code` and every fragment in its message.
template <typename Fn>
void expect_error(Fn&& fn, ErrorCode code, std::initializer_list<const char*> fragments) {
  try {
    fn();
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    for (const char* f : fragments) EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
  }
}

Graph relu_graph() {
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {8, 4});
  b.mark_input(x);
  const ValueId y = b.add_tensor(DType::F32, {8, 4});
  b.add_op("aten.relu.default", {x, y});
  b.mark_output(y);
  return std::move(b).build();
}

class GraphErrorTest : public test::GpuTest {
 protected:
  void expect_runs(ExecutableGraph& g) {
    std::vector<float> x(32);
    for (int i = 0; i < 32; ++i) x[i] = float(i - 16);
    const HostTensorView in[] = {test::f32_view(x, {8, 4})};
    const auto y = test::floats(g.execute(in)[0]);
    for (int i = 0; i < 32; ++i) ASSERT_EQ(y[i], std::max(0.0f, x[i]));
  }
};

TEST_F(GraphErrorTest, BadInputsAreClearAndLeaveTheGraphRunnable) {
  auto g = ExecutableGraph::load(device(), relu_graph(), test::load_options());
  expect_runs(*g);
  const std::vector<float> x(32, 1.0f);
  const std::vector<int32_t> xi(32, 1);
  const HostTensorView wrong_dtype[] = {
      {DType::I32, {8, 4}, std::span(reinterpret_cast<const uint8_t*>(xi.data()), 128)}};
  expect_error([&] { g->execute(wrong_dtype); }, ErrorCode::InvalidArgument, {"input 0", "expected dtype f32", "got i32"});
  const HostTensorView wrong_rank[] = {test::f32_view(x, {32})};
  expect_error([&] { g->execute(wrong_rank); }, ErrorCode::InvalidArgument, {"input 0", "expected rank 2", "got rank 1"});
  const std::vector<float> big(36, 1.0f);
  const HostTensorView too_big[] = {test::f32_view(big, {9, 4})};
  expect_error([&] { g->execute(too_big); }, ErrorCode::InvalidArgument, {"[9, 4]", "exceeds the maximum [8, 4]"});
  const HostTensorView short_data[] = {{DType::F32, {8, 4}, std::span(reinterpret_cast<const uint8_t*>(x.data()), 64)}};
  expect_error([&] { g->execute(short_data); }, ErrorCode::InvalidArgument, {"needs 128 bytes, got 64"});
  expect_error([&] { g->execute({}); }, ErrorCode::InvalidArgument, {"expected 1 inputs, got 0"});
  expect_runs(*g);
}

TEST_F(GraphErrorTest, UnknownOpsAreListedBeforeAnyAllocation) {
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {4});
  b.mark_input(x);
  const ValueId y = b.add_tensor(DType::F32, {4});
  const ValueId z = b.add_tensor(DType::F32, {4});
  b.add_op("aten.frobnicate.default", {x, y});
  b.add_op("aten.relu.default", {y, z});
  b.mark_output(z);
  const uint64_t before = device().live_buffer_bytes();
  expect_error([&] { ExecutableGraph::load(device(), std::move(b).build(), test::load_options()); }, ErrorCode::NotSupported,
               {"aten.frobnicate.default", "op 0"});
  EXPECT_EQ(device().live_buffer_bytes(), before);
}

TEST_F(GraphErrorTest, ArgumentOfTheWrongKindNamesOpArgumentAndExpectation) {
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {2, 4});
  b.mark_input(x);
  const std::vector<float> w(4, 1.0f);
  const ValueId weight = b.add_constant(DType::F32, {4}, test::bytes_of(w));
  const ValueId not_eps = b.add_string("eps");
  const ValueId y = b.add_tensor(DType::F32, {2, 4});
  b.add_op("et_vk.rms_norm.default", {x, weight, not_eps, y});
  b.mark_output(y);
  expect_error([&] { ExecutableGraph::load(device(), std::move(b).build(), test::load_options()); }, ErrorCode::InvalidProgram,
               {"op 0 (et_vk.rms_norm.default)", "argument 2", "expected a number, got string"});
}

TEST_F(GraphErrorTest, WrongDtypeAndShapeOfAnOpArgument) {
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {4});
  const ValueId i = b.add_tensor(DType::Bool, {4});  // add takes f32, i32 and i64 (mixed too), not bool
  b.mark_input(x);
  b.mark_input(i);
  const ValueId y = b.add_tensor(DType::F32, {4});
  b.add_op("aten.add.Tensor", {x, i, b.add_int(1), y});
  b.mark_output(y);
  expect_error([&] { ExecutableGraph::load(device(), std::move(b).build(), test::load_options()); }, ErrorCode::InvalidProgram,
               {"op 0 (aten.add.Tensor)", "argument 1", "got bool"});

  GraphBuilder c;
  const ValueId p = c.add_tensor(DType::F32, {4});
  const ValueId q = c.add_tensor(DType::F32, {3});
  c.mark_input(p);
  c.mark_input(q);
  const ValueId r = c.add_tensor(DType::F32, {4});
  c.add_op("aten.mul.Tensor", {p, q, r});
  c.mark_output(r);
  expect_error([&] { ExecutableGraph::load(device(), std::move(c).build(), test::load_options()); }, ErrorCode::InvalidProgram,
               {"argument 1", "[3] does not broadcast", "[4]"});
}

TEST(GraphBuilderErrors, MissingValuesAndBadConstants) {
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {4});
  b.add_op("aten.relu.default", {x, 99});
  expect_error([&] { std::move(b).build(); }, ErrorCode::InvalidProgram, {"op 0 (aten.relu.default)", "argument 1", "value 99"});

  GraphBuilder c;
  const std::vector<float> three(3);
  c.add_constant(DType::F32, {4}, test::bytes_of(three));
  expect_error([&] { std::move(c).build(); }, ErrorCode::InvalidProgram, {"needs 16 bytes, got 12"});
}

// Sizes from files: an element count past int64 and a shared-object id that
// would size a host table by billions are refused when the graph is built.
TEST(GraphBuilderErrors, OverflowingDimsAndHugeMemObjIds) {
  GraphBuilder a;
  expect_error([&] { a.add_tensor(DType::F32, {int64_t{1} << 32, int64_t{1} << 32}); }, ErrorCode::InvalidProgram,
               {"tensor 0", "overflows 64 bits"});
  expect_error([&] { a.add_tensor(DType::F32, {int64_t{1} << 31, int64_t{1} << 31}); }, ErrorCode::InvalidProgram,
               {"tensor 0", "byte size overflows"});
  EXPECT_THROW(numel({int64_t{1} << 40, int64_t{1} << 40}), Error);

  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {4});
  b.mark_input(x);
  const ValueId y = b.add_tensor(DType::F32, {4}, std::numeric_limits<int32_t>::max());
  const ValueId z = b.add_tensor(DType::F32, {4});
  b.add_op("aten.relu.default", {x, y});
  b.add_op("aten.relu.default", {y, z});
  b.mark_output(z);
  expect_error([&] { std::move(b).build(); }, ErrorCode::InvalidProgram,
               {"tensor value 1", "mem_obj_id 2147483647", "out of range"});
}

}  // namespace
}  // namespace wgrt
