// out[m, n] = sum_k x[m, k] * w[n, k] (+ bias[n]) with 4-bit group-symmetric
// weights (et_vk.linear_q4gsw): w[n, k] = (nibble(n, k) - 8) * scales[k / gs, n].
// Weights are u8 [N, K/2] read as u32 words: word j of row n holds k = 8j..8j+7,
// value 8j+i in bits 4i..4i+3 (even k in each byte's low nibble). K % 8 == 0 and
// gs % 8 == 0, so a word never straddles a group.
// Entry points, chosen from the live M by the host (the other gets 0 workgroups):
//   gemv  M == 1: a workgroup of WG invocations per ROWS output rows, summed by
//         lanes_sum4 (common/reduce_*.wgsl)
//   gemm  M > 1: 16 x 16 output tiles, K in steps of 32 through workgroup memory
// Workgroups may be 2D-folded (gpu/workgroups.h): the flat index is flat_group().
//! import common/prelude.wgsl
//! import common/reduce_{reduce}.wgsl

override WG: u32 = 64;       // gemv; a power of two
override HAS_BIAS: bool = false;

struct Params {
  m: u32,
  n: u32,
  k: u32,
  group_size: u32,
  scales_stride: u32,  // padded N: row stride of scales
  tiles_n: u32,        // gemm: ceil(N / 16)
  row0: u32,           // a weight above the binding limit comes in runs of
  out_cols: u32,       // rows: n counts this run's, row0 + n the output's (N wide)
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> weight: array<u32>;
@group(0) @binding(2) var<storage, read> scales: array<f32>;
@group(0) @binding(3) var<storage, read> bias: array<f32>;   // unused (a placeholder) without HAS_BIAS
@group(0) @binding(4) var<storage, read_write> out: array<f32>;
@group(0) @binding(5) var<uniform> params: Params;

fn low_nibbles(w: u32) -> vec4<f32> {   // k = 8j + 0..3
  return vec4<f32>(f32(w & 15u), f32((w >> 4u) & 15u), f32((w >> 8u) & 15u), f32((w >> 12u) & 15u)) - 8.0;
}

fn high_nibbles(w: u32) -> vec4<f32> {  // k = 8j + 4..7
  return vec4<f32>(f32((w >> 16u) & 15u), f32((w >> 20u) & 15u), f32((w >> 24u) & 15u), f32(w >> 28u)) - 8.0;
}

// n: a row of the weight bound here (scales and bias count from row0).
fn scale_of(word: u32, n: u32) -> f32 {
  return scales[(word * 8u / params.group_size) * params.scales_stride + params.row0 + n];
}

fn finish(n: u32, acc: f32) -> f32 {
  if (HAS_BIAS) { return acc + bias[params.row0 + n]; }
  return acc;
}

const ROWS: u32 = 4u;

@compute @workgroup_size(WG)
fn gemv(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let first = flat_group(wid, nwg) * ROWS;
  let words = params.k / 8u;
  var acc = vec4<f32>(0.0);
  for (var j = lid.x; j < words; j += WG) {
    let xa = vec4<f32>(x[8u * j], x[8u * j + 1u], x[8u * j + 2u], x[8u * j + 3u]);
    let xb = vec4<f32>(x[8u * j + 4u], x[8u * j + 5u], x[8u * j + 6u], x[8u * j + 7u]);
    for (var r = 0u; r < ROWS; r++) {
      let n = first + r;
      if (n < params.n) {
        let w = weight[n * words + j];
        acc[r] += (dot(low_nibbles(w), xa) + dot(high_nibbles(w), xb)) * scale_of(j, n);
      }
    }
  }
  let total = lanes_sum4(acc, lid.x, WG);  // the workgroup's sums, in every invocation
  if (lid.x < ROWS && first + lid.x < params.n) {
    out[params.row0 + first + lid.x] = finish(first + lid.x, total[lid.x]);
  }
}

const TILE: u32 = 16u;
const TILE_K: u32 = 32u;
var<workgroup> x_tile: array<array<f32, TILE_K>, TILE>;   // [m][k]
var<workgroup> w_tile: array<array<f32, TILE_K>, TILE>;   // [n][k], dequantized

@compute @workgroup_size(TILE, TILE)
fn gemm(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) li: u32, @builtin(num_workgroups) nwg: vec3<u32>) {
  let tile = flat_group(wid, nwg);
  let m0 = (tile / params.tiles_n) * TILE;
  let n0 = (tile % params.tiles_n) * TILE;
  if (m0 >= params.m) { return; }  // uniform per workgroup: barriers stay uniform
  let words = params.k / 8u;
  var acc = 0.0;
  for (var k0 = 0u; k0 < params.k; k0 += TILE_K) {
    // x tile: 16 x 32 values, two per invocation.
    for (var e = li; e < TILE * TILE_K; e += 256u) {
      let m = m0 + e / TILE_K;
      let k = k0 + e % TILE_K;
      var v = 0.0;
      if (m < params.m && k < params.k) { v = x[m * params.k + k]; }
      x_tile[e / TILE_K][e % TILE_K] = v;
    }
    // w tile: 16 rows x 4 words, one word (8 values) per invocation of the first 64.
    if (li < TILE * 4u) {
      let r = li / 4u;
      let j = k0 / 8u + li % 4u;
      let n = n0 + r;
      var lo = vec4<f32>(0.0);
      var hi = vec4<f32>(0.0);
      if (n < params.n && j < words) {
        let w = weight[n * words + j];
        let s = scale_of(j, n);
        lo = low_nibbles(w) * s;
        hi = high_nibbles(w) * s;
      }
      let c = (li % 4u) * 8u;
      for (var i = 0u; i < 4u; i++) {
        w_tile[r][c + i] = lo[i];
        w_tile[r][c + 4u + i] = hi[i];
      }
    }
    workgroupBarrier();
    for (var kk = 0u; kk < TILE_K; kk++) {
      acc += x_tile[lid.y][kk] * w_tile[lid.x][kk];
    }
    workgroupBarrier();
  }
  let m = m0 + lid.y;
  let n = n0 + lid.x;
  if (m < params.m && n < params.n) {
    out[m * params.out_cols + params.row0 + n] = finish(n, acc);
  }
}
