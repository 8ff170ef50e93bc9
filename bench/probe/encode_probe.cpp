// What one compute dispatch costs through the gpu/ layer, with nothing of
// wgrt's graph in the way:
//
// 1. CPU: recording, then wgpuCommandEncoderFinish + wgpuQueueSubmit, per
//    dispatch, by the number of buffers each binds (the floor under
//    `wgrt bench`'s "encode+submit per dispatch"; issue 14's target is
//    1.7 us). N dispatches of one workgroup per submit; the GPU is waited on
//    outside the timed part.
// 2. GPU: a chain of C dependent dispatches (the floor under a decode step,
//    whose kernels each wait for the previous one), by bindings and by
//    workgroups per dispatch (a decode step has 1 to ~4,000 of 256
//    invocations). Every dispatch writes one element per invocation of the
//    same output buffer, so wgpu-native orders each after the previous. Wall
//    time from submit to the end of the wait, divided by C (C large, so the
//    ~40 us of a submit and wait adds little).
//
// Both: one bind group per dispatch (a graph has one per op) over B storage
// buffers, two pipelines alternating (consecutive ops differ); medians over
// rounds, printed in us per dispatch.
//
// Usage: wgrt_encode_probe [N, default 85] [rounds, default 200] [C, default 512] [chain rounds, default 15]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gpu/buffer.h"
#include "gpu/command_batch.h"
#include "gpu/device.h"
#include "gpu/pipeline_cache.h"
#include "wgrt/error.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr uint32_t kChainWorkgroups[] = {1, 128, 512, 4096};
constexpr uint32_t kMaxInvocations = 4096 * 256;

// A kernel of 256 invocations per workgroup reading bindings 1..B-1 and
// writing its own element of binding 0 (each binding used, so the automatic
// layout keeps all of them). `variant` only changes the arithmetic, so that
// the two pipelines are distinct.
std::string probe_shader(int bindings, int variant) {
  std::string s;
  s += "@group(0) @binding(0) var<storage, read_write> out: array<f32>;\n";
  for (int b = 1; b < bindings; ++b) {
    s += "@group(0) @binding(" + std::to_string(b) + ") var<storage, read> in" + std::to_string(b) + ": array<f32>;\n";
  }
  s += "@compute @workgroup_size(256)\n";
  s += "fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32) {\n";
  s += "  let i = wid.x * 256u + tid;\n";
  s += "  var v = f32(i) * " + std::to_string(variant + 1) + ".0;\n";
  for (int b = 1; b < bindings; ++b) s += "  v += in" + std::to_string(b) + "[tid];\n";
  s += "  out[i] = v;\n}\n";
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double us_between(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::micro>(b - a).count(); }

// The buffers, two pipelines and one bind group per dispatch position for B bindings.
struct ProbeSet {
  std::vector<wgrt::gpu::Buffer> buffers;
  const wgrt::gpu::ComputePipeline* pipelines[2] = {nullptr, nullptr};
  std::vector<wgrt::gpu::BindGroup> groups;

  ProbeSet(wgrt::gpu::Device& device, int bindings, int positions) {
    buffers.push_back(wgrt::gpu::Buffer::create(device, kMaxInvocations * 4, wgrt::gpu::BufferKind::Storage, "probe out"));
    for (int b = 1; b < bindings; ++b) {
      buffers.push_back(wgrt::gpu::Buffer::create(device, 256 * 4, wgrt::gpu::BufferKind::Storage, "probe in"));
    }
    for (int v = 0; v < 2; ++v) {
      pipelines[v] = &device.pipelines().get_from_source(probe_shader(bindings, v), "main", {}, "encode probe");
    }
    for (int d = 0; d < positions; ++d) {
      std::vector<wgrt::gpu::BufferBinding> entries;
      for (const auto& b : buffers) entries.push_back({&b, 0, 0});
      groups.push_back(wgrt::gpu::BindGroup::create(device, *pipelines[d % 2], entries));
    }
  }

  void record(wgrt::gpu::CommandBatch& batch, int dispatches, uint32_t workgroups) const {
    for (int d = 0; d < dispatches; ++d) batch.dispatch(*pipelines[d % 2], groups[size_t(d)], {workgroups, 1, 1});
  }
};

}  // namespace

int main(int argc, char** argv) {
  const int dispatches = argc > 1 ? std::atoi(argv[1]) : 85;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 200;
  const int chain = argc > 3 ? std::atoi(argv[3]) : 512;
  const int chain_rounds = argc > 4 ? std::atoi(argv[4]) : 15;
  if (dispatches <= 0 || rounds <= 0 || chain <= 0 || chain_rounds <= 0) {
    std::fprintf(stderr, "usage: wgrt_encode_probe [dispatches > 0] [rounds > 0] [chain > 0] [chain rounds > 0]\n");
    return 2;
  }
  try {
    auto device = wgrt::gpu::Device::create();
    std::printf("device: %s\n", device->adapter_info().name.c_str());
    const int bindings_list[] = {1, 2, 4, 8, 12};
    std::vector<ProbeSet> sets;
    for (int bindings : bindings_list) sets.emplace_back(*device, bindings, std::max(dispatches, chain));

    std::printf("CPU: %d dispatches per submit, median of %d rounds (us per dispatch)\n", dispatches, rounds);
    std::printf("| bindings | record | finish + submit | total |\n| ---: | ---: | ---: | ---: |\n");
    for (size_t i = 0; i < sets.size(); ++i) {
      std::vector<double> record_us, submit_us;
      for (int r = 0; r < rounds + 5; ++r) {  // 5 warm-up rounds
        wgrt::gpu::CommandBatch batch(*device);
        const auto t0 = Clock::now();
        sets[i].record(batch, dispatches, 1);
        const auto t1 = Clock::now();
        batch.submit();
        const auto t2 = Clock::now();
        batch.wait();
        if (r < 5) continue;
        record_us.push_back(us_between(t0, t1) / dispatches);
        submit_us.push_back(us_between(t1, t2) / dispatches);
      }
      const double rec = median(record_us), sub = median(submit_us);
      std::printf("| %d | %.2f | %.2f | %.2f |\n", bindings_list[i], rec, sub, rec + sub);
    }

    std::printf("\nGPU: a chain of %d dependent dispatches, median of %d rounds (us per dispatch, wall / %d)\n", chain,
                chain_rounds, chain);
    std::printf("| bindings |");
    for (uint32_t w : kChainWorkgroups) std::printf(" %u x 256 |", w);
    std::printf("\n| ---: |");
    for (size_t i = 0; i < std::size(kChainWorkgroups); ++i) std::printf(" ---: |");
    std::printf("\n");
    for (size_t i = 0; i < sets.size(); ++i) {
      std::printf("| %d |", bindings_list[i]);
      for (uint32_t w : kChainWorkgroups) {
        std::vector<double> per_dispatch;
        for (int r = 0; r < chain_rounds + 2; ++r) {  // 2 warm-up rounds
          wgrt::gpu::CommandBatch batch(*device);
          sets[i].record(batch, chain, w);
          const auto t0 = Clock::now();
          batch.submit();
          batch.wait();
          if (r >= 2) per_dispatch.push_back(us_between(t0, Clock::now()) / chain);
        }
        std::printf(" %.2f |", median(per_dispatch));
        std::fflush(stdout);
      }
      std::printf("\n");
    }
  } catch (const wgrt::Error& e) {
    std::fprintf(stderr, "wgrt_encode_probe: %s\n", e.what());
    return 1;
  }
  return 0;
}
