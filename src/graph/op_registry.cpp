#include "graph/op_registry.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <sstream>

#include "gpu/device.h"
#include "wgrt/error.h"

namespace wgrt {

OpArgs::OpArgs(const Graph& graph, const OpCall& call, size_t op_index, const gpu::Device* device)
    : graph_(graph), call_(call), op_index_(op_index), device_(device) {}

void OpArgs::fail(const std::string& what) const {
  throw Error(ErrorCode::InvalidProgram, "op " + std::to_string(op_index_) + " (" + call_.name + "): " + what);
}

void OpArgs::fail(size_t arg, const std::string& what) const {
  fail("argument " + std::to_string(arg) + ": " + what);
}

void OpArgs::unsupported(size_t arg, const std::string& what) const {
  throw Error(ErrorCode::NotSupported, "op " + std::to_string(op_index_) + " (" + call_.name + "): argument " +
                                           std::to_string(arg) + ": " + what);
}

ValueId OpArgs::id(size_t i) const {
  if (i >= call_.args.size()) {
    fail("expected at least " + std::to_string(i + 1) + " arguments, got " + std::to_string(call_.args.size()));
  }
  return call_.args[i];
}

const Value& OpArgs::value(size_t i) const { return graph_.values.at(id(i)); }

void OpArgs::expect_count(size_t n) const {
  if (call_.args.size() != n) {
    fail("expected " + std::to_string(n) + " arguments, got " + std::to_string(call_.args.size()));
  }
}

void OpArgs::expect_count_at_least(size_t n) const {
  if (call_.args.size() < n) {
    fail("expected at least " + std::to_string(n) + " arguments, got " + std::to_string(call_.args.size()));
  }
}

const Tensor& OpArgs::tensor(size_t i) const {
  const Value& v = value(i);
  if (const auto* t = std::get_if<Tensor>(&v)) return *t;
  fail(i, "expected a tensor, got " + std::string(value_kind_name(v)));
}

const Tensor& OpArgs::tensor(size_t i, std::initializer_list<DType> dtypes) const {
  const Tensor& t = tensor(i);
  std::string want;
  for (DType d : dtypes) {
    if (t.dtype == d) return t;
    want += (want.empty() ? "" : " or ") + std::string(dtype_name(d));
  }
  fail(i, "expected dtype " + want + ", got " + std::string(dtype_name(t.dtype)));
}

void OpArgs::expect_rank(size_t i, size_t rank) const {
  const Tensor& t = tensor(i);
  if (t.max_dims.size() != rank) {
    fail(i, "expected rank " + std::to_string(rank) + ", got rank " + std::to_string(t.max_dims.size()) + " " +
                dims_string(t.max_dims));
  }
}

void OpArgs::expect_rank_at_least(size_t i, size_t rank) const {
  const Tensor& t = tensor(i);
  if (t.max_dims.size() < rank) {
    fail(i, "expected rank >= " + std::to_string(rank) + ", got rank " + std::to_string(t.max_dims.size()));
  }
}

void OpArgs::expect_same_dtype(size_t i, size_t j) const {
  if (tensor(i).dtype != tensor(j).dtype) {
    fail(j, "expected dtype " + std::string(dtype_name(tensor(i).dtype)) + " (as argument " + std::to_string(i) +
                "), got " + std::string(dtype_name(tensor(j).dtype)));
  }
}

int64_t OpArgs::integer(size_t i) const {
  const Value& v = value(i);
  if (const auto* x = std::get_if<int64_t>(&v)) return *x;
  if (const auto* s = std::get_if<SymInt>(&v)) return s->value;
  fail(i, "expected an int, got " + std::string(value_kind_name(v)));
}

bool OpArgs::is_null(size_t i) const { return std::holds_alternative<Null>(value(i)); }
bool OpArgs::is_symint(size_t i) const { return std::holds_alternative<SymInt>(value(i)); }

double OpArgs::number(size_t i) const {
  const Value& v = value(i);
  if (const auto* x = std::get_if<double>(&v)) return *x;
  if (const auto* x = std::get_if<int64_t>(&v)) return double(*x);
  // A Scalar argument may be a bool: the causal and padding masks of
  // scaled_dot_product_attention and transformers come from full(..., True).
  if (const auto* x = std::get_if<bool>(&v)) return *x ? 1.0 : 0.0;
  if (std::holds_alternative<SymInt>(v)) {
    unsupported(i, "a symbolic number (symint): this argument is read once at load and cannot follow a run-time size");
  }
  fail(i, "expected a number, got " + std::string(value_kind_name(v)));
}

int64_t OpArgs::whole_number(size_t i) const {
  if (const auto* x = std::get_if<int64_t>(&value(i))) return *x;
  const double n = number(i);
  if (!(std::abs(n) < 9.0e15) || n != std::trunc(n)) {
    std::ostringstream text;
    text << "expected a whole number, got " << n;
    fail(i, text.str());
  }
  return static_cast<int64_t>(n);
}

bool OpArgs::boolean(size_t i) const {
  const Value& v = value(i);
  if (const auto* x = std::get_if<bool>(&v)) return *x;
  // Exporters de-duplicate scalars by value: a false may arrive as Int(0).
  if (const auto* x = std::get_if<int64_t>(&v)) return *x != 0;
  fail(i, "expected a bool, got " + std::string(value_kind_name(v)));
}

IntList OpArgs::int_list(size_t i) const {
  const Value& v = value(i);
  if (const auto* x = std::get_if<IntList>(&v)) return *x;
  if (const auto* list = std::get_if<ValueList>(&v)) {
    IntList out;
    for (size_t k = 0; k < list->items.size(); ++k) {
      const ValueId id = list->items[k];
      const Value* item = id < graph_.values.size() ? &graph_.values[id] : nullptr;
      if (item != nullptr && std::holds_alternative<int64_t>(*item)) {
        out.push_back(std::get<int64_t>(*item));
      } else if (item != nullptr && std::holds_alternative<SymInt>(*item)) {
        unsupported(i, "item " + std::to_string(k) + " is a symbolic int (symint): this list is read once at load "
                       "and cannot follow a run-time size");
      } else {
        fail(i, "item " + std::to_string(k) + ": expected an int, got " +
                    (item ? std::string(value_kind_name(*item)) : "value " + std::to_string(id) + " (no such value)"));
      }
    }
    return out;
  }
  fail(i, "expected an int list, got " + std::string(value_kind_name(v)));
}

const ValueList& OpArgs::value_list(size_t i) const {
  const Value& v = value(i);
  if (const auto* x = std::get_if<ValueList>(&v)) return *x;
  fail(i, "expected a value list, got " + std::string(value_kind_name(v)));
}

ConstantPrep::ConstantPrep(Graph& graph, size_t op_index, const Tuning& tuning, const gpu::Device* device)
    : graph_(graph), args_(graph, graph.ops[op_index], op_index, device), tuning_(tuning) {}

uint64_t ConstantPrep::max_binding_bytes() const {
  return args_.device() != nullptr ? args_.device()->split_bytes() : UINT64_MAX;
}

const Tensor& ConstantPrep::constant(size_t i) const {
  const Tensor& t = args_.tensor(i);
  if (t.storage != StorageKind::Constant) {
    args_.fail(i, "expected a constant, got a " + std::string(storage_name(t.storage)) + " tensor");
  }
  return t;
}

void ConstantPrep::replace_constant(size_t i, Dims dims, std::vector<uint8_t> bytes) {
  constant(i);
  Tensor& t = graph_.tensor(args_.id(i));
  if (bytes.size() != uint64_t(numel(dims)) * host_size(t.dtype)) {
    args_.fail(i, "prepared constant " + dims_string(dims) + " has " + std::to_string(bytes.size()) + " bytes");
  }
  t.source = nullptr;
  t.owned = std::move(bytes);
  t.bytes = t.owned;
  t.max_dims = dims;
  t.cur_dims = std::move(dims);
}

ConstantSourcePtr ConstantPrep::constant_rows(size_t i) {
  constant(i);
  return shared_constant_rows(graph_.tensor(args_.id(i)));
}

void ConstantPrep::replace_constant(size_t i, Dims dims, ConstantSourcePtr source) {
  constant(i);
  Tensor& t = graph_.tensor(args_.id(i));
  if (source->size() != uint64_t(numel(dims)) * host_size(t.dtype)) {
    args_.fail(i, "prepared constant " + dims_string(dims) + " has " + std::to_string(source->size()) + " bytes");
  }
  t.source = std::move(source);
  t.owned.clear();
  t.bytes = {};
  t.max_dims = dims;
  t.cur_dims = std::move(dims);
}

void OpRegistry::add(std::string name, OpDef def) { ops_[std::move(name)] = std::move(def); }

void OpRegistry::set_dtypes(std::string_view name, std::string dtypes) {
  auto it = ops_.find(name);
  if (it == ops_.end()) throw Error(ErrorCode::Internal, "set_dtypes: op " + std::string(name) + " is not registered");
  it->second.dtypes = std::move(dtypes);
}

const OpDef* OpRegistry::find(std::string_view name) const {
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : &it->second;
}

std::vector<std::string> OpRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, def] : ops_) out.push_back(name);
  return out;
}

