#include "ops/passes/fuse_linear.h"

#include "ops/passes/pass_graph.h"
#include "ops/linear/linear_forms.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <limits>
#include <string_view>

namespace wgrt {
namespace {

using passes::add_value;
using passes::f32_tensor;
using passes::is_null;
using passes::kNoOp;
using passes::kViewOp;
using passes::memory_object_reused;
using passes::Uses;

constexpr std::string_view kNorm = "et_vk.rms_norm.default";
// The linear forms the passes make and their argument lists (ops/linear/linear_forms.h).
using ops::kLinearFused;
using ops::kLinearPlain;
using ops::kLinearSplit;
using ops::kLinearSplitRope;
using ops::kLinearSwiglu;
using ops::kLinearW;
using ops::kLinearX;
using ops::LinearArgs;
constexpr std::string_view kLinear = kLinearPlain.name;
constexpr std::string_view kFused = kLinearFused.name;
constexpr std::string_view kSplit = kLinearSplit.name;
// Stands for the arguments a form lacks where a call is only read (never put in a list).
constexpr ValueId kAbsent = std::numeric_limits<ValueId>::max();
constexpr std::string_view kSwiglu = "wgrt.swiglu";
constexpr std::string_view kRope = "et_vk.apply_rotary_emb.default";  // adjacent pairs
constexpr std::string_view kView = kViewOp;
constexpr std::string_view kAdd = "aten.add.Tensor";
constexpr std::string_view kSelect = "aten.select_copy.int";
constexpr std::string_view kSlice = "aten.slice_copy.Tensor";
constexpr std::string_view kConv = "aten.convolution.default";
constexpr std::string_view kConvFused = "wgrt.conv2d_fused";
constexpr std::string_view kRelu = "aten.relu.default";
constexpr std::string_view kHardtanh = "aten.hardtanh.default";

bool is_one(const Graph& g, ValueId v) {
  if (const auto* i = std::get_if<int64_t>(&g.values[v])) return *i == 1;
  if (const auto* d = std::get_if<double>(&g.values[v])) return *d == 1.0;
  return false;
}

// Turns a plain linear_ggml call into the fused form (no norm, no residual).
void make_fused(OpCall& op, ValueId null) {
  if (op.name == kFused) return;
  op.args = ops::linear_arg_list(kLinearFused, ops::linear_args(kLinearPlain, op.args, null));
  op.name = std::string(kFused);
}

// A call of one of the forms, its arguments by name.
LinearArgs args_of(const OpCall& op, ValueId null) {
  return ops::linear_args(*ops::find_linear_form(op.name), op.args, null);
}

// The norm's weight fits a GEMV prologue: K f32 values, a constant.
bool norm_fits(const Graph& g, const OpCall& norm) {
  const Tensor* x = f32_tensor(g, norm.args[0]);
  const Tensor* w = f32_tensor(g, norm.args[1]);
  const Tensor* out = f32_tensor(g, norm.args[3]);
  if (!x || !w || !out || x->max_dims.empty() || out->max_dims != x->max_dims) return false;
  if (w->storage != StorageKind::Constant || numel(w->max_dims) != x->max_dims.back()) return false;
  return std::holds_alternative<double>(g.values[norm.args[2]]) || std::holds_alternative<int64_t>(g.values[norm.args[2]]);
}

bool is_linear(const OpCall& op) { return op.name == kLinear || op.name == kFused; }

// A linear (plain, or fused without a norm yet) reading `v` as its x.
bool linear_reads(const Graph& g, const OpCall& op, size_t arg) {
  if (arg != 0 || !is_linear(op)) return false;
  return op.name == kLinear || is_null(g, op.args[kLinearFused.norm]);
}

void set_norm(OpCall& op, ValueId x, ValueId weight, ValueId eps, ValueId null) {
  make_fused(op, null);
  op.args[kLinearX] = x;
  op.args[kLinearFused.norm] = weight;
  op.args[kLinearFused.eps] = eps;
}

// rms_norm whose every consumer is a linear: the norm moves into each.
size_t fuse_norms(Graph& g, std::vector<bool>& removed, ValueId null) {
  size_t fused = 0;
  const Uses uses(g);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    OpCall& norm = g.ops[i];
    if (removed[i] || norm.name != kNorm || norm.args.size() != 4 || !norm_fits(g, norm)) continue;
    const ValueId x = norm.args[0], n = norm.args[3];
    const auto& consumers = uses.by_value[n];
    if (uses.is_output[n] || consumers.empty()) continue;
    bool direct = true;
    size_t last = i;
    for (const auto& [op, arg] : consumers) {
      direct = direct && linear_reads(g, g.ops[op], arg);
      last = std::max(last, op);
    }
    if (direct && !memory_object_reused(g, x, i, last)) {
      for (const auto& [op, arg] : consumers) set_norm(g.ops[op], x, norm.args[1], norm.args[2], null);
      removed[i] = true;
      ++fused;
      continue;
    }
    // The final norm: only the last position goes on to the output head.
    if (consumers.size() != 1) continue;
    const auto [sel_i, sel_arg] = consumers[0];
    OpCall& sel = g.ops[sel_i];
    const bool row_select = (sel.name == kSelect && sel.args.size() == 4) || (sel.name == kSlice && sel.args.size() == 6);
    if (!row_select || sel_arg != 0) continue;
    const auto* dim = std::get_if<int64_t>(&g.values[sel.args[1]]);
    const Tensor& xt = g.tensor(x);
    if (dim == nullptr || *dim < 0 || size_t(*dim) + 1 >= xt.max_dims.size()) continue;  // not the normalized dim
    const ValueId s = sel.args.back();
    const auto& heads = uses.by_value[s];
    if (uses.is_output[s] || heads.empty()) continue;
    bool all_linear = true;
    size_t head_last = sel_i;
    for (const auto& [op, arg] : heads) {
      all_linear = all_linear && linear_reads(g, g.ops[op], arg);
      head_last = std::max(head_last, op);
    }
    if (!all_linear || memory_object_reused(g, x, i, head_last)) continue;
    sel.args[0] = x;  // select the row before normalizing it
    for (const auto& [op, arg] : heads) set_norm(g.ops[op], s, norm.args[1], norm.args[2], null);
    removed[i] = true;
    ++fused;
  }
  return fused;
}

// add(y, r) -> z at op i (alpha 1, y, r and z f32 of one shape) where y,
// argument `side`, is the last output of op p, which `accepts`, and used
// only there, and r exists before op p runs: the candidates for moving the
// add into y's producer.
struct ResidualAdd {
  size_t p;
  ValueId y, r, z;
};

std::optional<ResidualAdd> residual_add(const Graph& g, const Uses& uses, const std::vector<bool>& removed, size_t i,
                                        size_t side, const std::function<bool(const OpCall&)>& accepts) {
  const OpCall& add = g.ops[i];
  if (removed[i] || add.name != kAdd || add.args.size() != 4 || !is_one(g, add.args[2])) return std::nullopt;
  const ValueId z = add.args[3], y = add.args[side], r = add.args[1 - side];
  const size_t p = uses.producer[y];
  if (p == kNoOp || removed[p] || !accepts(g.ops[p]) || g.ops[p].args.back() != y) return std::nullopt;
  if (!uses.only_use(y, i, side)) return std::nullopt;
  const Tensor* zt = f32_tensor(g, z);
  const Tensor* yt = f32_tensor(g, y);
  const Tensor* rt = f32_tensor(g, r);
  if (!zt || !yt || !rt || yt->max_dims != zt->max_dims || rt->max_dims != zt->max_dims) return std::nullopt;
  const size_t rp = uses.producer[r];
  if (rp != kNoOp && rp >= p) return std::nullopt;
  return ResidualAdd{p, y, r, z};
}

// add(y, r) with y a linear's only use: the linear adds r itself.
size_t fuse_residuals(Graph& g, std::vector<bool>& removed, ValueId null) {
  size_t fused = 0;
  const Uses uses(g, removed);
  auto accepts = [&](const OpCall& op) {
    return is_linear(op) && (op.name != kFused || is_null(g, op.args[kLinearFused.residual]));
  };
  for (size_t i = 0; i < g.ops.size(); ++i) {
    for (size_t side = 0; side < 2; ++side) {
      const auto m = residual_add(g, uses, removed, i, side, accepts);
      if (!m) continue;
      // Neither r nor z may be touched between the linear and the add.
      if (memory_object_reused(g, m->r, m->p, i) || memory_object_reused(g, m->z, m->p, i)) continue;
      OpCall& lin = g.ops[m->p];
      make_fused(lin, null);
      lin.args[kLinearFused.residual] = m->r;
      lin.args[kLinearFused.out] = m->z;
      removed[i] = true;
      ++fused;
      break;
    }
  }
  return fused;
}

// Whether the convolution at op p may write `out` and read r in place of
// the ops up to `to` in out's ExecuTorch memory object: no tensor those ops
// name, but the values the fusion removes (`gone`), shares out's or r's
// object, and out shares none with the convolution's input or r (both read
// while it is written).
bool conv_fusion_safe(const Graph& g, size_t p, size_t to, ValueId out, ValueId r, std::initializer_list<ValueId> gone) {
  const int32_t o = g.tensor(out).mem_obj_id, ro = g.tensor(r).mem_obj_id;
  if (o < 0) return true;
  if (o == g.tensor(g.ops[p].args[0]).mem_obj_id || o == ro) return false;
  for (size_t k = p + 1; k <= to && k < g.ops.size(); ++k) {
    for (ValueId a : g.ops[k].args) {
      if (!g.is_tensor(a) || a == out || a == r || std::find(gone.begin(), gone.end(), a) != gone.end()) continue;
      const int32_t ao = g.tensor(a).mem_obj_id;
      if (ao >= 0 && (ao == o || ao == ro)) return false;
    }
  }
  return true;
}

// add(y, r) with y an aten.convolution's only use => wgrt.conv2d_fused(conv
// args, min, max, r) -> z; and when z's only reader is a relu or hardtanh,
// that too, as the fused op's clamp (it then writes the activation's output).
// Where the exporter's memory plan would have the moved write overwrite a
// tensor still read (typically the convolution's own input, dead by the
// add), the output gets a buffer of its own (memory for dispatches).
size_t fuse_conv_residuals(Graph& g, std::vector<bool>& removed, ValueId null) {
  size_t fused = 0;
  const Uses uses(g);
  ValueId zero = null;
  auto accepts = [](const OpCall& op) { return op.name == kConv && op.args.size() == 10; };
  for (size_t i = 0; i < g.ops.size(); ++i) {
    for (size_t side = 0; side < 2; ++side) {
      const auto m = residual_add(g, uses, removed, i, side, accepts);
      if (!m) continue;
      const auto [p, y, r, z] = *m;
      const Tensor* zt = f32_tensor(g, z);
      ValueId lo = null, hi = null, out = z;
      if (!uses.is_output[z] && uses.by_value[z].size() == 1) {
        const auto [a, arg] = uses.by_value[z][0];
        const OpCall& act = g.ops[a];
        const bool relu = act.name == kRelu && act.args.size() == 2;
        const bool hardtanh = act.name == kHardtanh && act.args.size() == 4;
        const Tensor* at = (relu || hardtanh) && arg == 0 && !removed[a] ? f32_tensor(g, act.args.back()) : nullptr;
        if (at != nullptr && at->max_dims == zt->max_dims) {
          if (relu && zero == null) zero = add_value(g, 0.0);
          lo = relu ? zero : act.args[1];
          hi = relu ? null : act.args[2];
          out = act.args.back();
          removed[a] = true;
        }
      }
      const size_t last = out == z ? i : uses.by_value[z][0].first;
      if (!conv_fusion_safe(g, p, last, out, r, {y, z})) g.tensor(out).mem_obj_id = -1;
      OpCall& conv = g.ops[p];
      std::vector<ValueId> args(conv.args.begin(), conv.args.begin() + 9);
      args.insert(args.end(), {lo, hi, r, out});
      conv.args = std::move(args);
      conv.name = std::string(kConvFused);
      removed[i] = true;
      ++fused;
      break;
    }
  }
  return fused;
}

// A weight's bytes once the prepare step has laid it out for the GPU, at
// most: its bytes now plus 16 bytes of padding a row.
uint64_t weight_bytes_bound(const Graph& g, ValueId w) {
  const Tensor& t = g.tensor(w);
  return t.constant_size() + 16 * uint64_t(t.max_dims.empty() ? 1 : t.max_dims[0]);
}

// Rows of constant matrices stacked into one new constant (same dtype and
// row length), read from the parts when it is uploaded.
ValueId stack_constants(Graph& g, const std::vector<ValueId>& parts) {
  std::vector<ConstantSourcePtr> sources;
  Dims dims = g.tensor(parts[0]).max_dims;
  dims[0] = 0;
  for (ValueId p : parts) {
    Tensor& pt = g.tensor(p);
    dims[0] += pt.max_dims[0];
    sources.push_back(shared_constant_rows(pt));
  }
  return passes::add_source_constant(g, g.tensor(parts[0]).dtype, std::move(dims), stacked_rows(std::move(sources)));
}

bool stackable(const Graph& g, ValueId a, ValueId b) {
  if (!g.is_tensor(a) || !g.is_tensor(b)) return false;
  const Tensor& ta = g.tensor(a);
  const Tensor& tb = g.tensor(b);
  return ta.storage == StorageKind::Constant && tb.storage == StorageKind::Constant && ta.dtype == tb.dtype &&
         ta.max_dims.size() == tb.max_dims.size() && !ta.max_dims.empty() &&
         std::equal(ta.max_dims.begin() + 1, ta.max_dims.end(), tb.max_dims.begin() + 1) &&
         ta.constant_size() == uint64_t(numel(ta.max_dims)) * host_size(ta.dtype) &&
         tb.constant_size() == uint64_t(numel(tb.max_dims)) * host_size(tb.dtype);
}

// Whether linear `b` can join linear `a` in one matrix: the same x, weight
// format and row length, the same requantization of x and norm (or none), biases on both or neither,
// no residual, outputs with the same leading dims.
bool siblings(const Graph& g, const OpCall& a, const OpCall& b) {
  auto same_value = [&](ValueId u, ValueId v) {
    if (u == v) return true;
    const auto* iu = std::get_if<int64_t>(&g.values[u]);
    const auto* iv = std::get_if<int64_t>(&g.values[v]);
    if (iu && iv) return *iu == *iv;
    const auto* du = std::get_if<double>(&g.values[u]);
    const auto* dv = std::get_if<double>(&g.values[v]);
    return du && dv && *du == *dv;
  };
  const LinearArgs x = args_of(a, kAbsent), y = args_of(b, kAbsent);  // both in the fused form
  if (x.x != y.x || !same_value(x.type, y.type)) return false;
  if (is_null(g, x.x_quant) != is_null(g, y.x_quant)) return false;
  if (!is_null(g, x.x_quant) && !same_value(x.x_quant, y.x_quant)) return false;
  if (!is_null(g, x.residual) || !is_null(g, y.residual)) return false;
  if (x.norm != y.norm || (!is_null(g, x.norm) && !same_value(x.eps, y.eps))) return false;
  if (is_null(g, x.bias) != is_null(g, y.bias)) return false;
  if (!is_null(g, x.bias) && !stackable(g, x.bias, y.bias)) return false;
  if (!stackable(g, x.w, y.w)) return false;
  const Tensor* oa = f32_tensor(g, x.out);
  const Tensor* ob = f32_tensor(g, y.out);
  return oa && ob && oa->max_dims.size() == ob->max_dims.size() &&
         std::equal(oa->max_dims.begin(), oa->max_dims.end() - 1, ob->max_dims.begin());
}

// Linears sharing x and prologue (Q, K, V; gate, up) become one over their
// stacked weights, with one output per original (up to three).
size_t merge_siblings(Graph& g, std::vector<bool>& removed, ValueId null, uint64_t max_weight_bytes) {
  size_t merged = 0;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (removed[i] || !is_linear(g.ops[i])) continue;
    std::vector<OpCall> calls = {g.ops[i]};  // in the fused form, for comparing
    make_fused(calls[0], null);
    std::vector<size_t> group = {i};
    for (size_t j = i + 1; j < g.ops.size() && group.size() < 3; ++j) {
      if (removed[j] || !is_linear(g.ops[j])) continue;
      OpCall candidate = g.ops[j];
      make_fused(candidate, null);
      if (!siblings(g, calls[0], candidate)) continue;
      // Its output is now written at op i: nothing in between may touch it.
      if (memory_object_reused(g, candidate.args[kLinearFused.out], i, j)) continue;
      // A stacked weight must stay within one binding (with room for the
      // GPU layout's row padding, 16 bytes a row at most): past that the
      // linears stay apart rather than split again into runs of rows.
      uint64_t stacked = 0;
      for (const OpCall& c : calls) stacked += weight_bytes_bound(g, c.args[kLinearW]);
      if (stacked + weight_bytes_bound(g, candidate.args[kLinearW]) > max_weight_bytes) continue;
      calls.push_back(std::move(candidate));
      group.push_back(j);
    }
    if (group.size() < 2) continue;
    std::vector<ValueId> weights, biases, outs;
    for (const OpCall& c : calls) {
      const LinearArgs a = args_of(c, null);
      weights.push_back(a.w);
      biases.push_back(a.bias);
      outs.push_back(a.out);
    }
    LinearArgs a = args_of(calls[0], null);
    a.w = stack_constants(g, weights);
    a.bias = is_null(g, biases[0]) ? null : stack_constants(g, biases);
    a.out = outs[0];
    a.out1 = outs[1];
    a.out2 = outs.size() > 2 ? outs[2] : null;
    OpCall& first = g.ops[i];
    first = calls[0];
    first.name = std::string(kSplit);
    first.args = ops::linear_arg_list(kLinearSplit, a);
    for (size_t k = 1; k < group.size(); ++k) removed[group[k]] = true;
    ++merged;
  }
  return merged;
}
// A constant of 2F rows (gate rows, then up rows) as a new constant with the
// rows interleaved: row 2i gate i, row 2i + 1 up i. `up_first`: the up rows
// come first in the source.
ValueId interleave_halves(Graph& g, ValueId stacked, bool up_first) {
  Tensor& src = g.tensor(stacked);
  const uint64_t half = uint64_t(src.max_dims[0]) / 2;
  const ConstantSourcePtr rows = shared_constant_rows(src);
  ConstantSourcePtr first = row_range(rows, 0, half), second = row_range(rows, half, half);
  if (up_first) std::swap(first, second);
  return passes::add_source_constant(g, src.dtype, src.max_dims, alternating_rows(first, second));
}

