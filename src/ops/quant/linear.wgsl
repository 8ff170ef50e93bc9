// out[m, n] = sum_k x[m, k] * W[n, k] (+ bias[n]) with W in a ggml block
// format (dequant.wgsl, prepended).
//
// Decode (`main`, a GEMV): a workgroup owns ROWS weight rows and one row of x;
// LANES threads per weight row walk its 32-element units, decode each into
// registers (8 vec4s), dot it with x (read as vec4s), then reduce across the
// lanes in workgroup memory. Accumulators are scalars: an array indexed in a
// loop would live in local memory. Workgroups: ceil(N / ROWS) * M, possibly
// 2D-folded.

override LANES: u32 = 32;
override ROWS: u32 = 8;
override HAS_BIAS: bool = false;

struct Params {
  m: u32,          // live rows of x
  n: u32,          // output features (weight rows)
  k: u32,          // input features, a multiple of 32
  row_words: u32,  // words per weight row
}

@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> w: array<u32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<uniform> params: Params;

var<workgroup> partial: array<f32, LANES * ROWS>;

@compute @workgroup_size(LANES * ROWS)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let group = wid.y * nwg.x + wid.x;
  let row_groups = (params.n + ROWS - 1u) / ROWS;
  let n = (group % row_groups) * ROWS + lid.x / LANES;
  let m = group / row_groups;
  let lane = lid.x % LANES;

  var acc = 0.0;
  if (n < params.n && m < params.m) {
    let xb = m * (params.k / 4u);
    var v: Unit;
    for (var u = lane; u < params.k / 32u; u += LANES) {
      decode_unit(n * params.row_words, u, &v);
      let xu = xb + u * 8u;
      acc += dot(v[0], x[xu]) + dot(v[1], x[xu + 1u]) + dot(v[2], x[xu + 2u]) + dot(v[3], x[xu + 3u]) +
             dot(v[4], x[xu + 4u]) + dot(v[5], x[xu + 5u]) + dot(v[6], x[xu + 6u]) + dot(v[7], x[xu + 7u]);
    }
  }
  partial[lid.x] = acc;
  workgroupBarrier();
  for (var stride = LANES / 2u; stride > 0u; stride /= 2u) {
    if (lane < stride) { partial[lid.x] += partial[lid.x + stride]; }
    workgroupBarrier();
  }
  if (lane == 0u && n < params.n && m < params.m) {
    var r = partial[lid.x];
    if (HAS_BIAS) { r += bias[n]; }
    out[m * params.n + n] = r;
  }
}

// Prefill (M > 1): a tiled GEMM. A workgroup of 256 threads computes a
// TILE_M x TILE_N block of out; per 32-wide step along K, 64 threads decode
// one unit each of the TILE_N weight rows into workgroup memory and all
// threads stage TILE_M x 32 of x, then each thread accumulates a 2 x 4
// micro-tile (rows m, m + 16; columns n + 16j). Workgroups:
// ceil(N / TILE_N) * ceil(M / TILE_M), possibly 2D-folded.
const TILE_M: u32 = 32u;
const TILE_N: u32 = 64u;

var<workgroup> w_tile: array<array<f32, 33>, TILE_N>;  // padded against bank conflicts
var<workgroup> x_tile: array<array<f32, 33>, TILE_M>;

@compute @workgroup_size(256)
fn main_tiled(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32,
              @builtin(num_workgroups) nwg: vec3<u32>) {
  let group = wid.y * nwg.x + wid.x;
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
  for (var i = 0u; i < 2u; i++) {
    let m = m0 + tm + 16u * i;
    if (m >= params.m) { continue; }
    for (var j = 0u; j < 4u; j++) {
      let n = n0 + tn + 16u * j;
      if (n < params.n) {
        var r = acc[i][j];
        if (HAS_BIAS) { r += bias[n]; }
        out[m * params.n + n] = r;
      }
    }
  }
}
