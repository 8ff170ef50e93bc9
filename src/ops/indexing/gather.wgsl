// Index-driven copies of 32-bit elements, one output element per invocation:
// out[c] = x[c with c[DIM] replaced by idx], where idx (i32; negative counts
// from the end) is index[c[DIM]] for index_select (MODE 0) or index[c] for
// gather (MODE 1, index shaped like out).
//! import common/prelude.wgsl

override WG: u32 = 256;  // the C++'s kWorkgroup passes it
override MODE: u32 = 0u;

struct Params {
  count: u32, rank: u32, dim: u32, dim_size: u32,
  out_dims: array<vec4<u32>, 2>,
  x_strides: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read> index: array<i32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<uniform> p: Params;

fn at(v: array<vec4<u32>, 2>, i: u32) -> u32 { return v[i / 4u][i % 4u]; }

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_group(wid, nwg) * WG + lid;
  if (i >= p.count) { return; }
  var rest = i;
  var src = 0u;
  var along = 0u;
  for (var d = i32(p.rank) - 1; d >= 0; d--) {
    let n = at(p.out_dims, u32(d));
    let c = rest % n;
    rest /= n;
    if (u32(d) == p.dim) { along = c; } else { src += c * at(p.x_strides, u32(d)); }
  }
  var idx = index[select(along, i, MODE == 1u)];
  if (idx < 0) { idx += i32(p.dim_size); }
  // Out-of-range indices read an edge row, never outside x (shaders run
  // without wgpu's bounds checks: gpu/pipeline_cache.cpp).
  idx = clamp(idx, 0, i32(p.dim_size) - 1);
  out[i] = x[src + u32(idx) * at(p.x_strides, p.dim)];
}
