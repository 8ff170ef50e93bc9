// Values a hostile file or caller may hold that passed the structural checks
// (ARCHITECTURE.md, "Threat model", gaps 3 and 5): SymInt arithmetic past
// int64, a gather index larger than its input off the gathered dim, an index
// into an empty dim, an embedding table without rows. Each must end in an
// Error naming the op, never reach a kernel (whose checks are off) or host
// undefined behaviour.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "host_tensors.h"
#include "load_error_test.h"

namespace wgrt {
namespace {

class HostileValuesTest : public test::LoadErrorTest {};

TEST_F(HostileValuesTest, SymIntArithmeticPastInt64IsRefused) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
  const std::pair<const char*, std::pair<int64_t, int64_t>> cases[] = {
      {"add", {kMax, 1}}, {"sub", {kMin, 1}}, {"mul", {kMax / 2 + 1, 2}}, {"floordiv", {kMin, -1}}};
  for (const auto& [op, ab] : cases) {
    GraphBuilder b;
    const ValueId x = b.add_tensor(DType::F32, {1});
    b.mark_input(x);
    b.add_op("aten.clone.default", {x, b.add_null(), b.add_tensor(DType::F32, {1})});
    b.add_op(op, {b.add_int(ab.first), b.add_int(ab.second), b.add_symint(0)});
    const std::string err = load_error(std::move(b));
    EXPECT_NE(err.find(std::string("symint ") + op), std::string::npos) << op << ": " << err;
    EXPECT_NE(err.find("overflows int64"), std::string::npos) << op << ": " << err;
  }
}

TEST_F(HostileValuesTest, GatherIndexLargerThanItsInputIsRefused) {
  // torch.gather(x [2, 3], dim 1, index [4, 1]): row 2 and 3 of the index
  // would read past x's two rows.
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {2, 3});
  const ValueId index = b.add_tensor(DType::I64, {4, 1});
  b.mark_input(x);
  b.mark_input(index);
  b.add_op("aten.gather.default", {x, b.add_int(1), index, b.add_bool(false), b.add_tensor(DType::F32, {4, 1})});
  const std::string err = load_error(std::move(b));
  EXPECT_NE(err.find("index size 4 of dim 0 exceeds the input's 2"), std::string::npos) << err;
}

TEST_F(HostileValuesTest, IndexIntoAnEmptyLiveDimIsRefused) {
  // Built with 4 rows, run with 0: the kernel would clamp to row -1.
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {4, 2});
  const ValueId index = b.add_tensor(DType::I64, {1});
  b.mark_input(x);
  b.mark_input(index);
  const ValueId out = b.add_tensor(DType::F32, {1, 2});
  b.mark_output(out);
  b.add_op("aten.index_select.default", {x, b.add_int(0), index, out});
  auto g = ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
  const std::vector<float> xs;
  const std::vector<int64_t> ids = {0};
  const HostTensorView inputs[] = {test::f32_view(xs, {0, 2}), test::i64_view(ids, {1})};
  try {
    g->execute(inputs);
    FAIL() << "an index into 0 rows ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("index_select: an index into dim 0 of size 0"), std::string::npos) << e.what();
  }
  // The graph still runs a good input afterwards.
  const std::vector<float> four = {1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<int64_t> two = {2};
  const HostTensorView good[] = {test::f32_view(four, {4, 2}), test::i64_view(two, {1})};
  EXPECT_EQ(test::floats(g->execute(good)[0]), (std::vector<float>{5, 6}));
}

TEST_F(HostileValuesTest, EmbeddingTableWithoutRowsIsRefused) {
  GraphBuilder b;
  const ValueId ids = b.add_tensor(DType::I64, {1, 3});
  b.mark_input(ids);
  const ValueId table = b.add_constant(DType::F32, {0, 4}, std::vector<uint8_t>{});
  const ValueId out = b.add_tensor(DType::F32, {1, 3, 4});
  b.mark_output(out);
  b.add_op("aten.embedding.default", {table, ids, b.add_int(-1), b.add_bool(false), b.add_bool(false), out});
  const std::string err = load_error(std::move(b));
  EXPECT_NE(err.find("an embedding table needs at least one row"), std::string::npos) << err;
}

}  // namespace
}  // namespace wgrt
