// out[t, :] = dequantized row indices[t] of a 4-bit group-symmetric table
// (et_vk.embedding_q4gsw): weight u8 [vocab, D/2] read as u32 words (word j of
// a row holds d = 8j..8j+7), value (nibble - 8) * scales[row, d / gs].
// LOW_FIRST (is_linear_weight): even d in each byte's low nibble; otherwise
// in the high nibble. One invocation per word (8 outputs); 2D-folded.
//! import common/prelude.wgsl

override WG: u32 = 256;
override LOW_FIRST: bool = true;

struct Params {
  words: u32,           // tokens * D / 8
  row_words: u32,       // D / 8
  group_size: u32,
  groups_per_row: u32,  // scales row stride
  vocab: u32,
  first_row: u32,  // rows of the weight bound here (a table above the
  rows: u32,       // binding limit comes in runs, one dispatch each)
  pad0: u32,
}

@group(0) @binding(0) var<storage, read> weight: array<u32>;
@group(0) @binding(1) var<storage, read> scales: array<f32>;
@group(0) @binding(2) var<storage, read> indices: array<i32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<uniform> params: Params;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let t = flat_group(wid, nwg) * WG + lid.x;
  if (t >= params.words) { return; }
  let token = t / params.row_words;
  let j = t % params.row_words;
  // Out-of-range ids read row 0 rather than outside the table.
  let id = u32(clamp(indices[token], 0, i32(params.vocab) - 1));
  if (id < params.first_row || id - params.first_row >= params.rows) { return; }
  let w = weight[(id - params.first_row) * params.row_words + j];
  let scale = scales[id * params.groups_per_row + j * 8u / params.group_size];
  let base = token * params.row_words * 8u + j * 8u;
  for (var b = 0u; b < 4u; b++) {
    let byte = (w >> (8u * b)) & 255u;
    let lo = f32(byte & 15u) - 8.0;
    let hi = f32(byte >> 4u) - 8.0;
    out[base + 2u * b] = select(hi, lo, LOW_FIRST) * scale;
    out[base + 2u * b + 1u] = select(lo, hi, LOW_FIRST) * scale;
  }
}
