// 2D convolution (1D as height 1) over contiguous NCHW f32 tensors, with
// groups, stride, padding, dilation, transposition, bias and an output clamp.
//
// main_gemm: implicit GEMM per group. Rows m are output pixels (n, oy, ox),
// columns are the group's output channels, the reduction k runs over
// (input channel, ky, kx). 256 invocations per workgroup, each owning an
// MT x MT block of outputs in registers: a 64x64 tile (MT 4) or, for layers
// too small to fill the GPU with those, a 32x32 tile (MT 2).
// Slices 16 deep of the im2col matrix and of the weights are staged in
// workgroup memory, the next slice's loads in flight during this one's math. Each invocation always loads the same im2col row (and the
// same weight k), so the pixel's coordinates are decoded once, not per slice;
// POINTWISE (1x1, stride 1, no padding) skips the window arithmetic
// altogether. Transposed convolution only changes how an im2col element
// finds its input (and the weight layout).
//
// main_depthwise: one input channel per group (depthwise, with any channel
// multiplier): each invocation computes 4 adjacent output pixels of one row,
// reading each weight once for the four.

override TRANSPOSED: u32 = 0u;
override HAS_BIAS: u32 = 0u;
override POINTWISE: u32 = 0u;

struct Params {
  n: u32, cin: u32, h: u32, w: u32,
  cout: u32, oh: u32, ow: u32, groups: u32,
  kh: u32, kw: u32, stride_h: i32, stride_w: i32,
  pad_h: i32, pad_w: i32, dil_h: i32, dil_w: i32,
  cin_g: u32, cout_g: u32, k_total: u32, m_total: u32,
  out_min: f32, out_max: f32, row_tiles: u32, pad: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> weight: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

const THREADS: u32 = 256u;
const BK: u32 = 16u;
override MT: u32 = 4u;  // outputs per invocation along m and along n: 4 or 2
override BM: u32 = 16u * MT;             // tile rows (pixels): 16 invocations across
override BN: u32 = 16u * MT;             // tile columns (channels): 16 invocations down

var<workgroup> a_tile: array<f32, 1024>;  // [BK][BM]
var<workgroup> b_tile: array<f32, 1024>;  // [BK][BN]

fn finish(v: f32, co: u32) -> f32 {
  var r = v;
  if (HAS_BIAS != 0u) { r += bias[co]; }
  return clamp(r, p.out_min, p.out_max);
}

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

// Weight element (k, output channel co of group g). Regular weights are
// [cout, cin_g, kh, kw]; transposed ones [cin, cout_g, kh, kw].
fn load_b(g: u32, k: u32, co: u32) -> f32 {
  if (k >= p.k_total || co >= p.cout_g) { return 0.0; }
  if (TRANSPOSED != 0u) {
    let window = p.kh * p.kw;
    let ci = k / window;
    return weight[((g * p.cin_g + ci) * p.cout_g + co) * window + (k - ci * window)];
  }
  return weight[(g * p.cout_g + co) * p.k_total + k];
}

@compute @workgroup_size(256)
fn main_gemm(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
  let g = wid.z;
  let m0 = wid.x * BM;
  let n0 = wid.y * BN;
  // Staging: this invocation loads im2col row a_m at depths a_k + i * a_step,
  // and weight column b_n + i * b_step at depth b_k.
  let a_m = tid % BM;
  let a_k = tid / BM;
  let a_step = THREADS / BM;
  let row = decode_row(g, m0 + a_m);
  let b_k = tid % BK;
  let b_n = tid / BK;
  let b_step = THREADS / BK;
  // Compute: this invocation owns pixels m0 + tm + i and channels n0 + tn + j.
  let tm = (tid % 16u) * MT;
  let tn = (tid / 16u) * MT;
  var acc: array<array<f32, 4>, 4>;  // acc[j][i]; only MT x MT used
  // Each invocation stages MT elements of each tile per slice (BK * BM / 256);
  // the next slice's are read from memory while this one is multiplied.
  var a_next: array<f32, 4>;
  var b_next: array<f32, 4>;
  for (var i = 0u; i < MT; i++) {
    a_next[i] = load_a(row, a_k + i * a_step);
    b_next[i] = load_b(g, b_k, n0 + b_n + i * b_step);
  }
  for (var k0 = 0u; k0 < p.k_total; k0 += BK) {
    for (var i = 0u; i < MT; i++) {
      a_tile[(a_k + i * a_step) * BM + a_m] = a_next[i];
      b_tile[b_k * BN + b_n + i * b_step] = b_next[i];
    }
    workgroupBarrier();
    if (k0 + BK < p.k_total) {
      for (var i = 0u; i < MT; i++) {
        a_next[i] = load_a(row, k0 + BK + a_k + i * a_step);
        b_next[i] = load_b(g, k0 + BK + b_k, n0 + b_n + i * b_step);
      }
    }
    for (var k = 0u; k < BK; k++) {
      var a: array<f32, 4>;
      var b: array<f32, 4>;
      for (var i = 0u; i < MT; i++) {
        a[i] = a_tile[k * BM + tm + i];
        b[i] = b_tile[k * BN + tn + i];
      }
      for (var j = 0u; j < MT; j++) {
        for (var i = 0u; i < MT; i++) { acc[j][i] = fma(a[i], b[j], acc[j][i]); }
      }
    }
    workgroupBarrier();
  }
  // Constant-trip loops without early exits, so that acc stays in registers
  // (a dynamically indexed accumulator would live in local memory).
  let pixels = p.oh * p.ow;
  for (var j = 0u; j < MT; j++) {
    let co_local = n0 + tn + j;
    let co = g * p.cout_g + co_local;
    for (var i = 0u; i < MT; i++) {
      let m = m0 + tm + i;
      if (co_local < p.cout_g && m < p.m_total) {
        let img = m / pixels;
        out[(img * p.cout + co) * pixels + (m - img * pixels)] = finish(acc[j][i], co);
      }
    }
  }
}

// Workgroups: linear index over (n * cout) * oh * row_tiles, 64 per group.
@compute @workgroup_size(64)
fn main_depthwise(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
                  @builtin(num_workgroups) nwg: vec3<u32>) {
  let t = (wid.y * nwg.x + wid.x) * 64u + lid;
  let tile = t % p.row_tiles;
  let rest = t / p.row_tiles;
  let oy = rest % p.oh;
  let plane = rest / p.oh;  // img * cout + co
  if (plane >= p.n * p.cout) { return; }
  let co = plane % p.cout;
  let img = plane / p.cout;
  let c = co / p.cout_g;  // the group's only input channel
  let ox0 = tile * 4u;
  let in_plane = (img * p.cin + c) * p.h * p.w;
  var acc = vec4<f32>(0.0);
  for (var ky = 0u; ky < p.kh; ky++) {
    let iy = i32(oy) * p.stride_h - p.pad_h + i32(ky) * p.dil_h;
    if (iy < 0 || iy >= i32(p.h)) { continue; }
    let row = in_plane + u32(iy) * p.w;
    for (var kx = 0u; kx < p.kw; kx++) {
      let wv = weight[(co * p.kh + ky) * p.kw + kx];
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
    if (ox0 + i < p.ow) { out[base + ox0 + i] = finish(acc[i], co); }
  }
}
