// 2D pooling over contiguous [planes, H, W] f32 (planes = N * C), one output
// per invocation. MODE 0: max (with the argmax's flat h * W + w index, as
// PyTorch's max_pool2d_with_indices gives it); 1: average over the window's
// in-input elements, 2: average counting the padding, 3: a fixed divisor.
//! import common/prelude.wgsl

override WG: u32 = 64;  // the C++'s kWorkgroup passes it
override MODE: u32 = 0u;
override WITH_INDICES: u32 = 0u;

struct Params {
  planes: u32, h: u32, w: u32, oh: u32,
  ow: u32, kh: u32, kw: u32, divisor: f32,
  stride_h: i32, stride_w: i32, pad_h: i32, pad_w: i32,
  dil_h: i32, dil_w: i32, count: u32, pad: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read_write> indices: array<i32>;
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_group(wid, nwg) * WG + lid;
  if (i >= p.count) { return; }
  let ox = i % p.ow;
  let oy = (i / p.ow) % p.oh;
  let plane = i / (p.ow * p.oh);
  let base = plane * p.h * p.w;
  let y0 = i32(oy) * p.stride_h - p.pad_h;
  let x0 = i32(ox) * p.stride_w - p.pad_w;
  var best = -3.402823e38;
  var best_at = -1;
  var sum = 0.0;
  var inside = 0u;
  for (var ky = 0u; ky < p.kh; ky++) {
    let iy = y0 + i32(ky) * p.dil_h;
    if (iy < 0 || iy >= i32(p.h)) { continue; }
    for (var kx = 0u; kx < p.kw; kx++) {
      let ix = x0 + i32(kx) * p.dil_w;
      if (ix < 0 || ix >= i32(p.w)) { continue; }
      let at = iy * i32(p.w) + ix;
      let v = x[base + u32(at)];
      // NaN wins, as in PyTorch.
      if (best_at < 0 || v > best || v != v) { best = v; best_at = at; }
      sum += v;
      inside++;
    }
  }
  switch MODE {
    case 0u: {
      out[i] = best;
      if (WITH_INDICES != 0u) { indices[i] = best_at; }
    }
    case 1u: { out[i] = sum / f32(inside); }
    case 2u: {
      // The window clipped to the padded input, as PyTorch counts it.
      let y1 = min(y0 + i32(p.kh), i32(p.h) + p.pad_h);
      let x1 = min(x0 + i32(p.kw), i32(p.w) + p.pad_w);
      out[i] = sum / f32((y1 - y0) * (x1 - x0));
    }
    default: { out[i] = sum / p.divisor; }
  }
}