void OpRegistry::check_graph(const Graph& graph, const gpu::Device* device) const {
  if (auto unknown = unknown_ops(graph)) throw Error(ErrorCode::NotSupported, *unknown);
  for (size_t i = 0; i < graph.ops.size(); ++i) check_op(graph, i, device);
}

std::optional<std::string> OpRegistry::unknown_ops(const Graph& graph) const {
  std::set<std::string> unknown;
  size_t first_unknown = 0;
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    if (find(graph.ops[i].name) == nullptr) {
      if (unknown.empty()) first_unknown = i;
      unknown.insert(graph.ops[i].name);
    }
  }
  if (unknown.empty()) return std::nullopt;
  std::string list;
  for (const auto& n : unknown) list += (list.empty() ? "" : ", ") + n;
  return "unsupported operator(s): " + list + " (first at op " + std::to_string(first_unknown) + ")";
}

void OpRegistry::check_op(const Graph& graph, size_t i, const gpu::Device* device) const {
  const OpDef* def = find(graph.ops[i].name);
  if (def->check) def->check(OpArgs(graph, graph.ops[i], i, device));
}

void OpRegistry::add_pass(std::string name, GraphPass pass) { passes_.emplace_back(std::move(name), std::move(pass)); }

bool OpRegistry::run_passes(Graph& graph, const PassLimits& limits) const {
  bool changed = false;
  for (const auto& [name, pass] : passes_) changed = pass(graph, limits) || changed;
  return changed;
}

