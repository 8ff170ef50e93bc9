// Decode attention (S = 1), split over the cached positions (flash decoding).
// Imports (below): common/prelude.wgsl, the device's common/reduce_*.wgsl and
// attention/cache_f32.wgsl or cache_f16.wgsl (the caches' bindings 2 and 3,
// load_k, load_v, store_kv).
//
// `main`: workgroup (kvh, split) attends positions [p0, p1) of its split
// with the GROUP query heads that share KV head kvh, so each cached K and V
// row is read once for all of them (grouped-query attention). Its WG
// invocations are WG / DIM4 teams of DIM4 lanes; a team takes one position
// at a time, lane j holding vec4 column j of the K and V rows. The lanes'
// partial dot products meet through lanes_sum4, and each lane keeps the
// online-softmax state (running max, sum, its column of the weighted V sum)
// for every head of the group in registers: no score buffer, and no global
// memory written then read back. The teams' states meet in workgroup memory.
// Every step (a new position, a team, a split) is one merge_states.
// With one split the result goes straight to `out`; with several, each
// split's unnormalized output and (max, sum) go to `parts`, and `combine`
// merges them (a second dispatch).
//
// Why splits: at long contexts one workgroup per KV head leaves most of the
// GPU idle and walks the positions in one long chain of dependent loads.
//
// The new K/V row is written into the caches by split 0 and read from
// k_new/v_new by the split holding `start`, so no workgroup reads what
// another writes in the same dispatch. (With an f16 cache the new row is
// attended unrounded; later steps read it rounded.)
// q, out: [R, H, D]; k_new, v_new: [R, Hkv, D] (R = 1 for `main`, the
// batch's rows for `batch`); caches: [MAX, n, D], KV heads
// [kv_head0, kv_head0 + n) (all Hkv, or one part of caches stored in parts
// by heads: one dispatch per part); parts: [R, splits, H, DIM4 + 1] vec4s.
// Caches may hold several sequences (slots of slot_len rows each): `main`
// is told its rows by the host (first, start), `batch` reads each row's
// position and slot from batch_rows.
// sdpa.cpp checks decode_fits.
//! import common/prelude.wgsl
//! import common/reduce_{reduce}.wgsl
//! import attention/cache_{cache}.wgsl

// Set by decode_attention.cpp (kDecodeWorkgroup); at most MAX_WG, the
// invocations common/reduce_*.wgsl's scratch holds. The team arrays below are
// sized by MAX_WG, not WG: naga (wgpu-native) fails to make the pipeline
// when they are override-sized ("depends on [..] which has not been processed yet").
override WG: u32 = 256;
const MAX_WG: u32 = 256u;
// Known when the pipeline is made, so loops over heads unroll and the
// per-head state stays in registers.
override GROUP: u32 = 4;  // query heads per KV head (<= 8)
override DIM4: u32 = 16;  // D / 4, a power of two (<= 64)

