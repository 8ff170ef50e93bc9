// out[t, d] = f32(code) * scale[row, d / group_size] for row = indices[t]
// (quantized_decomposed.embedding_4bit.dtype without zero points). Each weight byte
// holds two codes, d even in the high nibble (the export flow's packing, not
// et_vk.embedding_q4gsw's), stored +8: code = nibble - 8. One invocation per
// output element; 2D-folded.
//! import common/prelude.wgsl

override WG: u32 = 256;

struct Params {
  count: u32,           // tokens * D
  d: u32,               // D
  group_size: u32,
  groups_per_row: u32,  // scale / zero-point row stride
  vocab: u32,
  pad0: u32,
  pad1: u32,
  pad2: u32,
}

@group(0) @binding(0) var<storage, read> weight: array<u32>;  // u8 [vocab, D / 2], four per word
@group(0) @binding(1) var<storage, read> scales: array<f32>;
@group(0) @binding(2) var<storage, read> indices: array<i32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_group(wid, nwg) * WG + lid.x;
  if (i >= p.count) { return; }
  let token = i / p.d;
  let d = i % p.d;
  // Out-of-range ids read row 0 rather than outside the table (host ids are
  // refused before the dispatch).
  let row = u32(clamp(indices[token], 0, i32(p.vocab) - 1));
  let byte_index = row * (p.d / 2u) + d / 2u;
  let byte = (weight[byte_index / 4u] >> (8u * (byte_index % 4u))) & 255u;
  let nibble = select(byte & 15u, byte >> 4u, d % 2u == 0u);
  out[i] = (f32(nibble) - 8.0) * scales[row * p.groups_per_row + d / p.group_size];
}
