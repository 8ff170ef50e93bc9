#include "tensor_io.h"

#include <cstring>

#include <executorch/runtime/core/exec_aten/util/tensor_util.h>

#include "graph/memory_plan.h"
#include "wgrt/error.h"

namespace wgrt::et_backend {
namespace {

using executorch::aten::ScalarType;
using executorch::runtime::EValue;

// ExecuTorch's dtype holding exactly what a graph tensor of `dtype` holds.
ScalarType same_type(DType dtype) {
  switch (dtype) {
    case DType::F32: return ScalarType::Float;
    case DType::F16: return ScalarType::Half;
    case DType::I32: return ScalarType::Int;
    case DType::I64: return ScalarType::Long;
    case DType::U8: return ScalarType::Byte;
    case DType::I8: return ScalarType::Char;
    case DType::Bool: return ScalarType::Bool;
  }
  return ScalarType::Undefined;
}

// The Vulkan export stores int64 program tensors as int32 in the graph; the
// call still passes int64 tensors, which are narrowed (checked) and widened.
bool narrowed(DType graph, ScalarType given) { return graph == DType::I32 && given == ScalarType::Long; }

std::string type_name(ScalarType t) { return executorch::runtime::toString(t); }

std::string kind_of(const EValue& v) {
  if (v.isTensor()) return "tensor of " + type_name(v.toTensor().scalar_type());
  if (v.isInt()) return "int";
  if (v.isDouble()) return "double";
  if (v.isBool()) return "bool";
  if (v.isNone()) return "None";
  return "a non-tensor value";
}

Dims dims_of(const executorch::aten::Tensor& t) {
  const auto sizes = t.sizes();
  return Dims(sizes.begin(), sizes.end());
}

[[noreturn]] void bad_arg(const std::string& where, size_t index, const std::string& what) {
  throw Error(ErrorCode::InvalidArgument, where + ": argument " + std::to_string(index) + " " + what);
}

void check_tensor(const std::string& where, size_t index, const EValue& v, DType want) {
  if (!v.isTensor()) bad_arg(where, index, "is " + kind_of(v) + ", expected a tensor of " + std::string(dtype_name(want)));
  const auto t = v.toTensor();
  if (t.scalar_type() != same_type(want) && !narrowed(want, t.scalar_type())) {
    bad_arg(where, index, "is a tensor of " + type_name(t.scalar_type()) + ", expected " +
                              type_name(same_type(want)) + (want == DType::I32 ? " or Long" : ""));
  }
  if (!executorch::runtime::is_contiguous_dim_order(t.dim_order().data(), t.dim_order().size())) {
    bad_arg(where, index, "is not contiguous (dim order other than 0..n-1)");
  }
}

}  // namespace

void gather_inputs(const ExecutableGraph& graph, std::span<EValue*> args, CallInputs& in, const std::string& where) {
  const Graph& g = graph.graph();
  const size_t n = g.inputs.size();
  if (args.size() != n + g.outputs.size()) {
    throw Error(ErrorCode::InvalidArgument, where + ": the delegate call passes " + std::to_string(args.size()) +
                                                " values, the graph takes " + std::to_string(n) + " inputs and " +
                                                std::to_string(g.outputs.size()) + " outputs");
  }
  in.views.clear();
  in.scratch.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const EValue& v = *args[i];
    if (!g.is_tensor(g.inputs[i])) {  // a symbolic int: one int64 element
      if (!v.isInt()) bad_arg(where, i, "is " + kind_of(v) + ", expected an int (a symbolic size)");
      auto& bytes = in.scratch[i];
      const int64_t value = v.toInt();
      bytes.resize(8);
      std::memcpy(bytes.data(), &value, 8);
      in.views.push_back({DType::I64, {1}, bytes});
      continue;
    }
    const DType want = g.tensor(g.inputs[i]).dtype;
    check_tensor(where, i, v, want);
    const auto t = v.toTensor();
    const std::span<const uint8_t> live(static_cast<const uint8_t*>(t.const_data_ptr()), t.nbytes());
    if (narrowed(want, t.scalar_type())) {
      in.scratch[i] = to_device_layout(DType::I64, live, where + ": argument " + std::to_string(i));
      in.views.push_back({want, dims_of(t), in.scratch[i]});
    } else {
      in.views.push_back({want, dims_of(t), live});
    }
  }
}

void check_outputs(const ExecutableGraph& graph, std::span<EValue*> args, const std::string& where) {
  const Graph& g = graph.graph();
  const size_t first = g.inputs.size();
  for (size_t o = 0; o < g.outputs.size(); ++o) {
    check_tensor(where, first + o, *args[first + o], g.tensor(g.outputs[o]).dtype);
  }
}

void scatter_outputs(const ExecutableGraph& graph, std::span<const HostTensor> outputs, std::span<EValue*> args,
                     const std::string& where) {
  const size_t first = graph.input_count();
  for (size_t o = 0; o < outputs.size(); ++o) {
    const HostTensor& out = outputs[o];
    auto t = args[first + o]->toTensor();
    std::vector<executorch::aten::SizesType> sizes(out.dims.begin(), out.dims.end());
    if (executorch::runtime::resize_tensor(t, {sizes.data(), sizes.size()}) != executorch::runtime::Error::Ok) {
      bad_arg(where, first + o, "cannot be resized to the output's live shape " + dims_string(out.dims) +
                                    " (its bound is smaller, or its shape is static)");
    }
    if (narrowed(out.dtype, t.scalar_type())) {
      const auto wide = to_host_layout(DType::I64, out.data);
      std::memcpy(t.mutable_data_ptr(), wide.data(), wide.size());
    } else {
      std::memcpy(t.mutable_data_ptr(), out.data.data(), out.data.size());
    }
  }
}

}  // namespace wgrt::et_backend