struct Params {
  start: u32,        // cache row of the new token (main)
  cache_heads: u32,  // n: KV heads in the bound caches (and this dispatch)
  first: u32,        // first cache row attended (main; > its slot's first row under a sliding window)
  split_len: u32,    // positions per split (the last may have fewer)
  splits: u32,
  scale: f32,
  q_heads: u32,
  kv_head0: u32,     // the first of them
  rows: u32,         // query rows (batch; 1 for main)
  slot_len: u32,     // cache rows per slot (batch)
  window: u32,       // batch: 0, or a sliding window's positions
  slots: u32,        // batch: slots in the caches (a row naming another is skipped)
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> q: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> k_new: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> v_new: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read_write> parts: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> out: array<vec4<f32>>;
// batch: (position, slot) of each query row; a negative position skips the row.
@group(0) @binding(8) var<storage, read> batch_rows: array<i32>;

var<workgroup> team_acc: array<vec4<f32>, MAX_WG>;  // one head's weighted V sums, per invocation
var<workgroup> team_stat: array<vec2<f32>, MAX_WG>;  // one head's (max, sum), per team
var<workgroup> row_info: vec2<i32>;  // batch: this workgroup's (position, slot)

const LOWEST: f32 = -3.402823e38;

// Online-softmax state of one head over some positions (one vec4 column):
// the largest score, the sum of exp(score - top), and the weighted V sum
// (unnormalized) on the same scale.
struct SoftmaxState {
  top: f32,
  sum: f32,
  o: vec4<f32>,
}

const EMPTY = SoftmaxState(LOWEST, 0.0, vec4<f32>(0.0));

// The state of the union of two sets of positions.
fn merge_states(a: SoftmaxState, b: SoftmaxState) -> SoftmaxState {
  let top = max(a.top, b.top);
  let wa = exp(a.top - top);
  let wb = exp(b.top - top);
  return SoftmaxState(top, a.sum * wa + b.sum * wb, a.o * wa + b.o * wb);
}

// Where one workgroup works: query row `row` (its q, k_new, v_new and out
// rows), the bound caches' head `part_head`, cache rows [first, start] of
// which split `split` takes its share; the new token's row is `start`.
struct Task {
  row: u32,
  part_head: u32,
  split: u32,
  start: u32,
  first: u32,
}

// Writes a split's result: the output itself with one split, else its partial.
fn put_result(t: Task, h: u32, tid: u32, all: SoftmaxState) {
  if (params.splits == 1u) {
    out[(t.row * params.q_heads + h) * DIM4 + tid] = all.o / all.sum;
  } else {
    let base = ((t.row * params.splits + t.split) * params.q_heads + h) * (DIM4 + 1u);
    parts[base + tid] = all.o;
    if (tid == 0u) { parts[base + DIM4] = vec4<f32>(all.top, all.sum, 0.0, 0.0); }
  }
}

fn attend(t: Task, tid: u32) {
  let dim4 = DIM4;
  let teams = WG / dim4;
  let team = tid / dim4;
  let j = tid % dim4;
  let kvh = params.kv_head0 + t.part_head;
  let head0 = kvh * GROUP;
  let new_at = (t.row * (params.q_heads / GROUP) + kvh) * dim4 + j;

  if (t.split == 0u && tid < dim4) {
    let row = (t.start * params.cache_heads + t.part_head) * dim4 + tid;
    store_kv(row, k_new[new_at], v_new[new_at]);
  }

  var qv: array<vec4<f32>, 8>;
  var st: array<SoftmaxState, 8>;
  for (var g = 0u; g < GROUP; g++) {
    qv[g] = q[(t.row * params.q_heads + head0 + g) * dim4 + j] * params.scale;
    st[g] = EMPTY;
  }

  let p0 = t.first + t.split * params.split_len;
  let p1 = min(p0 + params.split_len, t.start + 1u);
  let steps = div_up(params.split_len, teams);  // the same in every invocation: lanes_sum4 needs it
  for (var step = 0u; step < steps; step++) {
    let c = p0 + step * teams + team;
    let valid = c < p1;
    var kv = vec4<f32>(0.0);
    var vv = vec4<f32>(0.0);
    if (valid) {
      if (c == t.start) {
        kv = k_new[new_at];
        vv = v_new[new_at];
      } else {
        let at = (c * params.cache_heads + t.part_head) * dim4 + j;
        kv = load_k(at);
        vv = load_v(at);
      }
    }
    var lo = vec4<f32>(0.0);  // heads 0..3 of the group
    var hi = vec4<f32>(0.0);  // heads 4..7
    for (var g = 0u; g < GROUP; g++) {
      let d = dot(qv[g], kv);
      if (g < 4u) { lo[g] = d; } else { hi[g - 4u] = d; }
    }
    lo = lanes_sum4(lo, tid, dim4);
    if (GROUP > 4u) { hi = lanes_sum4(hi, tid, dim4); }
    if (valid) {
      for (var g = 0u; g < GROUP; g++) {
        st[g] = merge_states(st[g], SoftmaxState(select(hi[g % 4u], lo[g % 4u], g < 4u), 1.0, vv));
      }
    }
  }

  // The teams' states meet, one head at a time.
  for (var g = 0u; g < GROUP; g++) {
    workgroupBarrier();
    team_acc[tid] = st[g].o;
    if (j == 0u) { team_stat[team] = vec2<f32>(st[g].top, st[g].sum); }
    workgroupBarrier();
    if (tid < dim4) {
      var all = EMPTY;
      for (var m = 0u; m < teams; m++) {
        all = merge_states(all, SoftmaxState(team_stat[m].x, team_stat[m].y, team_acc[m * dim4 + tid]));
      }
      put_result(t, head0 + g, tid, all);
    }
  }
}

// One query row: workgroup (part head, split).
@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let wg = flat_group(wid, nwg);
  attend(Task(0u, wg % params.cache_heads, wg / params.cache_heads, params.start, params.first), tid);
}

// Query rows of different sequences (batched decode): workgroup (part head,
// split, row); row r attends its slot's rows up to its own position.
// Splits past a short row's positions attend nothing (an empty state the
// combine weighs 0); a skipped row's output is zeros.
@compute @workgroup_size(WG)
fn batch(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32,
         @builtin(num_workgroups) nwg: vec3<u32>) {
  let wg = flat_group(wid, nwg);
  let part_head = wg % params.cache_heads;
  let split = (wg / params.cache_heads) % params.splits;
  let row = wg / (params.cache_heads * params.splits);
  if (row >= params.rows) { return; }
  // Read once and shared, so the branches below stay uniform (attend has barriers).
  if (tid == 0u) { row_info = vec2<i32>(batch_rows[2u * row], batch_rows[2u * row + 1u]); }
  let info = workgroupUniformLoad(&row_info);
  let pos = info.x;
  let base = u32(info.y) * params.slot_len;
  // Rows come from the host, which checks them; out-of-range ones are skipped, never indexed.
  if (pos < 0 || u32(pos) >= params.slot_len || info.y < 0 || u32(info.y) >= params.slots) {  // a skipped row: zeros (with stats the combine reads as "no weight lost")
    if (tid < DIM4) {
      let kvh = params.kv_head0 + part_head;
      for (var g = 0u; g < GROUP; g++) {
        put_result(Task(row, part_head, split, 0u, 0u), kvh * GROUP + g, tid, SoftmaxState(0.0, 1.0, vec4<f32>(0.0)));
      }
    }
    return;
  }
  let p = u32(pos);
  var first = base;
  if (params.window > 0u && p + 1u > params.window) { first = base + p + 1u - params.window; }
  attend(Task(row, part_head, split, base + p, first), tid);
}

@group(0) @binding(1) var<storage, read> split_parts: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> merged: array<vec4<f32>>;

// Merges the splits' outputs: one invocation per (query row, head, vec4 column).
@compute @workgroup_size(WG)
fn combine(@builtin(global_invocation_id) gid: vec3<u32>) {
  let dim4 = DIM4;
  let i = gid.x;
  if (i >= params.rows * params.q_heads * dim4) { return; }
  let row = i / (params.q_heads * dim4);
  let h = (i / dim4) % params.q_heads;
  let j = i % dim4;
  let stride = params.q_heads * (dim4 + 1u);
  var all = EMPTY;
  for (var s = 0u; s < params.splits; s++) {
    let at = (row * params.splits + s) * stride + h * (dim4 + 1u);
    let stat = split_parts[at + dim4];
    all = merge_states(all, SoftmaxState(stat.x, stat.y, split_parts[at + j]));
  }
  merged[i] = all.o / all.sum;
}
