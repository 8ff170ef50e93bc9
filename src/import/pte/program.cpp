// The plain-struct side of program.h: dtype names, value kinds, lookups.
#include "import/pte/program.h"

#include "wgrt/error.h"

namespace wgrt::pte {

std::string_view to_string(DType dtype) {
  switch (dtype) {
    case DType::Bool: return "bool";
    case DType::UInt8: return "uint8";
    case DType::Int8: return "int8";
    case DType::Int16: return "int16";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::Float16: return "float16";
    case DType::BFloat16: return "bfloat16";
    case DType::Float32: return "float32";
    case DType::Float64: return "float64";
    case DType::Unknown: break;
  }
  return "unknown";
}

size_t element_size(DType dtype) {
  switch (dtype) {
    case DType::Bool:
    case DType::UInt8:
    case DType::Int8: return 1;
    case DType::Int16:
    case DType::Float16:
    case DType::BFloat16: return 2;
    case DType::Int32:
    case DType::Float32: return 4;
    case DType::Int64:
    case DType::Float64: return 8;
    case DType::Unknown: break;
  }
  return 0;
}

uint64_t VkTensor::numel() const {
  uint64_t n = 1;
  for (uint32_t d : dims) n *= d;
  return n;
}

std::string_view kind_name(const Value& value) {
  static constexpr std::string_view names[] = {"Null", "Int", "Double", "Bool",
                                               "VkTensor", "IntList", "DoubleList", "BoolList",
                                               "ValueList", "String", "SymInt"};
  static_assert(std::size(names) == std::variant_size_v<Value>);
  return names[value.index()];
}

void throw_bad_value(const VkGraph& graph, int64_t id, std::string_view wanted) {
  if (id < 0 || static_cast<uint64_t>(id) >= graph.values.size()) {
    throw Error(ErrorCode::InvalidProgram,
                "value " + std::to_string(id) + " does not exist (graph has " +
                    std::to_string(graph.values.size()) + " values)");
  }
  throw Error(ErrorCode::InvalidProgram,
              "value " + std::to_string(id) + " is " +
                  std::string(kind_name(graph.values[static_cast<size_t>(id)])) + ", expected " +
                  std::string(wanted));
}

bool Method::constant() const {
  if (!inputs.empty() || outputs.empty() || !delegates.empty() || !cpu_kernels.empty()) return false;
  for (const IoValue& o : outputs) {
    if (std::holds_alternative<std::monostate>(o.scalar)) return false;
  }
  return true;
}

const VkGraph& Method::graph() const {
  if (!cpu_kernels.empty()) {
    std::string list;
    for (const auto& k : cpu_kernels) list += (list.empty() ? "" : ", ") + k;
    throw Error(ErrorCode::NotSupported,
                "method '" + name + "' runs kernels outside the Vulkan delegate: " + list);
  }
  if (delegates.size() != 1) {
    throw Error(ErrorCode::NotSupported, "method '" + name + "' has " +
                                             std::to_string(delegates.size()) +
                                             " Vulkan delegates, expected exactly 1");
  }
  return delegates.front().graph;
}

const Method& Program::method(std::string_view name) const& {
  for (const Method& m : methods) {
    if (m.name == name) return m;
  }
  std::string known;
  for (const Method& m : methods) known += (known.empty() ? "'" : ", '") + m.name + "'";
  throw Error(ErrorCode::NotFound,
              "no method '" + std::string(name) + "' in the program (it has " + known + ")");
}

std::vector<std::string> Program::method_names() const {
  std::vector<std::string> names;
  for (const Method& m : methods) names.push_back(m.name);
  return names;
}

}  // namespace wgrt::pte
