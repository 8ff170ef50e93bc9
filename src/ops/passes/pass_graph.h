// What the graph passes of ops/passes/ ask of a graph: who reads and writes
// each value, and whether moving a read or write would clash with the
// exporter's memory plan. Shared by the fusion passes (fuse_linear.cpp), the
// rewrites of exporter idioms (canonicalize.cpp) and the move of ExecuTorch's
// linears into the GGUF family (ggml_linears.cpp).
#pragma once

#include <cstddef>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/graph.h"

namespace wgrt::passes {

inline constexpr size_t kNoOp = std::numeric_limits<size_t>::max();
inline constexpr std::string_view kViewOp = "aten.view_copy.default";  // (x, sizes, out)

// Where each value is read: (op, argument) pairs, the op's outputs (its
// last argument, by the IR's convention; the split linears' three) left
// out; which op writes it; and whether it is a graph output.
struct Uses {
  std::vector<std::vector<std::pair<size_t, size_t>>> by_value;
  std::vector<size_t> producer;  // the last op writing the value
  std::vector<bool> is_output;

  // Ops marked in `removed` (rewritten away by an earlier step) are skipped.
  explicit Uses(const Graph& g, const std::vector<bool>& removed = {});
  // Used only as argument `arg` of op `op`, and not a graph output.
  bool only_use(ValueId v, size_t op, size_t arg) const {
    return !is_output[v] && by_value[v].size() == 1 && by_value[v][0] == std::pair{op, arg};
  }
};

// The tensor when `v` is an f32 tensor, else null.
const Tensor* f32_tensor(const Graph& g, ValueId v);

// A constant tensor whose bytes are all there (host layout), else null.
const Tensor* constant_tensor(const Graph& g, ValueId v);

bool is_null(const Graph& g, ValueId v);

// Whether a tensor named by an op strictly after `from` and up to `to` shares
// v's ExecuTorch memory object (its bytes could change before a moved read).
bool memory_object_reused(const Graph& g, ValueId v, size_t from, size_t to);

ValueId add_value(Graph& g, Value v);

// A new constant tensor owning `bytes` (host layout for `dtype` and `dims`).
ValueId add_owned_constant(Graph& g, DType dtype, Dims dims, std::vector<uint8_t> bytes);
// A new constant tensor whose bytes `source` produces when it is uploaded.
ValueId add_source_constant(Graph& g, DType dtype, Dims dims, ConstantSourcePtr source);

// Which values some op names.
std::vector<bool> named_values(const Graph& g);

// Intermediate and constant tensors that an op named before a rewrite
// (`named_before`, from named_values) and none names now become Null, so
// that they get no buffer. Values the rewrite added count as named before.
void drop_unnamed_tensors(Graph& g, const std::vector<bool>& named_before);

}  // namespace wgrt::passes
