// The WebGPU device layer on a real adapter (lavapipe in CI).
#include <gtest/gtest.h>

#include <cstdlib>

#include <webgpu.h>

#include <numeric>

#include "gpu/buffer.h"
#include "gpu/command_batch.h"
#include "gpu/pipeline_cache.h"
#include "gpu_test_env.h"
#include "cli/environment.h"
#include "wgrt/error.h"

namespace wgrt::gpu {
namespace {

using test::as_vector;

class DeviceTest : public test::GpuTest {};

TEST_F(DeviceTest, ReportsAdapterAndTheAdaptersOwnLimits) {
  const AdapterInfo& info = device().adapter_info();
  EXPECT_FALSE(info.name.empty());
  EXPECT_FALSE(info.backend.empty());
  const DeviceLimits& l = device().limits();
  // WebGPU's spec minimums; we asked for the adapter's own, which are at least these.
  EXPECT_GE(l.max_compute_workgroups_per_dimension, 65535u);
  EXPECT_GE(l.max_storage_buffer_binding_size, 128ull << 20);
  EXPECT_GE(l.max_compute_invocations_per_workgroup, 256u);
  EXPECT_GE(l.max_compute_workgroup_storage_size, 16384u);
  // Enabled features are a subset of offered ones.
  const DeviceFeatures& on = device().features();
  const DeviceFeatures& offered = device().adapter_features();
  EXPECT_TRUE(!on.shader_f16 || offered.shader_f16);
  EXPECT_TRUE(!on.timestamp_query || offered.timestamp_query);
  EXPECT_TRUE(!on.subgroups || offered.subgroups);
}

TEST_F(DeviceTest, FeaturesAreOptional) {
  DeviceOptions opts;
  opts.want_shader_f16 = opts.want_timestamp_query = opts.want_subgroups = false;
  auto plain = Device::create(opts);
  EXPECT_FALSE(plain->features().shader_f16);
  EXPECT_FALSE(plain->features().timestamp_query);
  EXPECT_FALSE(plain->features().subgroups);
  // Timing silently falls back to untimed without timestamp-query.
  CommandBatch batch(*plain, /*time_dispatches=*/true);
  EXPECT_FALSE(batch.timing_enabled());
}

// --limits default: exactly the spec's defaults and no optional feature,
// whatever the adapter offers.
TEST_F(DeviceTest, DefaultLimitsModeAsksForTheSpecDefaultsAndNoFeature) {
  DeviceOptions opts;
  opts.limits = LimitsMode::Default;
  auto bare = Device::create(opts);
  EXPECT_EQ(bare->limits_mode(), LimitsMode::Default);
  const DeviceLimits& l = bare->limits();
  const DeviceLimits d = spec_default_limits();
  EXPECT_EQ(l.max_buffer_size, d.max_buffer_size);
  EXPECT_EQ(l.max_storage_buffer_binding_size, 134217728u);
  EXPECT_EQ(l.max_uniform_buffer_binding_size, d.max_uniform_buffer_binding_size);
  EXPECT_EQ(l.max_storage_buffers_per_shader_stage, 8u);
  EXPECT_EQ(l.max_compute_workgroups_per_dimension, 65535u);
  EXPECT_EQ(l.max_compute_invocations_per_workgroup, 256u);
  EXPECT_EQ(l.max_compute_workgroup_storage_size, 16384u);
  EXPECT_EQ(l.max_compute_workgroup_size_x, 256u);
  EXPECT_EQ(l.max_compute_workgroup_size_y, 256u);
  EXPECT_EQ(l.max_compute_workgroup_size_z, 64u);
  EXPECT_EQ(l.min_storage_buffer_offset_alignment, 256u);
  EXPECT_EQ(bare->max_binding_bytes(), 134217728u);
  EXPECT_EQ(bare->split_bytes(), 134217728u);
  EXPECT_FALSE(bare->features().shader_f16);
  EXPECT_FALSE(bare->features().timestamp_query);
  EXPECT_FALSE(bare->features().subgroups);
  // A buffer above the default maxBufferSize is refused, not made.
  EXPECT_THROW(Buffer::create(*bare, d.max_buffer_size + 4, BufferKind::Storage, "too big"), Error);
}

TEST(LimitsMode, UnknownNameIsRefusedNamingTheOption) {
  EXPECT_EQ(parse_limits_mode("adapter", "--limits"), LimitsMode::Adapter);
  EXPECT_EQ(parse_limits_mode("default", "--limits"), LimitsMode::Default);
  try {
    parse_limits_mode("small", "WGRT_LIMITS");
    FAIL() << "expected Error(InvalidArgument)";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_STREQ(e.what(), "WGRT_LIMITS: expected adapter or default, got 'small'");
  }
}

TEST_F(DeviceTest, BufferRoundTripAtOddOffsetsAndSizes) {
  Buffer buf = Buffer::create(device(), 1001, BufferKind::Storage, "roundtrip");
  EXPECT_EQ(buf.size(), 1004u);  // rounded up to 4 bytes
  EXPECT_TRUE(buf.usage() & WGPUBufferUsage_Storage);
  std::vector<uint8_t> data(1001);
  std::iota(data.begin(), data.end(), uint8_t{7});
  buf.write(0, data.data(), data.size());
  EXPECT_EQ(buf.read(0, 1001), data);
  const auto middle = buf.read(3, 10);
  EXPECT_EQ(middle, std::vector<uint8_t>(data.begin() + 3, data.begin() + 13));
}

TEST_F(DeviceTest, AllocationBeyondTheLimitIsOutOfMemoryAndLeavesTheDeviceUsable) {
  const uint64_t before = device().live_buffer_bytes();
  try {
    Buffer::create(device(), device().limits().max_buffer_size + 4, BufferKind::Storage, "huge");
    FAIL() << "expected OutOfMemory";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::OutOfMemory);
    EXPECT_NE(std::string(e.what()).find("'huge'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(device().live_buffer_bytes(), before);
  Buffer ok = Buffer::create(device(), 64, BufferKind::Storage, "after");
  EXPECT_EQ(device().live_buffer_bytes(), before + 64);
}

TEST_F(DeviceTest, InjectedAllocationFailureHitsTheNthAllocation) {
  device().fail_nth_allocation_for_test(2);
  Buffer first = Buffer::create(device(), 16, BufferKind::Storage, "first");
  EXPECT_THROW(Buffer::create(device(), 16, BufferKind::Storage, "second"), Error);
  Buffer third = Buffer::create(device(), 16, BufferKind::Storage, "third");
  EXPECT_TRUE(third);
}

TEST_F(DeviceTest, ShaderCompileErrorCarriesTheCompilersMessage) {
  try {
    device().pipelines().get_from_source("@compute @workgroup_size(1) fn main() { let x: u32 = undefined_name; }",
                                         "main", {}, "broken.wgsl");
    FAIL() << "expected a compile error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("broken.wgsl"), std::string::npos) << msg;
    EXPECT_NE(msg.find("undefined_name"), std::string::npos) << msg;
  }
  // The device still works afterwards.
  EXPECT_NO_THROW(device().check_errors());
}

// Shaders are made without wgpu's runtime checks unless the load's tuning
// asks for them (Tuning::shader_checks: All, Bounds); each mode compiles its
// own pipeline of one source (the cache keys on the mode too). The variable
// that maps onto it refuses an unknown mode by name.
TEST_F(DeviceTest, ShaderChecksModesCompileAndAnUnknownOneIsRefused) {
  const std::string src = "@group(0) @binding(0) var<storage, read_write> v: array<u32>;\n"
                          "@compute @workgroup_size(1) fn main() { for (var i = 0u; i < 4u; i++) { v[i] = i; } }";
  std::vector<const gpu::ComputePipeline*> made;
  for (ShaderChecks mode : {ShaderChecks::All, ShaderChecks::Bounds, ShaderChecks::None}) {
    const std::string label = "mode " + std::to_string(int(mode));
    const gpu::ComputePipeline* p = nullptr;
    EXPECT_NO_THROW(p = &device().pipelines().get_from_source(src, "main", {}, label, mode)) << label;
    EXPECT_EQ(p, &device().pipelines().get_from_source(src, "main", {}, label, mode)) << label;
    for (const gpu::ComputePipeline* q : made) EXPECT_NE(p, q) << label;
    made.push_back(p);
  }
  setenv("WGRT_SHADER_CHECKS", "loose", 1);
  try {
    tuning_from_environment();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("WGRT_SHADER_CHECKS=loose: expected none, bounds or all"), std::string::npos)
        << e.what();
  }
  unsetenv("WGRT_SHADER_CHECKS");
}

// Embedded shaders are keyed by path, slots (given, then the device's
// defaults for the rest), checks and constants, not by their program text:
// the same choices find the same pipeline, another slot value, check or
// constant another. (gemv.wgsl's RoPE slot would need 10 storage buffers,
// more than WebGPU's default 8.)
TEST_F(DeviceTest, PipelineCacheKeysEmbeddedShadersByPathSlotsAndConstants) {
  PipelineCache& cache = device().pipelines();
  const ShaderSlot reduce[] = {{"reduce", device().reduce_slot()}};
  const ShaderSlot plain[] = {{"rope", "rope_none"}, {"xq", "none"}};
  const auto& a = cache.get("linear/gemv.wgsl", "main", {{"LANES", 8}}, ShaderChecks::None, plain, reduce);
  const size_t after_a = cache.size();
  const auto& b = cache.get("linear/gemv.wgsl", "main", {{"LANES", 8}}, ShaderChecks::None, plain, reduce);
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(cache.size(), after_a);
  const ShaderSlot plain_and_reduce[] = {{"rope", "rope_none"}, {"xq", "none"}, {"reduce", device().reduce_slot()}};
  EXPECT_EQ(&a, &cache.get("linear/gemv.wgsl", "main", {{"LANES", 8}}, ShaderChecks::None, plain_and_reduce))
      << "a default given as a slot is the same key";
  // The workgroup-memory reduction (every device has it): the device's own
  // choice where it lacks subgroups, else another pipeline.
  const ShaderSlot plain_workgroup[] = {{"rope", "rope_none"}, {"xq", "none"}, {"reduce", "workgroup"}};
  const auto& w = cache.get("linear/gemv.wgsl", "main", {{"LANES", 8}}, ShaderChecks::None, plain_workgroup, reduce);
  EXPECT_EQ(&a == &w, std::string_view(device().reduce_slot()) == "workgroup");
  EXPECT_NE(&a, &cache.get("linear/gemv.wgsl", "main", {{"LANES", 16}}, ShaderChecks::None, plain, reduce));
  EXPECT_NE(&a, &cache.get("linear/gemv.wgsl", "main", {{"LANES", 8}}, ShaderChecks::Bounds, plain, reduce));
}

TEST_F(DeviceTest, PipelineCacheKeysOnSourceEntryAndConstants) {
  const char* src = "override K: u32 = 1; @group(0) @binding(0) var<storage, read_write> o: array<u32>;"
                    "@compute @workgroup_size(1) fn main() { o[0] = K; }";
  PipelineCache& cache = device().pipelines();
  const size_t before = cache.size();
  const auto& a = cache.get_from_source(src, "main", {{"K", 3}});
  const auto& b = cache.get_from_source(src, "main", {{"K", 3}});
  const auto& c = cache.get_from_source(src, "main", {{"K", 4}});
  EXPECT_EQ(&a, &b);
  EXPECT_NE(&a, &c);
  EXPECT_EQ(cache.size(), before + 2);

  Buffer out = Buffer::create(device(), 4, BufferKind::Storage, "out");
  BufferBinding bind{&out};
  BindGroup group = BindGroup::create(device(), c, {&bind, 1});
  CommandBatch batch(device());
  batch.dispatch(c, group, {1, 1, 1});
  batch.wait();
  EXPECT_EQ(as_vector<uint32_t>(out.read())[0], 4u);
}

// A command buffer that fails WebGPU's validation while it is recorded (here
// a dispatch over the per-dimension workgroup limit, which the gpu/ layer's
// callers fold away) is refused by submit with the validation message:
// wgpu-native treats submitting an invalid command buffer as fatal, so the
// batch must not reach the queue. The device stays usable.
TEST_F(DeviceTest, InvalidCommandBufferIsRefusedBeforeTheQueue) {
  const char* src = "@group(0) @binding(0) var<storage, read_write> o: array<u32>;"
                    "@compute @workgroup_size(1) fn main() { o[0] = 7u; }";
  const auto& p = device().pipelines().get_from_source(src, "main", {});
  Buffer out = Buffer::create(device(), 4, BufferKind::Storage, "out");
  BufferBinding bind{&out};
  BindGroup group = BindGroup::create(device(), p, {&bind, 1});
  const uint32_t over = device().limits().max_compute_workgroups_per_dimension + 1;
  for (bool flush_first : {false, true}) {
    SCOPED_TRACE(flush_first ? "flush" : "submit");
    CommandBatch batch(device());
    batch.dispatch(p, group, {over, 1, 1});
    try {
      if (flush_first) batch.flush();
      batch.submit();
      FAIL() << "an invalid command buffer was submitted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
      EXPECT_NE(std::string(e.what()).find("WebGPU error"), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(device().check_errors());
  CommandBatch batch(device());
  batch.dispatch(p, group, {1, 1, 1});
  batch.wait();
  EXPECT_EQ(as_vector<uint32_t>(out.read())[0], 7u);
}

// Float constants are keyed by their exact value: 1e-7 and 0 (and two
// epsilons differing in the 10th digit) are different pipelines.
TEST_F(DeviceTest, PipelineCacheKeysOnExactFloatConstants) {
  const char* src = "override EPS: f32 = 0.0; @group(0) @binding(0) var<storage, read_write> o: array<f32>;"
                    "@compute @workgroup_size(1) fn main() { o[0] = EPS; }";
  PipelineCache& cache = device().pipelines();
  const size_t before = cache.size();
  const auto& zero = cache.get_from_source(src, "main", {{"EPS", 0.0}});
  const auto& tiny = cache.get_from_source(src, "main", {{"EPS", 1e-7}});
  const auto& a = cache.get_from_source(src, "main", {{"EPS", 1.0000001}});
  const auto& b = cache.get_from_source(src, "main", {{"EPS", 1.0000002}});
  EXPECT_NE(&zero, &tiny);
  EXPECT_NE(&a, &b);
  EXPECT_EQ(&tiny, &cache.get_from_source(src, "main", {{"EPS", 1e-7}}));
  EXPECT_EQ(cache.size(), before + 4);

  Buffer out = Buffer::create(device(), 4, BufferKind::Storage, "out");
  BufferBinding bind{&out};
  BindGroup group = BindGroup::create(device(), tiny, {&bind, 1});
  CommandBatch batch(device());
  batch.dispatch(tiny, group, {1, 1, 1});
  batch.wait();
  EXPECT_EQ(as_vector<float>(out.read())[0], 1e-7f);
}

TEST_F(DeviceTest, TimedDispatchesReportGpuTime) {
  if (!device().features().timestamp_query) GTEST_SKIP() << "adapter has no timestamp-query";
  // One workgroup whose threads each run ITERS dependent steps: its time
  // grows with ITERS on any GPU (a wide grid would not: a large GPU runs
  // 1,024 small workgroups as fast as one).
  const char* src = "override ITERS: u32;"
                    "@group(0) @binding(0) var<storage, read_write> o: array<f32>;"
                    "@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {"
                    "  var acc = 0.0; for (var i = 0u; i < ITERS; i++) { acc = sin(acc + f32(i + g.x)); } o[g.x] = acc; }";
  const auto& light = device().pipelines().get_from_source(src, "main", {{"ITERS", 2000}}, "light");
  const auto& heavy = device().pipelines().get_from_source(src, "main", {{"ITERS", 200000}}, "heavy");
  Buffer out = Buffer::create(device(), 64 * 4, BufferKind::Storage, "out");
  Buffer copy = Buffer::create(device(), 64 * 4, BufferKind::Storage, "copy");
  BufferBinding bind{&out};
  BindGroup light_group = BindGroup::create(device(), light, {&bind, 1});
  BindGroup heavy_group = BindGroup::create(device(), heavy, {&bind, 1});
  {
    // Both pipelines once untimed first: a CPU adapter may finish compiling a
    // pipeline at its first dispatch (lavapipe under a parallel ctest once
    // timed "first" at 110 ms, above "heavy").
    CommandBatch warm(device());
    warm.dispatch(light, light_group, {1, 1, 1});
    warm.dispatch(heavy, heavy_group, {1, 1, 1});
    warm.wait();
  }
  CommandBatch batch(device(), /*time_dispatches=*/true);
  ASSERT_TRUE(batch.timing_enabled());
  batch.dispatch(light, light_group, {1, 1, 1}, "first");
  batch.dispatch(heavy, heavy_group, {1, 1, 1});  // labelled by its pipeline
  batch.copy(out, 0, copy, 0, 64 * 4);
  batch.dispatch(light, light_group, {1, 1, 1}, "after copy");
  batch.wait();
  ASSERT_EQ(batch.timings().size(), 3u);
  EXPECT_EQ(batch.timings()[0].label, "first");
  EXPECT_EQ(batch.timings()[1].label, "heavy:main");
  EXPECT_EQ(batch.timings()[2].label, "after copy");
  for (const auto& t : batch.timings()) EXPECT_GT(t.gpu_ns, 0.0) << t.label;
  // Each time is its own dispatch's: 100x the steps take well over 4x as long
  // (a margin for a loaded CPU adapter, where 20x once measured only 4x).
  EXPECT_GT(batch.timings()[1].gpu_ns, 4 * batch.timings()[0].gpu_ns);
  EXPECT_GT(batch.timings()[1].gpu_ns, 4 * batch.timings()[2].gpu_ns);
}

}  // namespace
}  // namespace wgrt::gpu
