// x staged in workgroup memory as f32, for gemv.wgsl and gemv_planar.wgsl
// (after linear/gemv_skeleton.wgsl, whose WG it uses).
//
// The kernel declares `xs`, workgroup vec4s, 9 per 32-element unit (8 of x
// and one padding vec4, so that lanes reading different units at the same
// offset hit different banks; read straight from storage, lanes 128 bytes
// apart touch one cache line each).
//
// Units c0 .. c0 + cu of the x row starting at vec4 xb into xs from unit
// `at` (zeros when !live), as stage_value makes them;
// returns this invocation's share of those units' sum of squares. No barriers.
fn stage_units(c0: u32, cu: u32, at: u32, xb: u32, live: bool, tid: u32) -> f32 {
  var squares = 0.0;
  for (var i = tid; i < cu * 8u; i += WG) {
    var xv = vec4<f32>(0.0);
    if (live) { xv = x[xb + c0 * 8u + i]; }
    if (HAS_NORM && !XQ_DQ8) { squares += dot(xv, xv); }  // requantized x: the prologue has the norm scale
    xs[(at + i / 8u) * 9u + i % 8u] = stage_value(xv, c0 * 8u + i, 0u);
  }
  return squares;
}

// Stages units c0 .. c0 + cu (a chunk) into xs from unit 0; returns this
// invocation's share of their sum of squares. Call from uniform control
// flow: it has barriers before (the previous chunk is consumed) and after.
fn stage_x(c0: u32, cu: u32, xb: u32, live: bool, tid: u32) -> f32 {
  workgroupBarrier();
  let squares = stage_units(c0, cu, 0u, xb, live, tid);
  workgroupBarrier();
  return squares;
}

// All `units` of the row at once, each unit at its own place in xs, the
// squares added chunk by chunk (`chunk` units) as successive stage_x calls
// add them: the sum is bitwise that of a kernel staging chunk by chunk.
// Uniform control flow (barriers before and after).
fn stage_x_whole(units: u32, chunk: u32, xb: u32, live: bool, tid: u32) -> f32 {
  workgroupBarrier();
  var squares = 0.0;
  for (var c0 = 0u; c0 < units; c0 += chunk) { squares += stage_units(c0, min(chunk, units - c0), c0, xb, live, tid); }
  workgroupBarrier();
  return squares;
}

// Stages part of a chunk of x for several rows (XROWS > 1; XROWS = 1 too):
// units c0 + s0 .. c0 + s0 + cnt of x rows m .. m + rows, row r's at xs
// unit r * stride. Element i of the chunk at c0 goes to invocation i % WG,
// as stage_x of the whole chunk would give it, so with HAS_NORM each
// invocation adds row r's squares to part[r] in the order of XROWS = 1 (the
// caller sums the chunk's parts: bitwise the one-row sum). Call from
// uniform control flow (rows uniform): barriers before and after.
fn stage_rows(c0: u32, s0: u32, cnt: u32, stride: u32, m: u32, rows: u32, tid: u32,
              part: ptr<function, array<f32, XROWS_MAX>>) {
  workgroupBarrier();
  let first = s0 * 8u + (tid + WG - (s0 * 8u) % WG) % WG;
  for (var r = 0u; r < rows; r++) {
    let xb = (m + r) * (params.k / 4u) + c0 * 8u;
    for (var i = first; i < (s0 + cnt) * 8u; i += WG) {
      let xv = x[xb + i];
      if (HAS_NORM && !XQ_DQ8) { (*part)[r] += dot(xv, xv); }
      xs[(r * stride + i / 8u - s0) * 9u + i % 8u] = stage_value(xv, c0 * 8u + i, r);
    }
  }
  workgroupBarrier();
}
