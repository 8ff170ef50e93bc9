// 2D convolution (1D as height 1) over contiguous NCHW f32 tensors, with
// groups, stride, padding, dilation, transposition, bias and an output clamp.
//
// main_gemm: implicit GEMM per group. Rows m are output pixels (n, oy, ox),
// columns are the group's output channels, the reduction k runs over
// (input channel, ky, kx). A 64x64 output tile per workgroup of 256
// invocations, each owning a 4x4 block of outputs in registers.
// Slices 16 deep of the im2col matrix and of the weights are staged in
// workgroup memory, the next slice's loads in flight during this one's math. Each invocation always loads the same im2col row (and the
// same weight k), so the pixel's coordinates are decoded once, not per slice;
// POINTWISE (1x1, stride 1, no padding) skips the window arithmetic
// altogether. Transposed convolution only changes how an im2col element
// finds its input (and the weight layout).
//
// main_depthwise: one input channel per group (depthwise, with any channel
// multiplier): each invocation computes 4 adjacent output pixels of one row,
// reading each weight once for the four. ROW3 (3 wide, undilated, stride 1 or
// 2 across): each input row segment is read once for all three taps (6 or 9
// values instead of 12), branch-free at the borders.
//
// Both cover the output channels that p.g0, p.co0 and p.co_count name
// (conv_params.wgsl): all of them, or one run of a weight above the binding
// limit, whose binding holds only its channels' rows (from p.w_row0).
//! import common/prelude.wgsl
//! import conv/conv_params.wgsl

override TRANSPOSED: u32 = 0u;
override POINTWISE: u32 = 0u;
override ROW3: u32 = 0u;
override WG: u32 = 64;  // main_depthwise's workgroup: kDepthwiseWorkgroup passes it

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> weight: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;
@group(0) @binding(5) var<storage, read> residual: array<f32>;

const THREADS: u32 = 256u;
const BK: u32 = 16u;
const BM: u32 = 64u;  // tile rows (pixels): 16 invocations across, 4 each
const BN: u32 = 64u;  // tile columns (channels): 16 invocations down, 4 each

var<workgroup> a_tile: array<f32, 1024>;  // [BK][BM]
var<workgroup> b_tile: array<f32, 1024>;  // [BK][BN]

// One output pixel as an im2col row sees it: where its input plane starts
// and its window's origin (regular) or offset (transposed) in the input.
struct Row {
  valid: bool,
  plane: u32,  // x offset of input channel 0 of the pixel's group and image
  pix: u32,    // the pixel's index within its image (POINTWISE)
  y0: i32,
  x0: i32,
}

fn decode_row(g: u32, m: u32) -> Row {
  var r: Row;
  r.valid = m < p.m_total;
  let pixels = p.oh * p.ow;
  let img = m / pixels;
  r.pix = m - img * pixels;
  r.plane = (img * p.cin + g * p.cin_g) * p.h * p.w;
  let oy = i32(r.pix / p.ow);
  let ox = i32(r.pix % p.ow);
  if (TRANSPOSED != 0u) {
    r.y0 = oy + p.pad_h;
    r.x0 = ox + p.pad_w;
  } else {
    r.y0 = oy * p.stride_h - p.pad_h;
    r.x0 = ox * p.stride_w - p.pad_w;
  }
  return r;
}

// The im2col element (k, row): 0 where the window leaves the input.
fn load_a(r: Row, k: u32) -> f32 {
  if (!r.valid || k >= p.k_total) { return 0.0; }
  let plane_size = p.h * p.w;
  if (POINTWISE != 0u) { return x[r.plane + k * plane_size + r.pix]; }
  let window = p.kh * p.kw;
  let ci = k / window;
  let rest = k - ci * window;
  let ky = i32(rest / p.kw);
  let kx = i32(rest - u32(ky) * p.kw);
  var iy: i32;
  var ix: i32;
  if (TRANSPOSED != 0u) {
    // out[oy] gathers in[iy] where oy = iy * stride - pad + ky * dil.
    let ny = r.y0 - ky * p.dil_h;
    let nx = r.x0 - kx * p.dil_w;
    if (ny < 0 || nx < 0 || ny % p.stride_h != 0 || nx % p.stride_w != 0) { return 0.0; }
    iy = ny / p.stride_h;
    ix = nx / p.stride_w;
  } else {
    iy = r.y0 + ky * p.dil_h;
    ix = r.x0 + kx * p.dil_w;
  }
  if (iy < 0 || ix < 0 || iy >= i32(p.h) || ix >= i32(p.w)) { return 0.0; }
  return x[r.plane + ci * plane_size + u32(iy) * p.w + u32(ix)];
}

