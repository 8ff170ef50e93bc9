// Prefill GEMM: out[m, n] = sum_k x[m, k] * W[n, k] (+ bias[n]) for M > 1,
// W in any format that has a `decode_unit` (quant/dequant.wgsl: the ggml
// block formats and plain f32/f16 rows), prepended after a precision prelude
// (gemm_f32.wgsl, gemm_f16.wgsl, gemm_f16acc.wgsl) that defines FT, the type
// of the staged operands and products, and SPLIT_ACC (partial sums in FT per
// K tile, added into f32 accumulators).
//
// A workgroup of 128 threads computes a BM x BN = 64 x 128 block of out in
// 32-deep K tiles. Per tile, each thread decodes one 32-element unit of one
// weight row (so every quantized block is decoded once per tile, not per
// multiply) and loads 4 vec4s of x, both transposed into workgroup memory
// ([k][m] and [k][n], as vec4s along m and n); each thread then accumulates
// an 8 x 8 register tile: rows tm*4+i and 32+tm*4+i, columns tn*4+j and
// 64+tn*4+j (two vec4 reads of each operand per K step, bank-conflict free).
// The next tile's weights and x are loaded into registers while the current
// tile is multiplied (double buffering through registers: one workgroup
// buffer of 24 KiB in f32, 12 KiB in f16).
// Workgroups: ceil(N / BN) * ceil(M / BM), possibly 2D-folded.

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

const BM: u32 = 64u;
const BN: u32 = 128u;
const BK: u32 = 32u;
const THREADS: u32 = 128u;
const XLOADS: u32 = BM * BK / 4u / THREADS;  // vec4s of x per thread per tile

var<workgroup> xs: array<vec4<FT>, BK * BM / 4u>;  // [k][m / 4]
var<workgroup> ws: array<vec4<FT>, BK * BN / 4u>;  // [k][n / 4]

@compute @workgroup_size(THREADS)
fn gemm(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let group = wid.y * nwg.x + wid.x;
  let col_groups = (params.n + BN - 1u) / BN;
  let n0 = (group % col_groups) * BN;
  let m0 = (group / col_groups) * BM;
  if (m0 >= params.m) { return; }  // a folded grid's spare workgroups: uniform
  let tm = tid / 16u;  // 0..7
  let tn = tid % 16u;  // 0..15
  let k4 = params.k / 4u;
  let units = params.k / 32u;

  // This thread's staging: weight row n0 + tid, and x rows (e % BM) at
  // vec4 (e / BM) of the unit for e = tid + THREADS * r.
  let wrow = n0 + tid;
  let wvalid = wrow < params.n;
  let wbase = wrow * params.row_words;

  var wv: Unit;
  var xv: array<vec4<f32>, XLOADS>;
  // Tile 0 into registers.
  if (wvalid) { decode_unit(wbase, 0u, &wv); }
  for (var r = 0u; r < XLOADS; r++) {
    let e = tid + THREADS * r;
    let m = m0 + e % BM;
    xv[r] = select(vec4<f32>(0.0), x[min(m, params.m - 1u) * k4 + e / BM], m < params.m);
  }

  var acc: array<vec4<f32>, 16>;
  var part: array<vec4<FT>, 16>;
  for (var i = 0u; i < 16u; i++) {
    acc[i] = vec4<f32>(0.0);
    part[i] = vec4<FT>(0.0);
  }
  for (var u = 0u; u < units; u++) {
    // Registers -> workgroup memory, transposed.
    for (var j = 0u; j < 8u; j++) {
      let v = select(vec4<FT>(0.0), vec4<FT>(wv[j]), wvalid);
      for (var c = 0u; c < 4u; c++) { ws[(4u * j + c) * (BN / 4u) + tid / 4u][tid % 4u] = v[c]; }
    }
    for (var r = 0u; r < XLOADS; r++) {
      let e = tid + THREADS * r;
      let row = e % BM;
      let v = vec4<FT>(xv[r]);
      for (var c = 0u; c < 4u; c++) { xs[(4u * (e / BM) + c) * (BM / 4u) + row / 4u][row % 4u] = v[c]; }
    }
    workgroupBarrier();
    // The next tile into registers while this one is multiplied.
    if (u + 1u < units) {
      if (wvalid) { decode_unit(wbase, u + 1u, &wv); }
      for (var r = 0u; r < XLOADS; r++) {
        let e = tid + THREADS * r;
        let m = m0 + e % BM;
        xv[r] = select(vec4<f32>(0.0), x[min(m, params.m - 1u) * k4 + (u + 1u) * 8u + e / BM], m < params.m);
      }
    }
    for (var kk = 0u; kk < BK; kk++) {
      let a0 = xs[kk * (BM / 4u) + tm];
      let a1 = xs[kk * (BM / 4u) + 8u + tm];
      let b0 = ws[kk * (BN / 4u) + tn];
      let b1 = ws[kk * (BN / 4u) + 16u + tn];
      for (var i = 0u; i < 4u; i++) {
        part[2u * i] = fma(vec4<FT>(a0[i]), b0, part[2u * i]);
        part[2u * i + 1u] = fma(vec4<FT>(a0[i]), b1, part[2u * i + 1u]);
        part[8u + 2u * i] = fma(vec4<FT>(a1[i]), b0, part[8u + 2u * i]);
        part[8u + 2u * i + 1u] = fma(vec4<FT>(a1[i]), b1, part[8u + 2u * i + 1u]);
      }
    }
    if (SPLIT_ACC) {
      for (var i = 0u; i < 16u; i++) {
        acc[i] += vec4<f32>(part[i]);
        part[i] = vec4<FT>(0.0);
      }
    }
    workgroupBarrier();
  }
  if (!SPLIT_ACC) {
    for (var i = 0u; i < 16u; i++) { acc[i] = vec4<f32>(part[i]); }
  }

  // part/acc index 2 * ri + h: row ri (0..3: tm*4+ri, 4..7: 32+tm*4+ri-4), column half h.
  for (var ri = 0u; ri < 8u; ri++) {
    let m = m0 + select(tm * 4u + ri, 32u + tm * 4u + ri - 4u, ri >= 4u);
    if (m >= params.m) { continue; }
    for (var h = 0u; h < 2u; h++) {
      let nb = n0 + h * 64u + tn * 4u;
      let v = acc[2u * ri + h];
      for (var c = 0u; c < 4u; c++) {
        let n = nb + c;
        if (n < params.n) {
          var r = v[c];
          if (HAS_BIAS) { r += bias[n]; }
          out[m * params.n + n] = r;
        }
      }
    }
  }
}
