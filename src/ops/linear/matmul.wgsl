// f32 matrix products: out[b, m, n] = sum_k a[b, m, k] * B[b, k, n] (+ bias[n]).
// Variants through override constants:
//   B_TRANSPOSED  b is stored [N, K] (aten.linear's weight), else [K, N]
//   HAS_BIAS      adds bias[n] (aten.linear); bias is a placeholder otherwise
//   BATCHED       a and b advance by their batch strides per batch (aten.bmm)
//   B_F16         b holds f16 values, two to a word (an fp16 program's linear
//                 weight kept f16: ops/passes/widen_f16.h), read through
//                 WGSL's core unpack2x16float (no shader-f16 needed)
//   ACCUMULATE    adds to what out holds (a later run of a constant b split
//                 by rows of K: aten.mm / aten.addmm above the binding limit)
// Entry points, chosen from the live shapes by the host (the other gets 0 workgroups):
//   gemm  TILE x TILE output tiles per workgroup, 8 x 8 invocations each owning
//         a 4 x 4 micro-tile, K in steps of TILE_K through workgroup memory
//   gemv  M == 1 with B_TRANSPOSED: WG invocations per ROWS outputs, each
//         output a dot product of two contiguous rows, summed by lanes_sum4
//         (common/reduce_*.wgsl)
// Workgroups may be 2D-folded (gpu/workgroups.h): the flat index is flat_group().
//! import common/prelude.wgsl
//! import common/reduce_{reduce}.wgsl

override B_TRANSPOSED: bool = false;
override HAS_BIAS: bool = false;
override BATCHED: bool = false;
override B_F16: bool = false;
override ACCUMULATE: bool = false;
override WG: u32 = 64;  // gemv; a power of two

struct Params {
  m: u32,
  n: u32,
  k: u32,
  tiles_m: u32,        // gemm: ceil(M / TILE)
  tiles_n: u32,        // gemm: ceil(N / TILE)
  a_batch_stride: u32, // elements; used with BATCHED
  b_batch_stride: u32,
  batches: u32,
  // A constant b above the binding limit comes in runs of its rows, one
  // dispatch each (unsplit: row0 = 0, out_cols = n, a_cols = k, k0 = 0,
  // batch0 = 0). aten.linear's runs are runs of N: n counts this run's rows,
  // row0 + n the output's column (and the bias's), out_cols wide. mm's and
  // addmm's are runs of K: k counts this run's rows, reading a's columns
  // k0 .. k0 + k of a_cols (later runs ACCUMULATE). bmm's are runs of
  // batches: batches counts this run's, batch0 the first one's index in a and out.
  row0: u32,
  out_cols: u32,
  a_cols: u32,
  k0: u32,
  batch0: u32,
  pad0: u32,
  pad1: u32,
  pad2: u32,
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<u32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<uniform> params: Params;

// Output element `at` (column n of this run) from its sum.
fn finish(n: u32, acc: f32, at: u32) -> f32 {
  var v = acc;
  if (HAS_BIAS) { v += bias[params.row0 + n]; }
  if (ACCUMULATE) { v += out[at]; }
  return v;
}

// Element i of b as f32.
fn b_at(i: u32) -> f32 {
  if (B_F16) { return unpack2x16float(b[i / 2u])[i % 2u]; }
  return bitcast<f32>(b[i]);
}

// B[k, n] of the current batch, 0 outside the matrix.
fn load_b(base: u32, k: u32, n: u32) -> f32 {
  if (k >= params.k || n >= params.n) { return 0.0; }
  if (B_TRANSPOSED) { return b_at(base + n * params.k + k); }
  return b_at(base + k * params.n + n);
}

const TILE: u32 = 32u;
const TILE_K: u32 = 32u;
const MICRO: u32 = 4u;          // each invocation: MICRO x MICRO outputs
const THREADS: u32 = (TILE / MICRO) * (TILE / MICRO);
var<workgroup> a_tile: array<array<f32, TILE_K>, TILE>;                 // [m][k]
var<workgroup> b_tile: array<array<vec4<f32>, TILE / 4u>, TILE_K>;      // [k][n / 4]

@compute @workgroup_size(TILE / MICRO, TILE / MICRO)
fn gemm(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) li: u32, @builtin(num_workgroups) nwg: vec3<u32>) {
  let tile = flat_group(wid, nwg);
  let per_batch = params.tiles_m * params.tiles_n;
  let batch = tile / per_batch;
  if (batch >= params.batches) { return; }  // a folded grid's spare workgroups; uniform per workgroup
  let in_batch = tile % per_batch;
  let m0 = (in_batch / params.tiles_n) * TILE;
  let n0 = (in_batch % params.tiles_n) * TILE;
  let out_batch = params.batch0 + batch;
  var a_base = params.k0;
  var b_base = 0u;
  if (BATCHED) {
    a_base += out_batch * params.a_batch_stride;
    b_base = batch * params.b_batch_stride;
  }
  let out_base = out_batch * params.m * params.out_cols + params.row0;
  var acc: array<vec4<f32>, MICRO>;
  for (var k0 = 0u; k0 < params.k; k0 += TILE_K) {
    // TILE x TILE_K values of each operand, 16 per invocation; the fastest
    // index follows memory order, so neighbouring invocations read neighbours.
    for (var e = li; e < TILE * TILE_K; e += THREADS) {
      let row = e / TILE_K;
      let col = e % TILE_K;
      let m = m0 + row;
      let k = k0 + col;
      var v = 0.0;
      if (m < params.m && k < params.k) { v = a[a_base + m * params.a_cols + k]; }
      a_tile[row][col] = v;
      if (B_TRANSPOSED) {  // b[n][k]: row is n, col is k
        b_tile[col][row / 4u][row % 4u] = load_b(b_base, k, n0 + row);
      } else {             // b[k][n]: row is k, col is n
        b_tile[row][col / 4u][col % 4u] = load_b(b_base, k0 + row, n0 + col);
      }
    }
    workgroupBarrier();
    for (var kk = 0u; kk < TILE_K; kk++) {
      let bv = b_tile[kk][lid.x];
      for (var i = 0u; i < MICRO; i++) {
        acc[i] += a_tile[lid.y * MICRO + i][kk] * bv;
      }
    }
    workgroupBarrier();
  }
  for (var i = 0u; i < MICRO; i++) {
    let m = m0 + lid.y * MICRO + i;
    if (m >= params.m) { break; }
    for (var j = 0u; j < MICRO; j++) {
      let n = n0 + lid.x * MICRO + j;
      if (n < params.n) {
        let at = out_base + m * params.out_cols + n;
        out[at] = finish(n, acc[i][j], at);
      }
    }
  }
}

const ROWS: u32 = 4u;

@compute @workgroup_size(WG)
fn gemv(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let first = flat_group(wid, nwg) * ROWS;
  var acc = vec4<f32>(0.0);
  for (var k = lid.x; k < params.k; k += WG) {
    let x = a[k];
    for (var r = 0u; r < ROWS; r++) {
      let n = first + r;
      if (n < params.n) { acc[r] += x * b_at(n * params.k + k); }
    }
  }
  let total = lanes_sum4(acc, lid.x, WG);  // the workgroup's sums, in every invocation
  if (lid.x < ROWS && first + lid.x < params.n) {
    let at = params.row0 + first + lid.x;
    out[at] = finish(first + lid.x, total[lid.x], at);
  }
}
