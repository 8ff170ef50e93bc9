// out[m, n] = sum_k x[m, k] * W[n, k] (+ bias[n]) with W in a ggml block
// format: the prefill GEMM (M > 1). Imports (below):
// common/prelude.wgsl, quant/dequant.wgsl, linear/linear_io.wgsl (bindings,
// Params and the epilogue it shares with the decode GEMV, gemv.wgsl).
//
// Prefill (M > 1): a tiled GEMM. A workgroup of 256 threads computes a
// TILE_M x TILE_N block of out; per 32-wide step along K, 64 threads decode
// one unit each of the TILE_N weight rows into workgroup memory and all
// threads stage TILE_M x 32 of x, then each thread accumulates a 2 x 4
// micro-tile (rows m, m + 16; columns n + 16j). With HAS_NORM the staged x
// is multiplied by norm_w and each staging thread sums the squares of its
// eighth of a row; the eight sums meet in row_squares before the epilogue
// scales by 1 / rms. Workgroups:
// ceil(N / TILE_N) * ceil(M / TILE_M), possibly 2D-folded.
//! import common/prelude.wgsl
//! import quant/dequant.wgsl
//! import linear/linear_io.wgsl

const TILE_M: u32 = 32u;
const TILE_N: u32 = 64u;

var<workgroup> w_tile: array<array<f32, 33>, TILE_N>;  // padded against bank conflicts
var<workgroup> x_tile: array<array<f32, 33>, TILE_M>;
var<workgroup> row_squares: array<f32, 256>;

@group(0) @binding(1) var<storage, read> w: array<u32>;

@compute @workgroup_size(256)
fn main_tiled(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32,
              @builtin(num_workgroups) nwg: vec3<u32>) {
  let group = flat_group(wid, nwg);
  let col_groups = (params.n + TILE_N - 1u) / TILE_N;
  let n0 = (group % col_groups) * TILE_N;
  let m0 = (group / col_groups) * TILE_M;
  if (m0 >= params.m) { return; }  // whole workgroup: uniform
  let tn = tid % 16u;
  let tm = tid / 16u;
  let k4 = params.k / 4u;
  var acc: array<vec4<f32>, 2>;
  acc[0] = vec4<f32>(0.0);
  acc[1] = vec4<f32>(0.0);
  var v: Unit;
  var squares = 0.0;
  for (var u = 0u; u < params.k / 32u; u++) {
    if (tid < TILE_N) {
      let n = n0 + tid;
      if (n < params.n) {
        decode_unit(n * params.row_words, u, &v);
      } else {
        for (var j = 0u; j < 8u; j++) { v[j] = vec4<f32>(0.0); }
      }
      for (var j = 0u; j < 8u; j++) {
        w_tile[tid][4u * j] = v[j].x;
        w_tile[tid][4u * j + 1u] = v[j].y;
        w_tile[tid][4u * j + 2u] = v[j].z;
        w_tile[tid][4u * j + 3u] = v[j].w;
      }
    }
    // x: 32 rows x 8 vec4 = 256 vec4s, one per thread.
    let xm = tid / 8u;
    let xj = tid % 8u;
    var xv = vec4<f32>(0.0);
    if (m0 + xm < params.m) { xv = x[(m0 + xm) * k4 + u * 8u + xj]; }
    if (HAS_NORM) {
      squares += dot(xv, xv);
      xv *= norm_w[u * 8u + xj];
    }
    x_tile[xm][4u * xj] = xv.x;
    x_tile[xm][4u * xj + 1u] = xv.y;
    x_tile[xm][4u * xj + 2u] = xv.z;
    x_tile[xm][4u * xj + 3u] = xv.w;
    workgroupBarrier();
    for (var kk = 0u; kk < 32u; kk++) {
      let wv = vec4<f32>(w_tile[tn][kk], w_tile[tn + 16u][kk], w_tile[tn + 32u][kk], w_tile[tn + 48u][kk]);
      acc[0] += x_tile[tm][kk] * wv;
      acc[1] += x_tile[tm + 16u][kk] * wv;
    }
    workgroupBarrier();
  }
  var scale = vec2<f32>(1.0);
  if (HAS_NORM) {
    row_squares[tid] = squares;  // row tid / 8, eighth tid % 8
    workgroupBarrier();
    for (var i = 0u; i < 2u; i++) {
      var s = 0.0;
      for (var e = 0u; e < 8u; e++) { s += row_squares[(tm + 16u * i) * 8u + e]; }
      scale[i] = inverseSqrt(s / f32(params.k) + params.eps);
    }
  }
  for (var i = 0u; i < 2u; i++) {
    let m = m0 + tm + 16u * i;
    if (m >= params.m) { continue; }
    for (var j = 0u; j < 4u; j++) {
      let n = n0 + tn + 16u * j;
      if (n < params.n) {
        store_result(m, n, acc[i][j] * scale[i]);
      }
    }
  }
}
