// Implicit-GEMM 2D convolution (not transposed) over contiguous NCHW f32,
// with the reduction ordered by window position first: k = ((ky, kx), ci).
//
// main_igemm: a 64 (pixels) x 64 (channels) output tile per workgroup of 256
// invocations, each owning 4 pixels x 4 channels in registers. The reduction
// runs in slices of 16 input channels at one window position (ky, kx), so a
// slice needs no per-element index arithmetic: every invocation stages the
// same input position of 4 channels, bounds-checked once per slice (channels
// past the group's are zero). Tiles are kept in workgroup memory as vec4s, so
// one inner step is two vector reads and 16 FMAs. The next slice is read from
// memory while this one is multiplied. Weights are prepacked at load
// (conv2d.cpp) as [group][ky][kx][ci padded to 16][co padded to 4], so a
// slice row of 4 channels is one vec4 read. POINTWISE (1x1, stride 1, no
// padding) is a plain GEMM on the input matrix [ci][pixel].
//
// Split-K: when the tiles alone leave the GPU idle (deep, small late layers),
// wid.z also picks one of p.splits contiguous ranges of slices, whose partial
// sums go to `part` [split][cout][pixel]; main_reduce adds them up with the
// bias and clamp. With p.splits == 1 main_igemm finishes the outputs itself.
//! import common/prelude.wgsl
//! import conv/conv_params.wgsl

override POINTWISE: u32 = 0u;
override WG: u32 = 256;  // main_reduce's workgroup: kReduceWorkgroup passes it

// main_reduce binds only the first five.
@group(0) @binding(0) var<storage, read> bias: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read_write> part: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;
@group(0) @binding(4) var<storage, read> residual: array<f32>;
@group(0) @binding(5) var<storage, read> x: array<f32>;
@group(0) @binding(6) var<storage, read> weight: array<vec4<f32>>;

const BK: u32 = 16u;  // input channels per slice
const BM: u32 = 64u;  // pixels per tile
const BN: u32 = 64u;  // output channels per tile

var<workgroup> a_tile: array<vec4<f32>, 256>;  // [BK][BM / 4]: 4 pixels a vec4
var<workgroup> b_tile: array<vec4<f32>, 256>;  // [BK][BN / 4]: 4 channels a vec4

// This invocation's staging work for one slice: 4 input channels of one
// pixel, and one vec4 of 4 output channels.
struct Staged {
  a: vec4<f32>,
  b: vec4<f32>,
}

fn stage(t: u32, g: u32, valid: bool, plane: u32, pix: u32, y0: i32, x0: i32, a_k: u32, b_k: u32, b_n4: u32,
         n0: u32) -> Staged {
  var s: Staged;
  s.a = vec4<f32>(0.0);
  s.b = vec4<f32>(0.0);
  let wpos = t / p.chunks;
  let ci0 = (t - wpos * p.chunks) * BK;
  let hw = p.h * p.w;
  if (valid) {
    var at = 0u;
    var inside = true;
    if (POINTWISE != 0u) {
      at = plane + pix;
    } else {
      let ky = wpos / p.kw;
      let kx = wpos - ky * p.kw;
      let iy = y0 + i32(ky) * p.dil_h;
      let ix = x0 + i32(kx) * p.dil_w;
      inside = iy >= 0 && ix >= 0 && iy < i32(p.h) && ix < i32(p.w);
      at = plane + u32(max(iy, 0)) * p.w + u32(max(ix, 0));
    }
    if (inside) {
      let c = ci0 + a_k;
      if (c < p.cin_g) { s.a.x = x[at + c * hw]; }
      if (c + 4u < p.cin_g) { s.a.y = x[at + (c + 4u) * hw]; }
      if (c + 8u < p.cin_g) { s.a.z = x[at + (c + 8u) * hw]; }
      if (c + 12u < p.cin_g) { s.a.w = x[at + (c + 12u) * hw]; }
    }
  }
  // Packed weights: rows of cout_g4 vec4s, one row per (g, wpos, ci padded).
  let co4 = n0 / 4u + b_n4;
  if (co4 < p.cout_g4) {
    let row = (g * p.kh * p.kw + wpos) * p.chunks * BK + ci0 + b_k;
    s.b = weight[row * p.cout_g4 + co4];
  }
  return s;
}

