// Causal grouped-query attention for prefill, flash style (online softmax, no
// S x S buffer), with both products as register-tiled matrix products, for
// head dims up to 64. flash_attention.wgsl gives each query row 4 threads
// that walk its keys one after another (a long dependent chain per thread,
// few threads per GPU); here a workgroup of 128 threads owns BQ = 32 query
// rows of one head and, per tile of BKV = 32 keys:
//   1. K^T and V of the tile into workgroup memory (loaded into registers
//      during the previous tile);
//   2. scores S = Q K^T: each thread 2 rows x 4 keys, 8 independent sums;
//   3. online softmax, 4 threads per row: the tile's max (from the score
//      threads' maxima of their 4 keys), P = exp(S - max), and the row's
//      running max and the correction of its earlier output, kept in the
//      registers of each of the row's 4 threads (they compute the same
//      values), each with its own part of the row's sum (added up once, at
//      the end);
//   4. O = O * correction + P V: each thread 4 rows x 4 dims (16 sums).
// Four barriers per tile: a reduction of maxima and sums through workgroup
// memory per tile took two more.
// q, out: [S, H, D]; caches [MAX, Hkv, D] (f32, or f16 rows: the prelude
// reads them); D = 4 * D4 <= 64. Visible keys: flash_io.wgsl's visible().
// Workgroups: H * ceil(S / BQ), possibly 2D-folded; the last query blocks
// (the most keys) first.
//! import attention/cache_{cache}.wgsl
//! import attention/flash_io.wgsl

override D4: u32 = 16;        // head dim / 4, at most 16
override TILE_LEN: u32 = 512;  // D * 8: vec4s of Q^T, K^T and V (set by the host)

const BQ: u32 = 32u;
const BKV: u32 = 32u;
// A const, not an override: LOADS, which sizes a function-scope array, is
// derived from it. flash_attention.cpp's kTiledThreads repeats it (workgroup bytes).
const THREADS: u32 = 128u;
const LOADS: u32 = BKV * 16u / THREADS;  // vec4s of a K (and a V) tile per thread (D4 <= 16)

var<workgroup> qt: array<vec4<f32>, TILE_LEN>;  // [d][q / 4]: 4 query rows at one dim
var<workgroup> kt: array<vec4<f32>, TILE_LEN>;  // [d][k / 4]: 4 keys at one dim
var<workgroup> vs: array<vec4<f32>, TILE_LEN>;  // [k][d / 4]
var<workgroup> pt: array<vec4<f32>, 256>;       // [k][q / 4]: scores, then probabilities
var<workgroup> key_max: array<f32, 256>;        // [k / 4][q]: each score thread's maximum over its 4 keys
var<workgroup> row_corr: array<f32, BQ>;
var<workgroup> sums: array<f32, THREADS>;       // after the last tile: the softmax threads' parts of the row sums

// Cache vec4 e (< BKV * D4) of the tile at c0: K and V, zeros past `last`.
fn load_kv(c0: u32, e: u32, last: u32, kvh: u32) -> array<vec4<f32>, 2> {
  let c = c0 + e / D4;
  if (e >= BKV * D4 || c > last) { return array<vec4<f32>, 2>(vec4<f32>(0.0), vec4<f32>(0.0)); }
  let i = (c * params.cache_heads + kvh) * D4 + e % D4;
  return array<vec4<f32>, 2>(load_k(i), load_v(i));
}

