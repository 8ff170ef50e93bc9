#include "ops/passes/canonicalize.h"

#include <algorithm>
#include <optional>
#include <type_traits>
#include <variant>
#include <string_view>

#include "ops/passes/pass_graph.h"

namespace wgrt::passes {
namespace {

constexpr std::string_view kView = kViewOp;
constexpr std::string_view kClone = "aten.clone.default";
constexpr std::string_view kPrepack = "et_vk.prepack.default";
constexpr std::string_view kSigmoid = "aten.sigmoid.default";
constexpr std::string_view kSilu = "aten.silu.default";
constexpr std::string_view kMul = "aten.mul.Tensor";
constexpr std::string_view kSwiglu = "wgrt.swiglu";
constexpr std::string_view kEtSwiglu = "et_vk.swiglu.default";
// Ops that compute from their inputs alone (no state, no randomness), whose
// repeats an exporter writes once per consumer: 8da4w's per-linear
// activation parameters, three for Q, K and V of one x.
constexpr std::string_view kPureRepeats[] = {"torchao.choose_qparams_affine.default"};

// The last op reading `v`, or `from` when none reads it after `from`.
size_t last_read(const Uses& uses, ValueId v, size_t from) {
  size_t last = from;
  for (const auto& [op, arg] : uses.by_value[v]) last = std::max(last, op);
  return last;
}

// Whether `from`'s readers may read `to` instead: `from` is an intermediate
// written only by op i, not a graph output, and `to`'s memory object holds
// nothing else from op i to the last read of `from`.
// `to` is an intermediate written before op i or a constant: never a state,
// input or output, which something may write (a KV cache is written in place).
bool can_forward(const Graph& g, const Uses& uses, size_t i, ValueId from, ValueId to) {
  if (!g.is_tensor(from) || !g.is_tensor(to)) return false;
  const Tensor &f = g.tensor(from), &t = g.tensor(to);
  if (f.storage != StorageKind::Intermediate || uses.is_output[from] || uses.producer[from] != i) return false;
  const bool settled = t.storage == StorageKind::Constant ||
                       (t.storage == StorageKind::Intermediate && !uses.is_output[to] && uses.producer[to] < i);
  return settled && !memory_object_reused(g, to, i, last_read(uses, from, i));
}

void forward(Graph& g, const Uses& uses, ValueId from, ValueId to) {
  for (const auto& [op, arg] : uses.by_value[from]) g.ops[op].args[arg] = to;
}

// view_copy (x, sizes, out) and clone (x, memory format, out) to x's own shape.
size_t drop_identity_copies(Graph& g, std::vector<bool>& removed) {
  size_t dropped = 0;
  const Uses uses(g);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const OpCall& op = g.ops[i];
    if ((op.name != kView && op.name != kClone) || op.args.size() != 3) continue;
    const ValueId in = op.args[0], out = op.args[2];
    if (!g.is_tensor(in) || !g.is_tensor(out)) continue;
    const Tensor &ti = g.tensor(in), &to = g.tensor(out);
    if (ti.dtype != to.dtype || ti.max_dims != to.max_dims || !can_forward(g, uses, i, out, in)) continue;
    forward(g, uses, out, in);
    removed[i] = true;
    ++dropped;
  }
  return dropped;
}

size_t fold_prepacks(Graph& g, std::vector<bool>& removed) {
  size_t folded = 0;
  const Uses uses(g);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const OpCall& op = g.ops[i];
    if (op.name != kPrepack || op.args.size() != 2) continue;
    const ValueId c = op.args[0], out = op.args[1];
    const Tensor* ct = constant_tensor(g, c);
    if (ct == nullptr || !g.is_tensor(out)) continue;
    const Tensor& to = g.tensor(out);
    if (ct->dtype != to.dtype || ct->max_dims != to.max_dims || !can_forward(g, uses, i, out, c)) continue;
    forward(g, uses, out, c);
    removed[i] = true;
    ++folded;
  }
  return folded;
}

// The other operand of a binary mul at op i when one operand is `v`.
std::optional<ValueId> other_operand(const OpCall& mul, ValueId v) {
  if (mul.name != kMul || mul.args.size() != 3 || mul.args[0] == mul.args[1]) return std::nullopt;
  if (mul.args[0] == v) return mul.args[1];
  if (mul.args[1] == v) return mul.args[0];
  return std::nullopt;
}

// The op reading `v` when it is v's only reader (v not a graph output).
size_t only_reader(const Uses& uses, ValueId v) {
  if (uses.is_output[v] || uses.by_value[v].size() != 1) return kNoOp;
  return uses.by_value[v][0].first;
}

bool same_f32_shape(const Graph& g, std::initializer_list<ValueId> vs) {
  const Tensor* first = f32_tensor(g, *vs.begin());
  if (first == nullptr) return false;
  return std::all_of(vs.begin(), vs.end(), [&](ValueId v) {
    const Tensor* t = f32_tensor(g, v);
    return t != nullptr && t->max_dims == first->max_dims;
  });
}

