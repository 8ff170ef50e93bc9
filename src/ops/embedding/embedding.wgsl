// out[t, :] = weight[indices[t], :] for an f32 table weight [vocab, D]
// (aten.embedding). Indices are i32 on the GPU (the device form of i64).
// One invocation per output value; 2D-folded. W_F16: the table holds f16
// values two to a word (an fp16 program's table kept f16), read through
// WGSL's core unpack2x16float.
//! import common/prelude.wgsl

override WG: u32 = 256;
override W_F16: bool = false;

struct Params {
  count: u32,  // tokens * D
  d: u32,
  vocab: u32,
  first_row: u32,  // the rows of weight bound here: a table above the binding
  rows: u32,       // limit comes in runs, one dispatch each
  pad0: u32,
  pad1: u32,
  pad2: u32,
}

@group(0) @binding(0) var<storage, read> weight: array<u32>;

fn weight_at(i: u32) -> f32 {
  if (W_F16) { return unpack2x16float(weight[i / 2u])[i % 2u]; }
  return bitcast<f32>(weight[i]);
}
@group(0) @binding(1) var<storage, read> indices: array<i32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_group(wid, nwg) * WG + lid.x;
  if (i >= params.count) { return; }
  let token = i / params.d;
  // Out-of-range ids read row 0 rather than outside the table; torch raises.
  var id = indices[token];
  if (id < 0 || id >= i32(params.vocab)) { id = 0; }
  let row = u32(id);
  if (row < params.first_row || row - params.first_row >= params.rows) { return; }
  out[i] = weight_at((row - params.first_row) * params.d + i % params.d);
}
