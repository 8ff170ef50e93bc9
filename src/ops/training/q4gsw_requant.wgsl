// et_vk.q4gsw_requant: the straight-through re-quantization of f32 latent
// weights [N, K] into 4-bit codes with frozen scales [groups, N]:
//   q = scale != 0 ? round(latent / scale) : 0      (round half to even)
//   code = (clamp(q, -8, 7) + 8) & 15
// packed u8 [N, ceil(K / 2)], even k in the low nibble (linear_q4gsw's
// layout). The division is made correctly rounded, as torch's. One
// invocation per output word (four bytes, which may straddle rows).
//! import common/prelude.wgsl

override WG: u32 = 64;

struct Params {
  bytes: u32,          // N * row_bytes
  k: u32,
  row_bytes: u32,      // ceil(K / 2)
  group_size: u32,
  scales_stride: u32,  // scales row length (>= N)
  pad0: u32,
  pad1: u32,
  pad2: u32,
}

@group(0) @binding(0) var<storage, read> latent: array<f32>;
@group(0) @binding(1) var<storage, read> scales: array<f32>;
@group(0) @binding(2) var<storage, read_write> packed: array<u32>;
@group(0) @binding(3) var<uniform> p: Params;

fn code(n: u32, k: u32) -> u32 {
  let s = scales[(k / p.group_size) * p.scales_stride + n];
  var q = 0.0;
  if (s != 0.0) { q = round(div_rounded(latent[n * p.k + k], s)); }
  return u32(i32(clamp(q, -8.0, 7.0)) + 8) & 15u;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let word = flat_group(wid, nwg) * WG + lid.x;
  if (word * 4u >= p.bytes) { return; }
  var out = 0u;
  for (var j = 0u; j < 4u; j++) {
    let b = word * 4u + j;
    if (b >= p.bytes) { break; }
    let n = b / p.row_bytes;
    let k = (b % p.row_bytes) * 2u;
    var byte = code(n, k);
    if (k + 1u < p.k) { byte |= code(n, k + 1u) << 4u; }
    out |= byte << (8u * j);
  }
  packed[word] = out;
}
