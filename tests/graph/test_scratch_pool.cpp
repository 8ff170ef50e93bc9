// Pooled single-op scratch (seed 002).
#include <gtest/gtest.h>

#include "gpu/workgroups.h"
#include "gpu_test_env.h"
#include "graph/executable_graph.h"
#include "graph/op_context.h"
#include "host_tensors.h"
#include "ops/elementwise/binary.h"

namespace wgrt {
namespace {

class ScratchPoolTest : public test::GpuTest {};

TEST_F(ScratchPoolTest, BestFitWithinTwiceTheRequestAndNeverTwiceInUse) {
  ScratchPool pool(device(), /*pooling=*/true);
  const gpu::Buffer* first = nullptr;
  {
    auto a = pool.acquire(1000, "a");
    first = &a.buffer();
    auto b = pool.acquire(1000, "b");  // a is in use: a new slot
    EXPECT_NE(&b.buffer(), first);
    EXPECT_EQ(pool.slot_count(), 2u);
  }
  {
    auto c = pool.acquire(600, "c");  // 1000 is within [600, 1200]: reused
    EXPECT_EQ(pool.slot_count(), 2u);
    auto d = pool.acquire(400, "d");  // 1000 > 800: too big to pin, a new slot
    EXPECT_EQ(pool.slot_count(), 3u);
    EXPECT_EQ(d.buffer().size(), 400u);
  }
  auto e = pool.acquire(900, "e");  // best fit: one of the two 1000-byte slots, not a new one
  EXPECT_EQ(pool.slot_count(), 3u);
  EXPECT_EQ(e.buffer().size(), 1000u);
}

TEST_F(ScratchPoolTest, PoolingOffCreatesASlotPerRequest) {
  ScratchPool pool(device(), /*pooling=*/false);
  { auto a = pool.acquire(256, "a"); }
  { auto b = pool.acquire(256, "b"); }
  EXPECT_EQ(pool.slot_count(), 2u);
}

// A test op that needs scratch for its own dispatches only:
// scratch = x + x; out = scratch + 0 * scratch  (so out = 2x).
void lower_double_via_scratch(OpContext& ctx) {
  const ValueId x = ctx.arg(0), out = ctx.arg(1);
  const uint64_t n = numel(ctx.max_dims(x));
  const gpu::BufferBinding scratch = ctx.scratch(n * sizeof(float), "double");
  const auto& add = ctx.pipeline("elementwise/binary.wgsl", "main_scalar", {{"WG", 64}, {"OP", 0}});
  const UniformId u1 = ctx.uniform(sizeof(ops::BinaryParams));
  const UniformId u2 = ctx.uniform(sizeof(ops::BinaryParams));
  const DispatchId d1 = ctx.dispatch(add, {ctx.tensor(x), ctx.tensor(x), scratch, ctx.uniform_binding(u1)});
  const DispatchId d2 = ctx.dispatch(add, {scratch, scratch, ctx.tensor(out), ctx.uniform_binding(u2)});
  ctx.on_resize({x}, [=](ResizeContext& r) {
    r.set_dims(out, r.dims(x));
    ops::BinaryParams p;
    p.count = static_cast<uint32_t>(numel(r.dims(x)));
    r.write_uniform(u1, p);
    p.alpha = 0.0f;
    r.write_uniform(u2, p);
    r.set_workgroups(d1, r.fold(gpu::div_up(p.count, 64)));
    r.set_workgroups(d2, r.fold(gpu::div_up(p.count, 64)));
  });
}

Graph sixteen_layers(int64_t n) {
  GraphBuilder b;
  ValueId prev = b.add_tensor(DType::F32, {n});
  b.mark_input(prev);
  for (int i = 0; i < 16; ++i) {
    const ValueId next = b.add_tensor(DType::F32, {n});
    b.add_op("test.double_via_scratch", {prev, next});
    prev = next;
  }
  b.mark_output(prev);
  return std::move(b).build();
}

TEST_F(ScratchPoolTest, SixteenLayersShareOneSlotAndMatchThePoolOff) {
  OpRegistry registry = OpRegistry::builtin();
  registry.add("test.double_via_scratch", {nullptr, lower_double_via_scratch});
  constexpr int64_t n = 1000;
  const auto x = test::random_floats(n, 3, -1.0f, 1.0f);
  const HostTensorView in[] = {test::f32_view(x, {n})};

  LoadOptions pooled, unpooled;
  pooled.registry = unpooled.registry = &registry;
  unpooled.tuning.scratch_pool = false;
  auto a = ExecutableGraph::load(device(), sixteen_layers(n), pooled);
  auto b = ExecutableGraph::load(device(), sixteen_layers(n), unpooled);
  EXPECT_EQ(a->scratch_pool().slot_count(), 1u);
  EXPECT_EQ(b->scratch_pool().slot_count(), 16u);
  EXPECT_EQ(a->memory_stats().scratch_bytes, 4000u);
  EXPECT_EQ(b->memory_stats().scratch_bytes, 16u * 4000u);

  const auto ra = test::floats(a->execute(in)[0]);
  const auto rb = test::floats(b->execute(in)[0]);
  ASSERT_EQ(ra.size(), size_t(n));
  EXPECT_EQ(ra, rb);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(ra[i], x[i] * 65536.0f) << i;  // 2^16, exact in f32
}

}  // namespace
}  // namespace wgrt
