// A GGUF (v3) file opened for reading: its metadata and tensor infos, parsed
// from the file's header; each tensor's bytes stay in the file until read
// (read_tensor, or a graph constant streaming them to the GPU through
// reader()). Parsing checks every size and offset against the file, so
// malformed input ends in Error(InvalidProgram) naming the byte offset,
// never in a crash.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "wgrt/range_reader.h"
#include "import/gguf/ggml_type.h"
#include "import/gguf/gguf_value.h"
#include "wgrt/error.h"

namespace wgrt::gguf {

class ByteReader;


struct TensorInfo {
  std::string name;
  // ggml order: dims[0] varies fastest (a [rows, cols] matrix is {cols, rows}).
  std::vector<uint64_t> dims;
  GgmlType type = GgmlType::F32;
  uint64_t offset = 0;       // from the start of the data section, as stored
  uint64_t file_offset = 0;  // from the start of the file
  uint64_t n_elements = 0;
  uint64_t n_bytes = 0;
};

class GgufFile {
 public:
  static constexpr uint32_t kDefaultAlignment = 32;

  // Parses the file's header. NotFound if it cannot be opened; InvalidProgram
  // for malformed content; NotSupported for arrays of arrays.
  static GgufFile open(const std::string& path);
  static GgufFile open(RangeReaderPtr file);
  // Parses bytes held in memory (tests, embedded files); `name` is for messages.
  static GgufFile parse(std::vector<uint8_t> bytes, std::string name);

  GgufFile(GgufFile&&) noexcept;
  GgufFile& operator=(GgufFile&&) noexcept;
  ~GgufFile();

  const std::string& name() const { return name_; }
  uint32_t version() const { return version_; }
  uint32_t alignment() const { return alignment_; }
  uint64_t data_offset() const { return data_offset_; }
  uint64_t file_size() const;
  // The file, for reading tensors' bytes in ranges.
  const RangeReaderPtr& reader() const { return file_; }

  // --- metadata ---
  // In file order.
  const std::vector<std::pair<std::string, Value>>& metadata() const { return metadata_; }
  const Value* find(std::string_view key) const;
  bool has(std::string_view key) const { return find(key) != nullptr; }
  // NotFound naming the key.
  const Value& at(std::string_view key) const;

  // The value of exactly type T (a scalar type, std::string, or std::vector of
  // one of them). NotFound when missing; InvalidProgram naming the key, the
  // expected type and the stored type otherwise.
  template <class T>
  const T& get(std::string_view key) const {
    const Value& v = at(key);
    if (const T* p = v.get_if<T>()) return *p;
    throw_type_mismatch(key, type_name_of<T>(), v);
  }
  // As get(), but nullopt when the key is absent (a wrong type still throws).
  template <class T>
  std::optional<T> get_optional(std::string_view key) const {
    if (!has(key)) return std::nullopt;
    return get<T>(key);
  }
  template <class E>
  const std::vector<E>& get_array(std::string_view key) const { return get<std::vector<E>>(key); }

  uint8_t get_u8(std::string_view key) const { return get<uint8_t>(key); }
  int8_t get_i8(std::string_view key) const { return get<int8_t>(key); }
  uint16_t get_u16(std::string_view key) const { return get<uint16_t>(key); }
  int16_t get_i16(std::string_view key) const { return get<int16_t>(key); }
  uint32_t get_u32(std::string_view key) const { return get<uint32_t>(key); }
  int32_t get_i32(std::string_view key) const { return get<int32_t>(key); }
  uint64_t get_u64(std::string_view key) const { return get<uint64_t>(key); }
  int64_t get_i64(std::string_view key) const { return get<int64_t>(key); }
  float get_f32(std::string_view key) const { return get<float>(key); }
  double get_f64(std::string_view key) const { return get<double>(key); }
  bool get_bool(std::string_view key) const { return get<bool>(key); }
  const std::string& get_string(std::string_view key) const { return get<std::string>(key); }

  // Any integer kind (u8..i64), for counts and ids whose stored width varies
  // between writers. InvalidProgram for non-integers or values out of range.
  int64_t get_int(std::string_view key) const;
  // Any integer kind, which must be >= 0.
  uint64_t get_count(std::string_view key) const;
  // get_int/get_count with a fallback for an absent key.
  std::optional<int64_t> get_int_optional(std::string_view key) const;

  // --- tensors ---
  // In file order.
  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  const TensorInfo* find_tensor(std::string_view name) const;
  // NotFound naming the tensor.
  const TensorInfo& tensor(std::string_view name) const;
  // The tensor's bytes, read from the file (small tensors: vectors, tables;
  // weights stream through reader() instead).
  std::vector<uint8_t> read_tensor(const TensorInfo& info) const;

 private:
  GgufFile() = default;
  void parse_all();
  void read_metadata(ByteReader& r, uint64_t kv_count);
  void locate_data(const ByteReader& r);
  template <class T>
  static std::string type_name_of() {
    if constexpr (requires { typename T::value_type; } && !std::is_same_v<T, std::string>) {
      return "array<" + std::string(to_string(value_type_of<typename T::value_type>())) + ">";
    } else {
      return std::string(to_string(value_type_of<T>()));
    }
  }
  [[noreturn]] void throw_type_mismatch(std::string_view key, const std::string& expected,
                                        const Value& got) const;

  std::string name_;
  RangeReaderPtr file_;
  uint32_t version_ = 0;
  uint32_t alignment_ = kDefaultAlignment;
  uint64_t data_offset_ = 0;
  std::vector<std::pair<std::string, Value>> metadata_;
  std::unordered_map<std::string, size_t> metadata_index_;
  std::vector<TensorInfo> tensors_;
  std::unordered_map<std::string, size_t> tensor_index_;
};

}  // namespace wgrt::gguf
