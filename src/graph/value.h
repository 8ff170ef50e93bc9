// The values of the graph IR: tensors, scalars, lists, strings and symbolic
// ints, each addressed by a ValueId (its index in Graph::values).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "core/dims.h"
#include "graph/constant_source.h"
#include "wgrt/dtype.h"

namespace wgrt {

using ValueId = uint32_t;
// State: a mutable tensor kept across runs (a KV cache): its own buffer,
// zero-filled at load, never shared.
enum class StorageKind { Constant, Input, Output, Intermediate, State };
std::string_view storage_name(StorageKind k);

struct Tensor {
  DType dtype = DType::F32;
  // Fixed at build: buffers are allocated for this shape.
  Dims max_dims;
  // The live shape; equal to max_dims until a smaller input shape arrives.
  Dims cur_dims;
  StorageKind storage = StorageKind::Intermediate;
  // An input the program was exported with at one shape (ExecuTorch's STATIC
  // shape dynamism): a smaller live shape may still run, but when an
  // operator refuses it the error names this input and its fixed shape.
  bool fixed_shape = false;
  // Intermediates with the same id >= 0 share one buffer (seed 000).
  int32_t mem_obj_id = -1;
  // Constants: their bytes in host layout, in one of three forms: `owned`
  // (the graph holds them, `bytes` points at them), `bytes` alone (memory
  // the importer keeps alive), or `source` (read on demand a run of rows at
  // a time, as weights are: `bytes` is then empty; constant_source.h).
  std::span<const uint8_t> bytes;
  std::vector<uint8_t> owned;
  ConstantSourcePtr source;

  uint64_t constant_size() const { return source ? source->size() : bytes.size(); }

  uint64_t max_device_bytes() const { return uint64_t(numel(max_dims)) * device_size(dtype); }
};

struct Null {};
struct SymInt {
  int64_t value = 0;
};
using IntList = std::vector<int64_t>;
using DoubleList = std::vector<double>;
using BoolList = std::vector<bool>;
// A list of other values (multi-output ops, shapes holding SymInts).
struct ValueList {
  std::vector<ValueId> items;
};

using Value = std::variant<Null, Tensor, int64_t, double, bool, IntList, DoubleList, BoolList, ValueList,
                           std::string, SymInt>;

// "tensor", "int", "double", ... for error messages.
std::string_view value_kind_name(const Value& v);

// A constant's bytes as a source of rows (its first dim; a scalar is one
// row), whichever form it holds them in: a view of `bytes` stays valid as
// long as the tensor keeps them.
ConstantSourcePtr constant_rows(const Tensor& t);
// As constant_rows, valid on its own: bytes the tensor owned move into the
// source (which the tensor then holds), for a constant built from others.
ConstantSourcePtr shared_constant_rows(Tensor& t);

}  // namespace wgrt
