// out = a OP b for f32 tensors. The op is the override constant OP
// (0 add, 1 sub, 2 mul, 3 div, 4 silu(a) * b; add and sub scale b by alpha).
// Entry points:
//   main_scalar    a, b and out share one shape: one element per invocation
//   main_vec4      the same, four elements per invocation (buffers sized to a multiple of 4)
//   main_broadcast numpy broadcasting through per-dim strides (0 on broadcast dims)
// Workgroups may be folded into 2D (gpu/workgroups.h): the flat index is flat_group().
//! import common/prelude.wgsl

override WG: u32 = 256;
override OP: u32 = 0;

struct Params {
  count: u32,        // elements (scalar, broadcast) or vec4s (vec4) to write
  alpha: f32,
  rank: u32,
  pad: u32,
  out_dims: array<vec4<u32>, 2>,   // up to 8 dims, outermost first
  a_strides: array<vec4<u32>, 2>,
  b_strides: array<vec4<u32>, 2>,
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
    case 3u: { return x / y; }
    default: { return x / (1.0 + exp(-x)) * y; }  // SwiGLU's gate: one pass instead of silu then mul
  }
}

fn linear_index(wid: vec3<u32>, lid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return flat_group(wid, nwg) * WG + lid.x;
}

fn at(v: array<vec4<u32>, 2>, i: u32) -> u32 {
  return v[i / 4u][i % 4u];
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

@compute @workgroup_size(WG)
fn main_broadcast(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = linear_index(wid, lid, nwg);
  if (i >= params.count) { return; }
  var rest = i;
  var ia = 0u;
  var ib = 0u;
  for (var d = i32(params.rank) - 1; d >= 0; d--) {
    let n = at(params.out_dims, u32(d));
    let c = rest % n;
    rest = rest / n;
    ia += c * at(params.a_strides, u32(d));
    ib += c * at(params.b_strides, u32(d));
  }
  out[i] = apply(vec4<f32>(a[ia]), vec4<f32>(b[ib])).x;
}
