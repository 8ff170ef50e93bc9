#include "graph/graph.h"

#include "wgrt/error.h"

namespace wgrt {

std::string_view storage_name(StorageKind k) {
  switch (k) {
    case StorageKind::Constant: return "constant";
    case StorageKind::Input: return "input";
    case StorageKind::Output: return "output";
    case StorageKind::Intermediate: return "intermediate";
    case StorageKind::State: return "state";
  }
  return "?";
}

std::string_view value_kind_name(const Value& v) {
  static constexpr std::string_view kNames[] = {"null", "tensor",  "int",        "double", "bool",  "int list",
                                                "double list", "bool list", "value list", "string", "symint"};
  return kNames[v.index()];
}

ConstantSourcePtr constant_rows(const Tensor& t) {
  if (t.source) return t.source;
  const uint64_t rows = t.max_dims.empty() ? 1 : uint64_t(t.max_dims[0]);
  return viewed_rows(t.bytes, rows);
}

ConstantSourcePtr shared_constant_rows(Tensor& t) {
  if (!t.source && !t.owned.empty()) {
    t.source = owned_rows(std::move(t.owned), t.max_dims.empty() ? 1 : uint64_t(t.max_dims[0]));
    t.owned.clear();
    t.bytes = {};
  }
  return constant_rows(t);
}

const Tensor& Graph::tensor(ValueId id) const { return std::get<Tensor>(values.at(id)); }
Tensor& Graph::tensor(ValueId id) { return std::get<Tensor>(values.at(id)); }
bool Graph::is_tensor(ValueId id) const { return id < values.size() && std::holds_alternative<Tensor>(values[id]); }

ValueId GraphBuilder::add_value(Value v) {
  graph_.values.push_back(std::move(v));
  return static_cast<ValueId>(graph_.values.size() - 1);
}

ValueId GraphBuilder::add_tensor(DType dtype, Dims max_dims, int32_t mem_obj_id) {
  check_tensor_dims(max_dims, "tensor " + std::to_string(graph_.values.size()));
  Tensor t;
  t.dtype = dtype;
  t.cur_dims = max_dims;
  t.max_dims = std::move(max_dims);
  t.mem_obj_id = mem_obj_id;
  return add_value(std::move(t));
}

ValueId GraphBuilder::add_constant(DType dtype, Dims dims, std::span<const uint8_t> bytes) {
  const ValueId id = add_constant_view(dtype, std::move(dims), bytes);
  Tensor& t = graph_.tensor(id);
  t.owned.assign(bytes.begin(), bytes.end());
  t.bytes = t.owned;
  return id;
}

ValueId GraphBuilder::add_constant(DType dtype, Dims dims, std::vector<uint8_t>&& bytes) {
  const ValueId id = add_constant_view(dtype, std::move(dims), {});
  Tensor& t = graph_.tensor(id);
  t.owned = std::move(bytes);
  t.bytes = t.owned;
  return id;
}

ValueId GraphBuilder::add_constant_view(DType dtype, Dims dims, std::span<const uint8_t> bytes) {
  const ValueId id = add_tensor(dtype, std::move(dims));
  Tensor& t = graph_.tensor(id);
  t.storage = StorageKind::Constant;
  t.bytes = bytes;
  return id;
}

ValueId GraphBuilder::add_constant_source(DType dtype, Dims dims, ConstantSourcePtr source) {
  const ValueId id = add_constant_view(dtype, std::move(dims), {});
  graph_.tensor(id).source = std::move(source);
  return id;
}

ValueId GraphBuilder::add_state(DType dtype, Dims dims) {
  const ValueId id = add_tensor(dtype, std::move(dims));
  graph_.tensor(id).storage = StorageKind::State;
  return id;
}

ValueId GraphBuilder::add_null() { return add_value(Null{}); }
ValueId GraphBuilder::add_int(int64_t v) { return add_value(v); }
ValueId GraphBuilder::add_double(double v) { return add_value(v); }
ValueId GraphBuilder::add_bool(bool v) { return add_value(v); }
ValueId GraphBuilder::add_int_list(IntList v) { return add_value(std::move(v)); }
ValueId GraphBuilder::add_double_list(DoubleList v) { return add_value(std::move(v)); }
ValueId GraphBuilder::add_bool_list(BoolList v) { return add_value(std::move(v)); }
ValueId GraphBuilder::add_value_list(std::vector<ValueId> items) { return add_value(ValueList{std::move(items)}); }
ValueId GraphBuilder::add_string(std::string v) { return add_value(std::move(v)); }
ValueId GraphBuilder::add_symint(int64_t initial) { return add_value(SymInt{initial}); }

void GraphBuilder::add_op(std::string name, std::vector<ValueId> args) {
  graph_.ops.push_back({std::move(name), std::move(args)});
}

void GraphBuilder::mark_input(ValueId id, bool fixed_shape) {
  if (!graph_.is_tensor(id)) {
    // Non-tensor inputs (a SymInt input_pos) are allowed; only tensors change storage.
    if (id >= graph_.values.size()) {
      throw Error(ErrorCode::InvalidProgram, "input refers to missing value " + std::to_string(id));
    }
    graph_.inputs.push_back(id);
    return;
  }
  graph_.tensor(id).storage = StorageKind::Input;
  graph_.tensor(id).fixed_shape = fixed_shape;
  graph_.inputs.push_back(id);
}

void GraphBuilder::mark_output(ValueId id) {
  if (!graph_.is_tensor(id)) {
    throw Error(ErrorCode::InvalidProgram, "output " + std::to_string(graph_.outputs.size()) + " (value " +
                                               std::to_string(id) + ") is not a tensor");
  }
  Tensor& t = graph_.tensor(id);
  if (t.storage == StorageKind::Intermediate) t.storage = StorageKind::Output;
  graph_.outputs.push_back(id);
}

Graph GraphBuilder::build() && {
  const size_t n = graph_.values.size();
  for (size_t i = 0; i < graph_.ops.size(); ++i) {
    const OpCall& op = graph_.ops[i];
    for (size_t a = 0; a < op.args.size(); ++a) {
      if (op.args[a] >= n) {
        throw Error(ErrorCode::InvalidProgram, "op " + std::to_string(i) + " (" + op.name + ") argument " +
                                                   std::to_string(a) + " refers to value " +
                                                   std::to_string(op.args[a]) + ", but the graph has " +
                                                   std::to_string(n) + " values");
      }
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const auto* t = std::get_if<Tensor>(&graph_.values[i]);
    // A planner never needs more shared objects than the graph has values; a
    // larger id would size the host's table of them by a number from the file.
    if (t != nullptr && t->mem_obj_id >= 0 && size_t(t->mem_obj_id) >= n) {
      throw Error(ErrorCode::InvalidProgram, "tensor value " + std::to_string(i) + ": mem_obj_id " +
                                                 std::to_string(t->mem_obj_id) + " is out of range: a graph of " +
                                                 std::to_string(n) + " values has fewer shared objects");
    }
    if (t == nullptr || t->storage != StorageKind::Constant) continue;
    const uint64_t want = uint64_t(numel(t->max_dims)) * host_size(t->dtype);
    if (t->constant_size() != want) {
      throw Error(ErrorCode::InvalidProgram, "constant value " + std::to_string(i) + " " +
                                                 std::string(dtype_name(t->dtype)) + dims_string(t->max_dims) +
                                                 " needs " + std::to_string(want) + " bytes, got " +
                                                 std::to_string(t->constant_size()));
    }
  }
  return std::move(graph_);
}

}  // namespace wgrt
