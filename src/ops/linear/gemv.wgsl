// The decode GEMV of the quantized linear family: out[m, n] = sum_k x[m, k] *
// W[n, k] for one row of x per workgroup, W in any ggml format that
// dequant.wgsl decodes (F32 and F16 included). Sources before this one:
// common/prelude.wgsl, a common/reduce_*.wgsl, quant/dequant.wgsl,
// linear/linear_io.wgsl (parameters, bindings, the optional RMSNorm prologue,
// bias/residual epilogue and split outputs), linear/gemv_skeleton.wgsl,
// linear/gemv_stage_x.wgsl. Weights in the block layout (quant_layout.h);
// gemv_planar.wgsl is the kernel for the planar layout of Q4_0, Q4_1, Q8_0, Q4_K
// and Q6_K.
//
// A workgroup of WG owns ROWS weight rows; LANES threads per row take its
// 32-element units lane-strided (neighbouring lanes read neighbouring
// blocks). x is staged 2048 elements at a time in workgroup memory
// (stage_x). Per-lane sums meet through lanes_sum (subgroup shuffles where
// the device has them).
//! import linear/gemv_skeleton.wgsl
//! import quant/dequant.wgsl
//! import linear/gemv_stage_x.wgsl

const CHUNK_UNITS: u32 = 64u;  // x staged per pass: 64 units of 32 elements (all rows together)

var<workgroup> xs: array<vec4<f32>, 576>;  // CHUNK_UNITS * 9

@group(0) @binding(1) var<storage, read> w: array<u32>;

// One decoded unit's dot product with the staged x at xs[b ..].
fn unit_dot(v: ptr<function, Unit>, b: u32) -> f32 {
  return dot((*v)[0], xs[b]) + dot((*v)[1], xs[b + 1u]) + dot((*v)[2], xs[b + 2u]) + dot((*v)[3], xs[b + 3u]) +
         dot((*v)[4], xs[b + 4u]) + dot((*v)[5], xs[b + 5u]) + dot((*v)[6], xs[b + 6u]) + dot((*v)[7], xs[b + 7u]);
}

// One row of x (XROWS = 1, decode): the reference order of the loop in main,
// kept apart because that loop's per-row arrays slow a one-row step.
fn main_one(slot: GemvSlot, tid: u32) {
  let n = slot.n;
  let lane = slot.lane;
  let units = params.k / 32u;
  let xb = slot.m * (params.k / 4u);
  var acc = 0.0;
  var squares = 0.0;
  var v: Unit;
  for (var c0 = 0u; c0 < units; c0 += CHUNK_UNITS) {
    let cu = min(CHUNK_UNITS, units - c0);
    squares += stage_x(c0, cu, xb, slot.live, tid);
    if (n < params.n && slot.live) {
      let row = n * params.row_words;
      for (var u = lane; u < cu; u += LANES) {
        decode_unit(row, c0 + u, &v);
        acc += unit_dot(&v, u * 9u);
      }
    }
  }
  gemv_finish(slot, acc, squares, tid);
}

// XROWS > 1: each chunk of CHUNK_UNITS units is staged in parts (gemv_rows_pow2)
// units for all rows; a lane takes the units of the chunk that are lane mod
// LANES in rising order whatever the parts (the host keeps a part at least
// LANES units), decodes each once and adds its dot with every row's x: each
// row's sums are exactly those of XROWS = 1.
@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let slot = gemv_slot(wid, nwg, tid);
  prepare_x_rows(wid, nwg, slot.m, tid);
  if (XROWS == 1u) {
    main_one(slot, tid);
    return;
  }
  let n = slot.n;
  let lane = slot.lane;
  let rows = gemv_rows(wid, nwg);
  let row_live = rows > 0u && n < params.n;
  let units = params.k / 32u;
  let part_units = CHUNK_UNITS / gemv_rows_pow2(rows);
  let row = n * params.row_words;

  var acc: array<f32, XROWS_MAX>;
  var squares: array<f32, XROWS_MAX>;
  var v: Unit;
  for (var c0 = 0u; c0 < units; c0 += CHUNK_UNITS) {
    let cu = min(CHUNK_UNITS, units - c0);
    var part = array<f32, XROWS_MAX>();  // this chunk's squares (summed apart, as stage_x's; reset each chunk)
    for (var s0 = 0u; s0 < cu; s0 += part_units) {
      let cnt = min(part_units, cu - s0);
      stage_rows(c0, s0, cnt, part_units, slot.m, rows, tid, &part);
      if (row_live) {
        for (var u = s0 + (lane + LANES - s0 % LANES) % LANES; u < s0 + cnt; u += LANES) {
          decode_unit(row, c0 + u, &v);
          for (var r = 0u; r < rows; r++) { acc[r] += unit_dot(&v, (r * part_units + u - s0) * 9u); }
        }
      }
    }
    for (var r = 0u; r < XROWS; r++) { squares[r] += part[r]; }
  }
  gemv_finish_rows(slot, rows, acc, squares, tid);
}
