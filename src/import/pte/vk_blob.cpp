#include "import/pte/vk_blob.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "import/pte/file_bytes.h"
#include "vk_graph_generated.h"
#include "wgrt/error.h"

namespace wgrt::pte {
namespace {

// VH00 header layout (little-endian): 4 bytes padding, magic, u16 header
// size, u32 flatbuffer offset, u32 flatbuffer size, u32 bytes offset, u64
// bytes size. The padding puts the magic where a flatbuffer's identifier goes.
constexpr size_t kHeaderMin = 30;
constexpr uint64_t kNamedOffset = std::numeric_limits<uint64_t>::max();

DType vk_dtype(int8_t t) {
  switch (t) {
    case 0: return DType::Bool;
    case 1: return DType::UInt8;
    case 2: return DType::Int8;
    case 3: return DType::Int32;
    case 4: return DType::Float16;
    case 5: return DType::Float32;
    case 6: return DType::Float64;
    case 7: return DType::Int64;
    default: return DType::Unknown;
  }
}

// Elements are copied out byte-wise: the Verifier checks a vector's length
// word for 4-byte alignment but not its elements for theirs, so a crafted
// [long] or [double] may sit at 4 mod 8 (UBSan, found by fuzz_pte).
template <typename T, typename V>
std::vector<T> to_vector(const flatbuffers::Vector<V>* v) {
  std::vector<T> out;
  if (v == nullptr) return out;
  out.reserve(v->size());
  const uint8_t* data = v->Data();
  for (flatbuffers::uoffset_t i = 0; i < v->size(); ++i) {
    V x;
    std::memcpy(&x, data + size_t(i) * sizeof(V), sizeof(V));
    out.push_back(static_cast<T>(flatbuffers::EndianScalar(x)));
  }
  return out;
}

// `no_table` throws: a union whose type names a table but holds none passes
// flatbuffers' Verifier (found by fuzz_pte).
template <typename NoTable>
Value read_value(const vkfb::VkValue* v, NoTable&& no_table) {
  using vkfb::GraphTypes;
  if (v == nullptr) return Null{};
  auto need = [&](const auto* table) {
    if (table == nullptr) no_table(vkfb::EnumNameGraphTypes(v->value_type()));
    return table;
  };
  switch (v->value_type()) {
    case GraphTypes::Int: return Int{need(v->value_as_Int())->int_val()};
    case GraphTypes::Double: return Double{need(v->value_as_Double())->double_val()};
    case GraphTypes::Bool: return Bool{need(v->value_as_Bool())->bool_val()};
    case GraphTypes::VkTensor: {
      auto* t = need(v->value_as_VkTensor());
      return VkTensor{vk_dtype(t->datatype()), to_vector<uint32_t>(t->dims()),
                      t->constant_id(), t->mem_obj_id()};
    }
    case GraphTypes::IntList: return IntList{to_vector<int64_t>(need(v->value_as_IntList())->items())};
    case GraphTypes::DoubleList:
      return DoubleList{to_vector<double>(need(v->value_as_DoubleList())->items())};
    case GraphTypes::BoolList: return BoolList{to_vector<bool>(need(v->value_as_BoolList())->items())};
    case GraphTypes::ValueList:
      return ValueList{to_vector<int32_t>(need(v->value_as_ValueList())->items())};
    case GraphTypes::String: {
      auto* s = need(v->value_as_String())->string_val();
      return String{s ? s->str() : std::string()};
    }
    case GraphTypes::SymInt: return SymInt{need(v->value_as_SymInt())->value()};
    default: return Null{};  // NONE, Null, or a member newer than this schema
  }
}

}  // namespace

VkGraph parse_vk_blob(const FileBytes& file, uint64_t blob_offset,
                      std::span<const uint8_t> blob, const NamedDataMap& named_data,
                      std::vector<std::string>* missing) {
  return parse_vk_blob(
      file, blob_offset, blob,
      [&](std::string_view key) -> std::optional<std::span<const uint8_t>> {
        auto it = named_data.find(key);
        if (it == named_data.end()) return std::nullopt;
        return it->second;
      },
      missing);
}

VkGraph parse_vk_blob(const FileBytes& file, uint64_t blob_offset,
                      std::span<const uint8_t> blob, const NamedDataLookup& named_data,
                      std::vector<std::string>* missing) {
  const std::string where = "Vulkan delegate blob";
  if (blob.size() < kHeaderMin) {
    file.fail(where, blob_offset,
              "blob is " + std::to_string(blob.size()) + " bytes, a VH00 header needs " +
                  std::to_string(kHeaderMin));
  }
  if (std::string_view(reinterpret_cast<const char*>(blob.data()) + 4, 4) != "VH00") {
    file.fail(where, blob_offset + 4, "magic " + quote_magic(blob, 4) + ", expected 'VH00'");
  }
  const uint16_t header_size = read_u16(blob, 8);
  const uint64_t fb_offset = read_u32(blob, 10);
  const uint64_t fb_size = read_u32(blob, 14);
  const uint64_t bytes_offset = read_u32(blob, 18);
  const uint64_t bytes_size = read_u64(blob, 22);
  if (header_size < kHeaderMin) {
    file.fail(where, blob_offset + 8,
              "header size " + std::to_string(header_size) + ", expected at least 30");
  }
  if (fb_offset < header_size || !fits(fb_offset, fb_size, blob.size()) || fb_size < 8 ||
      fb_size >= kMaxFlatbufferSize) {
    file.fail(where, blob_offset + 10,
              "graph flatbuffer [" + std::to_string(fb_offset) + ", +" + std::to_string(fb_size) +
                  ") is outside the " + std::to_string(blob.size()) + "-byte blob");
  }
  if (bytes_offset < fb_offset + fb_size || !fits(bytes_offset, bytes_size, blob.size())) {
    file.fail(where, blob_offset + 18,
              "constant bytes [" + std::to_string(bytes_offset) + ", +" +
                  std::to_string(bytes_size) + ") overlap the graph or leave the " +
                  std::to_string(blob.size()) + "-byte blob");
  }

  // flatbuffers' Verifier checks alignment relative to the buffer start, so a
  // graph at an odd address (any fb_offset, any blob placement) verifies yet
  // reads 8-byte scalars misaligned. Such a graph is read from an aligned copy.
  const uint8_t* fb = blob.data() + fb_offset;
  std::vector<uint64_t> aligned_copy;
  if (reinterpret_cast<uintptr_t>(fb) % alignof(uint64_t) != 0) {
    aligned_copy.resize((fb_size + 7) / 8);
    std::memcpy(aligned_copy.data(), fb, fb_size);
    fb = reinterpret_cast<const uint8_t*>(aligned_copy.data());
  }
  const uint64_t fb_at = blob_offset + fb_offset;
  if (!flatbuffers::BufferHasIdentifier(fb, vkfb::VkGraphIdentifier())) {
    file.fail("Vulkan graph flatbuffer", fb_at + 4,
              "identifier " + quote_magic(blob, fb_offset + 4) + ", expected 'VK00'");
  }
  flatbuffers::Verifier verifier(fb, fb_size, 64, 1u << 24);
  if (!vkfb::VerifyVkGraphBuffer(verifier)) {
    file.fail("Vulkan graph flatbuffer", fb_at,
              std::to_string(fb_size) + " bytes fail flatbuffer verification");
  }
  const vkfb::VkGraph* g = vkfb::GetVkGraph(fb);

  VkGraph graph;
  if (g->version()) graph.version = g->version()->str();
  if (g->values()) {
    graph.values.reserve(g->values()->size());
    for (flatbuffers::uoffset_t i = 0; i < g->values()->size(); ++i) {
      graph.values.push_back(read_value(g->values()->Get(i), [&](const char* type) {
        file.fail("Vulkan graph flatbuffer", fb_at,
                  "value " + std::to_string(i) + " is a " + type + " without its " + type + " table");
      }));
    }
  }
  const int64_t n_values = static_cast<int64_t>(graph.values.size());
  auto check_id = [&](int64_t id, const std::string& who) {
    if (id < 0 || id >= n_values) {
      file.fail("Vulkan graph flatbuffer", fb_at,
                who + " refers to value " + std::to_string(id) + ", expected 0.." +
                    std::to_string(n_values - 1));
    }
  };

  if (g->chain()) {
    for (auto* c : *g->chain()) {
      OpCall op{c->node_id(), c->name() ? c->name()->str() : std::string(),
                to_vector<int32_t>(c->args())};
      const std::string who = "op " + std::to_string(graph.ops.size()) + " '" + op.name + "'";
      if (op.name.empty()) file.fail("Vulkan graph flatbuffer", fb_at, who + " has no name");
      for (int32_t a : op.args) check_id(a, who);
      graph.ops.push_back(std::move(op));
    }
  }
  graph.input_ids = to_vector<uint32_t>(g->input_ids());
  graph.output_ids = to_vector<uint32_t>(g->output_ids());
  for (uint32_t id : graph.input_ids) check_id(id, "graph input");
  for (uint32_t id : graph.output_ids) check_id(id, "graph output");

  if (g->constants()) {
    for (auto* c : *g->constants()) {
      const std::string who = "constant " + std::to_string(graph.constants.size());
      Constant constant;
      if (c->offset() == kNamedOffset) {
        constant.named_key = c->named_key() ? c->named_key()->str() : std::string();
        const auto found = named_data(constant.named_key);
        if (!found && missing != nullptr) {
          if (std::find(missing->begin(), missing->end(), constant.named_key) == missing->end()) {
            missing->push_back(constant.named_key);
          }
          graph.constants.push_back(std::move(constant));
          continue;
        }
        if (!found) {
          file.fail("Vulkan graph flatbuffer", fb_at,
                    who + " is named data '" + constant.named_key +
                        "', which is in neither the program nor the .ptd files given");
        }
        if (c->length() > found->size()) {
          file.fail("Vulkan graph flatbuffer", fb_at,
                    who + " '" + constant.named_key + "' needs " + std::to_string(c->length()) +
                        " bytes, named data has " + std::to_string(found->size()));
        }
        constant.bytes = found->first(static_cast<size_t>(c->length()));
      } else {
        if (!fits(c->offset(), c->length(), bytes_size)) {
          file.fail(who, blob_offset + bytes_offset + c->offset(),
                    "needs " + std::to_string(c->length()) + " bytes, the blob's " +
                        std::to_string(bytes_size) + " constant bytes end before");
        }
        constant.bytes = blob.subspan(static_cast<size_t>(bytes_offset + c->offset()),
                                      static_cast<size_t>(c->length()));
      }
      graph.constants.push_back(std::move(constant));
    }
  }

  // Every reference inside values, checked once here.
  for (int64_t id = 0; id < n_values; ++id) {
    const Value& v = graph.values[static_cast<size_t>(id)];
    const std::string who = "value " + std::to_string(id);
    if (auto* t = std::get_if<VkTensor>(&v)) {
      if (t->constant_id >= 0 && static_cast<size_t>(t->constant_id) >= graph.constants.size()) {
        file.fail("Vulkan graph flatbuffer", fb_at,
                  who + " has constant_id " + std::to_string(t->constant_id) + ", expected < " +
                      std::to_string(graph.constants.size()));
      }
    } else if (auto* l = std::get_if<ValueList>(&v)) {
      for (int32_t item : l->items) check_id(item, who + " (ValueList)");
    }
  }
  return graph;
}

}  // namespace wgrt::pte
