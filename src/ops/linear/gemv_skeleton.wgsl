// What the decode GEMVs (gemv.wgsl, gemv_planar.wgsl, gemv_planar_q8.wgsl)
// share, after linear/linear_io.wgsl: a workgroup of WG owns ROWS weight rows
// of XROWS consecutive x rows, LANES invocations per weight row; x is staged
// in workgroup memory (as f32 by gemv_stage_x.wgsl, or as int8 by
// gemv_planar_q8.wgsl); the lanes' sums meet through lanes_sum and go
// through the epilogue, one x row after another.
//! import common/prelude.wgsl
//! import common/reduce.wgsl
//! import linear/linear_io.wgsl
//! import linear/gemv_{rope}.wgsl
//! import linear/gemv_xq_{xq}.wgsl

override WG: u32 = 256;    // linear_ggml.cpp's kWorkgroup (passing it there is pending: the default)
override LANES: u32 = 16;  // invocations per weight row, a power of two
override ROWS: u32 = 16;   // LANES * ROWS = WG
// Blocks of ROWS weight rows per workgroup, one after another over one
// staging of x (gemv_planar.wgsl, gemv_planar_q8.wgsl; gemv.wgsl keeps 1).
override ROW_BLOCKS: u32 = 1;
// x rows per workgroup (batched decode): each weight block is read and
// decoded once for all of them. Each row's sums are added in the order of
// XROWS = 1, so a row's result does not depend on the rows beside it.
// ROW_BLOCKS > 1 keeps 1.
override XROWS: u32 = 1;
const XROWS_MAX: u32 = 8u;  // per-invocation arrays are sized by it; loops run to XROWS

// The (first) x row (m), weight row (n, in the workgroup's first row block)
// and lane of invocation tid; live: m is a live row of x (the same for the
// whole workgroup). Row block r holds rows n + r * ROWS.
struct GemvSlot {
  m: u32,
  n: u32,
  lane: u32,
  live: bool,
}

fn gemv_slot(wid: vec3<u32>, nwg: vec3<u32>, tid: u32) -> GemvSlot {
  let group = flat_group(wid, nwg);
  let groups = div_up(div_up(params.n, ROWS), ROW_BLOCKS);  // workgroups per x row
  let m = (group / groups) * XROWS;
  return GemvSlot(m, (group % groups) * ROWS * ROW_BLOCKS + tid / LANES, tid % LANES, m < params.m);
}

// The workgroup's live x rows, 0 to XROWS (uniform: from the workgroup id
// and params alone, so loops to it may hold barriers).
fn gemv_rows(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  let m = (flat_group(wid, nwg) / div_up(div_up(params.n, ROWS), ROW_BLOCKS)) * XROWS;
  return select(0u, min(XROWS, params.m - m), m < params.m);
}

var<workgroup> row_results: array<f32, 32>;  // HAS_SWIGLU, HAS_ROPE: one per weight row (ROWS <= 32)

// Sums the lanes' partial dot products acc, applies the RMSNorm scale from
// the summed squares, and stores the result. With HAS_SWIGLU or HAS_ROPE,
// rows 2i and 2i + 1 (one workgroup, ROWS being even) meet in workgroup
// memory: row 2i's lane stores silu(gate) * up, or both store their element
// of the rotated pair. Uniform control flow.
fn gemv_finish(s: GemvSlot, acc: f32, squares: f32, tid: u32) {
  let total = lanes_sum(acc, tid, LANES);
  var scale = 1.0;
  if (HAS_NORM && !XQ_DQ8) { scale = inverseSqrt(workgroup_sum(squares, tid, WG) / f32(params.k) + params.eps); }
  let stores = s.lane == 0u && s.live && s.n < params.n;
  if (!HAS_SWIGLU && !HAS_ROPE) {
    if (stores) { store_result(s.m, s.n, total * scale); }
    return;
  }
  // Pairs of rows (2i, 2i + 1) meet: one workgroup, ROWS being even.
  var r = total * scale;
  if (HAS_BIAS && stores) { r += bias[s.n]; }
  if (s.lane == 0u) { row_results[tid / LANES] = r; }
  workgroupBarrier();
  let i = tid / LANES;
  if (HAS_SWIGLU) {
    if (stores && s.n % 2u == 0u) { store_swiglu(s.m, s.n, row_results[i], row_results[i + 1u]); }
    return;
  }
  if (stores) {
    if (s.n < params.split2) {
      let e = (s.n - select(params.split1, 0u, s.n < params.split1)) % params.head_dim;
      let t = s.m * (params.head_dim / 2u) + e / 2u;
      let a = row_results[i & ~1u];
      let b = row_results[i | 1u];
      r = rope_pair(t, a, b, e % 2u == 0u);
    }
    store_at(s.m, s.n, r);
  }
}

// The live rows rounded up to a power of two (1 to XROWS): the kernels stage
// parts of chunk / this units per row, so fewer live rows than XROWS get
// longer parts (fewer barriers); the parts change no row's sums.
fn gemv_rows_pow2(rows: u32) -> u32 {
  return 1u << (32u - countLeadingZeros(max(rows, 1u) - 1u));
}

// gemv_finish for each of the workgroup's `rows` live x rows (from
// gemv_rows): acc and squares hold one value per row.
fn gemv_finish_rows(s: GemvSlot, rows: u32, acc: array<f32, XROWS_MAX>, squares: array<f32, XROWS_MAX>, tid: u32) {
  for (var r = 0u; r < rows; r++) {
    workgroupBarrier();  // the previous row's epilogue has read row_results and reduce_scratch
    gemv_finish(GemvSlot(s.m + r, s.n, s.lane, true), acc[r], squares[r], tid);
  }
}