std::vector<int> OpRegistry::parts_dims(const Graph& graph) const {
  constexpr int kUnseen = -2;
  std::vector<int> dims(graph.values.size(), kUnseen);
  for (const OpCall& op : graph.ops) {
    const OpDef* def = find(op.name);
    for (size_t i = 0; i < op.args.size(); ++i) {
      const ValueId id = op.args[i];
      if (!graph.is_tensor(id)) continue;
      const StorageKind storage = graph.tensor(id).storage;
      if (storage != StorageKind::State && storage != StorageKind::Constant) continue;
      int dim = -1;
      for (const auto& a : def != nullptr ? def->parts_args : std::vector<OpDef::PartsArg>{}) {
        if (a.arg == i) dim = int(a.dim);
      }
      dims[id] = dims[id] == kUnseen || dims[id] == dim ? dim : -1;
    }
  }
  for (int& d : dims) d = d == kUnseen ? -1 : d;
  return dims;
}

bool OpRegistry::reads_f16_constant(std::string_view op, size_t arg) const {
  const OpDef* def = find(op);
  return def != nullptr &&
         std::find(def->f16_constant_args.begin(), def->f16_constant_args.end(), arg) != def->f16_constant_args.end();
}

std::vector<std::string> OpRegistry::blockers(const Graph& graph) const {
  std::vector<std::string> out;
  if (auto unknown = unknown_ops(graph)) out.push_back(std::move(*unknown));
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    if (find(graph.ops[i].name) == nullptr) continue;
    try {
      check_op(graph, i);
    } catch (const Error& e) {
      out.push_back(e.what());
    }
  }
  return out;
}

void OpRegistry::prepare_constants(Graph& graph, const Tuning& tuning, const gpu::Device* device) const {
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const OpDef* def = find(graph.ops[i].name);
    if (def == nullptr || !def->prepare) continue;
    ConstantPrep prep(graph, i, tuning, device);
    def->prepare(prep);
  }
}

}  // namespace wgrt
