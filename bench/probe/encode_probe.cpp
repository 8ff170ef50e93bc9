// CPU cost of recording and submitting compute dispatches through the gpu/
// layer, by the number of buffers each dispatch binds: the floor under
// `wgrt bench`'s "encode+submit per dispatch" (issue 14's target is 1.7 us).
//
// Per binding count B (1, 2, 4, 8, 12): D distinct bind groups (a decode step
// has one per op) over B storage buffers, two pipelines alternating (as
// consecutive ops differ), N dispatches recorded into one pass, then
// finish + submit; the GPU is waited on outside the timed part. Median of R
// rounds, printed per dispatch.
//
// Usage: wgrt_encode_probe [N dispatches per round, default 85] [R rounds, default 200]
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

// A kernel reading binding 1..B-1 and writing binding 0 (each binding used,
// so the automatic layout keeps all of them). `variant` only changes the
// arithmetic, so that the two pipelines are distinct.
std::string probe_shader(int bindings, int variant) {
  std::string s;
  s += "@group(0) @binding(0) var<storage, read_write> out: array<f32>;\n";
  for (int b = 1; b < bindings; ++b) {
    s += "@group(0) @binding(" + std::to_string(b) + ") var<storage, read> in" + std::to_string(b) + ": array<f32>;\n";
  }
  s += "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) {\n";
  s += "  var v = f32(id.x) * " + std::to_string(variant + 1) + ".0;\n";
  for (int b = 1; b < bindings; ++b) s += "  v += in" + std::to_string(b) + "[id.x % 16u];\n";
  s += "  out[id.x % 16u] = v;\n}\n";
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int dispatches = argc > 1 ? std::atoi(argv[1]) : 85;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 200;
  if (dispatches <= 0 || rounds <= 0) {
    std::fprintf(stderr, "usage: wgrt_encode_probe [dispatches > 0] [rounds > 0]\n");
    return 2;
  }
  try {
    auto device = wgrt::gpu::Device::create();
    std::printf("device: %s\n", device->adapter_info().name.c_str());
    std::printf("%d dispatches per submit, median of %d rounds (us per dispatch)\n", dispatches, rounds);
    std::printf("| bindings | record | finish + submit | total |\n| ---: | ---: | ---: | ---: |\n");
    for (int bindings : {1, 2, 4, 8, 12}) {
      std::vector<wgrt::gpu::Buffer> buffers;
      for (int b = 0; b < bindings; ++b) {
        buffers.push_back(wgrt::gpu::Buffer::create(*device, 256, wgrt::gpu::BufferKind::Storage, "probe"));
      }
      const wgrt::gpu::ComputePipeline* pipelines[2];
      for (int v = 0; v < 2; ++v) {
        pipelines[v] = &device->pipelines().get_from_source(probe_shader(bindings, v), "main", {}, "encode probe");
      }
      // One bind group per dispatch position, as a graph has one per op.
      std::vector<wgrt::gpu::BindGroup> groups;
      for (int d = 0; d < dispatches; ++d) {
        std::vector<wgrt::gpu::BufferBinding> entries;
        for (const auto& b : buffers) entries.push_back({&b, 0, 0});
        groups.push_back(wgrt::gpu::BindGroup::create(*device, *pipelines[d % 2], entries));
      }
      std::vector<double> record_us, submit_us;
      for (int r = 0; r < rounds + 5; ++r) {  // 5 warm-up rounds
        wgrt::gpu::CommandBatch batch(*device);
        const auto t0 = Clock::now();
        for (int d = 0; d < dispatches; ++d) batch.dispatch(*pipelines[d % 2], groups[size_t(d)], {1, 1, 1});
        const auto t1 = Clock::now();
        batch.submit();
        const auto t2 = Clock::now();
        batch.wait();
        if (r < 5) continue;
        record_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / dispatches);
        submit_us.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count() / dispatches);
      }
      const double rec = median(record_us), sub = median(submit_us);
      std::printf("| %d | %.2f | %.2f | %.2f |\n", bindings, rec, sub, rec + sub);
    }
  } catch (const wgrt::Error& e) {
    std::fprintf(stderr, "wgrt_encode_probe: %s\n", e.what());
    return 1;
  }
  return 0;
}
