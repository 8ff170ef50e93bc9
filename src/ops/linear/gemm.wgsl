// Prefill GEMM: out[m, n] = sum_k x[m, k] * W[n, k] (+ bias[n]) for M > 1,
// W in any format whose decoder defines UnitWords, fetch_unit and unit_from
// (quant/dequant.wgsl: the ggml block formats, wgrt's planar layout and plain
// f32/f16 rows; linear/q4gsw_unit.wgsl: the {decoder} slot), imported with
// a precision prelude (gemm_f32.wgsl, gemm_f16.wgsl: FT, the type of
// staged operands and products), a tile prelude
// (gemm_tile_*.wgsl: BM x BN outputs per workgroup, TM x TN per thread, TM and
// TN each 4 or 8) and a depth prelude (gemm_k*.wgsl: KU 32-element units of
// K per staged tile, BK = 32 KU).
//
// THREADS = (BM / TM) * (BN / TN), always 16 threads along n. Per BK-deep K
// tile, threads 0..BN*KU-1 each decode one 32-element unit of one weight row
// (every quantized block is decoded once per tile, not per multiply) and all
// threads load x as vec4s, two threads per 32-byte sector; both go to
// workgroup memory transposed ([k][m], [k][n], vec4s along m and n). Each
// thread then multiplies vec4 reads of x rows (tm, and tm + BM/8 when TM = 8)
// by vec4 reads of W columns (tn, and tn + BN/8 when TN = 8).
// The next tile's weights and x are loaded into registers while the current
// one is multiplied: x as f32, the weights as fetch_unit gives them (the
// planar layout's raw words, decoded by unit_from when staged; other formats
// decoded at once, so that their decoding thread waits for its words before
// it multiplies, and the workgroup's barrier waits for it: with KU = 1 a
// quarter of a 64 x 64 workgroup pays that wait once per 32 of K, with
// KU = 4 all of it once per 128, spread over four times the multiplies).
//
// The accumulators are indexed by constants only (no loops over them): an
// array indexed in a loop the driver does not unroll lives in local memory,
// the suspected (unmeasured) cause of the first 8 x 8 version of this kernel
// being 4-20x slower than the 2 x 4 tiles of linear/linear.wgsl on the H200.
//
// Bindings, Params and the epilogue come from linear/linear_io.wgsl
// (imported, as by linear/linear.wgsl), with the fused
// linears' optional parts: HAS_NORM (x RMS-normalized first: a pass over
// the workgroup's rows sums their squares before the K loop, so that staged
// x is x * norm_w / rms: unnormalized, a residual stream of tens of
// thousands would overflow f16's 65504 and give inf), HAS_BIAS,
// HAS_RESIDUAL (+ residual[m, n]), and split outputs: columns [0, split1) to
// out, [split1, split2) to out1, [split2, n) to out2 (split1 = split2 = n
// when there is one output).
// Workgroups: ceil(N / BN) * ceil(M / BM), possibly 2D-folded.
//! import linear/gemm_{precision}.wgsl
//! import common/prelude.wgsl
//! import {tile}
//! import linear/gemm_k{ku}.wgsl
//! import {decoder}
//! import linear/linear_io.wgsl

// Binding 1, the weights as u32 words (linear_io.wgsl leaves it to each kernel).
@group(0) @binding(1) var<storage, read> w: array<u32>;

// Products per FT partial sum, in 32-element units: every ACC_UNITS units
// of K the partial sums are added into f32 accumulators (F16; the host picks
// the span, a power of two, capped here at the tile's KU units, so that
// FOLD_UNITS divides KU); 0: one FT sum over the whole K
// (F32, F16Acc). The fold sits in a loop of constant bounds: a fold under a
// runtime condition (every n units across tiles) made llama1b's GEMMs 19 %
// slower on the H200 (bench/RESULTS.md, session 8).
override ACC_UNITS: u32 = 0u;
override FOLD_UNITS: u32 = select(KU, min(ACC_UNITS, KU), ACC_UNITS > 0u);  // units between folds

const BK: u32 = 32u * KU;
const THREADS: u32 = (BM / TM) * (BN / TN);
const XLOADS: u32 = BM * BK / 4u / THREADS;  // vec4s of x per thread per tile: 2 KU or 4 KU

