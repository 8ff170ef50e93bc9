#include "import/pte/to_graph.h"

#include <algorithm>
#include <map>
#include <set>

#include "wgrt/error.h"

namespace wgrt::pte {

wgrt::DType to_wgrt_dtype(DType dtype, const std::string& where) {
  switch (dtype) {
    case DType::Float32: return wgrt::DType::F32;
    case DType::Float16: return wgrt::DType::F16;
    case DType::Int32: return wgrt::DType::I32;
    case DType::Int64: return wgrt::DType::I64;
    case DType::UInt8: return wgrt::DType::U8;
    case DType::Int8: return wgrt::DType::I8;
    case DType::Bool: return wgrt::DType::Bool;
    default:
      throw Error(ErrorCode::NotSupported, where + ": dtype " + std::string(to_string(dtype)) + " is not supported");
  }
}

Graph to_graph(const Method& method, const std::string& file_name) {
  if (!method.cpu_kernels.empty()) {
    std::string list;
    for (const auto& k : method.cpu_kernels) list += (list.empty() ? "" : ", ") + k;
    throw Error(ErrorCode::NotSupported, file_name + ": method '" + method.name +
                                             "' is not fully delegated to the Vulkan backend; it also calls CPU "
                                             "kernels wgrt does not run: " + list);
  }
  const VkGraph& vk = method.graph();
  const Delegate& delegate = method.delegates.at(0);
  const std::string where = file_name + " method '" + method.name + "'";

  // The delegate call passes Program values (inputs, then outputs) in its own
  // order, which need not be the method's: map each method input and output
  // to the graph value that receives it, so the graph takes them in method order.
  const size_t n_in = vk.input_ids.size(), n_out = vk.output_ids.size();
  if (delegate.call_args.size() != n_in + n_out) {
    throw Error(ErrorCode::InvalidProgram, where + ": the delegate call passes " +
                                               std::to_string(delegate.call_args.size()) + " values, its graph has " +
                                               std::to_string(n_in) + " inputs and " + std::to_string(n_out) + " outputs");
  }
  auto graph_value_for = [&](const IoValue& io, size_t begin, size_t end, const std::vector<uint32_t>& ids,
                             const char* what) {
    for (size_t k = begin; k < end; ++k) {
      if (delegate.call_args[k] == io.value_id) return ids[k - begin];
    }
    throw Error(ErrorCode::NotSupported, where + ": method " + what + " (program value " +
                                             std::to_string(io.value_id) + ") does not go through the delegate");
  };
  auto passed_to_delegate = [&](const IoValue& io) {
    return std::find(delegate.call_args.begin(), delegate.call_args.begin() + long(n_in), io.value_id) !=
           delegate.call_args.begin() + long(n_in);
  };
  std::vector<uint32_t> inputs, outputs;
  // The Program's own dtype of each graph input/output: ExecuTorch's Vulkan
  // export stores 64-bit integer tensors as 32-bit in the graph, while the
  // method still takes and returns int64; wgrt's I64 tensors do exactly that.
  std::map<uint32_t, DType> io_dtype;
  std::set<uint32_t> fixed_inputs;
  // A tensor input the delegate never sees (returned unchanged, or unused)
  // becomes a graph input of its own, after the Vulkan graph's values.
  std::vector<PassThroughTensor> passed_through;
  for (const IoValue& io : method.inputs) {
    if (io.kind == "Tensor" && !passed_to_delegate(io)) {
      inputs.push_back(uint32_t(vk.values.size() + passed_through.size()));
      const std::string iwhere = where + " input (program value " + std::to_string(io.value_id) + ")";
      passed_through.push_back({to_wgrt_dtype(io.dtype, iwhere), Dims(io.sizes.begin(), io.sizes.end())});
      check_tensor_dims(passed_through.back().dims, iwhere);
    } else {
      inputs.push_back(graph_value_for(io, 0, n_in, vk.input_ids, "input"));
    }
    io_dtype[inputs.back()] = io.dtype;
    if (!io.dynamic) fixed_inputs.insert(inputs.back());
  }
  for (const IoValue& io : method.outputs) {
    // An output that is one of the method's inputs: the graph returns that input.
    const auto same = std::find_if(method.inputs.begin(), method.inputs.end(),
                                   [&](const IoValue& in) { return in.value_id == io.value_id; });
    outputs.push_back(same != method.inputs.end() ? inputs[size_t(same - method.inputs.begin())]
                                                  : graph_value_for(io, n_in, n_in + n_out, vk.output_ids, "output"));
    io_dtype[outputs.back()] = io.dtype;
  }

  return vk_to_graph(vk, inputs, outputs, io_dtype, where, fixed_inputs, passed_through);
}

namespace {

// A constant tensor's bytes, whose size its dtype and dims must match.
std::span<const uint8_t> constant_bytes(const VkGraph& vk, int32_t constant_id, wgrt::DType dtype, const Dims& dims,
                                        const std::string& vwhere) {
  if (size_t(constant_id) >= vk.constants.size()) {
    throw Error(ErrorCode::InvalidProgram, vwhere + ": constant_id " + std::to_string(constant_id) +
                                               " but the graph has " + std::to_string(vk.constants.size()) +
                                               " constants");
  }
  const Constant& c = vk.constants[constant_id];
  const auto bytes = c.bytes;
  const uint64_t want = uint64_t(numel(dims)) * host_size(dtype);
  if (bytes.size() != want) {
    // Named data of the wrong size: most often a .ptd written for another program.
    const std::string from = c.named_key.empty() ? ""
                             : " (named data '" + c.named_key + "': is the .ptd this program's?)";
    throw Error(ErrorCode::InvalidProgram, vwhere + ": constant " + std::to_string(constant_id) + from +
                                               " has " + std::to_string(bytes.size()) + " bytes, " +
                                               std::string(dtype_name(dtype)) + dims_string(dims) +
                                               " needs " + std::to_string(want));
  }
  return bytes;
}

// Value `id`, a tensor: a view of its constant's bytes, or a tensor sharing
// its memory object's. An int32 tensor the method takes or returns as int64
// becomes I64 (the Program's dtype, io_dtype).
void add_tensor_value(GraphBuilder& b, const VkGraph& vk, size_t id, const VkTensor& x,
                      const std::map<uint32_t, DType>& io_dtype, const std::string& vwhere) {
  wgrt::DType dtype = to_wgrt_dtype(x.dtype, vwhere);
  if (auto it = io_dtype.find(uint32_t(id)); it != io_dtype.end() && dtype == wgrt::DType::I32 &&
                                                it->second == DType::Int64) {
    dtype = wgrt::DType::I64;
  }
  Dims dims(x.dims.begin(), x.dims.end());
  check_tensor_dims(dims, vwhere);
  if (x.constant_id >= 0) {
    const auto bytes = constant_bytes(vk, x.constant_id, dtype, dims, vwhere);
    b.add_constant_view(dtype, std::move(dims), bytes);
  } else {
    b.add_tensor(dtype, std::move(dims), x.mem_obj_id);
  }
}

void add_value_list(GraphBuilder& b, const VkGraph& vk, const ValueList& x, const std::string& vwhere) {
  std::vector<ValueId> items;
  for (int32_t i : x.items) {
    if (i < 0 || size_t(i) >= vk.values.size()) {
      throw Error(ErrorCode::InvalidProgram, vwhere + ": list refers to missing value " + std::to_string(i));
    }
    items.push_back(ValueId(i));
  }
  b.add_value_list(std::move(items));
}

// Value `id` of the Vulkan graph as the builder's value `id` (values keep their ids).
void add_value(GraphBuilder& b, const VkGraph& vk, size_t id, const std::map<uint32_t, DType>& io_dtype,
               const std::string& where) {
  const std::string vwhere = where + " value " + std::to_string(id);
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Null>) {
          b.add_null();
        } else if constexpr (std::is_same_v<T, Int>) {
          b.add_int(x.value);
        } else if constexpr (std::is_same_v<T, Double>) {
          b.add_double(x.value);
        } else if constexpr (std::is_same_v<T, Bool>) {
          b.add_bool(x.value);
        } else if constexpr (std::is_same_v<T, VkTensor>) {
          add_tensor_value(b, vk, id, x, io_dtype, vwhere);
        } else if constexpr (std::is_same_v<T, IntList>) {
          b.add_int_list(x.items);
        } else if constexpr (std::is_same_v<T, DoubleList>) {
          b.add_double_list(x.items);
        } else if constexpr (std::is_same_v<T, BoolList>) {
          b.add_bool_list(x.items);
        } else if constexpr (std::is_same_v<T, ValueList>) {
          add_value_list(b, vk, x, vwhere);
        } else if constexpr (std::is_same_v<T, String>) {
          b.add_string(x.value);
        } else if constexpr (std::is_same_v<T, SymInt>) {
          b.add_symint(x.value);
        }
      },
      vk.values[id]);
}

}  // namespace

Graph vk_to_graph(const VkGraph& vk, std::span<const uint32_t> inputs, std::span<const uint32_t> outputs,
                  const std::map<uint32_t, DType>& io_dtype, const std::string& where,
                  const std::set<uint32_t>& fixed_inputs, std::span<const PassThroughTensor> passed_through) {
  GraphBuilder b;
  for (size_t id = 0; id < vk.values.size(); ++id) add_value(b, vk, id, io_dtype, where);
  for (const OpCall& op : vk.ops) {
    std::vector<ValueId> args;
    for (int32_t a : op.args) {
      if (a < 0 || size_t(a) >= vk.values.size()) {
        throw Error(ErrorCode::InvalidProgram, where + " op " + op.name + " (node " + std::to_string(op.node_id) +
                                                   ") refers to missing value " + std::to_string(a));
      }
      args.push_back(ValueId(a));
    }
    b.add_op(op.name, std::move(args));
  }
  for (const PassThroughTensor& t : passed_through) b.add_tensor(t.dtype, t.dims);
  for (uint32_t id : inputs) b.mark_input(id, fixed_inputs.count(id) != 0);
  for (uint32_t id : outputs) b.mark_output(id);
  return std::move(b).build();
}

}  // namespace wgrt::pte
