// Picks the next token on the GPU from one row of logits, drawing from exactly
// the distribution llm::Sampler (the CPU reference) defines:
//   temperature 0: argmax, lowest index on ties;
//   otherwise: candidates = the top_k logits in the order (logit desc, index
//   asc); probabilities p = softmax((l - max) / T) over those candidates;
//   min-p keeps p >= min_p * p_max; top-p keeps the shortest prefix of that
//   order whose mass reaches top_p; one draw from what is kept.
// Nothing is sorted over the whole vocabulary: top-k is a radix select on the
// logits' ordered bits (4 passes of 8 bits), min-p a threshold on the logit;
// the survivors (at most CAP) are sorted in workgroup memory, where top-p's
// prefix sums and an inverse-CDF draw happen. When more than CAP survive (no
// top-k, or a large one, and a weak min-p), top-p's cut is a binary search
// over the ordered bits (32 mass passes) and the draw is Gumbel-max over the
// vocabulary. Random numbers come from a counter-based hash of (seed, step,
// token), so the same seed gives the same tokens however steps are submitted.
//
// One sampler holds several rows (a batch's sequences), each with its own
// parameters, draw counter, repetition ring and mask, and one step draws for
// any set of them in the same four dispatches: workgroup row y serves sampler
// row state[y] (the host lists the rows that draw at the head of `state`).
//
// A step makes one draw per listed row from its row of logits, appends the
// token to its repetition ring and advances its draw counter. Tests ask for
// many draws from one sampler row (its draws-per-step > 1): workgroup w
// reads row w of the logits, the distribution is cut once, then each thread
// draws with its own counters, so 20,000 draws take one dispatch.
//
// `penalize` (a workgroup per listed row, before `sample`) adds the row's
// logit biases, then applies its repetition, presence and frequency
// penalties in place to the logits of the distinct tokens in its ring.
//
// `apply_mask` (after `penalize`; rows with a token mask) sets the logit of
// every token whose bit in the row's mask is clear to -inf, in place:
// constrained decoding's allowed tokens, found on the host while the
// forward pass ran.
//
// `partial_max` (before a step's `sample`) finds, for each listed row, the
// largest logit and its lowest index in each span of SPAN logits, one workgroup per span, so
// that `sample`'s first pass reads a few hundred partials instead of the
// whole vocabulary: one workgroup walking 128K logits alone is latency-bound.
//! import common/prelude.wgsl
//! import sampling/sample_cut.wgsl

const WG: u32 = 256u;
const CAP: u32 = 1024u;  // survivors sorted in workgroup memory
const NONE: u32 = 0xffffffffu;
const SPAN: u32 = WG * 4u;  // logits per partial_max workgroup

struct Params {
  vocab: u32,        // tokens that may be drawn: [0, vocab)
  top_k: u32,        // 0: off (also when >= vocab)
  window: u32,       // repetition ring slots; 0: no ring
  seed_lo: u32,
  seed_hi: u32,
  temperature: f32,  // 0: greedy
  top_p: f32,        // 1: off
  log_min_p: f32,    // ln(min_p); -3.4e38 when off
  penalty: f32,      // repetition penalty; 1: off
  partials: u32,     // spans of partial_max (ceil(vocab / SPAN))
  presence: f32,     // subtracted once per distinct token in the window; 0: off
  frequency: f32,    // subtracted once per occurrence in the window; 0: off
  bias_count: u32,   // (token, bias bits) pairs in ring after the window's slots
  row: u32,          // a step's row of logits
  row_stride: u32,   // logits per row (>= vocab)
  out_index: u32,    // a step's element of out
  state_at: u32,     // where this sampler row's state, ring, mask and partials start
  ring_at: u32,
  mask_at: u32,      // in words; the mask applies only when `masked` is 1
  partials_at: u32,
  masked: u32,
  pad0: u32,
  pad1: u32,
  pad2: u32,
}

