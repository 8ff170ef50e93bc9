// aten.embedding (f32 table), aten.split_with_sizes_copy and
// et_vk.prepack against torch goldens (tests/fixtures/ops/embedding_f32.*,
// split.*). All three only move values: tolerance 0.
#include <gtest/gtest.h>

#include "gpu_test_env.h"
#include "host_tensors.h"
#include "op_goldens.h"

namespace wgrt {
namespace {

using test::load_npy;

class EmbeddingSplitPrepackTest : public test::GpuTest {};

TEST_F(EmbeddingSplitPrepackTest, EmbeddingGathersRowsForLiveTokens) {
  const auto table = load_npy("embedding_f32.table");
  const auto ids = load_npy("embedding_f32.ids").as<int64_t>();
  const auto want = load_npy("embedding_f32.out").as<float>();
  const int64_t tokens = 10, dim = table.dims[1];
  GraphBuilder b;
  const ValueId idx = b.add_tensor(DType::I64, {1, tokens});
  b.mark_input(idx);
  const ValueId out = b.add_tensor(DType::F32, {1, tokens, dim});
  b.add_op("aten.embedding.default", {b.add_constant(DType::F32, table.dims, table.bytes), idx, b.add_int(-1),
                                      b.add_bool(false), b.add_bool(false), out});
  b.mark_output(out);
  auto g = ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
  const auto handles = test::buffer_handles(*g);
  for (int64_t t : {tokens, int64_t{1}, int64_t{4}, tokens}) {
    SCOPED_TRACE("tokens=" + std::to_string(t));
    const std::vector<int64_t> part(ids.begin(), ids.begin() + t);
    const HostTensorView in[] = {test::i64_view(part, {1, t})};
    const auto got = g->execute(in)[0];
    ASSERT_EQ(got.dims, (Dims{1, t, dim}));
    EXPECT_EQ(test::floats(got), test::leading(want, {1, tokens, dim}, 1, t));
  }
  EXPECT_EQ(test::buffer_handles(*g), handles);
}

TEST_F(EmbeddingSplitPrepackTest, SplitWithSizesFollowsLiveLeadingDim) {
  constexpr int64_t kMaxS = 6, kWidth = 48;
  const int64_t sizes[] = {16, 24, 8};
  const auto x = load_npy("split.x").as<float>();
  GraphBuilder b;
  const ValueId in = b.add_tensor(DType::F32, {1, kMaxS, kWidth});
  b.mark_input(in);
  std::vector<ValueId> outs;
  for (int64_t s : sizes) outs.push_back(b.add_tensor(DType::F32, {1, kMaxS, s}));
  b.add_op("aten.split_with_sizes_copy.default",
           {in, b.add_int_list({sizes[0], sizes[1], sizes[2]}), b.add_int(-1), b.add_value_list(outs)});
  for (ValueId id : outs) b.mark_output(id);
  auto g = ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
  for (int64_t s : {kMaxS, int64_t{2}, int64_t{5}}) {
    SCOPED_TRACE("S=" + std::to_string(s));
    const auto xs = test::leading(x, {1, kMaxS, kWidth}, 1, s);
    const HostTensorView ins[] = {test::f32_view(xs, {1, s, kWidth})};
    const auto got = g->execute(ins);
    for (size_t i = 0; i < 3; ++i) {
      SCOPED_TRACE("output " + std::to_string(i));
      ASSERT_EQ(got[i].dims, (Dims{1, s, sizes[i]}));
      const auto want = load_npy("split.out" + std::to_string(i)).as<float>();
      EXPECT_EQ(test::floats(got[i]), test::leading(want, {1, kMaxS, sizes[i]}, 1, s));
    }
  }
}

// The exporter's pattern: a constant prepacked into a tensor, then used.
TEST_F(EmbeddingSplitPrepackTest, PrepackCopiesAConstantForLaterOps) {
  const std::vector<float> scale{2.5f}, table{1, -2, 3, -4, 5, -6};
  GraphBuilder b;
  const ValueId in = b.add_tensor(DType::F32, {2, 3});
  b.mark_input(in);
  const ValueId c = b.add_constant(DType::F32, {}, test::bytes_of(scale));
  const ValueId packed = b.add_tensor(DType::F32, {});
  b.add_op("et_vk.prepack.default", {c, packed});
  const ValueId t = b.add_constant(DType::F32, {2, 3}, test::bytes_of(table));
  const ValueId packed_table = b.add_tensor(DType::F32, {2, 3});
  b.add_op("et_vk.prepack.default", {t, packed_table});
  const ValueId prod = b.add_tensor(DType::F32, {2, 3});
  b.add_op("aten.mul.Tensor", {in, packed, prod});
  const ValueId out = b.add_tensor(DType::F32, {2, 3});
  b.add_op("aten.add.Tensor", {prod, packed_table, b.add_int(1), out});
  b.mark_output(out);
  auto g = ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
  const std::vector<float> x{1, 2, 3, 4, 5, 6};
  const HostTensorView ins[] = {test::f32_view(x, {2, 3})};
  std::vector<float> want;
  for (size_t i = 0; i < x.size(); ++i) want.push_back(x[i] * 2.5f + table[i]);
  for (int run = 0; run < 2; ++run) EXPECT_EQ(test::floats(g->execute(ins)[0]), want) << "run " << run;
}

}  // namespace
}  // namespace wgrt
