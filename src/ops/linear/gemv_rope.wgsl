// The decode GEMV's RoPE tables (HAS_ROPE, wgrt.linear_ggml_split_rope):
// rope_cos/rope_sin[t] for pair t of a query or key head. Included only in
// that GEMV (10 storage buffers); gemv_rope_none.wgsl stands in elsewhere.

@group(0) @binding(9) var<storage, read> rope_cos: array<f32>;
@group(0) @binding(10) var<storage, read> rope_sin: array<f32>;

// Element `even ? 2i : 2i + 1` of the pair (a, b) = (x[2i], x[2i + 1]) rotated by table entry t.
fn rope_pair(t: u32, a: f32, b: f32, even: bool) -> f32 {
  return select(a * rope_sin[t] + b * rope_cos[t], a * rope_cos[t] - b * rope_sin[t], even);
}