var<workgroup> xs: array<vec4<FT>, BK * BM / 4u>;  // [k][m / 4]
var<workgroup> ws: array<vec4<FT>, BK * BN / 4u>;  // [k][n / 4]
// HAS_NORM: each staging thread's sum of squares goes through ws[tid]
// before the K loop uses it (the precision prelude's put_f32 / get_f32), so
// that the workgroup memory is exactly xs + ws: 32 KiB for 64 x 64 f16 tiles
// at KU = 4, the most some GPUs (and lavapipe) offer.

// Row and vec4 of x that thread tid stages in its r-th load (e = tid + r *
// THREADS): two threads per 32-byte sector of a row (coalesced), rows
// consecutive across the subgroup (at most 2-way bank conflicts on the
// transposed store). THREADS is a multiple of 2 * BM, so a thread stages the
// same row in every load: row r is staged by threads 2r + j % 2 + 2BM (j / 2),
// j < THREADS / BM.
fn x_row(e: u32) -> u32 { return (e / 2u) % BM; }
fn x_vec(e: u32) -> u32 { return e % 2u + 2u * (e / (2u * BM)); }

// The vec4 of x that element e of K tile `tile` reads (zeros past M and K;
// K tiles past the end are partial when the units are not a multiple of KU).
fn load_x(m0: u32, e: u32, tile: u32) -> vec4<f32> {
  let m = m0 + x_row(e);
  let kv = tile * (BK / 4u) + x_vec(e);
  let row_vecs = params.k / 4u;
  return select(vec4<f32>(0.0), x[min(m, params.m - 1u) * row_vecs + min(kv, row_vecs - 1u)],
                m < params.m && kv < row_vecs);
}

// Staged x element e (x_row, x_vec) of K tile `tile` into xs, transposed
// (HAS_NORM: normalized, `inv_rms` being its row's 1 / rms).
fn stage_x(e: u32, tile: u32, xv: vec4<f32>, inv_rms: f32) {
  let row = x_row(e);
  let kb = 4u * x_vec(e);
  var v = vec4<FT>(xv);
  if (HAS_NORM) { v = vec4<FT>(xv * norm_w[min(tile * (BK / 4u) + x_vec(e), params.k / 4u - 1u)] * inv_rms); }
  xs[kb * (BM / 4u) + row / 4u][row % 4u] = v.x;
  xs[(kb + 1u) * (BM / 4u) + row / 4u][row % 4u] = v.y;
  xs[(kb + 2u) * (BM / 4u) + row / 4u][row % 4u] = v.z;
  xs[(kb + 3u) * (BM / 4u) + row / 4u][row % 4u] = v.w;
}

// HAS_NORM: 1 / rms of the workgroup's row `row` (after put_f32 has stored every thread's squares).
fn row_scale(row: u32) -> f32 {
  var s = 0.0;
  for (var j = 0u; j < THREADS / BM; j++) { s += get_f32(2u * row + j % 2u + 2u * BM * (j / 2u)); }
  return inverseSqrt(s / f32(params.k) + params.eps);
}

// Four results of row m0 + row, columns n..n+3 (absolute), through
// linear_io.wgsl's epilogue (bias, residual, split outputs).
// HAS_SWIGLU (weight rows interleaving gate and up): n is a multiple of 4,
// so the columns are two (gate, up) pairs, stored as silu(gate) * up into
// out[m, n / 2 ..] of the [M, N / 2] result.
fn store4(m0: u32, row: u32, n: u32, v: vec4<f32>) {
  let m = m0 + row;
  if (m >= params.m) { return; }
  if (HAS_SWIGLU) {
    for (var c = 0u; c < 4u; c += 2u) {
      if (n + c + 1u < params.n) {
        var gate = v[c];
        var up = v[c + 1u];
        if (HAS_BIAS) {
          gate += bias[n + c];
          up += bias[n + c + 1u];
        }
        store_swiglu(m, n + c, gate, up);
      }
    }
    return;
  }
  for (var c = 0u; c < 4u; c++) {
    if (n + c < params.n) { store_result(m, n + c, v[c]); }
  }
}