@group(0) @binding(0) var<storage, read_write> logits: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<i32>;
// First the sampler rows a dispatch serves (workgroup row y: row state[y]),
// then per sampler row from params.state_at: draws made so far (the counter
// of the next one), tokens ever appended to its ring (its valid slots are the
// last `window` of them), and draws per step.
@group(0) @binding(2) var<storage, read_write> state: array<u32>;
@group(0) @binding(3) var<storage, read_write> ring: array<i32>;
@group(0) @binding(4) var<storage, read> rows: array<Params>;
// partial_max's result per span: (the largest logit's bits, its lowest index).
@group(0) @binding(5) var<storage, read_write> partials: array<vec2<u32>>;
// Bit i % 32 of word i / 32: token i may be drawn (apply_mask).
@group(0) @binding(6) var<storage, read> mask: array<u32>;

var<workgroup> red_f: array<f32, WG>;
var<workgroup> red_u: array<u32, WG>;
var<workgroup> hist: array<atomic<u32>, WG>;
var<workgroup> list_l: array<f32, CAP>;  // survivors' logits, then their cumulative probabilities
var<workgroup> list_i: array<u32, CAP>;  // survivors' token ids
var<workgroup> list_n: atomic<u32>;
var<workgroup> pick: atomic<u32>;
var<workgroup> bc_f: f32;
var<workgroup> bc_u: u32;
var<workgroup> bc_u2: u32;
var<workgroup> bc_draws: u32;
var<private> row_base: u32;  // this workgroup's row of logits
var<workgroup> bc_row: Params;

// The parameters of the sampler row that workgroup row y serves, loaded as a
// workgroup-uniform value: the draw's control flow, barriers inside, follows them.
fn load_row(lid: u32, y: u32) -> Params {
  if (lid == 0u) { bc_row = rows[state[y]]; }
  return workgroupUniformLoad(&bc_row);
}

fn logit(i: u32) -> f32 { return logits[row_base + i]; }

// For the maximum: a NaN logit counts as +inf, so that it wins (a float
// compare with NaN is false, and drivers may assume no NaN) and the draw
// then refuses the infinite maximum. Tested on the bits.
fn max_candidate(l: f32) -> f32 {
  return select(l, f32_bits(0x7f800000u), (bitcast<u32>(l) & 0x7fffffffu) > 0x7f800000u);
}

// Every entry point names every binding (in a branch never taken), so one
// bind group serves them all.
fn keep_bindings(lid: u32) {
  if (lid == NONE) {
    out[0] = 0;
    state[0] = 0u;
    ring[0] = 0;
    partials[0] = vec2<u32>(mask[0]);
    logits[0] = rows[0].temperature;
  }
}

// A 4-lane counter-based hash (the pcg4d construction of Jarzynski and
// Olano, "Hash Functions for GPU Rendering", JCGT 2020): an LCG step on each
// lane, then lanes mixed into each other, twice around a shift.
fn hash4(v_in: vec4<u32>) -> vec4<u32> {
  var v = v_in * 1664525u + 1013904223u;
  v.x += v.y * v.w;
  v.y += v.z * v.x;
  v.z += v.x * v.y;
  v.w += v.y * v.z;
  v ^= v >> vec4<u32>(16u);
  v.x += v.y * v.w;
  v.y += v.z * v.x;
  v.z += v.x * v.y;
  v.w += v.y * v.z;
  return v;
}

// Uniform in (0, 1) from 24 random bits, never exactly 0 or 1.
fn uniform01(counter: u32, lane: u32, seed: vec2<u32>) -> f32 {
  let h = hash4(vec4<u32>(lane, counter, seed.x, seed.y ^ 0x5bd1e995u));
  return (f32(h.x >> 8u) + 0.5) * (1.0 / 16777216.0);
}

// Float order as unsigned order: larger key, larger value.
fn okey(x: f32) -> u32 {
  let b = bitcast<u32>(x);
  return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}

fn sum_f(lid: u32, v: f32) -> f32 {
  red_f[lid] = v;
  for (var s = WG / 2u; s > 0u; s >>= 1u) {
    workgroupBarrier();
    if (lid < s) { red_f[lid] += red_f[lid + s]; }
  }
  workgroupBarrier();
  if (lid == 0u) { bc_f = red_f[0]; }
  return workgroupUniformLoad(&bc_f);
}

fn sum_u(lid: u32, v: u32) -> u32 {
  red_u[lid] = v;
  for (var s = WG / 2u; s > 0u; s >>= 1u) {
    workgroupBarrier();
    if (lid < s) { red_u[lid] += red_u[lid + s]; }
  }
  workgroupBarrier();
  if (lid == 0u) { bc_u = red_u[0]; }
  return workgroupUniformLoad(&bc_u);
}