// Four pixels (m .. m + 3) of output channel co_local of group g.
fn store4(co_local: u32, g: u32, m: u32, split: u32, v: vec4<f32>) {
  if (co_local >= p.cout_g) { return; }
  let co = g * p.cout_g + co_local;
  let pixels = p.oh * p.ow;
  for (var i = 0u; i < 4u; i++) {
    let mi = m + i;
    if (mi < p.m_total) {
      if (p.splits == 1u) {
        let img = mi / pixels;
        let at = (img * p.cout + co) * pixels + (mi - img * pixels);
        out[at] = finish(v[i], co, at);
      } else {
        part[(split * p.cout + co) * p.m_total + mi] = v[i];
      }
    }
  }
}

@compute @workgroup_size(256)
fn main_igemm(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
  let g = wid.z / p.splits;
  let split = wid.z - g * p.splits;
  let m0 = wid.x * BM;
  let n0 = wid.y * BN;
  // Staging: pixel m0 + a_m at channels a_k + 4i; packed weight row b_k, vec4 b_n4.
  let a_m = tid % BM;
  let a_k = tid / BM;
  let b_k = tid % BK;
  let b_n4 = tid / BK;
  let m = m0 + a_m;
  let valid = m < p.m_total;
  let pixels = p.oh * p.ow;
  let img = m / pixels;
  let pix = m - img * pixels;
  let plane = (img * p.cin + g * p.cin_g) * p.h * p.w;
  let oy = i32(pix / p.ow);
  let ox = i32(pix % p.ow);
  let y0 = oy * p.stride_h - p.pad_h;
  let x0 = ox * p.stride_w - p.pad_w;
  // Compute: pixels m0 + 4 tm + i, channels n0 + 4 tn + j.
  let tm = tid % 16u;
  let tn = tid / 16u;
  var acc0 = vec4<f32>(0.0);  // channel n0 + 4 tn + 0, four pixels
  var acc1 = vec4<f32>(0.0);
  var acc2 = vec4<f32>(0.0);
  var acc3 = vec4<f32>(0.0);
  let total = p.kh * p.kw * p.chunks;
  let t_begin = split * p.slices_per_split;
  let t_end = min(total, t_begin + p.slices_per_split);
  var next = stage(t_begin, g, valid, plane, pix, y0, x0, a_k, b_k, b_n4, n0);
  for (var t = t_begin; t < t_end; t++) {
    a_tile[a_k * 16u + a_m / 4u][a_m % 4u] = next.a.x;
    a_tile[(a_k + 4u) * 16u + a_m / 4u][a_m % 4u] = next.a.y;
    a_tile[(a_k + 8u) * 16u + a_m / 4u][a_m % 4u] = next.a.z;
    a_tile[(a_k + 12u) * 16u + a_m / 4u][a_m % 4u] = next.a.w;
    b_tile[b_k * 16u + b_n4] = next.b;
    workgroupBarrier();
    if (t + 1u < t_end) {
      next = stage(t + 1u, g, valid, plane, pix, y0, x0, a_k, b_k, b_n4, n0);
    }
    for (var k = 0u; k < BK; k++) {
      let a = a_tile[k * 16u + tm];
      let b = b_tile[k * 16u + tn];
      acc0 = fma(a, vec4<f32>(b.x), acc0);
      acc1 = fma(a, vec4<f32>(b.y), acc1);
      acc2 = fma(a, vec4<f32>(b.z), acc2);
      acc3 = fma(a, vec4<f32>(b.w), acc3);
    }
    workgroupBarrier();
  }
  let co = n0 + tn * 4u;
  store4(co, g, m0 + tm * 4u, split, acc0);
  store4(co + 1u, g, m0 + tm * 4u, split, acc1);
  store4(co + 2u, g, m0 + tm * 4u, split, acc2);
  store4(co + 3u, g, m0 + tm * 4u, split, acc3);
}

// One output element per invocation over cout * m_total (2D-folded grid).
@compute @workgroup_size(WG)
fn main_reduce(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
               @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_group(wid, nwg) * WG + lid;
  if (i >= p.cout * p.m_total) { return; }
  let co = i / p.m_total;
  let m = i - co * p.m_total;
  var sum = 0.0;
  for (var s = 0u; s < p.splits; s++) {
    sum += part[(s * p.cout + co) * p.m_total + m];
  }
  let pixels = p.oh * p.ow;
  let img = m / pixels;
  let at = (img * p.cout + co) * pixels + (m - img * pixels);
  out[at] = finish(sum, co, at);
}
