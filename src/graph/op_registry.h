// The operator registry: op name -> how to check its arguments and how to
// lower it to GPU dispatches. Checking runs for the whole graph before any
// GPU memory is allocated, so an unsupported or malformed op costs nothing.
// Ops are registered explicitly (ops/register_ops.cpp), never by static
// initializers.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"
#include "wgrt/tuning.h"

namespace wgrt {

namespace gpu {
class Device;
}
class OpContext;

// Argument checks for one op call. Each failure throws Error(InvalidProgram)
// naming the op (index and name), the argument index, and expected vs got.
class OpArgs {
 public:
  // `device`: the device the graph will load on, when known, so that a check
  // can refuse what the device cannot run before any memory is planned.
  OpArgs(const Graph& graph, const OpCall& call, size_t op_index, const gpu::Device* device = nullptr);

  size_t size() const { return call_.args.size(); }
  // The device the graph is checked for, or null (checked without one:
  // `wgrt inspect`, the importers' early checks).
  const gpu::Device* device() const { return device_; }
  const Graph& graph() const { return graph_; }
  ValueId id(size_t i) const;
  const Value& value(size_t i) const;

  void expect_count(size_t n) const;
  void expect_count_at_least(size_t n) const;
  const Tensor& tensor(size_t i) const;
  const Tensor& tensor(size_t i, std::initializer_list<DType> dtypes) const;
  void expect_rank(size_t i, size_t rank) const;
  void expect_rank_at_least(size_t i, size_t rank) const;
  void expect_same_dtype(size_t i, size_t j) const;
  int64_t integer(size_t i) const;  // Int, or a SymInt's current value
  bool is_null(size_t i) const;
  bool is_symint(size_t i) const;
  // Double, Int or Bool (a PyTorch Scalar may be any: full(True)). A SymInt
  // is NotSupported: the value is read once, at load, and could not follow
  // the run-time size (ops that can, like arange, test is_symint first).
  double number(size_t i) const;
  // A Scalar that must be a whole number (quantization bounds): an Int, or a
  // Double or Bool equal to one.
  int64_t whole_number(size_t i) const;
  bool boolean(size_t i) const;
  // An IntList, or a ValueList of Ints (a SymInt[] the exporter wrote item
  // by item). SymInt items are NotSupported, as for number(); size
  // arguments that follow live SymInts read ops/common/size_list.h instead.
  IntList int_list(size_t i) const;
  const ValueList& value_list(size_t i) const;

  [[noreturn]] void fail(size_t arg, const std::string& what) const;
  [[noreturn]] void fail(const std::string& what) const;
  // Error(NotSupported) with the same prefix: a well-formed argument that
  // asks for something wgrt lacks (a weight format with no kernel).
  [[noreturn]] void unsupported(size_t arg, const std::string& what) const;

 private:
  const Graph& graph_;
  const OpCall& call_;
  size_t op_index_;
  const gpu::Device* device_ = nullptr;
};

// What an op's load-time prepare step may do: read its arguments, and put a
// constant argument into the layout its kernels read (the importer adds
// constants in their file's layout and knows nothing of kernel layouts).
class ConstantPrep {
 public:
  // `device`: the device the graph will load on, or null (no limit, no
  // device-specific layout).
  ConstantPrep(Graph& graph, size_t op_index, const Tuning& tuning, const gpu::Device* device = nullptr);
  // The load's tuning: layouts that depend on a kernel choice (GEMV weights, convolutions).
  const Tuning& tuning() const { return tuning_; }
  // The device's split size (gpu::Device::split_bytes): a constant above it
  // is stored in runs of its first dim (memory_plan.h), so a layout whose
  // first dim cannot be read in parts must not be chosen past it.
  uint64_t max_binding_bytes() const;

  const OpArgs& args() const { return args_; }
  // The constant tensor at argument i; fails via OpArgs if it is anything else.
  const Tensor& constant(size_t i) const;
  // The constant at argument i as a source of rows, to build its prepared
  // form from without reading it now (constant_source.h).
  ConstantSourcePtr constant_rows(size_t i);
  // Gives the constant at argument i new dims and bytes (host layout, its
  // dtype kept); the graph owns the bytes from then on.
  void replace_constant(size_t i, Dims dims, std::vector<uint8_t> bytes);
  // As above, the bytes read when the constant is uploaded.
  void replace_constant(size_t i, Dims dims, ConstantSourcePtr source);