// The largest value and, among equal ones, the lowest index; the index is
// returned, the value left in bc_f.
fn argmax(lid: u32, v: f32, i: u32) -> u32 {
  red_f[lid] = v;
  red_u[lid] = i;
  for (var s = WG / 2u; s > 0u; s >>= 1u) {
    workgroupBarrier();
    if (lid < s) {
      let w = red_f[lid + s];
      let wi = red_u[lid + s];
      if (w > red_f[lid] || (w == red_f[lid] && wi < red_u[lid])) {
        red_f[lid] = w;
        red_u[lid] = wi;
      }
    }
  }
  workgroupBarrier();
  if (lid == 0u) {
    bc_f = red_f[0];
    bc_u = red_u[0];
  }
  workgroupBarrier();
  return workgroupUniformLoad(&bc_u);
}

// Inclusive prefix sum of red_u over the workgroup.
fn scan_u(lid: u32) {
  for (var off = 1u; off < WG; off <<= 1u) {
    workgroupBarrier();
    var v = red_u[lid];
    if (lid >= off) { v += red_u[lid - off]; }
    workgroupBarrier();
    red_u[lid] = v;
  }
  workgroupBarrier();
}

fn scan_f(lid: u32) {
  for (var off = 1u; off < WG; off <<= 1u) {
    workgroupBarrier();
    var v = red_f[lid];
    if (lid >= off) { v += red_f[lid - off]; }
    workgroupBarrier();
    red_f[lid] = v;
  }
  workgroupBarrier();
}

// Inverse CDF over the first n_keep sorted survivors: the first whose
// cumulative probability exceeds a uniform draw scaled to their mass.
fn pick_from_list(n_keep: u32, counter: u32, seed: vec2<u32>) -> u32 {
  // No survivor (NaN or infinite logits: a broken model or an extreme
  // penalty): NONE, which the host refuses, rather than a read before the list.
  if (n_keep == 0u) { return NONE; }
  let goal = uniform01(counter, NONE, seed) * list_l[n_keep - 1u];
  var lo = 0u;
  var hi = n_keep - 1u;
  while (lo < hi) {
    let mid = (lo + hi) / 2u;
    if (list_l[mid] > goal) { hi = mid; } else { lo = mid + 1u; }
  }
  return list_i[lo];
}

// What a draw needs once the logits are read: how the distribution was cut.
struct Plan {
  mode: u32,       // 0: greedy (token), 1: sorted survivors (n_keep), 2: Gumbel-max
  token: u32,
  n_keep: u32,
  cut: Cut,
  use_cut: bool,
  floor_key: u32,  // Gumbel: top-p keeps keys >= floor_key
  top: f32,
  inv_t: f32,
  log_min_p: f32,   // the sampler row's, as below
  vocab: u32,
  seed: vec2<u32>,
}

fn kept(plan: Plan, i: u32, l: f32) -> bool {
  let k = okey(l);
  return k >= plan.floor_key && (!plan.use_cut || in_cut(plan.cut, k, i)) &&
         (l - plan.top) * plan.inv_t >= plan.log_min_p;
}

fn gumbel_score(plan: Plan, l: f32, counter: u32, i: u32) -> f32 {
  return (l - plan.top) * plan.inv_t - log(-log(uniform01(counter, i, plan.seed)));
}

// Mass (softmax at the temperature, normalized by z) of the candidates whose
// key is at least floor_key.
fn mass_from(lid: u32, vocab: u32, plan: Plan, z: f32) -> f32 {
  var m = 0.0;
  for (var i = lid; i < vocab; i += WG) {
    let l = logit(i);
    if (kept(plan, i, l)) { m += exp((l - plan.top) * plan.inv_t) / z; }
  }
  return sum_f(lid, m);
}