// The FT partial sums of the slots a thread tile uses added into the f32
// accumulators, and cleared (slot 8 * a + 4 * b + i as in gemm()).
fn fold_partials(acc: ptr<function, array<vec4<f32>, 16>>, p: ptr<function, array<vec4<FT>, 16>>) {
  (*acc)[0] += vec4<f32>((*p)[0]); (*acc)[1] += vec4<f32>((*p)[1]);
  (*acc)[2] += vec4<f32>((*p)[2]); (*acc)[3] += vec4<f32>((*p)[3]);
  (*p)[0] = vec4<FT>(); (*p)[1] = vec4<FT>(); (*p)[2] = vec4<FT>(); (*p)[3] = vec4<FT>();
  if (TN == 8u) {
    (*acc)[4] += vec4<f32>((*p)[4]); (*acc)[5] += vec4<f32>((*p)[5]);
    (*acc)[6] += vec4<f32>((*p)[6]); (*acc)[7] += vec4<f32>((*p)[7]);
    (*p)[4] = vec4<FT>(); (*p)[5] = vec4<FT>(); (*p)[6] = vec4<FT>(); (*p)[7] = vec4<FT>();
  }
  if (TM == 8u) {
    (*acc)[8] += vec4<f32>((*p)[8]); (*acc)[9] += vec4<f32>((*p)[9]);
    (*acc)[10] += vec4<f32>((*p)[10]); (*acc)[11] += vec4<f32>((*p)[11]);
    (*p)[8] = vec4<FT>(); (*p)[9] = vec4<FT>(); (*p)[10] = vec4<FT>(); (*p)[11] = vec4<FT>();
    if (TN == 8u) {
      (*acc)[12] += vec4<f32>((*p)[12]); (*acc)[13] += vec4<f32>((*p)[13]);
      (*acc)[14] += vec4<f32>((*p)[14]); (*acc)[15] += vec4<f32>((*p)[15]);
      (*p)[12] = vec4<FT>(); (*p)[13] = vec4<FT>(); (*p)[14] = vec4<FT>(); (*p)[15] = vec4<FT>();
    }
  }
}

