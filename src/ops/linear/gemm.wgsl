// Prefill GEMM: out[m, n] = sum_k x[m, k] * W[n, k] (+ bias[n]) for M > 1,
// W in any format that has a `decode_unit` (quant/dequant.wgsl: the ggml
// block formats and plain f32/f16 rows; linear/q4gsw_unit.wgsl), prepended
// after a precision prelude (gemm_f32.wgsl, gemm_f16.wgsl, gemm_f16acc.wgsl:
// FT, the type of staged operands and products, and SPLIT_ACC, partial sums
// in FT per K tile added into f32 accumulators) and a tile prelude
// (gemm_tile_*.wgsl: BM x BN outputs per workgroup, TM x TN per thread, TM and
// TN each 4 or 8).
//
// THREADS = (BM / TM) * (BN / TN), always 16 threads along n. Per 32-deep K
// tile, threads 0..BN-1 each decode one 32-element unit of one weight row
// (every quantized block is decoded once per tile, not per multiply) and all
// threads load x as vec4s, two threads per 32-byte sector; both go to
// workgroup memory transposed ([k][m], [k][n], vec4s along m and n). Each
// thread then multiplies vec4 reads of x rows (tm, and tm + BM/8 when TM = 8)
// by vec4 reads of W columns (tn, and tn + BN/8 when TN = 8).
// The next tile's weights and x are loaded into registers while the current
// one is multiplied.
//
// The accumulators are indexed by constants only (no loops over them): an
// array indexed in a loop the driver does not unroll lives in local memory,
// the suspected (unmeasured) cause of the first 8 x 8 version of this kernel
// being 4-20x slower than the 2 x 4 tiles of quant/linear.wgsl on the H200.
//
// Bindings, Params and the epilogue come from quant/linear_io.wgsl
// (prepended before this file, as for quant/linear.wgsl), with the fused
// linears' optional parts: HAS_NORM (x RMS-normalized first:
// staged x is multiplied by norm_w and each staging thread sums the squares
// of its part of one row; the results are scaled by 1 / rms), HAS_BIAS,
// HAS_RESIDUAL (+ residual[m, n]), and split outputs: columns [0, split1) to
// out, [split1, split2) to out1, [split2, n) to out2 (split1 = split2 = n
// when there is one output).
// Workgroups: ceil(N / BN) * ceil(M / BM), possibly 2D-folded.

// Binding 1, the weights as u32 words (linear_io.wgsl leaves it to each kernel).
@group(0) @binding(1) var<storage, read> w: array<u32>;

const BK: u32 = 32u;
const THREADS: u32 = (BM / TM) * (BN / TN);
const XLOADS: u32 = BM * BK / 4u / THREADS;  // vec4s of x per thread per tile: 2 or 4

var<workgroup> xs: array<vec4<FT>, BK * BM / 4u>;  // [k][m / 4]
var<workgroup> ws: array<vec4<FT>, BK * BN / 4u>;  // [k][n / 4]
var<workgroup> row_squares: array<f32, THREADS>;   // HAS_NORM: per staging thread

// Row and vec4 of x that thread tid stages in its r-th load (e = tid + r *
// THREADS): two threads per 32-byte sector of a row (coalesced), rows
// consecutive across the subgroup (at most 2-way bank conflicts on the
// transposed store). THREADS is a multiple of 2 * BM, so a thread stages the
// same row in every load: row r is staged by threads 2r + j % 2 + 2BM (j / 2),
// j < THREADS / BM.
fn x_row(e: u32) -> u32 { return (e / 2u) % BM; }
fn x_vec(e: u32) -> u32 { return e % 2u + 2u * (e / (2u * BM)); }

fn load_x(m0: u32, e: u32, unit: u32) -> vec4<f32> {
  let m = m0 + x_row(e);
  return select(vec4<f32>(0.0), x[min(m, params.m - 1u) * (params.k / 4u) + unit * 8u + x_vec(e)], m < params.m);
}

// Staged x element e (x_row, x_vec) of K tile `unit` into xs, transposed.
fn stage_x(e: u32, unit: u32, xv: vec4<f32>) {
  let row = x_row(e);
  let kb = 4u * x_vec(e);
  var v = vec4<FT>(xv);
  if (HAS_NORM) { v = vec4<FT>(xv * norm_w[unit * 8u + x_vec(e)]); }
  xs[kb * (BM / 4u) + row / 4u][row % 4u] = v.x;
  xs[(kb + 1u) * (BM / 4u) + row / 4u][row % 4u] = v.y;
  xs[(kb + 2u) * (BM / 4u) + row / 4u][row % 4u] = v.z;
  xs[(kb + 3u) * (BM / 4u) + row / 4u][row % 4u] = v.w;
}

// HAS_NORM: 1 / rms of the workgroup's row `row` (after row_squares is filled).
fn row_scale(row: u32) -> f32 {
  var s = 0.0;
  for (var j = 0u; j < THREADS / BM; j++) { s += row_squares[2u * row + j % 2u + 2u * BM * (j / 2u)]; }
  return inverseSqrt(s / f32(params.k) + params.eps);
}

// Four results of row m0 + row, columns n..n+3 (absolute), scaled by the
// norm, through linear_io.wgsl's epilogue (bias, residual, split outputs).
fn store4(m0: u32, row: u32, n: u32, v: vec4<f32>) {
  let m = m0 + row;
  if (m >= params.m) { return; }
  var scale = 1.0;
  if (HAS_NORM) { scale = row_scale(row); }
  for (var c = 0u; c < 4u; c++) {
    if (n + c < params.n) { store_result(m, n + c, v[c] * scale); }
  }
}

