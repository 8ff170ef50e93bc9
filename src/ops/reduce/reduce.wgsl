// Reductions of f32 tensors over any set of dims: one workgroup per output
// element, its invocations striding over the reduced elements (walked in
// row-major order of the reduced dims) then combining in workgroup memory.
// OP: 0 sum, 1 mean, 2 max, 3 min, 4 argmax, 5 argmin. The arg reductions
// keep the first index of the extreme value (PyTorch's choice) and write i32;
// the others write f32. Either way the output is stored as 32-bit words.
//! import common/prelude.wgsl

override WG: u32 = 64u;
override OP: u32 = 0u;

struct Params {
  outputs: u32, kept_rank: u32, red_rank: u32, red_count: u32,
  kept_dims: array<vec4<u32>, 2>,
  kept_strides: array<vec4<u32>, 2>,
  red_dims: array<vec4<u32>, 2>,
  red_strides: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<uniform> p: Params;

var<workgroup> vals: array<f32, WG>;
var<workgroup> idxs: array<u32, WG>;

fn at(v: array<vec4<u32>, 2>, i: u32) -> u32 { return v[i / 4u][i % 4u]; }

// Whether (v, i) should replace (best, best_i) in an arg/extreme reduction.
fn better(v: f32, i: u32, best: f32, best_i: u32) -> bool {
  let wins = select((v < best), (v > best), OP == 2u || OP == 4u);
  return wins || (v == best && i < best_i);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let o = flat_group(wid, nwg);
  if (o >= p.outputs) { return; }  // uniform across the workgroup
  var base = 0u;
  var rest = o;
  for (var d = i32(p.kept_rank) - 1; d >= 0; d--) {
    let n = at(p.kept_dims, u32(d));
    base += (rest % n) * at(p.kept_strides, u32(d));
    rest /= n;
  }
  let is_sum = OP <= 1u;
  var acc = 0.0;
  var acc_i = 0xffffffffu;
  for (var r = lid; r < p.red_count; r += WG) {
    var off = base;
    var k = r;
    for (var d = i32(p.red_rank) - 1; d >= 0; d--) {
      let n = at(p.red_dims, u32(d));
      off += (k % n) * at(p.red_strides, u32(d));
      k /= n;
    }
    let v = x[off];
    if (is_sum) {
      acc += v;
    } else if (acc_i == 0xffffffffu || better(v, r, acc, acc_i)) {
      acc = v;
      acc_i = r;
    }
  }
  vals[lid] = acc;
  idxs[lid] = acc_i;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s /= 2u) {
    if (lid < s) {
      let v = vals[lid + s];
      let i = idxs[lid + s];
      if (is_sum) {
        vals[lid] += v;
      } else if (i != 0xffffffffu && (idxs[lid] == 0xffffffffu || better(v, i, vals[lid], idxs[lid]))) {
        vals[lid] = v;
        idxs[lid] = i;
      }
    }
    workgroupBarrier();
  }
  if (lid == 0u) {
    switch OP {
      case 0u, 2u, 3u: { out[o] = bitcast<u32>(vals[0]); }
      case 1u: { out[o] = bitcast<u32>(vals[0] / f32(p.red_count)); }
      default: { out[o] = idxs[0]; }
    }
  }
}