@compute @workgroup_size(THREADS)
fn gemm(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let group = flat_group(wid, nwg);
  let col_groups = (params.n + BN - 1u) / BN;
  let n0 = (group % col_groups) * BN;
  let m0 = (group / col_groups) * BM;
  if (m0 >= params.m) { return; }  // a folded grid's spare workgroups: uniform
  let tm = tid / 16u;
  let tn = tid % 16u;
  let units = params.k / 32u;

  // Staging: unit (tile * KU + tid / BN) of weight row n0 + tid % BN
  // (threads below BN * KU).
  let wcol = tid % BN;
  let wrow = n0 + wcol;
  let wunit = tid / BN;  // the unit within a K tile
  let wstager = tid < BN * KU;
  let wbase = wrow * params.row_words;
  let tiles = (units + KU - 1u) / KU;

  var wv: UnitWords;
  // x in registers: XLOADS vec4s (loops of constant count, unrolled).
  var xr: array<vec4<f32>, XLOADS>;
  for (var r = 0u; r < XLOADS; r++) { xr[r] = load_x(m0, tid + r * THREADS, 0u); }
  if (wstager && wrow < params.n && wunit < units) { wv = fetch_unit(wbase, wunit); }
  // HAS_NORM: the squares of the x this thread stages (one row, the same in
  // every load) over all of K, then its row's 1 / rms. This reads the rows'
  // x twice (the second time mostly from cache).
  var inv_rms = 1.0;
  if (HAS_NORM) {
    var squares = 0.0;
    for (var t = 0u; t < tiles; t++) {
      for (var r = 0u; r < XLOADS; r++) {
        let v = load_x(m0, tid + r * THREADS, t);
        squares += dot(v, v);
      }
    }
    put_f32(tid, squares);
    workgroupBarrier();
    inv_rms = row_scale(x_row(tid));
    workgroupBarrier();  // before the weights are staged over ws
  }

  // Slot 8 * a + 4 * b + i: row vec a (0: tm, 1: tm + BM/8) component i,
  // column vec b (0: tn, 1: tn + BN/8).
  var acc: array<vec4<f32>, 16>;
  var p: array<vec4<FT>, 16>;
  for (var t = 0u; t < tiles; t++) {
    // Registers -> workgroup memory, transposed.
    if (wstager) {
      let live = wrow < params.n && t * KU + wunit < units;
      let k0 = 32u * wunit;
      let unit = unit_from(wv, t * KU + wunit);
      for (var j = 0u; j < 8u; j++) {
        let v = select(vec4<FT>(0.0), vec4<FT>(unit[j]), live);
        ws[(k0 + 4u * j) * (BN / 4u) + wcol / 4u][wcol % 4u] = v.x;
        ws[(k0 + 4u * j + 1u) * (BN / 4u) + wcol / 4u][wcol % 4u] = v.y;
        ws[(k0 + 4u * j + 2u) * (BN / 4u) + wcol / 4u][wcol % 4u] = v.z;
        ws[(k0 + 4u * j + 3u) * (BN / 4u) + wcol / 4u][wcol % 4u] = v.w;
      }
    }
    for (var r = 0u; r < XLOADS; r++) { stage_x(tid + r * THREADS, t, xr[r], inv_rms); }
    workgroupBarrier();
    // The next tile into registers while this one is multiplied.
    if (t + 1u < tiles) {
      for (var r = 0u; r < XLOADS; r++) { xr[r] = load_x(m0, tid + r * THREADS, t + 1u); }
      let next = (t + 1u) * KU + wunit;
      if (wstager && wrow < params.n && next < units) { wv = fetch_unit(wbase, next); }
    }
    // 32 of K at a time, FOLD_UNITS units per f16 partial sum.
    for (var kb = 0u; kb < KU; kb += FOLD_UNITS) {
      for (var kc = kb; kc < kb + FOLD_UNITS; kc++) {
        for (var k1 = 0u; k1 < 32u; k1++) {
          let kk = kc * 32u + k1;
          let a0 = xs[kk * (BM / 4u) + tm];
          let b0 = ws[kk * (BN / 4u) + tn];
          p[0] = fma(vec4<FT>(a0.x), b0, p[0]);
          p[1] = fma(vec4<FT>(a0.y), b0, p[1]);
          p[2] = fma(vec4<FT>(a0.z), b0, p[2]);
          p[3] = fma(vec4<FT>(a0.w), b0, p[3]);
          if (TN == 8u) {
            let b1 = ws[kk * (BN / 4u) + BN / 8u + tn];
            p[4] = fma(vec4<FT>(a0.x), b1, p[4]);
            p[5] = fma(vec4<FT>(a0.y), b1, p[5]);
            p[6] = fma(vec4<FT>(a0.z), b1, p[6]);
            p[7] = fma(vec4<FT>(a0.w), b1, p[7]);
          }
          if (TM == 8u) {
            let a1 = xs[kk * (BM / 4u) + BM / 8u + tm];
            p[8] = fma(vec4<FT>(a1.x), b0, p[8]);
            p[9] = fma(vec4<FT>(a1.y), b0, p[9]);
            p[10] = fma(vec4<FT>(a1.z), b0, p[10]);
            p[11] = fma(vec4<FT>(a1.w), b0, p[11]);
            if (TN == 8u) {
              let b1 = ws[kk * (BN / 4u) + BN / 8u + tn];
              p[12] = fma(vec4<FT>(a1.x), b1, p[12]);
              p[13] = fma(vec4<FT>(a1.y), b1, p[13]);
              p[14] = fma(vec4<FT>(a1.z), b1, p[14]);
              p[15] = fma(vec4<FT>(a1.w), b1, p[15]);
            }
          }
        }
      }
      if (ACC_UNITS > 0u) { fold_partials(&acc, &p); }
    }
    workgroupBarrier();
  }
  if (ACC_UNITS == 0u) { fold_partials(&acc, &p); }  // the FT sums over all of K

  let ma = 4u * tm;
  let mb = BM / 2u + 4u * tm;
  let na = n0 + 4u * tn;
  let nb = n0 + BN / 2u + 4u * tn;
  store4(m0, ma, na, acc[0]); store4(m0, ma + 1u, na, acc[1]);
  store4(m0, ma + 2u, na, acc[2]); store4(m0, ma + 3u, na, acc[3]);
  if (TN == 8u) {
    store4(m0, ma, nb, acc[4]); store4(m0, ma + 1u, nb, acc[5]);
    store4(m0, ma + 2u, nb, acc[6]); store4(m0, ma + 3u, nb, acc[7]);
  }
  if (TM == 8u) {
    store4(m0, mb, na, acc[8]); store4(m0, mb + 1u, na, acc[9]);
    store4(m0, mb + 2u, na, acc[10]); store4(m0, mb + 3u, na, acc[11]);
    if (TN == 8u) {
      store4(m0, mb, nb, acc[12]); store4(m0, mb + 1u, nb, acc[13]);
      store4(m0, mb + 2u, nb, acc[14]); store4(m0, mb + 3u, nb, acc[15]);
    }
  }
}