@compute @workgroup_size(THREADS)
fn gemm(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let group = wid.y * nwg.x + wid.x;
  let col_groups = (params.n + BN - 1u) / BN;
  let n0 = (group % col_groups) * BN;
  let m0 = (group / col_groups) * BM;
  if (m0 >= params.m) { return; }  // a folded grid's spare workgroups: uniform
  let tm = tid / 16u;
  let tn = tid % 16u;
  let units = params.k / 32u;

  // Staging: weight row n0 + tid (threads below BN).
  let wrow = n0 + tid;
  let wvalid = tid < BN && wrow < params.n;
  let wbase = wrow * params.row_words;

  var wv: Unit;
  // x in registers: XLOADS (2 or 4) named vec4s, not an array indexed in a loop.
  var xv0 = load_x(m0, tid, 0u);
  var xv1 = load_x(m0, tid + THREADS, 0u);
  var xv2 = vec4<f32>();
  var xv3 = vec4<f32>();
  if (XLOADS > 2u) {
    xv2 = load_x(m0, tid + 2u * THREADS, 0u);
    xv3 = load_x(m0, tid + 3u * THREADS, 0u);
  }
  if (wvalid) { decode_unit(wbase, 0u, &wv); }
  var squares = 0.0;  // HAS_NORM: of the x this thread stages (one row)

  // Slot 8 * a + 4 * b + i: row vec a (0: tm, 1: tm + BM/8) component i,
  // column vec b (0: tn, 1: tn + BN/8).
  var acc: array<vec4<f32>, 16>;
  var p: array<vec4<FT>, 16>;
  for (var u = 0u; u < units; u++) {
    // Registers -> workgroup memory, transposed.
    if (tid < BN) {
      for (var j = 0u; j < 8u; j++) {
        let v = select(vec4<FT>(0.0), vec4<FT>(wv[j]), wvalid);
        ws[(4u * j) * (BN / 4u) + tid / 4u][tid % 4u] = v.x;
        ws[(4u * j + 1u) * (BN / 4u) + tid / 4u][tid % 4u] = v.y;
        ws[(4u * j + 2u) * (BN / 4u) + tid / 4u][tid % 4u] = v.z;
        ws[(4u * j + 3u) * (BN / 4u) + tid / 4u][tid % 4u] = v.w;
      }
    }
    stage_x(tid, u, xv0);
    stage_x(tid + THREADS, u, xv1);
    if (HAS_NORM) { squares += dot(xv0, xv0) + dot(xv1, xv1); }
    if (XLOADS > 2u) {
      stage_x(tid + 2u * THREADS, u, xv2);
      stage_x(tid + 3u * THREADS, u, xv3);
      if (HAS_NORM) { squares += dot(xv2, xv2) + dot(xv3, xv3); }
    }
    workgroupBarrier();
    // The next tile into registers while this one is multiplied.
    if (u + 1u < units) {
      xv0 = load_x(m0, tid, u + 1u);
      xv1 = load_x(m0, tid + THREADS, u + 1u);
      if (XLOADS > 2u) {
        xv2 = load_x(m0, tid + 2u * THREADS, u + 1u);
        xv3 = load_x(m0, tid + 3u * THREADS, u + 1u);
      }
      if (wvalid) { decode_unit(wbase, u + 1u, &wv); }
    }
    for (var kk = 0u; kk < BK; kk++) {
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
    if (SPLIT_ACC) {
      acc[0] += vec4<f32>(p[0]); acc[1] += vec4<f32>(p[1]); acc[2] += vec4<f32>(p[2]); acc[3] += vec4<f32>(p[3]);
      p[0] = vec4<FT>(); p[1] = vec4<FT>(); p[2] = vec4<FT>(); p[3] = vec4<FT>();
      if (TN == 8u) {
        acc[4] += vec4<f32>(p[4]); acc[5] += vec4<f32>(p[5]); acc[6] += vec4<f32>(p[6]); acc[7] += vec4<f32>(p[7]);
        p[4] = vec4<FT>(); p[5] = vec4<FT>(); p[6] = vec4<FT>(); p[7] = vec4<FT>();
      }
      if (TM == 8u) {
        acc[8] += vec4<f32>(p[8]); acc[9] += vec4<f32>(p[9]); acc[10] += vec4<f32>(p[10]); acc[11] += vec4<f32>(p[11]);
        p[8] = vec4<FT>(); p[9] = vec4<FT>(); p[10] = vec4<FT>(); p[11] = vec4<FT>();
        if (TN == 8u) {
          acc[12] += vec4<f32>(p[12]); acc[13] += vec4<f32>(p[13]);
          acc[14] += vec4<f32>(p[14]); acc[15] += vec4<f32>(p[15]);
          p[12] = vec4<FT>(); p[13] = vec4<FT>(); p[14] = vec4<FT>(); p[15] = vec4<FT>();
        }
      }
    }
    workgroupBarrier();
  }
  if (!SPLIT_ACC) {
    acc[0] = vec4<f32>(p[0]); acc[1] = vec4<f32>(p[1]); acc[2] = vec4<f32>(p[2]); acc[3] = vec4<f32>(p[3]);
    acc[4] = vec4<f32>(p[4]); acc[5] = vec4<f32>(p[5]); acc[6] = vec4<f32>(p[6]); acc[7] = vec4<f32>(p[7]);
    acc[8] = vec4<f32>(p[8]); acc[9] = vec4<f32>(p[9]); acc[10] = vec4<f32>(p[10]); acc[11] = vec4<f32>(p[11]);
    acc[12] = vec4<f32>(p[12]); acc[13] = vec4<f32>(p[13]);
    acc[14] = vec4<f32>(p[14]); acc[15] = vec4<f32>(p[15]);
  }

  if (HAS_NORM) {
    row_squares[tid] = squares;
    workgroupBarrier();
  }
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
