#include "import/gguf/gguf_file.h"

#include <bit>
#include <cstdio>
#include <limits>

#include "import/gguf/byte_reader.h"
#include "import/gguf/value_reader.h"

namespace wgrt::gguf {
namespace {

// Versions 2 and 3 lay out little-endian files identically (3 added
// big-endian files, 2 moved counts and lengths to 64 bits); 1 is not read.
constexpr uint32_t kMinVersion = 2, kVersion = 3;
constexpr uint32_t kMaxDims = 4;  // ggml's limit
// Smallest possible encodings, to refuse counts the file cannot hold.
constexpr uint64_t kMinKvBytes = 8 + 4 + 1;            // key length, type, 1-byte value
constexpr uint64_t kMinTensorInfoBytes = 8 + 4 + 4 + 8;  // name length, n_dims, type, offset

std::string hex_bytes(std::span<const uint8_t> b) {
  std::string s;
  for (uint8_t c : b) {
    char buf[4];
    std::snprintf(buf, sizeof buf, "%02x", c);
    if (!s.empty()) s += ' ';
    s += buf;
  }
  return s;
}

struct Header {
  uint32_t version = 0;
  uint64_t tensor_count = 0, kv_count = 0;
};

// Magic, version and the two counts, each count no more than the rest of the file could hold.
Header read_header(ByteReader& r) {
  const auto magic = r.peek(4, "magic");
  if (std::memcmp(magic.data(), "GGUF", 4) != 0) {
    r.fail(0, "bad magic: expected 'GGUF' (47 47 55 46), got " + hex_bytes(magic));
  }
  r.read<uint32_t>("magic");
  Header h;
  const uint64_t version_at = r.offset();
  h.version = r.read<uint32_t>("version");
  if (h.version < kMinVersion || h.version > kVersion) {
    std::string hint;
    if (__builtin_bswap32(h.version) <= kVersion) hint = " (a big-endian file?)";
    r.fail(version_at, "unsupported GGUF version: expected 2 or 3, got " + std::to_string(h.version) + hint);
  }
  const uint64_t tensor_count_at = r.offset();
  h.tensor_count = r.read<uint64_t>("tensor count");
  const uint64_t kv_count_at = r.offset();
  h.kv_count = r.read<uint64_t>("metadata count");
  if (h.kv_count > r.remaining() / kMinKvBytes) {
    r.fail(kv_count_at, "absurd metadata count: expected at most " +
                            std::to_string(r.remaining() / kMinKvBytes) +
                            " (what the file could hold), got " + std::to_string(h.kv_count));
  }
  if (h.tensor_count > r.remaining() / kMinTensorInfoBytes) {
    r.fail(tensor_count_at, "absurd tensor count: expected at most " +
                                std::to_string(r.remaining() / kMinTensorInfoBytes) +
                                " (what the file could hold), got " + std::to_string(h.tensor_count));
  }
  return h;
}

// A tensor's dimensions into `t` (dims, n_elements): each at least 1, their product within int64.
void read_dims(ByteReader& r, const std::string& what, TensorInfo& t) {
  const uint64_t ndims_at = r.offset();
  const uint32_t n_dims = r.read<uint32_t>("dimension count of " + what);
  if (n_dims > kMaxDims) {
    r.fail(ndims_at, what + ": expected at most " + std::to_string(kMaxDims) + " dimensions, got " +
                         std::to_string(n_dims));
  }
  t.n_elements = 1;
  for (uint32_t d = 0; d < n_dims; ++d) {
    const uint64_t dim_at = r.offset();
    const uint64_t dim = r.read<uint64_t>("dimension " + std::to_string(d) + " of " + what);
    if (dim == 0 || (t.n_elements > std::numeric_limits<int64_t>::max() / dim)) {
      r.fail(dim_at, what + " dimension " + std::to_string(d) +
                         ": expected a size >= 1 whose element count fits in int64, got " +
                         std::to_string(dim));
    }
    t.dims.push_back(dim);
    t.n_elements *= dim;
  }
}

// Tensor info `i`: name, dimensions, a known type whose blocks tile the rows, an aligned offset.
TensorInfo read_tensor_info(ByteReader& r, uint64_t i, uint32_t alignment) {
  TensorInfo t;
  t.name = r.read_string("name of tensor " + std::to_string(i));
  const std::string what = "tensor '" + t.name + "'";
  read_dims(r, what, t);
  const uint64_t type_at = r.offset();
  const uint32_t type_id = r.read<uint32_t>("type of " + what);
  const GgmlTypeInfo* type = find_ggml_type(type_id);
  if (type == nullptr) {
    r.fail(type_at, what + ": expected a ggml type id, got unknown type " + std::to_string(type_id));
  }
  t.type = type->type;
  const uint64_t row = t.dims.empty() ? 1 : t.dims[0];
  if (row % type->block_size != 0) {
    r.fail(type_at, what + " of type " + describe(t.type) + ": expected dimension 0 to be a multiple of " +
                        std::to_string(type->block_size) + ", got " + std::to_string(row));
  }
  const uint64_t blocks = t.n_elements / type->block_size;
  if (blocks > uint64_t(std::numeric_limits<int64_t>::max()) / type->block_bytes) {
    r.fail(type_at, what + " of type " + describe(t.type) + ": " + std::to_string(t.n_elements) +
                        " elements need more bytes than fit in 64 bits");
  }
  t.n_bytes = blocks * type->block_bytes;
  const uint64_t offset_at = r.offset();
  t.offset = r.read<uint64_t>("data offset of " + what);
  if (t.offset % alignment != 0) {
    r.fail(offset_at, what + ": misaligned data offset: expected a multiple of " +
                          std::to_string(alignment) + ", got " + std::to_string(t.offset));
  }
  return t;
}

}  // namespace

GgufFile GgufFile::open(const std::string& path) { return open(open_file_reader(path)); }

GgufFile GgufFile::open(RangeReaderPtr file) {
  GgufFile out;
  out.name_ = file->name();
  out.file_ = std::move(file);
  out.parse_all();
  return out;
}

GgufFile GgufFile::parse(std::vector<uint8_t> bytes, std::string name) {
  return open(memory_reader(std::move(bytes), std::move(name)));
}

GgufFile::GgufFile(GgufFile&&) noexcept = default;
GgufFile& GgufFile::operator=(GgufFile&&) noexcept = default;
GgufFile::~GgufFile() = default;

void GgufFile::parse_all() {
  ByteReader r(*file_, "gguf '" + name_ + "'");
  const Header header = read_header(r);
  version_ = header.version;
  read_metadata(r, header.kv_count);
  tensors_.reserve(header.tensor_count);
  for (uint64_t i = 0; i < header.tensor_count; ++i) {
    const uint64_t info_at = r.offset();
    TensorInfo t = read_tensor_info(r, i, alignment_);
    if (tensor_index_.count(t.name) != 0) r.fail(info_at, "duplicate tensor name '" + t.name + "'");
    tensor_index_.emplace(t.name, tensors_.size());
    tensors_.push_back(std::move(t));
  }
  locate_data(r);
}

// The key/value pairs, and general.alignment checked and kept.
void GgufFile::read_metadata(ByteReader& r, uint64_t kv_count) {
  metadata_.reserve(kv_count);
  uint64_t alignment_at = 0;
  for (uint64_t i = 0; i < kv_count; ++i) {
    const uint64_t key_at = r.offset();
    std::string key = r.read_string("metadata key " + std::to_string(i));
    const uint64_t type_at = r.offset();
    const uint32_t type_id = r.read<uint32_t>("value type of '" + key + "'");
    Value value = read_value(r, type_id, type_at, key);
    if (metadata_index_.count(key) != 0) r.fail(key_at, "duplicate metadata key '" + key + "'");
    if (key == "general.alignment") alignment_at = key_at;
    metadata_index_.emplace(key, metadata_.size());
    metadata_.emplace_back(std::move(key), std::move(value));
  }

  if (const Value* a = find("general.alignment")) {
    const auto v = a->as_uint64();
    if (!v || *v == 0 || !std::has_single_bit(*v) || *v > (1u << 30)) {
      r.fail(alignment_at, "general.alignment: expected a power of two (u32), got " +
                    (v ? std::to_string(*v) : a->type_name()));
    }
    alignment_ = static_cast<uint32_t>(*v);
  }
}

// The data section starts at the next multiple of the alignment after the
// tensor infos: each tensor's bytes must lie inside the file.
void GgufFile::locate_data(const ByteReader& r) {
  const uint64_t end_of_infos = r.offset();
  data_offset_ = (end_of_infos + alignment_ - 1) / alignment_ * alignment_;
  for (TensorInfo& t : tensors_) {
    const uint64_t size = file_->size();
    if (data_offset_ > size || t.offset > size - data_offset_ ||
        t.n_bytes > size - data_offset_ - t.offset) {
      r.fail(data_offset_ + t.offset,
             "data of tensor '" + t.name + "' runs past the end of the file: expected " +
                 std::to_string(t.n_bytes) + " bytes (" + describe(t.type) + ", " +
                 std::to_string(t.n_elements) + " elements) from byte " +
                 std::to_string(data_offset_ + t.offset) + ", got a file of " +
                 std::to_string(size) + " bytes");
    }
    t.file_offset = data_offset_ + t.offset;
  }
}

const Value* GgufFile::find(std::string_view key) const {
  auto it = metadata_index_.find(std::string(key));
  return it == metadata_index_.end() ? nullptr : &metadata_[it->second].second;
}

const Value& GgufFile::at(std::string_view key) const {
  if (const Value* v = find(key)) return *v;
  throw Error(ErrorCode::NotFound, "gguf '" + name_ + "': no metadata key '" + std::string(key) + "'");
}

void GgufFile::throw_type_mismatch(std::string_view key, const std::string& expected,
                                   const Value& got) const {
  throw Error(ErrorCode::InvalidProgram, "gguf '" + name_ + "': metadata '" + std::string(key) +
                                             "': expected " + expected + ", got " + got.type_name());
}

int64_t GgufFile::get_int(std::string_view key) const {
  const Value& v = at(key);
  if (auto i = v.as_int64()) return *i;
  throw_type_mismatch(key, "an integer that fits in i64", v);
}

uint64_t GgufFile::get_count(std::string_view key) const {
  const Value& v = at(key);
  if (auto i = v.as_uint64()) return *i;
  if (v.as_int64()) {
    throw Error(ErrorCode::InvalidProgram, "gguf '" + name_ + "': metadata '" + std::string(key) +
                                               "': expected a count >= 0, got " +
                                               std::to_string(*v.as_int64()));
  }
  throw_type_mismatch(key, "an integer", v);
}

std::optional<int64_t> GgufFile::get_int_optional(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return get_int(key);
}

const TensorInfo* GgufFile::find_tensor(std::string_view name) const {
  auto it = tensor_index_.find(std::string(name));
  return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

const TensorInfo& GgufFile::tensor(std::string_view name) const {
  if (const TensorInfo* t = find_tensor(name)) return *t;
  throw Error(ErrorCode::NotFound, "gguf '" + name_ + "': no tensor '" + std::string(name) + "'");
}

uint64_t GgufFile::file_size() const { return file_->size(); }

std::vector<uint8_t> GgufFile::read_tensor(const TensorInfo& info) const {
  return file_->read(info.file_offset, info.n_bytes);
}

}  // namespace wgrt::gguf