 private:
  Graph& graph_;
  OpArgs args_;
  const Tuning& tuning_;
};

struct OpDef {
  // Throws via OpArgs; must not touch the GPU.
  std::function<void(const OpArgs&)> check;
  // Records dispatches and resize hooks through the context.
  std::function<void(OpContext&)> lower;
  // The output holds exactly the input's bytes (argument 0, contiguous, the
  // shape renamed): the lifetime planner may give both one buffer, and the
  // lowering then records no copy (OpContext::same_buffer).
  bool is_view = false;
  // Optional; runs once at load, after every op is checked and before memory
  // is planned (prepare once, run many). A constant may be shared by several
  // ops (a tied embedding and output head), so it must leave a constant that
  // is already prepared as it is.
  std::function<void(ConstantPrep&)> prepare = nullptr;
  // The element types the op runs with, as `wgrt ops` prints them (e.g.
  // "f32", "f32, i32, i64", "f32 (indices i32/i64)").
  std::string dtypes = "f32";
  // Constant arguments the op reads as f16 when an fp16 program has them so
  // (ops/passes/widen_f16.h keeps such constants f16: half their memory).
  std::vector<size_t> f16_constant_args;
  // Arguments the op can read in parts along a dim other than the first
  // when one is above the device's binding limit (KV caches, by heads): each
  // part holds a range of that dim, laid out as a tensor of its own
  // (MemoryPlan). A state or constant tensor is split so only where every op
  // using it lists it, along one dim; other constants are split by rows.
  struct PartsArg {
    size_t arg;
    size_t dim;
  };
  std::vector<PartsArg> parts_args;
};

// What a load-time pass may depend on: the device's limits.
struct PassLimits {
  uint64_t max_weight_bytes = UINT64_MAX;       // no stacked weight past the split size (gpu::Device::split_bytes)
  uint32_t max_storage_buffers = UINT32_MAX;    // storage buffers a shader stage may bind
};
// A graph rewrite registered by the op families whose ops it makes (fusion):
// returns whether it changed the graph.
using GraphPass = std::function<bool(Graph&, const PassLimits&)>;

class OpRegistry {
 public:
  // Every op wgrt implements. Defined by ops/ (register_ops.cpp), which owns
  // the list; nothing in graph/ calls it, so graph/ links no op.
  static const OpRegistry& builtin();

  void add(std::string name, OpDef def);
  // Sets the dtypes `wgrt ops` lists for an op already added.
  void set_dtypes(std::string_view name, std::string dtypes);
  const OpDef* find(std::string_view name) const;
  std::vector<std::string> names() const;

  // Checks every op of the graph; throws for the first unknown or malformed
  // one (an unknown op's error lists all unknown ops of the graph). With a
  // device, ops also refuse what it cannot run (OpArgs::device()).
  void check_graph(const Graph& graph, const gpu::Device* device = nullptr) const;
  // What check_graph would refuse, every instance: the unknown operators
  // (one message) and each op whose check fails. Empty
  // when the graph loads as far as its ops go (`wgrt inspect`).
  std::vector<std::string> blockers(const Graph& graph) const;
  // Passes run in the order added, after every op is checked; the graph is
  // checked again when one changed it (ExecutableGraph::load).
  void add_pass(std::string name, GraphPass pass);
  // Runs every pass; true when any changed the graph.
  bool run_passes(Graph& graph, const PassLimits& limits) const;
  // For each value, the dim along which a state or constant tensor may be
  // stored in parts (OpDef::parts_args), or -1: some op using it does not
  // list it, or two disagree.
  std::vector<int> parts_dims(const Graph& graph) const;
  // Whether `op` reads argument `arg` as f16 when it is an f16 constant.
  bool reads_f16_constant(std::string_view op, size_t arg) const;
  // Runs every op's prepare step in op order; call after check_graph.
  void prepare_constants(Graph& graph, const Tuning& tuning, const gpu::Device* device = nullptr) const;

 private:
  void check_op(const Graph& graph, size_t i, const gpu::Device* device = nullptr) const;  // a known op's check
  // The message naming every operator the registry lacks, if any.
  std::optional<std::string> unknown_ops(const Graph& graph) const;
  std::map<std::string, OpDef, std::less<>> ops_;
  std::vector<std::pair<std::string, GraphPass>> passes_;
};

}  // namespace wgrt
