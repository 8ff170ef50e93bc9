// 2D convolution (1D as height 1) over contiguous NCHW f32 tensors, with
// groups, stride, padding, dilation, transposition, bias and an output clamp.
//
// main_gemm: implicit GEMM per group. Rows m are output pixels (n, oy, ox),
// columns are the group's output channels, the reduction k runs over
// (input channel, ky, kx). A 64x64 output tile per workgroup of 256
// invocations, 4x4 outputs each, with 16-deep slices of the im2col matrix and
// the weights staged in workgroup memory. Transposed convolution only changes
// how an im2col element finds its input (and the weight layout).
//
// main_depthwise: one input channel per group (depthwise, with any channel
// multiplier): each invocation computes 4 adjacent output pixels of one row,
// reading each weight once for the four.

override TRANSPOSED: u32 = 0u;
override HAS_BIAS: u32 = 0u;

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

const BM: u32 = 64u;
const BN: u32 = 64u;
const BK: u32 = 16u;

var<workgroup> a_tile: array<f32, 1024>;  // [BK][BM]
var<workgroup> b_tile: array<f32, 1024>;  // [BK][BN]

fn finish(v: f32, co: u32) -> f32 {
  var r = v;
  if (HAS_BIAS != 0u) { r += bias[co]; }
  return clamp(r, p.out_min, p.out_max);
}

// The im2col element (k, m) of group g: 0 where the window leaves the input.
fn load_a(g: u32, k: u32, m: u32) -> f32 {
  if (k >= p.k_total || m >= p.m_total) { return 0.0; }
  let window = p.kh * p.kw;
  let ci = k / window;
  let r = k - ci * window;
  let ky = i32(r / p.kw);
  let kx = i32(r % p.kw);
  let pixels = p.oh * p.ow;
  let img = m / pixels;
  let pix = m - img * pixels;
  let oy = i32(pix / p.ow);
  let ox = i32(pix % p.ow);
  var iy: i32;
  var ix: i32;
  if (TRANSPOSED != 0u) {
    // out[oy] gathers in[iy] where oy = iy * stride - pad + ky * dil.
    let ny = oy + p.pad_h - ky * p.dil_h;
    let nx = ox + p.pad_w - kx * p.dil_w;
    if (ny < 0 || nx < 0 || ny % p.stride_h != 0 || nx % p.stride_w != 0) { return 0.0; }
    iy = ny / p.stride_h;
    ix = nx / p.stride_w;
  } else {
    iy = oy * p.stride_h - p.pad_h + ky * p.dil_h;
    ix = ox * p.stride_w - p.pad_w + kx * p.dil_w;
  }
  if (iy < 0 || ix < 0 || iy >= i32(p.h) || ix >= i32(p.w)) { return 0.0; }
  let c = g * p.cin_g + ci;
  return x[((img * p.cin + c) * p.h + u32(iy)) * p.w + u32(ix)];
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
  let tm = (tid % 16u) * 4u;
  let tn = (tid / 16u) * 4u;
  var acc: array<vec4<f32>, 4>;  // acc[j][i]: channel n0 + tn + j, pixel m0 + tm + i
  for (var k0 = 0u; k0 < p.k_total; k0 += BK) {
    for (var e = tid; e < BK * BM; e += 256u) {
      let k = e / BM;
      let m = e % BM;
      a_tile[e] = load_a(g, k0 + k, m0 + m);
    }
    for (var e = tid; e < BK * BN; e += 256u) {
      let k = e % BK;
      let n = e / BK;
      b_tile[k * BN + n] = load_b(g, k0 + k, n0 + n);
    }
    workgroupBarrier();
    for (var k = 0u; k < BK; k++) {
      let a = vec4<f32>(a_tile[k * BM + tm], a_tile[k * BM + tm + 1u], a_tile[k * BM + tm + 2u], a_tile[k * BM + tm + 3u]);
      let b = vec4<f32>(b_tile[k * BN + tn], b_tile[k * BN + tn + 1u], b_tile[k * BN + tn + 2u], b_tile[k * BN + tn + 3u]);
      acc[0] += a * b.x;
      acc[1] += a * b.y;
      acc[2] += a * b.z;
      acc[3] += a * b.w;
    }
    workgroupBarrier();
  }
  let pixels = p.oh * p.ow;
  for (var j = 0u; j < 4u; j++) {
    let co_local = n0 + tn + j;
    if (co_local >= p.cout_g) { break; }
    let co = g * p.cout_g + co_local;
    for (var i = 0u; i < 4u; i++) {
      let m = m0 + tm + i;
      if (m >= p.m_total) { break; }
      let img = m / pixels;
      out[(img * p.cout + co) * pixels + (m - img * pixels)] = finish(acc[j][i], co);
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
