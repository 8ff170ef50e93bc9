// out[m, n] = sum_k x[m, k] * W[n, k] (+ bias[n]) with W in a ggml block
// format (dequant.wgsl, prepended). A workgroup owns ROWS weight rows and TM
// rows of x; LANES threads per weight row walk its 32-element units, decode
// each unit once and use it for all TM rows of x, then reduce across lanes.
// Workgroups: ceil(N / ROWS) * ceil(M / TM), possibly 2D-folded.

override LANES: u32 = 32;
override ROWS: u32 = 8;
override TM: u32 = 1;
override HAS_BIAS: bool = false;
const MAX_TM: u32 = 8u;  // TM <= MAX_TM (function-scope arrays need a constant size)

struct Params {
  m: u32,          // live rows of x
  n: u32,          // output features (weight rows)
  k: u32,          // input features, a multiple of 32
  row_words: u32,  // words per weight row
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<u32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<uniform> params: Params;

var<workgroup> partial: array<f32, LANES * ROWS * TM>;

@compute @workgroup_size(LANES * ROWS)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let group = wid.y * nwg.x + wid.x;
  let row_groups = (params.n + ROWS - 1u) / ROWS;
  let n = (group % row_groups) * ROWS + lid.x / LANES;
  let m0 = (group / row_groups) * TM;
  let lane = lid.x % LANES;
  let slot = lid.x / LANES;

  var acc: array<f32, MAX_TM>;
  for (var t = 0u; t < TM; t++) { acc[t] = 0.0; }
  if (n < params.n && m0 < params.m) {
    let units = params.k / 32u;
    var v: array<f32, 32>;
    for (var u = lane; u < units; u += LANES) {
      load_unit(n * params.row_words, u, &v);
      for (var t = 0u; t < TM; t++) {
        if (m0 + t < params.m) {
          let xb = (m0 + t) * params.k + u * 32u;
          var s = 0.0;
          for (var i = 0u; i < 32u; i += 4u) {
            s += dot(vec4<f32>(v[i], v[i + 1u], v[i + 2u], v[i + 3u]),
                     vec4<f32>(x[xb + i], x[xb + i + 1u], x[xb + i + 2u], x[xb + i + 3u]));
          }
          acc[t] += s;
        }
      }
    }
  }
  for (var t = 0u; t < TM; t++) { partial[(t * ROWS + slot) * LANES + lane] = acc[t]; }
  workgroupBarrier();
  for (var stride = LANES / 2u; stride > 0u; stride /= 2u) {
    if (lane < stride) {
      for (var t = 0u; t < TM; t++) {
        let i = (t * ROWS + slot) * LANES + lane;
        partial[i] += partial[i + stride];
      }
    }
    workgroupBarrier();
  }
  if (lane == 0u && n < params.n) {
    for (var t = 0u; t < TM; t++) {
      if (m0 + t < params.m) {
        var r = partial[(t * ROWS + slot) * LANES];
        if (HAS_BIAS) { r += bias[n]; }
        out[(m0 + t) * params.n + n] = r;
      }
    }
  }
}
