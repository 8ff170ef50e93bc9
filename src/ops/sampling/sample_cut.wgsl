// The two cuts of sample.wgsl's distribution that need the whole workgroup:
// top-k's radix select over the logits' ordered keys, and the sort of the
// survivors in workgroup memory with top-p's cut over their cumulative
// probabilities. Uses sample.wgsl's workgroup memory, reductions and logit().

// The top-k cut: candidates are tokens whose key is above `kth`, or equal to
// it at an index <= `tie`.
struct Cut {
  kth: u32,
  tie: u32,
}

fn in_cut(c: Cut, k: u32, i: u32) -> bool {
  return k > c.kth || (k == c.kth && i <= c.tie);
}

// Radix select of the top_k-th key in (logit desc, index asc) order.
fn top_k_cut(lid: u32, vocab: u32, top_k: u32) -> Cut {
  var prefix = 0u;
  var mask = 0u;
  var remaining = top_k;  // how many of the keys matching prefix are still to take
  var equal = 0u;
  for (var round8 = 0u; round8 < 4u; round8++) {
    let shift = 24u - 8u * round8;
    atomicStore(&hist[lid], 0u);
    workgroupBarrier();
    for (var i = lid; i < vocab; i += WG) {
      let k = okey(logit(i));
      if ((k & mask) == prefix) { atomicAdd(&hist[(k >> shift) & 255u], 1u); }
    }
    workgroupBarrier();
    red_u[lid] = atomicLoad(&hist[255u - lid]);  // bins from the top
    scan_u(lid);
    let above = select(0u, red_u[max(lid, 1u) - 1u], lid > 0u);
    if (red_u[lid] >= remaining && above < remaining) {
      bc_u = 255u - lid;
      bc_u2 = above;
    }
    let bin = workgroupUniformLoad(&bc_u);
    let taken = workgroupUniformLoad(&bc_u2);
    prefix |= bin << shift;
    mask |= 255u << shift;
    remaining -= taken;
    if (lid == 0u) { bc_u = atomicLoad(&hist[bin]); }
    equal = workgroupUniformLoad(&bc_u);
  }
  var cut = Cut(prefix, NONE);
  if (equal > remaining) {
    // More tokens share the k-th logit than fit: the lowest indices win.
    // Contiguous chunks per thread, so thread order is index order.
    let chunk = (vocab + WG - 1u) / WG;
    let begin = min(lid * chunk, vocab);
    let end = min(begin + chunk, vocab);
    var n = 0u;
    for (var i = begin; i < end; i++) { n += select(0u, 1u, okey(logit(i)) == prefix); }
    red_u[lid] = n;
    scan_u(lid);
    let before = red_u[lid] - n;
    if (before < remaining && red_u[lid] >= remaining) {
      var seen = before;
      for (var i = begin; i < end; i++) {
        if (okey(logit(i)) == prefix) {
          seen++;
          if (seen == remaining) { bc_u = i; }
        }
      }
    }
    cut.tie = workgroupUniformLoad(&bc_u);
  }
  return cut;
}

// "a comes before b": larger logit, then lower index.
fn before(a: u32, b: u32) -> bool {
  return list_l[a] > list_l[b] || (list_l[a] == list_l[b] && list_i[a] < list_i[b]);
}

// Sorts the n survivors in (logit desc, index asc) order, replaces their
// logits with cumulative probabilities, and returns how many top-p keeps.
fn sort_and_cut(lid: u32, n: u32, top: f32, inv_t: f32, z: f32, top_p: f32) -> u32 {
  var size = 2u;
  while (size < n) { size <<= 1u; }
  for (var t = n + lid; t < size; t += WG) {
    list_l[t] = f32_bits(0xff800000u);  // -inf: sorts last
    list_i[t] = NONE;
  }
  for (var k = 2u; k <= size; k <<= 1u) {
    for (var j = k >> 1u; j > 0u; j >>= 1u) {
      workgroupBarrier();
      for (var t = lid; t < size; t += WG) {
        let o = t ^ j;
        if (o > t && before(t, o) != ((t & k) == 0u)) {
          let l = list_l[t];
          list_l[t] = list_l[o];
          list_l[o] = l;
          let i = list_i[t];
          list_i[t] = list_i[o];
          list_i[o] = i;
        }
      }
    }
  }
  workgroupBarrier();
  // Each thread owns 4 consecutive entries (size <= CAP = 4 * WG).
  let base = lid * 4u;
  var part: array<f32, 4>;
  var acc = 0.0;
  for (var q = 0u; q < 4u; q++) {
    let t = base + q;
    if (t < n) { acc += exp((list_l[t] - top) * inv_t) / z; }
    part[q] = acc;
  }
  red_f[lid] = acc;
  scan_f(lid);
  let offset = select(0.0, red_f[max(lid, 1u) - 1u], lid > 0u);
  workgroupBarrier();
  for (var q = 0u; q < 4u; q++) {
    let t = base + q;
    if (t < size) { list_l[t] = offset + part[q]; }
  }
  workgroupBarrier();
  // Entry t stays when the mass before it is below top_p (the first always).
  var kept = 0u;
  for (var q = 0u; q < 4u; q++) {
    let t = base + q;
    if (t < n && (t == 0u || list_l[t - 1u] < top_p)) { kept++; }
  }
  return sum_u(lid, kept);
}