// Weight element (k, the dispatch's output channel co of group g, whose
// row in the binding is wrow + co). Regular weights are [cout, cin_g, kh,
// kw]; transposed ones [cin, cout_g, kh, kw] (never split: co0 = 0).
fn load_b(g: u32, wrow: u32, k: u32, co: u32) -> f32 {
  if (k >= p.k_total || co >= p.co_count) { return 0.0; }
  if (TRANSPOSED != 0u) {
    let window = p.kh * p.kw;
    let ci = k / window;
    return weight[((g * p.cin_g + ci) * p.cout_g + co) * window + (k - ci * window)];
  }
  return weight[(wrow + co) * p.k_total + k];
}

// Four outputs of the dispatch's channel co_local of group g (pixels m ..
// m + 3), bias and clamp applied.
fn store4(co_local: u32, g: u32, m: u32, v: vec4<f32>) {
  if (co_local >= p.co_count) { return; }
  let co = g * p.cout_g + p.co0 + co_local;
  let pixels = p.oh * p.ow;
  for (var i = 0u; i < 4u; i++) {
    if (m + i < p.m_total) {
      let img = (m + i) / pixels;
      let at = (img * p.cout + co) * pixels + (m + i - img * pixels);
      out[at] = finish(v[i], co, at);
    }
  }
}

// Every array below is indexed by constants only, so it stays in registers
// whether or not the driver unrolls loops.
@compute @workgroup_size(THREADS)
fn main_gemm(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
  let g = p.g0 + wid.z;
  let wrow = g * p.cout_g + p.co0 - p.w_row0;  // the binding's row of the dispatch's channel 0 in group g
  let m0 = wid.x * BM;
  let n0 = wid.y * BN;
  // Staging: this invocation loads im2col row a_m at depths a_k + 4i (i < 4)
  // and weight column b_n + 16i at depth b_k.
  let a_m = tid % BM;
  let a_k = tid / BM;
  let row = decode_row(g, m0 + a_m);
  let b_k = tid % BK;
  let b_n = tid / BK;
  // Compute: this invocation owns pixels m0 + tm + i and channels n0 + tn + j.
  let tm = (tid % 16u) * 4u;
  let tn = (tid / 16u) * 4u;
  var acc0 = vec4<f32>(0.0);  // channel n0 + tn + 0, pixels m0 + tm + 0..3
  var acc1 = vec4<f32>(0.0);
  var acc2 = vec4<f32>(0.0);
  var acc3 = vec4<f32>(0.0);
  // The next slice's elements, read from memory while this one is multiplied.
  var a_next = vec4<f32>(load_a(row, a_k), load_a(row, a_k + 4u), load_a(row, a_k + 8u), load_a(row, a_k + 12u));
  var b_next = vec4<f32>(load_b(g, wrow, b_k, n0 + b_n), load_b(g, wrow, b_k, n0 + b_n + 16u),
                         load_b(g, wrow, b_k, n0 + b_n + 32u), load_b(g, wrow, b_k, n0 + b_n + 48u));
  for (var k0 = 0u; k0 < p.k_total; k0 += BK) {
    a_tile[a_k * BM + a_m] = a_next.x;
    a_tile[(a_k + 4u) * BM + a_m] = a_next.y;
    a_tile[(a_k + 8u) * BM + a_m] = a_next.z;
    a_tile[(a_k + 12u) * BM + a_m] = a_next.w;
    b_tile[b_k * BN + b_n] = b_next.x;
    b_tile[b_k * BN + b_n + 16u] = b_next.y;
    b_tile[b_k * BN + b_n + 32u] = b_next.z;
    b_tile[b_k * BN + b_n + 48u] = b_next.w;
    workgroupBarrier();
    let k1 = k0 + BK;
    if (k1 < p.k_total) {
      a_next = vec4<f32>(load_a(row, k1 + a_k), load_a(row, k1 + a_k + 4u), load_a(row, k1 + a_k + 8u),
                         load_a(row, k1 + a_k + 12u));
      b_next = vec4<f32>(load_b(g, wrow, k1 + b_k, n0 + b_n), load_b(g, wrow, k1 + b_k, n0 + b_n + 16u),
                         load_b(g, wrow, k1 + b_k, n0 + b_n + 32u), load_b(g, wrow, k1 + b_k, n0 + b_n + 48u));
    }
    for (var k = 0u; k < BK; k++) {
      let a = vec4<f32>(a_tile[k * BM + tm], a_tile[k * BM + tm + 1u], a_tile[k * BM + tm + 2u], a_tile[k * BM + tm + 3u]);
      let b = vec4<f32>(b_tile[k * BN + tn], b_tile[k * BN + tn + 1u], b_tile[k * BN + tn + 2u], b_tile[k * BN + tn + 3u]);
      acc0 = fma(a, vec4<f32>(b.x), acc0);
      acc1 = fma(a, vec4<f32>(b.y), acc1);
      acc2 = fma(a, vec4<f32>(b.z), acc2);
      acc3 = fma(a, vec4<f32>(b.w), acc3);
    }
    workgroupBarrier();
  }
  store4(n0 + tn, g, m0 + tm, acc0);
  store4(n0 + tn + 1u, g, m0 + tm, acc1);
  store4(n0 + tn + 2u, g, m0 + tm, acc2);
  store4(n0 + tn + 3u, g, m0 + tm, acc3);
}

