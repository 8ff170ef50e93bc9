// Arithmetic ceilings of the prefill GEMM's inner loop through wgpu-native:
// what a kernel of multiply-adds alone reaches in f32, vec4<f16> and
// vec4<f16> products into f32 sums, and the GEMM's own inner-loop shape
// (two vec4 reads of workgroup memory per 16 multiply-adds into 4 x 4
// accumulators, linear/gemm.wgsl with 4 x 4 thread tiles) in f32 and f16.
// The floor under issue 18's GEMM target (40 TFLOP/s in f16): if the
// driver does not pair f16 multiply-adds, vec4<f16> runs at the f32 rate.
//
// GPU time from timestamps (a pass per dispatch), median of R repeats of a
// grid of W workgroups x 256 threads, each thread ITERS steps.
// Usage: wgrt_fma_probe [W, default 2048] [R, default 7]
#include <algorithm>
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

constexpr uint32_t kIters = 2048;

struct Variant {
  const char* name;
  const char* type;       // the multiply type T
  const char* acc;        // the accumulator type
  bool tile;              // the GEMM's inner loop (workgroup-memory reads) or registers alone
  double flops_per_iter;  // per thread
};

// Registers alone: 8 independent vec4 chains of T multiply-adds. Tile: per
// step a vec4 of x and a vec4 of W from workgroup memory, 16 multiply-adds
// into 4 vec4 sums (the 4 x 4 tile of linear/gemm.wgsl).
std::string shader(const Variant& v) {
  const std::string T = v.type, A = v.acc;
  std::string s = T == "f16" ? "enable f16;\n" : "";
  s += "override ITERS: u32;\n@group(0) @binding(0) var<storage, read_write> out: array<f32>;\n";
  if (v.tile) s += "var<workgroup> xs: array<vec4<" + T + ">, 1024>;\nvar<workgroup> ws: array<vec4<" + T + ">, 1024>;\n";
  s += "@compute @workgroup_size(256)\n"
       "fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(local_invocation_index) t: u32) {\n";
  s += "  let seed = " + T + "(f32(g.x % 7u) * 0.01);\n";
  if (v.tile) {
    s += "  for (var i = t; i < 1024u; i += 256u) { xs[i] = vec4<" + T + ">(seed); ws[i] = vec4<" + T + ">(seed + " + T +
         "(0.5)); }\n  workgroupBarrier();\n";
    s += "  var a0 = vec4<" + A + ">(0.0); var a1 = a0; var a2 = a0; var a3 = a0;\n";
    // As in the GEMM: thread (tm, tn) reads x at [k][tm] and W at [k][tn],
    // 8 steps of k per loop trip at constant offsets.
    s += "  let tm = t / 16u; let tn = t % 16u;\n"
         "  for (var i = 0u; i < ITERS / 8u; i++) {\n"
         "   let base = ((i * 8u) % 64u) * 16u;\n"
         "   for (var j = 0u; j < 8u; j++) {\n"
         "    let x = xs[base + j * 16u + tm]; let w = ws[base + j * 16u + tn];\n";
    if (A == T) {
      s += "    a0 = fma(vec4<" + T + ">(x.x), w, a0); a1 = fma(vec4<" + T + ">(x.y), w, a1);\n"
           "    a2 = fma(vec4<" + T + ">(x.z), w, a2); a3 = fma(vec4<" + T + ">(x.w), w, a3);\n";
    } else {
      s += "    a0 += vec4<f32>(vec4<" + T + ">(x.x) * w); a1 += vec4<f32>(vec4<" + T + ">(x.y) * w);\n"
           "    a2 += vec4<f32>(vec4<" + T + ">(x.z) * w); a3 += vec4<f32>(vec4<" + T + ">(x.w) * w);\n";
    }
    s += "   }\n  }\n  out[g.x % 1024u] = f32(dot(vec4<f32>(a0 + a1 + a2 + a3), vec4<f32>(1.0)));\n}\n";
    return s;
  }
  s += "  let b = vec4<" + T + ">(" + T + "(0.999)); let c = vec4<" + T + ">(seed);\n";
  s += "  var a0 = vec4<" + A + ">(seed); var a1 = a0 + vec4<" + A + ">(0.1); var a2 = a0 + vec4<" + A +
       ">(0.2); var a3 = a0 + vec4<" + A + ">(0.3);\n";
  s += "  var a4 = a0 + vec4<" + A + ">(0.4); var a5 = a0 + vec4<" + A + ">(0.5); var a6 = a0 + vec4<" + A +
       ">(0.6); var a7 = a0 + vec4<" + A + ">(0.7);\n";
  s += "  for (var i = 0u; i < ITERS; i++) {\n"
       "    a0 = fma(a0, b, c); a1 = fma(a1, b, c); a2 = fma(a2, b, c); a3 = fma(a3, b, c);\n"
       "    a4 = fma(a4, b, c); a5 = fma(a5, b, c); a6 = fma(a6, b, c); a7 = fma(a7, b, c);\n  }\n";
  s += "  out[g.x % 1024u] = f32(dot(vec4<f32>(a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7), vec4<f32>(1.0)));\n}\n";
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const int workgroups = argc > 1 ? std::atoi(argv[1]) : 2048;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 7;
  if (workgroups <= 0 || workgroups > 65535 || repeats <= 0) {
    std::fprintf(stderr, "usage: wgrt_fma_probe [workgroups 1..65535] [repeats > 0]\n");
    return 2;
  }
  try {
    auto device = wgrt::gpu::Device::create();
    std::printf("device: %s, shader-f16 %s\n", device->adapter_info().name.c_str(),
                device->features().shader_f16 ? "yes" : "no");
    if (!device->features().timestamp_query) {
      std::fprintf(stderr, "wgrt_fma_probe: the device has no timestamp-query\n");
      return 1;
    }
    std::vector<Variant> variants = {
        {"f32 registers", "f32", "f32", false, 8 * 4 * 2},
        {"f32 GEMM inner loop", "f32", "f32", true, 16 * 2},
    };
    if (device->features().shader_f16) {
      variants.push_back({"vec4<f16> registers", "f16", "f16", false, 8 * 4 * 2});
      variants.push_back({"f16 GEMM inner loop", "f16", "f16", true, 16 * 2});
      variants.push_back({"f16 products into f32 sums", "f16", "f32", true, 16 * 2});
    }
    wgrt::gpu::Buffer out = wgrt::gpu::Buffer::create(*device, 4096, wgrt::gpu::BufferKind::Storage, "probe out");
    const wgrt::gpu::BufferBinding binding{&out, 0, 0};
    std::printf("%d workgroups x 256 threads x %u steps, median of %d\n", workgroups, kIters, repeats);
    std::printf("| kernel | us | TFLOP/s |\n| --- | ---: | ---: |\n");
    for (const Variant& v : variants) {
      const auto& pipeline = device->pipelines().get_from_source(shader(v), "main", {{"ITERS", kIters}}, v.name);
      const auto group = wgrt::gpu::BindGroup::create(*device, pipeline, {&binding, 1});
      std::vector<double> ns;
      for (int r = 0; r < repeats + 2; ++r) {  // 2 warm-up runs
        wgrt::gpu::CommandBatch batch(*device, /*time_dispatches=*/true);
        batch.dispatch(pipeline, group, {uint32_t(workgroups), 1, 1});
        batch.wait();
        if (r >= 2) ns.push_back(batch.timings()[0].gpu_ns);
      }
      std::sort(ns.begin(), ns.end());
      const double t = ns[ns.size() / 2];
      const double flops = double(workgroups) * 256 * kIters * v.flops_per_iter;
      std::printf("| %s | %.1f | %.2f |\n", v.name, t / 1e3, flops / t / 1e3);
    }
  } catch (const wgrt::Error& e) {
    std::fprintf(stderr, "wgrt_fma_probe: %s\n", e.what());
    return 1;
  }
  return 0;
}
