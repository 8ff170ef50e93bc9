// The shape ops (view/slice/select/permute/cat/squeeze/unsqueeze/expand/
// clone) and the symbolic-int ops that drive them, on one Llama-like graph
// built at S = 6 and run at other live S and positions; torch goldens in
// tests/fixtures/ops/shape.*. Data movement is exact: tolerance 0.
#include <gtest/gtest.h>

#include "gpu_test_env.h"
#include "host_tensors.h"
#include "op_goldens.h"

namespace wgrt {
namespace {

using test::load_npy;

constexpr int64_t kMaxS = 6, kWidth = 8;

struct ShapeGraph {
  Graph graph;
  std::vector<std::string> outputs;  // golden names, in output order
};

ShapeGraph shape_graph() {
  const auto freqs = load_npy("shape.freqs");
  ShapeGraph sg;
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {1, kMaxS, kWidth});
  const ValueId y = b.add_tensor(DType::F32, {1, kMaxS, kWidth});
  const ValueId input_pos = b.add_tensor(DType::I64, {1});
  for (ValueId id : {x, y, input_pos}) b.mark_input(id);
  const ValueId f = b.add_constant(DType::F32, freqs.dims, freqs.bytes);
  auto sym = [&](const char* op, std::vector<ValueId> args) {
    const ValueId out = b.add_symint(0);
    args.push_back(out);
    b.add_op(op, args);
    return out;
  };
  auto out = [&](const char* golden, Dims dims) {
    const ValueId id = b.add_tensor(DType::F32, std::move(dims));
    b.mark_output(id);
    sg.outputs.push_back(golden);
    return id;
  };
  const ValueId pos = sym("et_vk.select_as_symint.default", {input_pos, b.add_int(0), b.add_int(0)});
  const ValueId s = sym("sym_size.int", {x, b.add_int(1)});
  const ValueId end = sym("add", {pos, s});
  const ValueId s_again = sym("floordiv", {sym("mul", {s, b.add_int(2)}), b.add_int(2)});
  const ValueId start = sym("sub", {end, s});  // == pos
  const ValueId one = b.add_int(1);

  b.add_op("aten.slice_copy.Tensor", {f, b.add_int(0), start, end, one, out("freqs", {kMaxS, 4})});
  const ValueId v = out("view", {1, kMaxS, 2, 4});
  b.add_op("aten.view_copy.default", {x, b.add_value_list({one, s_again, b.add_int(2), b.add_int(4)}), v});
  b.add_op("aten.view_copy.default", {x, b.add_int_list({1, -1, 2, 4}), out("view", {1, kMaxS, 2, 4})});
  // Sizes fixed at the maximum, as an export without SymInts writes them: the
  // dynamic dim is scaled to keep numel.
  b.add_op("aten.view_copy.default", {x, b.add_int_list({1, kMaxS, 2, 4}), out("view", {1, kMaxS, 2, 4})});
  b.add_op("aten.select_copy.int", {x, one, b.add_int(-1), out("select_last", {1, kWidth})});
  b.add_op("aten.permute_copy.default", {v, b.add_int_list({0, 2, 1, 3}), out("permute", {1, 2, kMaxS, 4})});
  b.add_op("aten.cat.default", {b.add_value_list({x, y}), one, out("cat", {1, 2 * kMaxS, kWidth})});
  b.add_op("aten.slice_copy.Tensor", {x, one, one, b.add_int(100), b.add_int(2), out("slice_step2", {1, 3, kWidth})});
  b.add_op("aten.squeeze_copy.dims", {x, b.add_int_list({0}), out("squeeze", {kMaxS, kWidth})});
  b.add_op("aten.unsqueeze_copy.default", {x, b.add_int(2), out("unsqueeze", {1, kMaxS, 1, kWidth})});
  const ValueId tail = b.add_tensor(DType::F32, {1, 1, kWidth});
  b.add_op("aten.slice_copy.Tensor", {x, one, b.add_int(-1), b.add_null(), one, tail});
  b.add_op("aten.expand_copy.default", {tail, b.add_int_list({1, 4, kWidth}), b.add_bool(false), out("expand", {1, 4, kWidth})});
  b.add_op("aten.clone.default", {x, b.add_null(), out("clone", {1, kMaxS, kWidth})});
  sg.graph = std::move(b).build();
  return sg;
}

class ShapeOpsTest : public test::GpuTest {};

TEST_F(ShapeOpsTest, OneGraphFollowsLiveLengthAndPosition) {
  const auto x = load_npy("shape.x").as<float>(), y = load_npy("shape.y").as<float>();
  ShapeGraph sg = shape_graph();
  const auto names = sg.outputs;
  auto g = ExecutableGraph::load(device(), std::move(sg.graph), test::load_options());
  const auto handles = test::buffer_handles(*g);
  // (input_pos, S): the maximum first, then shrinking, growing, and a slice
  // whose end (12 + 5) runs past the 16-row table and is clamped.
  for (auto [pos, s] : {std::pair<int64_t, int64_t>{0, 6}, {2, 3}, {15, 1}, {12, 5}}) {
    SCOPED_TRACE("input_pos=" + std::to_string(pos) + " S=" + std::to_string(s));
    const auto xs = test::leading(x, {1, kMaxS, kWidth}, 1, s), ys = test::leading(y, {1, kMaxS, kWidth}, 1, s);
    const std::vector<int64_t> p{pos};
    const HostTensorView in[] = {test::f32_view(xs, {1, s, kWidth}), test::f32_view(ys, {1, s, kWidth}),
                                 test::i64_view(p, {1})};
    const auto outs = g->execute(in);
    for (size_t i = 0; i < names.size(); ++i) {
      const std::string golden = names[i] == "freqs"
                                     ? "shape.freqs_pos" + std::to_string(pos) + "_s" + std::to_string(s)
                                     : names[i] == "clone" ? "" : "shape.s" + std::to_string(s) + "." + names[i];
      SCOPED_TRACE("output " + std::to_string(i) + " (" + names[i] + ")");
      const auto want = golden.empty() ? xs : load_npy(golden).as<float>();
      if (!golden.empty()) EXPECT_EQ(outs[i].dims, load_npy(golden).dims);
      EXPECT_EQ(test::floats(outs[i]), want);
    }
  }
  EXPECT_EQ(test::buffer_handles(*g), handles);
}

// SymInt arithmetic follows Python: floordiv rounds toward negative infinity.
TEST_F(ShapeOpsTest, SymIntArithmeticOnInts) {
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {1});
  b.mark_input(x);
  b.add_op("aten.clone.default", {x, b.add_null(), b.add_tensor(DType::F32, {1})});
  const std::pair<const char*, std::pair<int64_t, int64_t>> cases[] = {
      {"floordiv", {-7, 2}}, {"floordiv", {7, 2}}, {"floordiv", {7, -2}}, {"floordiv", {-8, 2}},
      {"add", {-7, 2}},      {"sub", {-7, 2}},     {"mul", {-7, 2}}};
  const int64_t want[] = {-4, 3, -4, -4, -5, -9, -14};
  std::vector<ValueId> results;
  for (const auto& [op, ab] : cases) {
    results.push_back(b.add_symint(0));
    b.add_op(op, {b.add_int(ab.first), b.add_int(ab.second), results.back()});
  }
  auto g = ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
  for (size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(std::get<SymInt>(g->graph().values[results[i]]).value, want[i]) << cases[i].first << " case " << i;
  }
}

}  // namespace
}  // namespace wgrt