// Input row element ix (from row offset `row`), 0 outside the row.
fn row_at(row: u32, ix: i32) -> f32 {
  let v = x[row + u32(clamp(ix, 0, i32(p.w) - 1))];
  return select(0.0, v, ix >= 0 && ix < i32(p.w));
}

// Workgroups: flat index over (n * co_count) * oh * row_tiles, WG per group.
@compute @workgroup_size(WG)
fn main_depthwise(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
                  @builtin(num_workgroups) nwg: vec3<u32>) {
  let t = flat_group(wid, nwg) * WG + lid;
  let tile = t % p.row_tiles;
  let rest = t / p.row_tiles;
  let oy = rest % p.oh;
  let plane = rest / p.oh;  // img * co_count + the dispatch's channel
  if (plane >= p.n * p.co_count) { return; }
  let co = p.co0 + plane % p.co_count;
  let img = plane / p.co_count;
  let wco = co - p.w_row0;  // the channel's row in the weight binding
  let c = co / p.cout_g;  // the group's only input channel
  let ox0 = tile * 4u;
  let in_plane = (img * p.cin + c) * p.h * p.w;
  var acc = vec4<f32>(0.0);
  for (var ky = 0u; ky < p.kh; ky++) {
    let iy = i32(oy) * p.stride_h - p.pad_h + i32(ky) * p.dil_h;
    if (iy < 0 || iy >= i32(p.h)) { continue; }
    let row = in_plane + u32(iy) * p.w;
    if (ROW3 != 0u) {
      let wi = (wco * p.kh + ky) * 3u;
      let w0 = weight[wi];
      let w1 = weight[wi + 1u];
      let w2 = weight[wi + 2u];
      let ix0 = i32(ox0) * p.stride_w - p.pad_w;
      let v0 = row_at(row, ix0);
      let v1 = row_at(row, ix0 + 1);
      let v2 = row_at(row, ix0 + 2);
      let v3 = row_at(row, ix0 + 3);
      let v4 = row_at(row, ix0 + 4);
      let v5 = row_at(row, ix0 + 5);
      if (p.stride_w == 1) {
        acc += w0 * vec4<f32>(v0, v1, v2, v3) + w1 * vec4<f32>(v1, v2, v3, v4) + w2 * vec4<f32>(v2, v3, v4, v5);
      } else {
        let v6 = row_at(row, ix0 + 6);
        let v7 = row_at(row, ix0 + 7);
        let v8 = row_at(row, ix0 + 8);
        acc += w0 * vec4<f32>(v0, v2, v4, v6) + w1 * vec4<f32>(v1, v3, v5, v7) + w2 * vec4<f32>(v2, v4, v6, v8);
      }
      continue;
    }
    for (var kx = 0u; kx < p.kw; kx++) {
      let wv = weight[(wco * p.kh + ky) * p.kw + kx];
      let ix0 = i32(ox0) * p.stride_w - p.pad_w + i32(kx) * p.dil_w;
      var v = vec4<f32>(0.0);
      for (var i = 0u; i < 4u; i++) {
        let ix = ix0 + i32(i) * p.stride_w;
        if (ix >= 0 && ix < i32(p.w)) { v[i] = x[row + u32(ix)]; }
      }
      acc += v * wv;
    }
  }
  let base = (img * p.cout + co) * p.oh * p.ow + oy * p.ow;
  for (var i = 0u; i < 4u; i++) {
    if (ox0 + i < p.ow) { out[base + ox0 + i] = finish(acc[i], co, base + ox0 + i); }
  }
}