// A merged gate/up linear (two outputs of equal width) whose outputs are read
// only by one swiglu(gate, up) of the same shape: the GEMV applies SwiGLU in
// its epilogue, over the stacked weight re-stacked with interleaved rows.
size_t fuse_swiglus(Graph& g, std::vector<bool>& removed) {
  size_t fused = 0;
  const Uses uses(g, removed);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    OpCall& sw = g.ops[i];
    if (removed[i] || sw.name != kSwiglu || sw.args.size() != 3) continue;
    const ValueId gate = sw.args[0], up = sw.args[1], h = sw.args[2];
    const size_t p = uses.producer[gate];
    if (p == kNoOp || removed[p] || p != uses.producer[up] || g.ops[p].name != kSplit) continue;
    OpCall& lin = g.ops[p];
    if (lin.args.size() != kLinearSplit.arg_count() || gate == up) continue;
    LinearArgs a = args_of(lin, kAbsent);
    if (!is_null(g, a.out2)) continue;
    const bool up_first = a.out == up;
    if (!uses.only_use(gate, i, 0) || !uses.only_use(up, i, 1)) continue;
    const Tensor* gt = f32_tensor(g, gate);
    const Tensor* ut = f32_tensor(g, up);
    const Tensor* ht = f32_tensor(g, h);
    if (!gt || !ut || !ht || gt->max_dims != ut->max_dims || ht->max_dims != gt->max_dims) continue;
    const ValueId w = a.w;
    if (!g.is_tensor(w) || g.tensor(w).storage != StorageKind::Constant ||
        g.tensor(w).max_dims.empty() || g.tensor(w).max_dims[0] != 2 * gt->max_dims.back()) {
      continue;
    }
    // h is now written at the linear: nothing in between may touch it.
    if (memory_object_reused(g, h, p, i)) continue;
    const ValueId bias = a.bias;
    if (!is_null(g, bias) && (!g.is_tensor(bias) || g.tensor(bias).storage != StorageKind::Constant)) continue;
    a.w = interleave_halves(g, w, up_first);
    a.bias = is_null(g, bias) ? bias : interleave_halves(g, bias, up_first);
    a.out = h;
    lin.name = std::string(kLinearSwiglu.name);
    lin.args = ops::linear_arg_list(kLinearSwiglu, a);
    removed[i] = true;
    ++fused;
  }
  return fused;
}

