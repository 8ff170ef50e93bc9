// rope_pair for the GEMVs without RoPE (gemv_rope.wgsl has the real one):
// no tables bound, never called while HAS_ROPE is false.

fn rope_pair(t: u32, a: f32, b: f32, even: bool) -> f32 {
  return a;
}
