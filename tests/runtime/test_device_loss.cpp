// A device lost (destroyed by the test hook, as a driver reset would) between
// runs and in the middle of a .pte load + run or a GGUF load + generate: the
// call fails with DeviceLost, later calls do too, everything on the lost
// device is destroyed without a crash, and a new device afterwards works.
// Each case uses devices of its own: the shared one must survive.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "core/npy.h"
#include "gpu_test_env.h"
#include "runtime/fault_walk.h"
#include "runtime/program.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

using test::fault_fixture;

class DeviceLoss : public test::GpuTest {};

void expect_lost(const std::function<void()>& fn, const std::string& what) {
  try {
    fn();
    ADD_FAILURE() << what << ": expected DeviceLost";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::DeviceLost) << what << ": " << e.what();
  }
}

// Loses a fresh device at GPU call n of `work` for each n in `points` (in
// increasing order; stops at the first n past the run's last call). Returns
// the points where the loss struck.
uint32_t walk_losses(const std::function<void(gpu::Device&)>& work, const std::function<uint32_t(uint32_t)>& next) {
  uint32_t struck = 0;
  for (uint32_t n = 1;; n = next(n)) {
    auto device = gpu::Device::create();
    device->lose_device_at_nth_gpu_call_for_test(n);
    bool lost = false;
    try {
      work(*device);
    } catch (const Error& e) {
      lost = true;
      EXPECT_EQ(e.code(), ErrorCode::DeviceLost) << "loss at call " << n << ": " << e.what();
      expect_lost([&] { work(*device); }, "a run after the loss at call " + std::to_string(n));
    }
    if (!lost) {
      EXPECT_TRUE(device->injected_failure_pending()) << "lost at call " << n << ", but the run went on";
      return struck;
    }
    ++struck;
    if (::testing::Test::HasFailure()) return struck;
  }
}

TEST_F(DeviceLoss, BetweenRunsIsDeviceLostAndANewDeviceWorks) {
  const HostTensor in0 = read_npy(fault_fixture("pte/add_chain.in0.npy"));
  const HostTensor in1 = read_npy(fault_fixture("pte/add_chain.in1.npy"));
  const HostTensor want = read_npy(fault_fixture("pte/add_chain.out0.npy"));
  const HostTensorView views[] = {{in0.dtype, in0.dims, in0.data}, {in1.dtype, in1.dims, in1.data}};
  {
    auto doomed = gpu::Device::create();
    auto program = Program::load(*doomed, fault_fixture("pte/add_chain.pte"));
    ExecutableGraph& graph = program->method("forward").graph();
    EXPECT_EQ(graph.execute(views)[0].data, want.data);
    doomed->lose_for_test();
    expect_lost([&] { graph.execute(views); }, "a run after the loss");
    expect_lost([&] { graph.execute(views); }, "a second run");
    expect_lost([&] { Program::load(*doomed, fault_fixture("pte/add_chain.pte")); }, "a load on the lost device");
  }  // the program and the lost device are destroyed without a crash
  auto fresh = gpu::Device::create();
  auto program = Program::load(*fresh, fault_fixture("pte/add_chain.pte"));
  EXPECT_EQ(program->method("forward").graph().execute(views)[0].data, want.data);
}

// The loss at every GPU call of add_chain.pte's load + run, in turn.
TEST_F(DeviceLoss, AtEveryGpuCallOfAPteLoadAndRun) {
  const uint32_t struck = walk_losses(test::load_and_run_add_chain, [](uint32_t n) { return n + 1; });
  std::cout << "[ loss walk: add_chain.pte load + run ] device lost at each of " << struck << " GPU calls\n";
  EXPECT_GT(struck, 5u);
  auto fresh = gpu::Device::create();
  test::load_and_run_add_chain(*fresh);
}

// The loss at GPU calls 1, 2, 4, 8, ... of the GGUF load + generate, and at
// its last calls (the decode steps and their token readbacks): every point
// needs a new device whose shaders compile afresh, too slow for all of them.
TEST_F(DeviceLoss, InAGgufLoadAndGenerate) {
  auto counted = gpu::Device::create();
  const std::vector<llm::TokenId> want = test::load_and_generate_tiny_llama(*counted);
  const uint32_t calls = uint32_t(counted->gpu_calls_for_test());
  counted.reset();
  ASSERT_GT(calls, 20u);
  auto next = [calls](uint32_t n) { return n >= calls - 4 ? n + 1 : std::min(2 * n, calls - 4); };
  const uint32_t struck = walk_losses([](gpu::Device& d) { test::load_and_generate_tiny_llama(d); }, next);
  std::cout << "[ loss walk: tiny_llama_q4_0.gguf load + generate ] device lost at " << struck << " of its " << calls
            << " GPU calls\n";
  EXPECT_GT(struck, 6u);
  auto fresh = gpu::Device::create();
  EXPECT_EQ(test::load_and_generate_tiny_llama(*fresh), want);
}

}  // namespace
}  // namespace wgrt
