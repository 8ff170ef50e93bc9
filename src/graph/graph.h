// A graph: values, operator calls in execution order, and which values are
// the inputs and outputs. Importers (pte, gguf) and tests build one with
// GraphBuilder; nothing here touches the GPU.
#pragma once

#include <string>
#include <vector>

#include "graph/value.h"

namespace wgrt {

struct OpCall {
  std::string name;             // the name the op is registered under (OpRegistry)
  std::vector<ValueId> args;    // schema order; outputs last
};

// Move-only: constant tensors may point into their own `owned` bytes.
struct Graph {
  Graph() = default;
  Graph(Graph&&) = default;
  Graph& operator=(Graph&&) = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  std::vector<Value> values;
  std::vector<OpCall> ops;
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;

  const Tensor& tensor(ValueId id) const;
  Tensor& tensor(ValueId id);
  bool is_tensor(ValueId id) const;
};

class GraphBuilder {
 public:
  GraphBuilder() = default;
  // Goes on building `graph` (a client adding ops to an importer's graph).
  explicit GraphBuilder(Graph graph) : graph_(std::move(graph)) {}
  ValueId add_tensor(DType dtype, Dims max_dims, int32_t mem_obj_id = -1);
  // The builder copies the bytes (host layout, numel * host_size(dtype)).
  ValueId add_constant(DType dtype, Dims dims, std::span<const uint8_t> bytes);
  ValueId add_constant(DType dtype, Dims dims, std::vector<uint8_t>&& bytes);
  // The bytes stay owned by the caller, who keeps them alive as long as the
  // graph (the .pte importer pointing into its mapped file).
  ValueId add_constant_view(DType dtype, Dims dims, std::span<const uint8_t> bytes);
  // Bytes read on demand (a weight streamed from its file to the GPU).
  ValueId add_constant_source(DType dtype, Dims dims, ConstantSourcePtr source);
  // A mutable tensor that keeps its contents between runs, starting at zero.
  ValueId add_state(DType dtype, Dims dims);
  ValueId add_null();
  ValueId add_int(int64_t v);
  ValueId add_double(double v);
  ValueId add_bool(bool v);
  ValueId add_int_list(IntList v);
  ValueId add_double_list(DoubleList v);
  ValueId add_bool_list(BoolList v);
  ValueId add_value_list(std::vector<ValueId> items);
  ValueId add_string(std::string v);
  ValueId add_symint(int64_t initial);
  ValueId add_value(Value v);

  void add_op(std::string name, std::vector<ValueId> args);
  // Marks a tensor as a graph input / output (its storage kind changes).
  // `fixed_shape`: the input was exported at its one shape (value.h).
  void mark_input(ValueId id, bool fixed_shape = false);
  void mark_output(ValueId id);

  size_t value_count() const { return graph_.values.size(); }
  const Tensor& tensor(ValueId id) const { return graph_.tensor(id); }
  // Throws Error(InvalidProgram) if an op refers to a missing value, an
  // input or output is not a tensor, or a constant's byte size is wrong.
  Graph build() &&;

 private:
  Graph graph_;
};

}  // namespace wgrt
