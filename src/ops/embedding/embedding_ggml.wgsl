// out[t, :] = row ids[t] of a ggml-format table (dequant.wgsl, imported).
// One workgroup per token (2D-folded); each thread decodes whole units.
// A table above the binding limit is bound in runs of rows, one dispatch
// each: a dispatch writes only the tokens whose row it holds.
//! import quant/dequant.wgsl
//! import common/prelude.wgsl

override WG: u32 = 64;

struct Params {
  tokens: u32,
  dim: u32,        // elements per row, a multiple of 32
  row_words: u32,
  vocab: u32,      // rows of the whole table
  first_row: u32,  // of the rows bound at w
  rows: u32,
  pad0: u32,
  pad1: u32,
}

@group(0) @binding(0) var<storage, read> ids: array<i32>;
@group(0) @binding(1) var<storage, read> w: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> params: Params;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let t = flat_group(wid, nwg);
  if (t >= params.tokens) { return; }
  // Out-of-range ids read row 0 rather than out of bounds; the host checks ids.
  let id = select(0u, u32(ids[t]), ids[t] >= 0 && u32(ids[t]) < params.vocab);
  if (id < params.first_row || id - params.first_row >= params.rows) { return; }
  let row = id - params.first_row;
  var v: Unit;
  for (var u = lid.x; u < params.dim / 32u; u += WG) {
    decode_unit(row * params.row_words, u, &v);
    for (var k = 0u; k < 8u; k++) { out[(t * params.dim) / 4u + u * 8u + k] = v[k]; }
  }
}