fn plan_draw(lid: u32, from_partials: bool, params: Params) -> Plan {
  let vocab = params.vocab;
  var best = f32_bits(0xff800000u);
  var best_i = NONE;
  if (from_partials) {
    // Spans in index order: a later span with an equal maximum loses, as a
    // later index does below.
    for (var p = lid; p < params.partials; p += WG) {
      let v = partials[params.partials_at + p];
      let l = bitcast<f32>(v.x);
      if (l > best || best_i == NONE) {
        best = l;
        best_i = v.y;
      }
    }
  } else {
    for (var i = lid; i < vocab; i += WG) {
      let l = max_candidate(logit(i));
      if (l > best || best_i == NONE) {
        best = l;
        best_i = i;
      }
    }
  }
  var plan = Plan(0u, argmax(lid, best, best_i), 0u, Cut(0u, NONE), false, 0u, 0.0, 0.0, params.log_min_p, vocab,
                  vec2<u32>(params.seed_lo, params.seed_hi));
  plan.top = workgroupUniformLoad(&bc_f);
  if (params.temperature == 0.0) {
    // A NaN or infinite maximum (NaN weights make every logit NaN): no
    // token, as the CPU sampler and sampling at a temperature refuse it.
    if ((bitcast<u32>(plan.top) & 0x7fffffffu) >= 0x7f800000u) { plan.token = NONE; }
    return plan;
  }
  plan.inv_t = 1.0 / params.temperature;
  plan.use_cut = params.top_k > 0u && params.top_k < vocab;
  if (plan.use_cut) { plan.cut = top_k_cut(lid, vocab, params.top_k); }

  // Softmax's normalizer over the top-k candidates, and the survivors of
  // min-p among them gathered into workgroup memory.
  if (lid == 0u) { atomicStore(&list_n, 0u); }
  workgroupBarrier();
  var z = 0.0;
  for (var i = lid; i < vocab; i += WG) {
    let l = logit(i);
    if (!plan.use_cut || in_cut(plan.cut, okey(l), i)) {
      let s = (l - plan.top) * plan.inv_t;
      z += exp(s);
      if (s >= params.log_min_p) {
        let slot = atomicAdd(&list_n, 1u);
        if (slot < CAP) {
          list_l[slot] = l;
          list_i[slot] = i;
        }
      }
    }
  }
  let zsum = sum_f(lid, z);
  if (lid == 0u) { bc_u2 = atomicLoad(&list_n); }
  let n = workgroupUniformLoad(&bc_u2);
  if (n <= CAP) {
    plan.mode = 1u;
    plan.n_keep = sort_and_cut(lid, n, plan.top, plan.inv_t, zsum, params.top_p);
    return plan;
  }
  // Too many survivors to sort: top-p's cut is the largest key whose upper
  // mass still reaches top_p (binary search), then Gumbel-max.
  plan.mode = 2u;
  if (params.top_p < 1.0 && mass_from(lid, vocab, plan, zsum) >= params.top_p) {
    var lo = 0u;
    var hi = NONE;
    for (var it = 0u; it < 32u; it++) {
      if (lo >= hi) { break; }
      let mid = lo + (hi - lo) / 2u + 1u;
      plan.floor_key = mid;
      if (mass_from(lid, vocab, plan, zsum) >= params.top_p) { lo = mid; } else { hi = mid - 1u; }
    }
    plan.floor_key = lo;
  }
  return plan;
}

// One draw by the whole workgroup (a generation step).
fn draw_together(lid: u32, plan: Plan, counter: u32) -> u32 {
  if (plan.mode == 0u) { return plan.token; }
  if (plan.mode == 1u) {
    if (lid == 0u) { bc_u = pick_from_list(plan.n_keep, counter, plan.seed); }
    return workgroupUniformLoad(&bc_u);
  }
  var best = f32_bits(0xff800000u);
  var best_i = NONE;
  for (var i = lid; i < plan.vocab; i += WG) {
    let l = logit(i);
    if (kept(plan, i, l)) {
      let g = gumbel_score(plan, l, counter, i);
      if (g > best || best_i == NONE) {
        best = g;
        best_i = i;
      }
    }
  }
  return argmax(lid, best, best_i);
}

// One draw by one thread (batches of draws in tests): the same choice.
fn draw_alone(plan: Plan, counter: u32) -> u32 {
  if (plan.mode == 0u) { return plan.token; }
  if (plan.mode == 1u) { return pick_from_list(plan.n_keep, counter, plan.seed); }
  var best = f32_bits(0xff800000u);
  var best_i = NONE;
  for (var i = 0u; i < plan.vocab; i++) {
    let l = logit(i);
    if (kept(plan, i, l)) {
      let g = gumbel_score(plan, l, counter, i);
      if (g > best || best_i == NONE) {
        best = g;
        best_i = i;
      }
    }
  }
  return best_i;
}

