// One GGUF metadata value: a scalar of one of GGUF's twelve kinds, or an
// array of one of them (arrays of strings included). Arrays of arrays are
// legal GGUF but unused by models; the reader refuses them (NotSupported).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace wgrt::gguf {

// The type ids GGUF writes before each value.
enum class ValueType : uint32_t {
  U8 = 0, I8 = 1, U16 = 2, I16 = 3, U32 = 4, I32 = 5, F32 = 6, Bool = 7,
  String = 8, Array = 9, U64 = 10, I64 = 11, F64 = 12,
};

std::string_view to_string(ValueType type);
// The C++ type that holds one element of a GGUF value type.
template <class T> constexpr ValueType value_type_of();
template <> constexpr ValueType value_type_of<uint8_t>() { return ValueType::U8; }
template <> constexpr ValueType value_type_of<int8_t>() { return ValueType::I8; }
template <> constexpr ValueType value_type_of<uint16_t>() { return ValueType::U16; }
template <> constexpr ValueType value_type_of<int16_t>() { return ValueType::I16; }
template <> constexpr ValueType value_type_of<uint32_t>() { return ValueType::U32; }
template <> constexpr ValueType value_type_of<int32_t>() { return ValueType::I32; }
template <> constexpr ValueType value_type_of<uint64_t>() { return ValueType::U64; }
template <> constexpr ValueType value_type_of<int64_t>() { return ValueType::I64; }
template <> constexpr ValueType value_type_of<float>() { return ValueType::F32; }
template <> constexpr ValueType value_type_of<double>() { return ValueType::F64; }
template <> constexpr ValueType value_type_of<bool>() { return ValueType::Bool; }
template <> constexpr ValueType value_type_of<std::string>() { return ValueType::String; }

class Value {
 public:
  using Storage = std::variant<
      uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, uint64_t, int64_t, float, double,
      bool, std::string, std::vector<uint8_t>, std::vector<int8_t>, std::vector<uint16_t>,
      std::vector<int16_t>, std::vector<uint32_t>, std::vector<int32_t>, std::vector<uint64_t>,
      std::vector<int64_t>, std::vector<float>, std::vector<double>, std::vector<bool>,
      std::vector<std::string>>;

  Value() = default;
  template <class T>
  explicit Value(T v) : data_(std::move(v)) {}

  // ValueType::Array for arrays; element_type() then says of what.
  ValueType type() const;
  ValueType element_type() const;
  bool is_array() const { return type() == ValueType::Array; }
  // Elements in an array (0 for scalars).
  size_t array_size() const;
  // "u32", "string", "array<string>": for messages.
  std::string type_name() const;

  // The scalar (or, with T = std::vector<E>, the array), or nullptr when the
  // value holds something else.
  template <class T>
  const T* get_if() const { return std::get_if<T>(&data_); }

  // Any integer scalar (not bool) widened; nullopt for other kinds or when
  // the value does not fit.
  std::optional<int64_t> as_int64() const;
  std::optional<uint64_t> as_uint64() const;

  const Storage& storage() const { return data_; }

 private:
  Storage data_;
};

}  // namespace wgrt::gguf
