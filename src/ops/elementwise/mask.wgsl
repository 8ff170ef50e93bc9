// Boolean masks, the ops a stock nn.TransformerEncoder's attention mask uses.
// Bool tensors hold one byte per element, so an invocation that writes bools
// writes one whole u32 word (4 elements): no two invocations share a word.
//   main_eq_scalar    out[bool] = (x[f32] == scalar), compared bit for bit
//                     (+0 equals -0; a NaN scalar matches nothing), so that
//                     -inf compares right whatever the float mode
//   main_logical_not  out[bool] = !x[bool]
//   main_where        out[f32] = cond[bool] ? a : b, numpy broadcasting
//   main_fill         out[f32] = value (full_like)
// 2D-folded workgroups as in binary.wgsl.

override WG: u32 = 256;

struct Params {
  count: u32,          // elements (where, fill) or bool words (eq, not) to write
  numel: u32,          // elements of the output
  rank: u32,
  value: u32,          // the scalar's f32 bits; 0xffffffff with NaN: nothing matches
  out_dims: array<vec4<u32>, 2>,
  c_strides: array<vec4<u32>, 2>,
  a_strides: array<vec4<u32>, 2>,
  b_strides: array<vec4<u32>, 2>,
}

// Each entry point binds only what it reads and writes, in binding order (the
// variables below alias binding slots across entry points, never within one):
//   eq, not:  0 x, 1 out, 2 params        where: 0 x (cond), 1 a, 2 b, 3 out_f, 4 params
//   fill:     0 fill_out, 1 params
@group(0) @binding(0) var<storage, read> x: array<u32>;     // f32 bits (eq) or bool words (not, where)
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<uniform> params: Params;

@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> out_f: array<f32>;
@group(0) @binding(4) var<uniform> where_params: Params;

@group(0) @binding(0) var<storage, read_write> fill_out: array<f32>;
@group(0) @binding(1) var<uniform> fill_params: Params;

fn linear_index(wid: vec3<u32>, lid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return (wid.y * nwg.x + wid.x) * WG + lid.x;
}

fn at(v: array<vec4<u32>, 2>, i: u32) -> u32 {
  return v[i / 4u][i % 4u];
}

fn bool_at(i: u32) -> bool {
  return ((x[i / 4u] >> (8u * (i % 4u))) & 0xffu) != 0u;
}

@compute @workgroup_size(WG)
fn main_eq_scalar(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32>) {
  let w = linear_index(wid, lid, nwg);
  if (w >= params.count) { return; }
  var word = 0u;
  for (var k = 0u; k < 4u; k++) {
    let i = w * 4u + k;
    if (i < params.numel) {
      let bits = x[i];
      let same = bits == params.value || ((bits | params.value) & 0x7fffffffu) == 0u;
      if (same && params.value != 0xffffffffu) { word |= 1u << (8u * k); }
    }
  }
  out[w] = word;
}

@compute @workgroup_size(WG)
fn main_logical_not(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
                    @builtin(num_workgroups) nwg: vec3<u32>) {
  let w = linear_index(wid, lid, nwg);
  if (w >= params.count) { return; }
  var word = 0u;
  for (var k = 0u; k < 4u; k++) {
    if (w * 4u + k < params.numel && !bool_at(w * 4u + k)) { word |= 1u << (8u * k); }
  }
  out[w] = word;
}

@compute @workgroup_size(WG)
fn main_where(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = linear_index(wid, lid, nwg);
  if (i >= where_params.count) { return; }
  var rest = i;
  var ic = 0u;
  var ia = 0u;
  var ib = 0u;
  for (var d = i32(where_params.rank) - 1; d >= 0; d--) {
    let n = at(where_params.out_dims, u32(d));
    let c = rest % n;
    rest = rest / n;
    ic += c * at(where_params.c_strides, u32(d));
    ia += c * at(where_params.a_strides, u32(d));
    ib += c * at(where_params.b_strides, u32(d));
  }
  out_f[i] = select(b[ib], a[ia], bool_at(ic));
}

@compute @workgroup_size(WG)
fn main_fill(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = linear_index(wid, lid, nwg);
  if (i >= fill_params.count) { return; }
  fill_out[i] = bitcast<f32>(fill_params.value);
}
