// The decode GEMV of the quantized linear family: out[m, n] = sum_k x[m, k] *
// W[n, k] for one row of x per workgroup, W in any ggml format that
// dequant.wgsl decodes (F32 and F16 included). Sources before this one:
// common/prelude.wgsl, a common/reduce_*.wgsl, quant/dequant.wgsl,
// quant/linear_io.wgsl (parameters, bindings, the optional RMSNorm prologue,
// bias/residual epilogue and split outputs).
//
// A workgroup of 256 owns ROWS weight rows; LANES threads per row take its
// 32-element units lane-strided (neighbouring lanes read neighbouring
// blocks). x is staged 2048 elements at a time in workgroup memory, one
// padding vec4 per unit so that lanes reading different units at the same
// offset hit different banks (read straight from storage, lanes 128 bytes
// apart touched one cache line each). Per-lane sums meet through lanes_sum
// (subgroup shuffles where the device has them).

override LANES: u32 = 32;  // threads per weight row, a power of two
override ROWS: u32 = 8;    // LANES * ROWS = 256

const CHUNK_UNITS: u32 = 64u;  // x staged per pass: 64 units of 32 elements

var<workgroup> xs: array<vec4<f32>, 576>;  // CHUNK_UNITS * 9

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let group = flat_group(wid, nwg);
  let row_groups = div_up(params.n, ROWS);
  let m = group / row_groups;  // the same for the whole workgroup
  let n = (group % row_groups) * ROWS + tid / LANES;
  let lane = tid % LANES;
  let live = m < params.m;
  let units = params.k / 32u;
  let xb = m * (params.k / 4u);

  var acc = 0.0;
  var squares = 0.0;
  var v: Unit;
  for (var c0 = 0u; c0 < units; c0 += CHUNK_UNITS) {
    let cu = min(CHUNK_UNITS, units - c0);
    workgroupBarrier();  // the previous chunk is consumed
    for (var i = tid; i < cu * 8u; i += 256u) {
      var xv = vec4<f32>(0.0);
      if (live) { xv = x[xb + c0 * 8u + i]; }
      if (HAS_NORM) {
        squares += dot(xv, xv);
        xv *= norm_w[c0 * 8u + i];
      }
      xs[(i / 8u) * 9u + i % 8u] = xv;
    }
    workgroupBarrier();
    if (n < params.n && live) {
      let row = n * params.row_words;
      for (var u = lane; u < cu; u += LANES) {
        decode_unit(row, c0 + u, &v);
        let b = u * 9u;
        acc += dot(v[0], xs[b]) + dot(v[1], xs[b + 1u]) + dot(v[2], xs[b + 2u]) + dot(v[3], xs[b + 3u]) +
               dot(v[4], xs[b + 4u]) + dot(v[5], xs[b + 5u]) + dot(v[6], xs[b + 6u]) + dot(v[7], xs[b + 7u]);
      }
    }
  }
  let total = lanes_sum(acc, tid, LANES);
  var scale = 1.0;
  if (HAS_NORM) { scale = inverseSqrt(workgroup_sum(squares, tid, 256u) / f32(params.k) + params.eps); }
  if (lane == 0u && n < params.n && live) { store_result(m, n, total * scale); }
}
