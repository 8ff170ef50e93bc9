// out = a OP b over contiguous f32 tensors of the same shape.
// Entry points: `main_scalar` (one element per invocation) and `main_vec4`
// (four; the count must be a multiple of 4). The op is the override constant OP.
// Workgroups may be folded into 2D (see gpu/workgroups.h): the linear
// workgroup index is wid.x + wid.y * num_workgroups.x.

override WG: u32 = 256;
// 0 add, 1 sub, 2 mul, 3 div
override OP: u32 = 0;

struct Params {
  count: u32,  // elements (scalar) or vec4s (vec4)
  alpha: f32,  // add/sub: out = a OP alpha * b
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

@group(0) @binding(0) var<storage, read> a4: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b4: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out4: array<vec4<f32>>;

fn apply(x: vec4<f32>, y: vec4<f32>) -> vec4<f32> {
  switch OP {
    case 0u: { return x + params.alpha * y; }
    case 1u: { return x - params.alpha * y; }
    case 2u: { return x * y; }
    default: { return x / y; }
  }
}

fn linear_index(wid: vec3<u32>, lid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return (wid.y * nwg.x + wid.x) * WG + lid.x;
}

@compute @workgroup_size(WG)
fn main_scalar(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
          @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = linear_index(wid, lid, nwg);
  if (i >= params.count) { return; }
  out[i] = apply(vec4<f32>(a[i]), vec4<f32>(b[i])).x;
}

@compute @workgroup_size(WG)
fn main_vec4(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = linear_index(wid, lid, nwg);
  if (i >= params.count) { return; }
  out4[i] = apply(a4[i], b4[i]);
}