// silu(g) -> h (sigmoid + mul, or silu) at ops up to `h_op`; mul(h, u) -> y:
// that mul becomes wgrt.swiglu(g, u) -> y, the ops before it go.
size_t fold_silu_muls(Graph& g, std::vector<bool>& removed) {
  size_t folded = 0;
  const Uses uses(g);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const OpCall& act = g.ops[i];
    const bool sigmoid = act.name == kSigmoid && act.args.size() == 2;
    if (removed[i] || !(sigmoid || (act.name == kSilu && act.args.size() == 2))) continue;
    const ValueId gate = act.args[0];
    std::vector<size_t> gone = {i};
    ValueId h = act.args[1];
    if (sigmoid) {  // mul(g, s) -> h, g read by nothing else
      const size_t m = only_reader(uses, h);
      if (m == kNoOp || removed[m] || other_operand(g.ops[m], h) != gate || uses.by_value[gate].size() != 2) continue;
      gone.push_back(m);
      h = g.ops[m].args[2];
    }
    const size_t y_op = only_reader(uses, h);
    if (y_op == kNoOp || removed[y_op]) continue;
    const std::optional<ValueId> up = other_operand(g.ops[y_op], h);
    if (!up || *up == gate) continue;
    const ValueId y = g.ops[y_op].args[2];
    // gate is now read at y_op: its memory must hold it until then.
    if (!same_f32_shape(g, {gate, *up, y}) || memory_object_reused(g, gate, i, y_op)) continue;
    g.ops[y_op] = OpCall{std::string(kSwiglu), {gate, *up, y}};
    for (size_t r : gone) removed[r] = true;
    ++folded;
  }
  for (OpCall& op : g.ops) {
    if (op.name == kEtSwiglu && op.args.size() == 3) {
      op.name = std::string(kSwiglu);
      ++folded;
    }
  }
  return folded;
}

// Whether two arguments hold the same thing: one value (not a state, which an
// op between the two may write in place), or equal scalars / lists.
bool same_argument(const Graph& g, ValueId a, ValueId b) {
  if (a == b) return !g.is_tensor(a) || g.tensor(a).storage != StorageKind::State;
  if (g.is_tensor(a) || g.is_tensor(b)) return false;
  const Value &va = g.values[a], &vb = g.values[b];
  if (va.index() != vb.index()) return false;
  if (const auto* la = std::get_if<ValueList>(&va)) {
    const auto& lb = std::get<ValueList>(vb).items;
    return la->items.size() == lb.size() && std::equal(la->items.begin(), la->items.end(), lb.begin(),
                                                       [&](ValueId x, ValueId y) { return same_argument(g, x, y); });
  }
  return std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Null>) {
          return true;
        } else if constexpr (std::is_same_v<T, Tensor> || std::is_same_v<T, SymInt> || std::is_same_v<T, ValueList>) {
          return false;  // a SymInt changes at run time: only the same one is the same (lists: above)
        } else {
          return x == std::get<T>(vb);
        }
      },
      va);
}

// The tensors an op writes: its last argument, or the items of a list there.
std::vector<ValueId> outputs_of(const Graph& g, const OpCall& op) {
  if (const auto* list = std::get_if<ValueList>(&g.values[op.args.back()])) return list->items;
  return {op.args.back()};
}

// A repeat of a pure op (kPureRepeats) with the same inputs as an earlier
// one: its outputs' readers read the earlier one's.
size_t merge_pure_repeats(Graph& g, std::vector<bool>& removed) {
  size_t merged = 0;
  const Uses uses(g);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const OpCall& op = g.ops[i];
    if (std::find(std::begin(kPureRepeats), std::end(kPureRepeats), op.name) == std::end(kPureRepeats)) continue;
    for (size_t j = 0; j < i; ++j) {
      const OpCall& first = g.ops[j];
      if (removed[j] || first.name != op.name || first.args.size() != op.args.size()) continue;
      bool same = true;
      for (size_t a = 0; a + 1 < op.args.size() && same; ++a) same = same_argument(g, first.args[a], op.args[a]);
      const std::vector<ValueId> mine = outputs_of(g, op), theirs = outputs_of(g, first);
      if (!same || mine.size() != theirs.size()) continue;
      bool safe = true;
      for (size_t o = 0; o < mine.size() && safe; ++o) {
        safe = g.is_tensor(mine[o]) && g.is_tensor(theirs[o]) && !uses.is_output[mine[o]] &&
               g.tensor(mine[o]).dtype == g.tensor(theirs[o]).dtype &&
               g.tensor(mine[o]).max_dims == g.tensor(theirs[o]).max_dims &&
               !memory_object_reused(g, theirs[o], j, last_read(uses, mine[o], i));
      }
      if (!safe) continue;
      for (size_t o = 0; o < mine.size(); ++o) forward(g, uses, mine[o], theirs[o]);
      removed[i] = true;
      ++merged;
      break;
    }
  }
  return merged;
}

void erase_removed(Graph& g, const std::vector<bool>& removed) {
  std::vector<OpCall> kept;
  kept.reserve(g.ops.size());
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (!removed[i]) kept.push_back(std::move(g.ops[i]));
  }
  g.ops = std::move(kept);
}

}  // namespace

CanonicalStats canonicalize(Graph& g) {
  CanonicalStats stats;
  const std::vector<bool> named_before = named_values(g);
  // One step at a time: each reads the graph the one before left.
  const auto step = [&g](size_t (*rewrite)(Graph&, std::vector<bool>&)) {
    std::vector<bool> removed(g.ops.size(), false);
    const size_t n = rewrite(g, removed);
    erase_removed(g, removed);
    return n;
  };
  stats.repeats = step(merge_pure_repeats);
  stats.identity_copies = step(drop_identity_copies);
  stats.prepacks = step(fold_prepacks);
  stats.swiglus = step(fold_silu_muls);
  drop_unnamed_tensors(g, named_before);  // what the dropped ops wrote
  return stats;
}

}  // namespace wgrt::passes