// Workgroup (w, y) serves sampler row state[y] and reads row params.row + w
// of the logits. The row's draws per step: 0 or 1 is a step (one draw, into
// out[out_index + w]; with one workgroup per sampler row its ring and counter
// advance); more writes out[w * draws + d] with counters counter + d and
// changes no state.
@compute @workgroup_size(WG)
fn sample(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
          @builtin(num_workgroups) nwg: vec3<u32>) {
  keep_bindings(lid);
  let params = load_row(lid, wid.y);
  row_base = (params.row + wid.x) * params.row_stride;
  let plan = plan_draw(lid, nwg.x == 1u && params.partials > 0u, params);
  let st = params.state_at;
  if (lid == 0u) { bc_draws = state[st + 2u]; }
  let draws = workgroupUniformLoad(&bc_draws);
  let counter = state[st];
  if (draws > 1u) {
    for (var d = lid; d < draws; d += WG) { out[wid.x * draws + d] = i32(draw_alone(plan, counter + d)); }
    return;
  }
  let token = draw_together(lid, plan, counter);
  if (lid != 0u) { return; }
  out[params.out_index + wid.x] = i32(token);
  if (nwg.x == 1u) {
    state[st] = counter + 1u;
    if (params.window > 0u) {
      ring[params.ring_at + state[st + 1u] % params.window] = i32(token);
      state[st + 1u] += 1u;
    }
  }
}

// Workgroup (x, y): span x of sampler row state[y]'s row of logits.
@compute @workgroup_size(WG)
fn partial_max(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  keep_bindings(lid);
  let params = load_row(lid, wid.y);
  var best = f32_bits(0xff800000u);
  var best_i = NONE;
  for (var j = 0u; j < SPAN / WG; j++) {
    let i = wid.x * SPAN + j * WG + lid;
    if (i < params.vocab) {
      let l = max_candidate(logits[params.row * params.row_stride + i]);
      if (l > best || best_i == NONE) {
        best = l;
        best_i = i;
      }
    }
  }
  let top = argmax(lid, best, best_i);
  if (lid == 0u) { partials[params.partials_at + wid.x] = vec2<u32>(bitcast<u32>(bc_f), top); }
}

@compute @workgroup_size(WG)
fn penalize(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  keep_bindings(lid);
  let params = load_row(lid, wid.y);
  let r0 = params.ring_at;
  // Biases first (the penalties apply to the biased logits), then each
  // distinct token of the window once, at its first slot.
  for (var b = lid; b < params.bias_count; b += WG) {
    let token = ring[r0 + params.window + 2u * b];
    let at = params.row * params.row_stride + u32(token);
    logits[at] += bitcast<f32>(ring[r0 + params.window + 2u * b + 1u]);
  }
  storageBarrier();
  let valid = min(state[params.state_at + 1u], params.window);
  for (var t = lid; t < valid; t += WG) {
    let token = ring[r0 + t];
    var repeated = false;
    var count = 0u;
    for (var j = 0u; j < valid; j++) {
      if (ring[r0 + j] == token) {
        count += 1u;
        if (j < t) { repeated = true; }
      }
    }
    if (!repeated && token >= 0 && u32(token) < params.vocab) {
      let at = params.row * params.row_stride + u32(token);
      let l = logits[at];
      let scaled = select(l * params.penalty, l / params.penalty, l > 0.0);
      logits[at] = scaled - params.frequency * f32(count) - params.presence;
    }
  }
}

// Every workgroup of row y a stride of sampler row state[y]'s logits (any
// vocabulary fits the grid); a row without a mask is left as it is.
@compute @workgroup_size(WG)
fn apply_mask(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>) {
  keep_bindings(lid);
  let params = load_row(lid, wid.y);
  if (params.masked == 0u) { return; }
  for (var i = wid.x * WG + lid; i < params.vocab; i += nwg.x * WG) {
    if ((mask[params.mask_at + i / 32u] & (1u << (i % 32u))) == 0u) {
      logits[params.row * params.row_stride + i] = f32_bits(0xff800000u);
    }
  }
}
