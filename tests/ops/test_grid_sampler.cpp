// aten.grid_sampler_2d in every mode wgrt runs (bilinear / nearest x zeros /
// border / reflection padding x align_corners), on hand-built graphs against
// torch.nn.functional.grid_sample (tests/fixtures/ops/grid_sample.*). The one
// mode VulkanPartitioner delegates is also tested through an exported program
// (tests/fixtures/pte/ops/grid_sampler_2d).
#include <gtest/gtest.h>

#include "gpu_test_env.h"
#include "host_tensors.h"
#include "op_goldens.h"

namespace wgrt {
namespace {

using test::load_npy;

constexpr double kTolerance = 1e-5;  // absolute; values O(1), four taps

class GridSamplerTest : public test::GpuTest {};

TEST_F(GridSamplerTest, EveryModeMatchesTorch) {
  const auto x = load_npy("grid_sample.x"), grid = load_npy("grid_sample.grid");
  const char* modes[] = {"bilinear", "nearest"};
  const char* paddings[] = {"zeros", "border", "reflection"};
  for (int mode = 0; mode < 2; ++mode) {
    for (int padding = 0; padding < 3; ++padding) {
      for (bool align : {false, true}) {
        const std::string name = std::string("grid_sample.") + modes[mode] + "." + paddings[padding] + "." + (align ? "1" : "0");
        SCOPED_TRACE(name);
        const auto want = load_npy(name.c_str());
        GraphBuilder b;
        const ValueId xi = b.add_tensor(DType::F32, x.dims), gi = b.add_tensor(DType::F32, grid.dims);
        b.mark_input(xi);
        b.mark_input(gi);
        const ValueId out = b.add_tensor(DType::F32, want.dims);
        b.mark_output(out);
        b.add_op("aten.grid_sampler_2d.default", {xi, gi, b.add_int(mode), b.add_int(padding), b.add_bool(align), out});
        auto g = ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
        const auto xs = x.as<float>(), gs = grid.as<float>();
        const HostTensorView in[] = {test::f32_view(xs, x.dims), test::f32_view(gs, grid.dims)};
        const auto outs = g->execute(in);
        const double err = test::max_abs_error(test::floats(outs.at(0)), want.as<float>());
        EXPECT_LE(err, kTolerance);
      }
    }
  }
}

TEST_F(GridSamplerTest, BicubicAndBadModesAreRefusedAtLoad) {
  for (const auto& [mode, padding, what] : {std::tuple{2, 0, "interpolation_mode 2 (bicubic)"},
                                            std::tuple{3, 0, "interpolation_mode 3: expected 0 or 1"},
                                            std::tuple{0, 5, "padding_mode 5: expected 0, 1 or 2"}}) {
    GraphBuilder b;
    const ValueId xi = b.add_tensor(DType::F32, {1, 2, 3, 4}), gi = b.add_tensor(DType::F32, {1, 5, 6, 2});
    b.mark_input(xi);
    b.mark_input(gi);
    const ValueId out = b.add_tensor(DType::F32, {1, 2, 5, 6});
    b.mark_output(out);
    b.add_op("aten.grid_sampler_2d.default", {xi, gi, b.add_int(mode), b.add_int(padding), b.add_bool(false), out});
    try {
      ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
      ADD_FAILURE() << "loaded with " << what;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("aten.grid_sampler_2d.default"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace wgrt
