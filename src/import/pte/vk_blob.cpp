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


// Where a VH00 header says the graph flatbuffer and the constant bytes lie
// in the blob (each range checked to lie inside it).
struct BlobLayout {
  uint64_t fb_offset = 0, fb_size = 0;
  uint64_t bytes_offset = 0, bytes_size = 0;
};

BlobLayout read_header(const FileBytes& file, uint64_t blob_offset, std::span<const uint8_t> blob) {
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
  BlobLayout l{read_u32(blob, 10), read_u32(blob, 14), read_u32(blob, 18), read_u64(blob, 22)};
  if (header_size < kHeaderMin) {
    file.fail(where, blob_offset + 8,
              "header size " + std::to_string(header_size) + ", expected at least 30");
  }
  if (l.fb_offset < header_size || !fits(l.fb_offset, l.fb_size, blob.size()) || l.fb_size < 8 ||
      l.fb_size >= kMaxFlatbufferSize) {
    file.fail(where, blob_offset + 10,
              "graph flatbuffer [" + std::to_string(l.fb_offset) + ", +" + std::to_string(l.fb_size) +
                  ") is outside the " + std::to_string(blob.size()) + "-byte blob");
  }
  if (l.bytes_offset < l.fb_offset + l.fb_size || !fits(l.bytes_offset, l.bytes_size, blob.size())) {
    file.fail(where, blob_offset + 18,
              "constant bytes [" + std::to_string(l.bytes_offset) + ", +" +
                  std::to_string(l.bytes_size) + ") overlap the graph or leave the " +
                  std::to_string(blob.size()) + "-byte blob");
  }
  return l;
}

// The graph flatbuffer, its identifier and structure verified. flatbuffers'
// Verifier checks alignment relative to the buffer start, so a graph at an
// odd address (any fb_offset, any blob placement) verifies yet reads 8-byte
// scalars misaligned. Such a graph is read from an aligned copy, kept in
// `aligned_copy`.
const vkfb::VkGraph* verified_graph(const FileBytes& file, uint64_t blob_offset, std::span<const uint8_t> blob,
                                    const BlobLayout& layout, std::vector<uint64_t>& aligned_copy) {
  const uint8_t* fb = blob.data() + layout.fb_offset;
  if (reinterpret_cast<uintptr_t>(fb) % alignof(uint64_t) != 0) {
    aligned_copy.resize((layout.fb_size + 7) / 8);
    std::memcpy(aligned_copy.data(), fb, layout.fb_size);
    fb = reinterpret_cast<const uint8_t*>(aligned_copy.data());
  }
  const uint64_t fb_at = blob_offset + layout.fb_offset;
  if (!flatbuffers::BufferHasIdentifier(fb, vkfb::VkGraphIdentifier())) {
    file.fail("Vulkan graph flatbuffer", fb_at + 4,
              "identifier " + quote_magic(blob, layout.fb_offset + 4) + ", expected 'VK00'");
  }
  flatbuffers::Verifier verifier(fb, layout.fb_size, 64, 1u << 24);
  if (!vkfb::VerifyVkGraphBuffer(verifier)) {
    file.fail("Vulkan graph flatbuffer", fb_at,
              std::to_string(layout.fb_size) + " bytes fail flatbuffer verification");
  }
  return vkfb::GetVkGraph(fb);
}

// Failures inside the graph, all reported at the flatbuffer's offset; ids
// must name one of the n_values values.
struct GraphCheck {
  const FileBytes& file;
  uint64_t fb_at = 0;
  int64_t n_values = 0;

  [[noreturn]] void fail(const std::string& what) const { file.fail("Vulkan graph flatbuffer", fb_at, what); }
  void id(int64_t id, const std::string& who) const {
    if (id < 0 || id >= n_values) {
      fail(who + " refers to value " + std::to_string(id) + ", expected 0.." + std::to_string(n_values - 1));
    }
  }
};

