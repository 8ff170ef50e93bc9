// Memory aliasing by mem_obj_id (seed 000) and per-program memory stats.
#include <gtest/gtest.h>

#include "gpu_test_env.h"
#include "graph/executable_graph.h"
#include "graph/lifetime_planner.h"
#include "host_tensors.h"

namespace wgrt {
namespace {

constexpr int64_t kN = 1024;  // 4096 bytes per f32 tensor

// x, y -> t1 = x + y -> t2 = t1 + y -> t3 -> t4 -> out = t4 + y  (out = x + 5y)
Graph chain_of_adds(const int32_t* mem_obj_ids = nullptr) {
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {kN});
  const ValueId y = b.add_tensor(DType::F32, {kN});
  const ValueId alpha = b.add_int(1);
  b.mark_input(x);
  b.mark_input(y);
  ValueId prev = x;
  for (int i = 0; i < 5; ++i) {
    const ValueId t = b.add_tensor(DType::F32, {kN}, i < 4 && mem_obj_ids ? mem_obj_ids[i] : -1);
    b.add_op("aten.add.Tensor", {prev, y, alpha, t});
    prev = t;
  }
  b.mark_output(prev);
  return std::move(b).build();
}

class MemoryPlanTest : public test::GpuTest {
 protected:
  void expect_chain_runs(ExecutableGraph& g) {
    const auto x = test::random_floats(kN, 1), y = test::random_floats(kN, 2);
    const HostTensorView in[] = {test::f32_view(x, {kN}), test::f32_view(y, {kN})};
    const auto out = test::floats(g.execute(in)[0]);
    ASSERT_EQ(out.size(), size_t(kN));
    for (int64_t i = 0; i < kN; ++i) {
      // Five f32 additions in the same order as the GPU: bit-identical.
      float want = x[i];
      for (int k = 0; k < 5; ++k) want = want + y[i];
      ASSERT_EQ(out[i], want) << "at " << i;
    }
  }
};

TEST(LifetimePlanner, ChainOfAddsNeedsTwoObjects) {
  Graph g = chain_of_adds();
  EXPECT_EQ(plan_lifetimes(g), 2u);
  // t1 [ops 0-1] and t3 [2-3] share; t2 [1-2] and t4 [3-4] share.
  EXPECT_EQ(g.tensor(3).mem_obj_id, g.tensor(5).mem_obj_id);
  EXPECT_EQ(g.tensor(4).mem_obj_id, g.tensor(6).mem_obj_id);
  EXPECT_NE(g.tensor(3).mem_obj_id, g.tensor(4).mem_obj_id);
  // Inputs and the output are never shared.
  EXPECT_EQ(g.tensor(0).mem_obj_id, -1);
  EXPECT_EQ(g.tensor(7).mem_obj_id, -1);
}

TEST(LifetimePlanner, LeavesExporterIdsAlone) {
  const int32_t ids[] = {7, 3, 7, 3};
  Graph g = chain_of_adds(ids);
  EXPECT_EQ(plan_lifetimes(g), 0u);
  EXPECT_EQ(g.tensor(3).mem_obj_id, 7);
  EXPECT_EQ(g.tensor(4).mem_obj_id, 3);
}

TEST_F(MemoryPlanTest, ChainOfFiveAddsSharesTwoObjectsWithExactBytes) {
  auto g = ExecutableGraph::load(device(), chain_of_adds(), test::load_options());
  const MemoryStats s = g->memory_stats();
  // 4 intermediates of 4096 B in 2 shared objects: 8192 B shared.
  // x, y and the output have their own buffers: 3 * 4096 = 12288 B unshared.
  // 5 dispatches with a 112 B uniform each share the first 4096 B uniform
  // block. One 4096 B readback buffer.
  EXPECT_EQ(s.num_shared_objects, 2u);
  EXPECT_EQ(s.shared_bytes, 8192u);
  EXPECT_EQ(s.unshared_bytes, 12288u);
  EXPECT_EQ(s.tensor_bytes, 20480u);
  EXPECT_EQ(s.constant_bytes, 0u);
  EXPECT_EQ(s.uniform_bytes, 4096u);
  EXPECT_EQ(s.staging_bytes, 4096u);
  EXPECT_EQ(s.scratch_bytes, 0u);
  EXPECT_EQ(s.total_bytes, 20480u + 4096u + 4096u);
  // Without aliasing the 4 intermediates need 4 buffers: 7 * 4096 B of tensors.
  EXPECT_EQ(s.unaliased_bytes, 7u * 4096u + 4096u + 4096u);
  expect_chain_runs(*g);
}

TEST_F(MemoryPlanTest, ExporterIdsDriveSharingAndTheSharedBufferIsOne) {
  const int32_t ids[] = {1, 0, 1, 0};
  auto g = ExecutableGraph::load(device(), chain_of_adds(ids), test::load_options());
  EXPECT_EQ(g->memory_stats().num_shared_objects, 2u);
  EXPECT_EQ(g->tensor_buffer(3).raw(), g->tensor_buffer(5).raw());
  EXPECT_EQ(g->tensor_buffer(4).raw(), g->tensor_buffer(6).raw());
  EXPECT_NE(g->tensor_buffer(3).raw(), g->tensor_buffer(4).raw());
  expect_chain_runs(*g);
}

TEST_F(MemoryPlanTest, EveryBufferIsReleasedOnceWithTheGraph) {
  const uint64_t before = device().live_buffer_bytes();
  {
    auto g = ExecutableGraph::load(device(), chain_of_adds(), test::load_options());
    EXPECT_EQ(device().live_buffer_bytes() - before, g->memory_stats().total_bytes);
    expect_chain_runs(*g);
  }
  EXPECT_EQ(device().live_buffer_bytes(), before);
}

TEST_F(MemoryPlanTest, StatsArePerProgram) {
  auto small = ExecutableGraph::load(device(), chain_of_adds(), test::load_options());
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {4});
  b.mark_input(x);
  const ValueId y = b.add_tensor(DType::F32, {4});
  b.add_op("aten.relu.default", {x, y});
  b.mark_output(y);
  auto other = ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
  EXPECT_EQ(small->memory_stats().total_bytes, 28672u);  // ChainOfFiveAdds...: 20480 + 4096 + 4096
  EXPECT_EQ(other->memory_stats().tensor_bytes, 32u);
}

}  // namespace
}  // namespace wgrt