// The op that reshapes `v` when v's only use is a view_copy; kNoOp otherwise.
size_t only_view_of(const Graph& g, const Uses& uses, ValueId v) {
  if (uses.is_output[v] || uses.by_value[v].size() != 1) return kNoOp;
  const auto [op, arg] = uses.by_value[v][0];
  return arg == 0 && g.ops[op].name == kView && g.ops[op].args.size() == 3 ? op : kNoOp;
}

// split(x, W...) -> q, k[, v]; view(q) -> q4; view(k) -> k4;
// apply_rotary_emb(q4, k4, cos, sin) -> [qr, kr], the views read only there:
// the split linear writes qr and kr itself, rotated in its epilogue.
size_t fuse_ropes(Graph& g, std::vector<bool>& removed) {
  size_t fused = 0;
  const Uses uses(g, removed);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const OpCall& rope = g.ops[i];
    if (removed[i] || rope.name != kRope || rope.args.size() != 5) continue;
    const auto* outs = std::get_if<ValueList>(&g.values[rope.args[4]]);
    if (outs == nullptr || outs->items.size() != 2) continue;
    const ValueId q4 = rope.args[0], k4 = rope.args[1], cos = rope.args[2], sin = rope.args[3];
    const ValueId qr = outs->items[0], kr = outs->items[1];
    if (!uses.only_use(q4, i, 0) || !uses.only_use(k4, i, 1)) continue;
    const size_t vq = uses.producer[q4], vk = uses.producer[k4];
    if (vq == kNoOp || vk == kNoOp || g.ops[vq].name != kView || g.ops[vk].name != kView) continue;
    const ValueId q = g.ops[vq].args[0], k = g.ops[vk].args[0];
    if (only_view_of(g, uses, q) != vq || only_view_of(g, uses, k) != vk) continue;
    const size_t p = uses.producer[q];
    if (p == kNoOp || p != uses.producer[k] || g.ops[p].name != kSplit ||
        g.ops[p].args.size() != kLinearSplit.arg_count()) {
      continue;
    }
    OpCall& lin = g.ops[p];
    LinearArgs a = args_of(lin, kAbsent);
    if (a.out != q || a.out1 != k) continue;
    // Shapes: qr, kr [..., heads, D] holding q's and k's values; cos, sin
    // [rows, D / 2] made before the linear.
    const Tensor *qt = f32_tensor(g, q), *kt = f32_tensor(g, k), *qrt = f32_tensor(g, qr), *krt = f32_tensor(g, kr);
    const Tensor *ct = f32_tensor(g, cos), *st = f32_tensor(g, sin);
    if (!qt || !kt || !qrt || !krt || !ct || !st || qrt->max_dims.size() != qt->max_dims.size() + 1) continue;
    if (numel(qrt->max_dims) != numel(qt->max_dims) || numel(krt->max_dims) != numel(kt->max_dims)) continue;
    const int64_t head_dim = qrt->max_dims.back();
    if (head_dim % 2 != 0 || krt->max_dims.back() != head_dim || ct->max_dims != st->max_dims) continue;
    if (numel(ct->max_dims) != numel(qt->max_dims) / qt->max_dims.back() * head_dim / 2) continue;
    const size_t cp = uses.producer[cos], sp = uses.producer[sin];
    if ((cp != kNoOp && cp >= p) || (sp != kNoOp && sp >= p)) continue;
    if (memory_object_reused(g, qr, p, i) || memory_object_reused(g, kr, p, i)) continue;
    a.cos = cos;
    a.sin = sin;
    a.out = qr;
    a.out1 = kr;
    lin.name = std::string(kLinearSplitRope.name);
    lin.args = ops::linear_arg_list(kLinearSplitRope, a);
    removed[i] = removed[vq] = removed[vk] = true;
    ++fused;
  }
  return fused;
}

}  // namespace


