// et_vk.fused_ce: cross-entropy loss and its gradient in one pass over
// logits [M, V] with labels [M] (negative: ignored), as ExecuTorch's
// reference defines them:
//   lse[r] = max + log(sum_v exp(logits[r, v] - max))
//   loss = sum over valid rows r of (lse[r] - logits[r, label[r]]) / n_valid
//   dlogits[r, v] = valid ? (softmax[r, v] - (v == label[r])) / n_valid : 0
// One workgroup per row writes dlogits and the row's loss term to `terms`;
// fused_ce_total.wgsl adds the terms in row order. A label at
// or past V is treated as ignored (torch would raise).
//! import common/prelude.wgsl
//! import norm/reduce.wgsl

// WG (norm/reduce.wgsl's override) is fused_ce.cpp's kWorkgroup.

struct Params {
  m: u32,
  v: u32,
  n_valid: f32,
  pad: u32,
}

@group(0) @binding(0) var<storage, read> logits: array<f32>;
@group(0) @binding(1) var<storage, read> labels: array<i32>;
@group(0) @binding(2) var<storage, read_write> dlogits: array<f32>;
@group(0) @binding(3) var<storage, read_write> terms: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let r = flat_group(wid, nwg);
  if (r >= p.m) { return; }  // uniform across the workgroup
  let base = r * p.v;
  var hi = -3.4028235e38;
  for (var i = lid; i < p.v; i += WG) { hi = max(hi, logits[base + i]); }
  hi = reduce_max(lid, hi);
  var sum = 0.0;
  for (var i = lid; i < p.v; i += WG) { sum += exp(logits[base + i] - hi); }
  sum = reduce_sum(lid, sum);
  let label = labels[r];
  let valid = label >= 0 && u32(label) < p.v;
  for (var i = lid; i < p.v; i += WG) {
    let softmax = exp(logits[base + i] - hi) / sum;
    let onehot = select(0.0, 1.0, valid && u32(label) == i);
    dlogits[base + i] = select(0.0, (softmax - onehot) / p.n_valid, valid);
  }
  if (lid == 0u) {
    var term = 0.0;
    if (valid) { term = (hi + log(sum) - logits[base + u32(label)]) / p.n_valid; }
    terms[r] = term;
  }
}
