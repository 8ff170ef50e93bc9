// Writes 32-bit words: MODE 0 fills every word with `bits` (a value already
// encoded for the tensor's type; four bool bytes per word); MODE 1 writes
// arange: word i = start + i * step, as f32 or, with INT_OUT, as i32;
// MODE 2 writes et_vk.grid_priors' [H * W, 2] anchor centres: row y * W + x
// is ((x + start) * step, (y + start) * step), with W in `bits`.
//! import common/prelude.wgsl

override WG: u32 = 256;  // kFillWorkgroup (fill.h)
override MODE: u32 = 0u;
override INT_OUT: u32 = 0u;

struct Params {
  words: u32,
  bits: u32,
  start: f32,
  step: f32,
}

@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<uniform> p: Params;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_group(wid, nwg) * WG + lid;
  if (i >= p.words) { return; }
  if (MODE == 0u) {
    out[i] = p.bits;
  } else if (MODE == 2u) {
    let cell = i / 2u;
    let c = select(cell / p.bits, cell % p.bits, i % 2u == 0u);
    out[i] = bitcast<u32>((f32(c) + p.start) * p.step);
  } else {
    let v = p.start + f32(i) * p.step;
    out[i] = select(bitcast<u32>(v), bitcast<u32>(i32(v)), INT_OUT != 0u);
  }
}