FusionStats fuse_linear_layers(Graph& g, const FusionLimits& limits) {
  FusionStats stats;
  stats.ops_before = g.ops.size();
  std::vector<bool> removed(g.ops.size(), false);
  const ValueId null = add_value(g, Null{});
  const std::vector<bool> named_before = passes::named_values(g);
  stats.norms = fuse_norms(g, removed, null);
  stats.merged = merge_siblings(g, removed, null, limits.max_weight_bytes);
  stats.swiglus = fuse_swiglus(g, removed);
  constexpr uint32_t kRopeGemvStorageBuffers = 10;  // linear_io.wgsl + gemv_rope.wgsl
  if (limits.max_storage_buffers >= kRopeGemvStorageBuffers) stats.ropes = fuse_ropes(g, removed);
  stats.residuals = fuse_residuals(g, removed, null);
  stats.conv_residuals = fuse_conv_residuals(g, removed, null);
  std::vector<OpCall> kept;
  kept.reserve(g.ops.size());
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (!removed[i]) kept.push_back(std::move(g.ops[i]));
  }
  g.ops = std::move(kept);
  // Intermediates and constants (weights stacked into new ones, or stacked
  // ones re-stacked) that no op names any more would still get buffers.
  passes::drop_unnamed_tensors(g, named_before);
  stats.ops_after = g.ops.size();
  return stats;
}

}  // namespace wgrt
