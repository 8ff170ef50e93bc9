// The loss of et_vk.fused_ce: the per-row terms fused_ce.wgsl wrote, added
// in row order by one invocation (M is a batch of tokens: small).

struct Params {
  m: u32,
  v: u32,
  n_valid: f32,
  pad: u32,
}

@group(0) @binding(0) var<storage, read> terms: array<f32>;
@group(0) @binding(1) var<storage, read_write> loss: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(1)
fn main() {
  var acc = 0.0;
  for (var r = 0u; r < p.m; r++) { acc += terms[r]; }
  loss[0] = acc;
}
