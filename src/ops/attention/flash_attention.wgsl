// Causal grouped-query attention for prefill without an S x S score buffer
// (flash attention): a workgroup owns BQ = 16 query rows of one head and walks
// the visible cache positions in tiles of BKV = 32, keeping each row's running
// max, sum and output (online softmax). q, out: [S, H, D]; caches [MAX, Hkv,
// D] (f32, or f16 rows: the prelude reads them); D = 4 * D4 <= 128.
// Threads: 4 per query row (64). Per tile: K rows into workgroup memory; each
// thread scores 8 keys (lanes interleaved) against the row's scaled q; then
// V rows replace K there, and each thread rescales and accumulates its slice
// of the row's output (vec4s lane, lane + 4, ...).
// Visible keys of the query at absolute position p = start + s: c <= p, and
// with a sliding window also c > p - window.
// Workgroups: H * ceil(S / BQ), possibly 2D-folded; the last query blocks
// (the most keys) first. Params and the q/out bindings: flash_io.wgsl.
//! import attention/cache_{cache}.wgsl
//! import attention/flash_io.wgsl

override D4: u32 = 16;  // head dim / 4
// Set by the host: KS = D4 + 1 (kv row stride, padded so that the 4 lanes'
// rows fall in different banks), Q_LEN = BQ * D4, KV_LEN = BKV * KS
// (workgroup arrays sized by plain override identifiers).
override KS: u32 = 17;
override Q_LEN: u32 = 256;
override KV_LEN: u32 = 544;

const BQ: u32 = 16u;
const BKV: u32 = 32u;
const LANES: u32 = 4u;
const MAX_SLICE: u32 = 8u;  // vec4s of a row per lane: D4 / LANES <= 8 (D <= 128)
// The workgroup: LANES invocations per query row. A const, as the tiling it
// follows (the host sizes nothing by it).
const THREADS: u32 = BQ * LANES;

var<workgroup> qs: array<vec4<f32>, Q_LEN>;
var<workgroup> kv: array<vec4<f32>, KV_LEN>;
var<workgroup> ps: array<f32, BQ * BKV>;

@compute @workgroup_size(THREADS)
fn flash(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32,
         @builtin(num_workgroups) nwg: vec3<u32>) {
  let blk = flash_block(wid, nwg, BQ);
  if (!blk.live) { return; }
  let h = blk.h;
  let q0 = blk.q0;
  let kvh = blk.kvh;
  let row = tid / LANES;
  let lane = tid % LANES;
  let s = q0 + row;
  let pos = params.start + s;  // this row's absolute position

  for (var e = tid; e < BQ * D4; e += THREADS) {
    qs[e] = load_q(q0, e / D4, h, e % D4);
  }

  // Keys any row of the block sees: [first, last], first at a tile boundary.
  let last = blk.last;
  let first = blk.first / BKV * BKV;

  var m = -3.402823e38;
  var l = 0.0;
  var o: array<vec4<f32>, MAX_SLICE>;
  for (var i = 0u; i < MAX_SLICE; i++) { o[i] = vec4<f32>(0.0); }

  for (var c0 = first; c0 <= last; c0 += BKV) {
    workgroupBarrier();  // the previous tile's V and scores are consumed
    for (var e = tid; e < BKV * D4; e += THREADS) {
      let c = c0 + e / D4;
      var r = vec4<f32>(0.0);
      if (c <= last) { r = load_k((c * params.cache_heads + kvh) * D4 + e % D4); }
      kv[(e / D4) * KS + e % D4] = r;
    }
    workgroupBarrier();
    for (var j = 0u; j < BKV / LANES; j++) {
      let c = lane + LANES * j;
      var acc = 0.0;
      for (var d = 0u; d < D4; d++) { acc += dot(qs[row * D4 + d], kv[c * KS + d]); }
      ps[row * BKV + c] = acc;
    }
    workgroupBarrier();
    for (var e = tid; e < BKV * D4; e += THREADS) {
      let c = c0 + e / D4;
      var r = vec4<f32>(0.0);
      if (c <= last) { r = load_v((c * params.cache_heads + kvh) * D4 + e % D4); }
      kv[(e / D4) * KS + e % D4] = r;
    }
    workgroupBarrier();
    if (s < params.seq) {
      // Visible keys of this row in the tile: [lo, hi).
      var lo = max(c0, params.base);
      if (params.window > 0u && pos + 1u > params.window) { lo = max(lo, pos + 1u - params.window); }
      let hi = min(c0 + BKV, pos + 1u);
      if (lo < hi) {
        var m_tile = -3.402823e38;
        for (var c = lo; c < hi; c++) { m_tile = max(m_tile, ps[row * BKV + c - c0]); }
        let m_new = max(m, m_tile);
        let corr = exp(m - m_new);
        l *= corr;
        for (var i = 0u; i < MAX_SLICE; i++) { o[i] *= corr; }
        for (var c = lo; c < hi; c++) {
          let p = exp(ps[row * BKV + c - c0] - m_new);
          l += p;
          for (var i = 0u; i < MAX_SLICE; i++) {
            let d = lane + LANES * i;
            if (d < D4) { o[i] += p * kv[(c - c0) * KS + d]; }
          }
        }
        m = m_new;
      }
    }
  }
  if (s < params.seq) {
    let inv = 1.0 / l;
    for (var i = 0u; i < MAX_SLICE; i++) {
      let d = lane + LANES * i;
      if (d < D4) { out4[(s * params.q_heads + h) * D4 + d] = o[i] * inv; }
    }
  }
}
