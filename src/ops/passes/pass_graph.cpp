#include "ops/passes/pass_graph.h"

#include "ops/linear/linear_forms.h"

namespace wgrt::passes {

Uses::Uses(const Graph& g, const std::vector<bool>& removed)
    : by_value(g.values.size()), producer(g.values.size(), kNoOp), is_output(g.values.size(), false) {
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const auto& args = g.ops[i].args;
    if (args.empty() || (i < removed.size() && removed[i])) continue;
    // The split linears have three outputs (out, out1, out2); every other op its last.
    const ops::LinearForm* form = ops::find_linear_form(g.ops[i].name);
    const size_t first_out =
        form != nullptr && form->out2 != ops::kNoArg && args.size() == form->arg_count() ? form->out : args.size() - 1;
    for (size_t a = 0; a < first_out; ++a) by_value[args[a]].push_back({i, a});
    for (size_t a = first_out; a < args.size(); ++a) producer[args[a]] = i;
  }
  for (ValueId o : g.outputs) is_output[o] = true;
}

const Tensor* f32_tensor(const Graph& g, ValueId v) {
  if (!g.is_tensor(v)) return nullptr;
  const Tensor& t = g.tensor(v);
  return t.dtype == DType::F32 ? &t : nullptr;
}

const Tensor* constant_tensor(const Graph& g, ValueId v) {
  if (!g.is_tensor(v)) return nullptr;
  const Tensor& t = g.tensor(v);
  const bool whole = t.bytes.size() == uint64_t(numel(t.max_dims)) * host_size(t.dtype);
  return t.storage == StorageKind::Constant && whole ? &t : nullptr;
}

bool is_null(const Graph& g, ValueId v) { return std::holds_alternative<Null>(g.values[v]); }

bool memory_object_reused(const Graph& g, ValueId v, size_t from, size_t to) {
  const int32_t obj = g.tensor(v).mem_obj_id;
  if (obj < 0) return false;
  for (size_t i = from + 1; i <= to && i < g.ops.size(); ++i) {
    for (ValueId a : g.ops[i].args) {
      if (a != v && g.is_tensor(a) && g.tensor(a).mem_obj_id == obj) return true;
    }
  }
  return false;
}

ValueId add_value(Graph& g, Value v) {
  g.values.push_back(std::move(v));
  return static_cast<ValueId>(g.values.size() - 1);
}

ValueId add_owned_constant(Graph& g, DType dtype, Dims dims, std::vector<uint8_t> bytes) {
  Tensor t;
  t.dtype = dtype;
  t.storage = StorageKind::Constant;
  t.max_dims = std::move(dims);
  t.cur_dims = t.max_dims;
  t.owned = std::move(bytes);
  t.bytes = t.owned;
  return add_value(g, std::move(t));
}

ValueId add_source_constant(Graph& g, DType dtype, Dims dims, ConstantSourcePtr source) {
  const ValueId id = add_owned_constant(g, dtype, std::move(dims), {});
  g.tensor(id).source = std::move(source);
  return id;
}

std::vector<bool> named_values(const Graph& g) {
  std::vector<bool> named(g.values.size(), false);
  for (const OpCall& op : g.ops) {
    for (ValueId a : op.args) named[a] = true;
  }
  return named;
}

void drop_unnamed_tensors(Graph& g, const std::vector<bool>& named_before) {
  const std::vector<bool> named = named_values(g);
  for (ValueId v = 0; v < g.values.size(); ++v) {
    const bool was_named = v >= named_before.size() || named_before[v];
    if (!was_named || named[v] || !g.is_tensor(v)) continue;
    const StorageKind kind = g.tensor(v).storage;
    if (kind == StorageKind::Intermediate || kind == StorageKind::Constant) g.values[v] = Null{};
  }
}

}  // namespace wgrt::passes
