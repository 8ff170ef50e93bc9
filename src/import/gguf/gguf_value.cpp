#include "import/gguf/gguf_value.h"

#include <limits>
#include <type_traits>

namespace wgrt::gguf {
namespace {

template <class T> struct IsVector : std::false_type {};
template <class E> struct IsVector<std::vector<E>> : std::true_type {
  using Element = E;
};

}  // namespace

std::string_view to_string(ValueType type) {
  switch (type) {
    case ValueType::U8: return "u8";
    case ValueType::I8: return "i8";
    case ValueType::U16: return "u16";
    case ValueType::I16: return "i16";
    case ValueType::U32: return "u32";
    case ValueType::I32: return "i32";
    case ValueType::F32: return "f32";
    case ValueType::Bool: return "bool";
    case ValueType::String: return "string";
    case ValueType::Array: return "array";
    case ValueType::U64: return "u64";
    case ValueType::I64: return "i64";
    case ValueType::F64: return "f64";
  }
  return "unknown";
}

ValueType Value::type() const {
  return std::visit(
      [](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (IsVector<T>::value) return ValueType::Array;
        else return value_type_of<T>();
      },
      data_);
}

ValueType Value::element_type() const {
  return std::visit(
      [](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (IsVector<T>::value) return value_type_of<typename IsVector<T>::Element>();
        else return value_type_of<T>();
      },
      data_);
}

size_t Value::array_size() const {
  return std::visit(
      [](const auto& v) -> size_t {
        using T = std::decay_t<decltype(v)>;
        if constexpr (IsVector<T>::value) return v.size();
        else return 0;
      },
      data_);
}

std::string Value::type_name() const {
  if (is_array()) return "array<" + std::string(to_string(element_type())) + ">";
  return std::string(to_string(type()));
}

std::optional<int64_t> Value::as_int64() const {
  return std::visit(
      [](const auto& v) -> std::optional<int64_t> {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
          if constexpr (std::is_same_v<T, uint64_t>) {
            if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
          }
          return static_cast<int64_t>(v);
        } else {
          return std::nullopt;
        }
      },
      data_);
}

std::optional<uint64_t> Value::as_uint64() const {
  return std::visit(
      [](const auto& v) -> std::optional<uint64_t> {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
          if constexpr (std::is_signed_v<T>) {
            if (v < 0) return std::nullopt;
          }
          return static_cast<uint64_t>(v);
        } else {
          return std::nullopt;
        }
      },
      data_);
}

}  // namespace wgrt::gguf
