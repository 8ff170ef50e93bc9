// What the strided copies share (strided_copy.wgsl for 32-bit elements,
// strided_copy_bytes.wgsl for one-byte ones): the plan, the index walk and the
// entry point; each kernel declares `dst` and copy_element(source index, destination index).
// out[out_base + sum(c_d * out_strides[d])] = in[in_base + sum(c_d * in_strides[d])]
// for every coordinate c of the iteration shape `dims` (row-major). One plan
// serves every data-movement op: a flat copy (rank 1), slice and select
// (strided input, offset base), permute (permuted input strides), expand
// (zero input strides) and cat (one dispatch per input, offset output base).
// Workgroups may be 2D-folded (gpu/workgroups.h).
//! import common/prelude.wgsl

override WG: u32 = 256;

struct Params {
  count: u32,
  rank: u32,
  in_base: u32,
  out_base: u32,
  dims: array<vec4<u32>, 2>,         // up to 8 dims, outermost first
  in_strides: array<vec4<u32>, 2>,
  out_strides: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<uniform> params: Params;

fn at(v: array<vec4<u32>, 2>, i: u32) -> u32 {
  return v[i / 4u][i % 4u];
}

// The (source, destination) element indices of the i-th coordinate.
fn copy_indices(i: u32) -> vec2<u32> {
  var rest = i;
  var si = params.in_base;
  var di = params.out_base;
  for (var d = i32(params.rank) - 1; d >= 0; d--) {
    let n = at(params.dims, u32(d));
    let c = rest % n;
    rest = rest / n;
    si += c * at(params.in_strides, u32(d));
    di += c * at(params.out_strides, u32(d));
  }
  return vec2<u32>(si, di);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_group(wid, nwg) * WG + lid.x;
  if (i >= params.count) { return; }
  let at = copy_indices(i);
  copy_element(at.x, at.y);
}
