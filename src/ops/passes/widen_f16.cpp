#include "ops/passes/widen_f16.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "wgrt/dtype.h"

namespace wgrt {
namespace {

// Replaces every reference to `from` in the ops' arguments (and in the value
// lists they pass) by `to`.
void rename(Graph& graph, ValueId from, ValueId to) {
  for (OpCall& op : graph.ops) std::replace(op.args.begin(), op.args.end(), from, to);
  for (Value& v : graph.values) {
    if (auto* list = std::get_if<ValueList>(&v)) std::replace(list->items.begin(), list->items.end(), from, to);
  }
}

bool named_by_an_op(const Graph& graph, ValueId id) {
  for (const OpCall& op : graph.ops) {
    if (std::find(op.args.begin(), op.args.end(), id) != op.args.end()) return true;
  }
  for (const Value& v : graph.values) {
    const auto* list = std::get_if<ValueList>(&v);
    if (list != nullptr && std::find(list->items.begin(), list->items.end(), id) != list->items.end()) return true;
  }
  return false;
}

std::vector<uint8_t> widen(std::span<const uint8_t> half) {
  std::vector<uint8_t> out(half.size() * 2);
  for (size_t i = 0; i < half.size() / 2; ++i) {
    uint16_t h;
    std::memcpy(&h, half.data() + 2 * i, 2);
    const float f = f16_to_f32(h);
    std::memcpy(out.data() + 4 * i, &f, 4);
  }
  return out;
}

// A new f32 intermediate shaped like `like`, with its own memory.
ValueId add_f32_twin(Graph& graph, const Tensor& like) {
  Tensor t;
  t.dtype = DType::F32;
  t.max_dims = like.max_dims;
  t.cur_dims = like.cur_dims;
  t.storage = StorageKind::Intermediate;
  graph.values.emplace_back(std::move(t));
  return ValueId(graph.values.size() - 1);
}

// Whether every reference to constant `id` is an op argument that reads f16.
bool only_f16_readers(const Graph& graph, ValueId id, const ReadsF16& reads_f16) {
  if (!reads_f16) return false;
  bool named = false;
  for (const OpCall& op : graph.ops) {
    for (size_t i = 0; i < op.args.size(); ++i) {
      if (op.args[i] != id) continue;
      if (!reads_f16(op.name, i)) return false;
      named = true;
    }
  }
  for (const Value& v : graph.values) {
    const auto* list = std::get_if<ValueList>(&v);
    if (list != nullptr && std::find(list->items.begin(), list->items.end(), id) != list->items.end()) return false;
  }
  return named;
}

}  // namespace

WidenStats widen_f16(Graph& graph, const ReadsF16& reads_f16) {
  WidenStats stats;
  const std::set<ValueId> edges = [&] {
    std::set<ValueId> s(graph.inputs.begin(), graph.inputs.end());
    s.insert(graph.outputs.begin(), graph.outputs.end());
    return s;
  }();
  std::vector<ValueId> edge_f16;
  for (ValueId id = 0; id < graph.values.size(); ++id) {
    auto* t = std::get_if<Tensor>(&graph.values[id]);
    if (t == nullptr || t->dtype != DType::F16) continue;
    if (edges.count(id) != 0) {
      edge_f16.push_back(id);
      continue;
    }
    if (t->storage == StorageKind::Constant && only_f16_readers(graph, id, reads_f16)) {
      ++stats.kept;
      continue;
    }
    if (t->storage == StorageKind::Constant) {
      t->owned = widen(t->bytes);
      t->bytes = t->owned;
      ++stats.constants;
    }
    t->dtype = DType::F32;
    ++stats.tensors;
  }

  std::vector<OpCall> first, last;
  for (ValueId id : edge_f16) {
    // An edge tensor no op names (an input returned unchanged, a constant
    // output) stays as it is.
    if (!named_by_an_op(graph, id)) continue;
    const Tensor& t = graph.tensor(id);
    const bool is_input = std::find(graph.inputs.begin(), graph.inputs.end(), id) != graph.inputs.end();
    const bool is_output = std::find(graph.outputs.begin(), graph.outputs.end(), id) != graph.outputs.end();
    if (t.storage == StorageKind::Constant) {
      // A constant the program also returns: the ops read an f32 copy.
      Tensor wide = t;
      wide.owned = widen(t.bytes);
      wide.bytes = wide.owned;
      wide.dtype = DType::F32;
      graph.values.emplace_back(std::move(wide));
      rename(graph, id, ValueId(graph.values.size() - 1));
      ++stats.tensors;
      ++stats.constants;
      continue;
    }
    const ValueId twin = add_f32_twin(graph, t);
    rename(graph, id, twin);
    if (is_input) first.push_back({"wgrt.convert_dtype", {id, twin}});
    if (is_output) last.push_back({"wgrt.convert_dtype", {twin, id}});
  }
  stats.converts = first.size() + last.size();
  if (stats.converts != 0) {
    first.insert(first.end(), std::make_move_iterator(graph.ops.begin()), std::make_move_iterator(graph.ops.end()));
    first.insert(first.end(), std::make_move_iterator(last.begin()), std::make_move_iterator(last.end()));
    graph.ops = std::move(first);
  }
  return stats;
}

WidenStats widen_f16(Graph& graph, const OpRegistry& registry) {
  return widen_f16(graph, [&](std::string_view op, size_t arg) { return registry.reads_f16_constant(op, arg); });
}

}  // namespace wgrt
