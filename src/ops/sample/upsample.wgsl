// 2D upsampling of contiguous [planes, H, W] f32, one output per invocation.
// BILINEAR 0: nearest (PyTorch's legacy 'nearest': src = floor(dst * scale));
// 1: bilinear, with ALIGN_CORNERS choosing how output pixels map to input ones.
// scale_h / scale_w are input/output ratios as PyTorch computes them.
//! import common/prelude.wgsl

override WG: u32 = 64;  // the C++'s kWorkgroup passes it
override BILINEAR: u32 = 0u;
override ALIGN_CORNERS: u32 = 0u;

struct Params {
  count: u32, h: u32, w: u32, oh: u32,
  ow: u32, scale_h: f32, scale_w: f32, pad: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

// The source coordinate of output coordinate d for bilinear sampling.
fn source(d: u32, scale: f32) -> f32 {
  if (ALIGN_CORNERS != 0u) { return f32(d) * scale; }
  return max((f32(d) + 0.5) * scale - 0.5, 0.0);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_group(wid, nwg) * WG + lid;
  if (i >= p.count) { return; }
  let ox = i % p.ow;
  let oy = (i / p.ow) % p.oh;
  let base = (i / (p.ow * p.oh)) * p.h * p.w;
  if (BILINEAR == 0u) {
    let iy = min(u32(floor(f32(oy) * p.scale_h)), p.h - 1u);
    let ix = min(u32(floor(f32(ox) * p.scale_w)), p.w - 1u);
    out[i] = x[base + iy * p.w + ix];
    return;
  }
  let sy = source(oy, p.scale_h);
  let sx = source(ox, p.scale_w);
  let y0 = min(u32(sy), p.h - 1u);
  let x0 = min(u32(sx), p.w - 1u);
  let y1 = min(y0 + 1u, p.h - 1u);
  let x1 = min(x0 + 1u, p.w - 1u);
  let ly = sy - f32(y0);
  let lx = sx - f32(x0);
  let top = mix(x[base + y0 * p.w + x0], x[base + y0 * p.w + x1], lx);
  let bottom = mix(x[base + y1 * p.w + x0], x[base + y1 * p.w + x1], lx);
  out[i] = mix(top, bottom, ly);
}
