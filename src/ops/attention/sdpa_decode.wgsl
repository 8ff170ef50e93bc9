// Decode attention (S = 1) in one dispatch, one workgroup per KV head: the
// workgroup writes the new K/V row into the caches at `start`, then attends
// with the GROUP query heads that share the KV head, reading each cached K
// and V row once for all of them (grouped-query attention):
//   1. scores[h, c] = scale * q[h] . k_cache[c, kvh] for c in [first, start]
//      (first > 0 under a sliding window), positions split across threads;
//   2. per head, max and sum of exp over the workgroup (all heads at once);
//   3. out[h] = sum_c p[h, c] v_cache[c, kvh] / sum: thread t takes vec4
//      column t % dim4 of every (WG / dim4)-th position, and the slices meet
//      in workgroup memory.
// q, out: [H, D]; k_new, v_new: [Hkv, D]; caches: [MAX, Hkv, D]; scores:
// [H, row_stride] scratch. sdpa.cpp checks GROUP <= 8, GROUP * DIM4 <= 256 and
// WG % DIM4 == 0 before it picks this kernel.

const WG: u32 = 256u;
// Known when the pipeline is made, so that loops over heads and the head
// vector unroll and the per-head arrays stay in registers.
override GROUP: u32 = 4;  // query heads per KV head (<= 8)
override DIM4: u32 = 16;  // D / 4

struct Params {
  start: u32,       // position of the new token (cache rows before it: start)
  kv_heads: u32,
  pad1: u32,
  pad2: u32,
  row_stride: u32,  // scores row length (the cache's MAX)
  scale: f32,
  window: u32,      // 0: none
  pad0: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> q: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> k_new: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> v_new: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> k_cache: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> v_cache: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read_write> scores: array<f32>;
@group(0) @binding(7) var<storage, read_write> out: array<vec4<f32>>;

var<workgroup> qs: array<vec4<f32>, 256>;   // the group's query rows
var<workgroup> red: array<f32, 2048>;       // [8 heads][WG] reduction lanes
var<workgroup> part: array<vec4<f32>, 256>; // per-thread partial output column

// Reduces red[g * WG + i] over i into red[g * WG] for every g < group, by max
// or by sum; every invocation calls it.
fn reduce_heads(tid: u32, group: u32, take_max: bool) {
  for (var stride = WG / 2u; stride > 0u; stride /= 2u) {
    workgroupBarrier();
    if (tid < stride) {
      for (var g = 0u; g < group; g++) {
        let a = red[g * WG + tid];
        let b = red[g * WG + tid + stride];
        red[g * WG + tid] = select(a + b, max(a, b), take_max);
      }
    }
  }
  workgroupBarrier();
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
  let kvh = wid.x;
  let group = GROUP;
  let dim4 = DIM4;
  let start = params.start;
  var first = 0u;
  if (params.window > 0u && start + 1u > params.window) { first = start + 1u - params.window; }
  let head0 = kvh * group;  // query heads head0 .. head0 + group share this KV head

  // The new row into the caches; the group's queries into workgroup memory.
  let row = (start * params.kv_heads + kvh) * dim4;
  for (var i = tid; i < dim4; i += WG) {
    k_cache[row + i] = k_new[kvh * dim4 + i];
    v_cache[row + i] = v_new[kvh * dim4 + i];
  }
  for (var i = tid; i < group * dim4; i += WG) { qs[i] = q[head0 * dim4 + i]; }
  storageBarrier();
  workgroupBarrier();

  // 1. Scores, with each thread's running max per head.
  var mx: array<f32, 8>;
  for (var g = 0u; g < 8u; g++) { mx[g] = -3.402823e38; }
  for (var c = first + tid; c <= start; c += WG) {
    let kb = (c * params.kv_heads + kvh) * dim4;
    var dots: array<f32, 8>;
    for (var g = 0u; g < 8u; g++) { dots[g] = 0.0; }
    for (var i = 0u; i < dim4; i++) {
      let kv = k_cache[kb + i];
      for (var g = 0u; g < group; g++) { dots[g] += dot(qs[g * dim4 + i], kv); }
    }
    for (var g = 0u; g < group; g++) {
      let s = dots[g] * params.scale;
      scores[(head0 + g) * params.row_stride + c] = s;
      mx[g] = max(mx[g], s);
    }
  }
  // 2. Softmax statistics per head.
  for (var g = 0u; g < group; g++) { red[g * WG + tid] = mx[g]; }
  reduce_heads(tid, group, true);
  var sums: array<f32, 8>;
  for (var g = 0u; g < 8u; g++) { mx[g] = red[g * WG]; sums[g] = 0.0; }
  workgroupBarrier();
  for (var c = first + tid; c <= start; c += WG) {
    for (var g = 0u; g < group; g++) {
      let at = (head0 + g) * params.row_stride + c;
      let e = exp(scores[at] - mx[g]);
      scores[at] = e;
      sums[g] += e;
    }
  }
  for (var g = 0u; g < group; g++) { red[g * WG + tid] = sums[g]; }
  reduce_heads(tid, group, false);
  for (var g = 0u; g < group; g++) { sums[g] = red[g * WG]; }
  storageBarrier();  // the exps written above are read by other threads below

  // 3. Weighted sum of V rows.
  let col = tid % dim4;
  let slice = tid / dim4;
  let slices = WG / dim4;
  var acc: array<vec4<f32>, 8>;
  for (var g = 0u; g < 8u; g++) { acc[g] = vec4<f32>(0.0); }
  for (var c = first + slice; c <= start; c += slices) {
    let vv = v_cache[(c * params.kv_heads + kvh) * dim4 + col];
    for (var g = 0u; g < group; g++) { acc[g] += scores[(head0 + g) * params.row_stride + c] * vv; }
  }
  for (var g = 0u; g < group; g++) {
    workgroupBarrier();
    part[tid] = acc[g];
    workgroupBarrier();
    if (tid < dim4) {
      var total = vec4<f32>(0.0);
      for (var j = 0u; j < slices; j++) { total += part[j * dim4 + tid]; }
      out[(head0 + g) * dim4 + tid] = total / sums[g];
    }
  }
}
