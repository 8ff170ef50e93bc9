// out = f(x) for f32 tensors, f chosen by the override constant OP:
// 0 relu, 1 sigmoid, 2 tanh, 3 exp, 4 neg, 5 rsqrt, 6 gelu (erf), 7 gelu (tanh),
// 8 clamp(lo, hi), 9 silu, 10 sqrt, 11 abs, 12 cos, 13 sin, 14 round (half to
// even, as PyTorch), 15 log10, 16 hardswish, 17 hardshrink(lo), 18
// leaky_relu(lo).
// main_vec4 handles four elements per invocation (buffers sized to a multiple
// of 4); main_scalar one. 2D-folded workgroups as in binary.wgsl.
//! import common/prelude.wgsl

override WG: u32 = 256;
override OP: u32 = 0;

struct Params {
  count: u32,
  lo: f32,
  hi: f32,
  pad: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@group(0) @binding(0) var<storage, read> x4: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> out4: array<vec4<f32>>;

// erf by Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7).
fn erf4(v: vec4<f32>) -> vec4<f32> {
  let s = sign(v);
  let z = abs(v);
  let t = 1.0 / (1.0 + 0.3275911 * z);
  let poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  return s * (1.0 - poly * exp(-z * z));
}

fn apply(v: vec4<f32>) -> vec4<f32> {
  switch OP {
    case 0u: { return max(v, vec4<f32>(0.0)); }
    case 1u: { return 1.0 / (1.0 + exp(-v)); }
    case 2u: { return tanh(v); }
    case 3u: { return exp(v); }
    case 4u: { return -v; }
    case 5u: { return inverseSqrt(v); }
    case 6u: { return 0.5 * v * (1.0 + erf4(v * 0.70710678118654752)); }
    case 7u: { return 0.5 * v * (1.0 + tanh(0.79788456080286536 * (v + 0.044715 * v * v * v))); }
    case 8u: { return clamp(v, vec4<f32>(params.lo), vec4<f32>(params.hi)); }
    case 9u: { return v / (1.0 + exp(-v)); }
    case 10u: { return sqrt(v); }
    case 11u: { return abs(v); }
    case 12u: { return cos(v); }
    case 13u: { return sin(v); }
    case 14u: { return round(v); }
    case 15u: { return log(v) * 0.43429448190325176; }
    case 16u: { return v * clamp(v + 3.0, vec4<f32>(0.0), vec4<f32>(6.0)) / 6.0; }
    case 17u: { return select(v, vec4<f32>(0.0), abs(v) <= vec4<f32>(params.lo)); }
    default: { return select(v * params.lo, v, v > vec4<f32>(0.0)); }
  }
}

fn linear_index(wid: vec3<u32>, lid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return flat_group(wid, nwg) * WG + lid.x;
}

@compute @workgroup_size(WG)
fn main_scalar(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = linear_index(wid, lid, nwg);
  if (i >= params.count) { return; }
  out[i] = apply(vec4<f32>(x[i])).x;
}

@compute @workgroup_size(WG)
fn main_vec4(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = linear_index(wid, lid, nwg);
  if (i >= params.count) { return; }
  out4[i] = apply(x4[i]);
}
