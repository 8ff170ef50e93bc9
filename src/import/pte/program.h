// What wgrt reads from an ExecuTorch .pte program lowered with
// VulkanPartitioner (and the .ptd files holding its external constants), as
// plain C++ values: no flatbuffers types leave src/import/pte/. Parsing only;
// nothing here touches the GPU.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace wgrt::pte {

class FileBytes;

// Element types of both the Program (ScalarType) and the Vulkan graph
// (VkDataType), mapped onto one enum.
enum class DType : uint8_t {
  Bool, UInt8, Int8, Int16, Int32, Int64, Float16, BFloat16, Float32, Float64, Unknown
};
std::string_view to_string(DType dtype);
size_t element_size(DType dtype);  // 0 for Unknown

// --- the VK00 graph: one variant alternative per GraphTypes member -----------
struct Null {};
struct Int { int64_t value = 0; };
struct Double { double value = 0; };
struct Bool { bool value = false; };
struct VkTensor {
  DType dtype = DType::Unknown;
  std::vector<uint32_t> dims;  // the maximum shape
  int32_t constant_id = -1;    // index into VkGraph::constants; < 0: none
  int32_t mem_obj_id = -1;     // tensors sharing an id share memory; < 0: own memory
  uint64_t numel() const;
};
struct IntList { std::vector<int64_t> items; };
struct DoubleList { std::vector<double> items; };
struct BoolList { std::vector<bool> items; };
struct ValueList { std::vector<int32_t> items; };  // value ids
struct String { std::string value; };
struct SymInt { int32_t value = 0; };  // the initial value; ops update it

using Value = std::variant<Null, Int, Double, Bool, VkTensor, IntList, DoubleList, BoolList,
                           ValueList, String, SymInt>;
std::string_view kind_name(const Value& value);  // "Null", "Int", ..., "SymInt"

struct OpCall {
  uint32_t node_id = 0;
  std::string name;           // e.g. "aten.add.Tensor", "et_vk.rms_norm.default"
  std::vector<int32_t> args;  // value ids: schema args in order, outputs last
};

struct Constant {
  std::span<const uint8_t> bytes;  // kept alive by the Program
  std::string named_key;           // empty when stored inside the delegate blob
};

struct VkGraph {
  std::string version;
  std::vector<Value> values;
  std::vector<OpCall> ops;  // in execution order
  std::vector<uint32_t> input_ids;
  std::vector<uint32_t> output_ids;
  std::vector<Constant> constants;

  // The value at id as a T, or Error(InvalidProgram) naming both kinds.
  template <typename T>
  const T& get(int64_t id) const;
};

// One DelegateCall instruction and the graph it runs.
struct Delegate {
  std::string backend_id;         // "VulkanBackend"
  std::vector<int32_t> call_args;  // Program value ids: inputs, then outputs
  uint64_t blob_offset = 0;        // where the blob starts in the .pte
  VkGraph graph;
};

// A method input or output, from the Program's own values.
struct IoValue {
  int32_t value_id = -1;   // index into the ExecutionPlan's values
  std::string kind;        // "Tensor", "Int", "Double", "Bool", ...
  DType dtype = DType::Unknown;
  std::vector<int32_t> sizes;  // for dynamic tensors, the upper bound
  bool dynamic = false;        // DYNAMIC_BOUND or DYNAMIC_UNBOUND
  // The value itself when kind is "Int", "Double" or "Bool".
  std::variant<std::monostate, int64_t, double, bool> scalar;
};

struct Method {
  std::string name;
  std::vector<IoValue> inputs;
  std::vector<IoValue> outputs;
  // "name.overload" of every KernelCall outside a delegate, in order, plus
  // "(MoveCall)", "(JumpFalseCall)", "(FreeCall)" for control flow. Non-empty
  // means the method does not run entirely on the GPU.
  std::vector<std::string> cpu_kernels;
  std::vector<Delegate> delegates;  // in call order

  // A method that only returns scalars stored in the program: no inputs, no
  // instructions. export_llama writes its metadata this way
  // (get_max_seq_len, get_vocab_size, use_kv_cache, ...).
  bool constant() const;
  // The one Vulkan graph of a fully delegated method; Error(NotSupported)
  // when the method has no delegate, several, or CPU kernels.
  const VkGraph& graph() const;
};

struct Program {
  std::vector<Method> methods;
  // Named data of the .pte merged with that of its .ptd files (the .pte wins
  // a key present in both).
  std::map<std::string, std::span<const uint8_t>, std::less<>> named_data;
  // The files' bytes, which every span above points into.
  std::vector<std::shared_ptr<const FileBytes>> storage;

  const Method& method(std::string_view name) const&;  // Error(NotFound)
  // References into a temporary Program would dangle at once.
  const Method& method(std::string_view name) && = delete;
  std::vector<std::string> method_names() const;
};

// Maps the .pte (and its .ptd files) and parses it. Throws
// Error(InvalidProgram) for a malformed file, with its name and byte offset;
// Error(NotSupported) for a delegate of another backend.
Program load_program(const std::filesystem::path& pte,
                     const std::vector<std::filesystem::path>& data_files = {});

// The same for describing a program whose .ptd files are not all at hand:
// constants in named data that no file holds are left empty and their keys
// listed in `missing_named_data` (once each). Such a program cannot be run.
Program describe_program(const std::filesystem::path& pte, const std::vector<std::filesystem::path>& data_files,
                         std::vector<std::string>& missing_named_data);

// The same, from bytes in memory; names are used in messages.
struct NamedBytes {
  std::string name;
  std::vector<uint8_t> bytes;
};
Program parse_program(NamedBytes pte, std::vector<NamedBytes> data_files = {});

// --- inline definitions --------------------------------------------------------

[[noreturn]] void throw_bad_value(const VkGraph& graph, int64_t id, std::string_view wanted);

template <typename T>
const T& VkGraph::get(int64_t id) const {
  if (id >= 0 && static_cast<uint64_t>(id) < values.size()) {
    if (const T* v = std::get_if<T>(&values[static_cast<size_t>(id)])) return *v;
  }
  throw_bad_value(*this, id, kind_name(Value(T{})));
}

}  // namespace wgrt::pte