// A constant stored by key, looked up in named_data. With `missing` given,
// a key no data source holds leaves the bytes empty and is listed (once).
Constant named_constant(const vkfb::VkBytes& c, const std::string& who, const GraphCheck& check,
                        const NamedDataLookup& named_data, std::vector<std::string>* missing) {
  Constant constant;
  constant.named_key = c.named_key() ? c.named_key()->str() : std::string();
  const auto found = named_data(constant.named_key);
  if (!found && missing != nullptr) {
    if (std::find(missing->begin(), missing->end(), constant.named_key) == missing->end()) {
      missing->push_back(constant.named_key);
    }
    return constant;
  }
  if (!found) {
    check.fail(who + " is named data '" + constant.named_key +
               "', which is in neither the program nor the .ptd files given");
  }
  if (c.length() > found->size()) {
    check.fail(who + " '" + constant.named_key + "' needs " + std::to_string(c.length()) +
               " bytes, named data has " + std::to_string(found->size()));
  }
  constant.bytes = found->first(static_cast<size_t>(c.length()));
  return constant;
}

// A constant stored in the blob's constant bytes.
Constant blob_constant(const vkfb::VkBytes& c, const std::string& who, const FileBytes& file, uint64_t blob_offset,
                       std::span<const uint8_t> blob, const BlobLayout& layout) {
  if (!fits(c.offset(), c.length(), layout.bytes_size)) {
    file.fail(who, blob_offset + layout.bytes_offset + c.offset(),
              "needs " + std::to_string(c.length()) + " bytes, the blob's " +
                  std::to_string(layout.bytes_size) + " constant bytes end before");
  }
  Constant constant;
  constant.bytes = blob.subspan(static_cast<size_t>(layout.bytes_offset + c.offset()),
                                static_cast<size_t>(c.length()));
  return constant;
}

// Every reference inside values (a tensor's constant, a ValueList's items), checked once here.
void check_value_refs(const VkGraph& graph, const GraphCheck& check) {
  for (int64_t id = 0; id < check.n_values; ++id) {
    const Value& v = graph.values[static_cast<size_t>(id)];
    const std::string who = "value " + std::to_string(id);
    if (auto* t = std::get_if<VkTensor>(&v)) {
      if (t->constant_id >= 0 && static_cast<size_t>(t->constant_id) >= graph.constants.size()) {
        check.fail(who + " has constant_id " + std::to_string(t->constant_id) + ", expected < " +
                   std::to_string(graph.constants.size()));
      }
    } else if (auto* l = std::get_if<ValueList>(&v)) {
      for (int32_t item : l->items) check.id(item, who + " (ValueList)");
    }
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
  const BlobLayout layout = read_header(file, blob_offset, blob);
  std::vector<uint64_t> aligned_copy;  // holds the graph when it sits misaligned in the blob
  const vkfb::VkGraph* g = verified_graph(file, blob_offset, blob, layout, aligned_copy);
  GraphCheck check{file, blob_offset + layout.fb_offset};

  VkGraph graph;
  if (g->version()) graph.version = g->version()->str();
  if (g->values()) {
    graph.values.reserve(g->values()->size());
    for (flatbuffers::uoffset_t i = 0; i < g->values()->size(); ++i) {
      graph.values.push_back(read_value(g->values()->Get(i), [&](const char* type) {
        check.fail("value " + std::to_string(i) + " is a " + type + " without its " + type + " table");
      }));
    }
  }
  check.n_values = static_cast<int64_t>(graph.values.size());
  if (g->chain()) {
    for (auto* c : *g->chain()) {
      OpCall op{c->node_id(), c->name() ? c->name()->str() : std::string(),
                to_vector<int32_t>(c->args())};
      const std::string who = "op " + std::to_string(graph.ops.size()) + " '" + op.name + "'";
      if (op.name.empty()) check.fail(who + " has no name");
      for (int32_t a : op.args) check.id(a, who);
      graph.ops.push_back(std::move(op));
    }
  }
  graph.input_ids = to_vector<uint32_t>(g->input_ids());
  graph.output_ids = to_vector<uint32_t>(g->output_ids());
  for (uint32_t id : graph.input_ids) check.id(id, "graph input");
  for (uint32_t id : graph.output_ids) check.id(id, "graph output");

  if (g->constants()) {
    for (auto* c : *g->constants()) {
      const std::string who = "constant " + std::to_string(graph.constants.size());
      graph.constants.push_back(c->offset() == kNamedOffset
                                    ? named_constant(*c, who, check, named_data, missing)
                                    : blob_constant(*c, who, file, blob_offset, blob, layout));
    }
  }
  check_value_refs(graph, check);
  return graph;
}

}  // namespace wgrt::pte
