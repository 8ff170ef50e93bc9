// The first kernel end to end: elementwise add of f32 tensors, scalar and vec4
// entry points, compared with a CPU sum, including a size that needs the 2D fold.
#include <gtest/gtest.h>


#include "gpu/buffer.h"
#include "gpu/command_batch.h"
#include "gpu/pipeline_cache.h"
#include "gpu/workgroups.h"
#include "gpu_test_env.h"
#include "host_tensors.h"
#include "ops/elementwise/binary.h"

namespace wgrt {
namespace {

using gpu::Buffer;
using gpu::BufferKind;


class BinaryKernelTest : public test::GpuTest {
 protected:
  // Runs binary.wgsl's `entry` over n floats and returns the result and the
  // workgroup count it dispatched.
  std::vector<float> run(const std::vector<float>& a, const std::vector<float>& b, const char* entry,
                         uint32_t workgroup_size, gpu::WorkgroupCount* used = nullptr) {
    const uint64_t bytes = a.size() * sizeof(float);
    const bool vec4 = std::string(entry) == "main_vec4";
    const uint32_t items = static_cast<uint32_t>(vec4 ? a.size() / 4 : a.size());
    Buffer ga = Buffer::create(device(), bytes, BufferKind::Storage, "a");
    Buffer gb = Buffer::create(device(), bytes, BufferKind::Storage, "b");
    Buffer go = Buffer::create(device(), bytes, BufferKind::Storage, "out");
    Buffer gp = Buffer::create(device(), sizeof(ops::BinaryParams), BufferKind::Uniform, "params");
    ga.write(0, a.data(), bytes);
    gb.write(0, b.data(), bytes);
    ops::BinaryParams params;
    params.count = items;
    gp.write(0, &params, sizeof(params));
    const auto& pipeline = device().pipelines().get("elementwise/binary.wgsl", entry,
                                                    {{"WG", workgroup_size}, {"OP", 0}});
    const gpu::BufferBinding binds[] = {{&ga}, {&gb}, {&go}, {&gp}};
    gpu::BindGroup group = gpu::BindGroup::create(device(), pipeline, binds);
    const gpu::WorkgroupCount count = gpu::fold_workgroups(gpu::div_up(items, workgroup_size),
                                                           device().limits().max_compute_workgroups_per_dimension);
    if (used) *used = count;
    gpu::CommandBatch batch(device());
    batch.dispatch(pipeline, group, count);
    batch.wait();
    return test::as_vector<float>(go.read(0, bytes));
  }

  // f32 addition is exactly rounded on both sides: results must be identical.
  static void expect_sum(const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& got) {
    ASSERT_EQ(got.size(), a.size());
    size_t bad = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      if (got[i] != a[i] + b[i] && bad++ < 5) ADD_FAILURE() << "at " << i << ": " << got[i] << " != " << a[i] + b[i];
    }
    EXPECT_EQ(bad, 0u);
  }
};

TEST_F(BinaryKernelTest, ScalarAddMatchesCpuAtAnOddSize) {
  const auto a = test::random_floats(1000003, 1, -10.0f, 10.0f), b = test::random_floats(1000003, 2, -10.0f, 10.0f);
  expect_sum(a, b, run(a, b, "main_scalar", 256));
}

TEST_F(BinaryKernelTest, Vec4AddMatchesCpu) {
  const auto a = test::random_floats(1 << 20, 3, -10.0f, 10.0f), b = test::random_floats(1 << 20, 4, -10.0f, 10.0f);
  expect_sum(a, b, run(a, b, "main_vec4", 256));
}

TEST_F(BinaryKernelTest, AddBeyond65535WorkgroupsFoldsInto2D) {
  // 64-wide workgroups make the fold affordable on a CPU: 65535 * 64 + 4097
  // elements need 65600 workgroups, one dimension cannot hold them.
  const size_t n = size_t{65535} * 64 + 4097;
  const auto a = test::random_floats(n, 5, -10.0f, 10.0f), b = test::random_floats(n, 6, -10.0f, 10.0f);
  gpu::WorkgroupCount used;
  const auto got = run(a, b, "main_scalar", 64, &used);
  ASSERT_GT(used.y, 1u) << "the premise: this dispatch must be 2D";
  expect_sum(a, b, got);
}

}  // namespace
}  // namespace wgrt