@compute @workgroup_size(THREADS)
fn flash_tiled(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32,
               @builtin(num_workgroups) nwg: vec3<u32>) {
  let blk = flash_block(wid, nwg, BQ);
  if (!blk.live) { return; }
  let h = blk.h;
  let q0 = blk.q0;
  let kvh = blk.kvh;

  // Q^T, scaled, transposed into qt.
  for (var e = tid; e < BQ * D4; e += THREADS) {
    let r = e / D4;
    let d4 = e % D4;
    let v = load_q(q0, r, h, d4);
    for (var c = 0u; c < 4u; c++) { qt[(4u * d4 + c) * (BQ / 4u) + r / 4u][r % 4u] = v[c]; }
  }

  // Keys any row of the block sees: [first, last].
  let last = blk.last;
  let first = blk.first;

  // Score threads: rows 2 sp, 2 sp + 1, keys 4 sk .. 4 sk + 3.
  let sp = tid % 16u;
  let sk = tid / 16u;
  // Softmax threads: row tid / 4, keys 8 (tid % 4) .. + 7.
  let srow = tid / 4u;
  let spart = tid % 4u;
  var m_row = -3.402823e38;  // the row's running max (the same in its 4 threads)
  var sum_part = 0.0;        // this thread's part of the row's running sum
  // Output threads: rows 4 oq .. 4 oq + 3, dims 4 od .. 4 od + 3.
  let oq = tid % 8u;
  let od = tid / 8u;
  var o: array<vec4<f32>, 4>;

  var next: array<array<vec4<f32>, 2>, LOADS>;
  for (var i = 0u; i < LOADS; i++) { next[i] = load_kv(first, tid + i * THREADS, last, kvh); }
  for (var c0 = first; c0 <= last; c0 += BKV) {
    workgroupBarrier();  // the previous tile's K, V and P are consumed
    for (var i = 0u; i < LOADS; i++) {
      let e = tid + i * THREADS;
      if (e < BKV * D4) {
        let k = e / D4;
        let d4 = e % D4;
        for (var c = 0u; c < 4u; c++) { kt[(4u * d4 + c) * (BKV / 4u) + k / 4u][k % 4u] = next[i][0][c]; }
        vs[k * D4 + d4] = next[i][1];
      }
    }
    workgroupBarrier();
    if (c0 + BKV <= last) {
      for (var i = 0u; i < LOADS; i++) { next[i] = load_kv(c0 + BKV, tid + i * THREADS, last, kvh); }
    }

    // 2. Scores of rows 2 sp, 2 sp + 1 with keys 4 sk ..; hidden keys get -max.
    var s0 = vec4<f32>(0.0);
    var s1 = vec4<f32>(0.0);
    for (var d = 0u; d < 4u * D4; d++) {
      let qv = qt[d * (BQ / 4u) + sp / 2u];
      let q2 = select(qv.zw, qv.xy, sp % 2u == 0u);
      let kv = kt[d * (BKV / 4u) + sk];
      s0 += q2.x * kv;
      s1 += q2.y * kv;
    }
    let pos0 = params.start + q0 + 2u * sp;
    var max0 = -3.402823e38;
    var max1 = -3.402823e38;
    for (var j = 0u; j < 4u; j++) {
      let c = c0 + 4u * sk + j;
      let a = select(-3.402823e38, s0[j], visible(c, pos0));
      let b = select(-3.402823e38, s1[j], visible(c, pos0 + 1u));
      pt[(4u * sk + j) * (BQ / 4u) + sp / 2u][2u * (sp % 2u)] = a;
      pt[(4u * sk + j) * (BQ / 4u) + sp / 2u][2u * (sp % 2u) + 1u] = b;
      max0 = max(max0, a);
      max1 = max(max1, b);
    }
    key_max[sk * BQ + 2u * sp] = max0;
    key_max[sk * BQ + 2u * sp + 1u] = max1;
    workgroupBarrier();

    // 3. Online softmax of row srow over keys 8 spart ... (hidden keys were
    // given -max, so the maxima are over visible keys, or -max for a row that
    // sees none of this tile: its max, sum and output stay as they were).
    let spos = params.start + q0 + srow;
    var m_new = m_row;
    for (var j = 0u; j < BKV / 4u; j++) { m_new = max(m_new, key_max[j * BQ + srow]); }
    var part_sum = 0.0;
    for (var j = 0u; j < 8u; j++) {
      let k = 8u * spart + j;
      let at = k * (BQ / 4u) + srow / 4u;
      let p = select(0.0, exp(pt[at][srow % 4u] - m_new), visible(c0 + k, spos));
      pt[at][srow % 4u] = p;
      part_sum += p;
    }
    let corr = exp(m_row - m_new);  // 1 while the row has seen no key (its sum and output are still 0)
    sum_part = sum_part * corr + part_sum;
    m_row = m_new;
    if (spart == 0u) { row_corr[srow] = corr; }
    workgroupBarrier();

    // 4. O rows 4 oq .. scaled by their corrections, plus P V.
    if (od < D4) {
      for (var i = 0u; i < 4u; i++) { o[i] *= row_corr[4u * oq + i]; }
      for (var k = 0u; k < BKV; k++) {
        let p = pt[k * (BQ / 4u) + oq];
        let v = vs[k * D4 + od];
        o[0] += p.x * v;
        o[1] += p.y * v;
        o[2] += p.z * v;
        o[3] += p.w * v;
      }
    }
  }
  sums[tid] = sum_part;
  workgroupBarrier();
  if (od < D4) {
    for (var i = 0u; i < 4u; i++) {
      let r = 4u * oq + i;
      let row_sum = (sums[4u * r] + sums[4u * r + 1u]) + (sums[4u * r + 2u] + sums[4u * r + 3u]);
      if (q0 + r < params.seq) { out4[((q0 + r) * params.q_heads + h) * D4 + od] = o[i] / row_sum; }
    }
  }
}
