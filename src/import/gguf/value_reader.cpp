#include "import/gguf/value_reader.h"

#include <algorithm>
#include <string>
#include <vector>

#include "wgrt/error.h"

namespace wgrt::gguf {
namespace {

// Bytes one element of a type takes at least (a string: its u64 length).
uint64_t min_element_bytes(ValueType type) {
  switch (type) {
    case ValueType::U8: case ValueType::I8: case ValueType::Bool: return 1;
    case ValueType::U16: case ValueType::I16: return 2;
    case ValueType::U32: case ValueType::I32: case ValueType::F32: return 4;
    case ValueType::U64: case ValueType::I64: case ValueType::F64: case ValueType::String: return 8;
    case ValueType::Array: return 12;
  }
  return 1;
}

bool known_type(uint32_t id) { return id <= 12; }

template <class T>
std::vector<T> read_elements(ByteReader& reader, uint64_t count, const std::string& what) {
  std::vector<T> out;
  out.reserve(count);
  for (uint64_t i = 0; i < count; ++i) out.push_back(reader.read<T>(what));
  return out;
}

std::vector<bool> read_bools(ByteReader& reader, uint64_t count, const std::string& what) {
  std::vector<bool> out;
  out.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t at = reader.offset();
    const uint8_t b = reader.read<uint8_t>(what);
    if (b > 1) reader.fail(at, what + ": expected a bool (0 or 1), got " + std::to_string(b));
    out.push_back(b != 0);
  }
  return out;
}

Value read_scalar(ByteReader& reader, ValueType type, const std::string& what) {
  switch (type) {
    case ValueType::U8: return Value(reader.read<uint8_t>(what));
    case ValueType::I8: return Value(reader.read<int8_t>(what));
    case ValueType::U16: return Value(reader.read<uint16_t>(what));
    case ValueType::I16: return Value(reader.read<int16_t>(what));
    case ValueType::U32: return Value(reader.read<uint32_t>(what));
    case ValueType::I32: return Value(reader.read<int32_t>(what));
    case ValueType::U64: return Value(reader.read<uint64_t>(what));
    case ValueType::I64: return Value(reader.read<int64_t>(what));
    case ValueType::F32: return Value(reader.read<float>(what));
    case ValueType::F64: return Value(reader.read<double>(what));
    case ValueType::Bool: return Value(static_cast<bool>(read_bools(reader, 1, what)[0]));
    case ValueType::String: return Value(reader.read_string(what));
    case ValueType::Array: break;
  }
  throw Error(ErrorCode::Internal, "read_scalar called for an array");
}

Value read_array(ByteReader& reader, std::string_view key) {
  const std::string what = "value of '" + std::string(key) + "'";
  const uint64_t type_at = reader.offset();
  const uint32_t elem_id = reader.read<uint32_t>("array element type of '" + std::string(key) + "'");
  if (!known_type(elem_id)) {
    reader.fail(type_at, "array element type of '" + std::string(key) +
                             "': expected a GGUF value type (0..12), got " + std::to_string(elem_id));
  }
  const auto elem = static_cast<ValueType>(elem_id);
  if (elem == ValueType::Array) {
    throw Error(ErrorCode::NotSupported, reader.source() + ": at byte " + std::to_string(type_at) +
                                             ": '" + std::string(key) +
                                             "' is an array of arrays, which wgrt does not read");
  }
  const uint64_t count_at = reader.offset();
  const uint64_t count = reader.read<uint64_t>("array length of '" + std::string(key) + "'");
  // Refuse counts the rest of the file could not hold before allocating.
  const uint64_t min_bytes = min_element_bytes(elem);
  if (count > reader.remaining() / min_bytes) {
    reader.fail(count_at, "array '" + std::string(key) + "' of " + std::to_string(count) + " " +
                              std::string(to_string(elem)) + " elements: expected at most " +
                              std::to_string(reader.remaining() / min_bytes) +
                              " (the bytes left in the file), got " + std::to_string(count));
  }
  // Read in before allocating: a count past the header's bound fails here.
  reader.require(count * min_bytes, what);
  switch (elem) {
    case ValueType::U8: return Value(read_elements<uint8_t>(reader, count, what));
    case ValueType::I8: return Value(read_elements<int8_t>(reader, count, what));
    case ValueType::U16: return Value(read_elements<uint16_t>(reader, count, what));
    case ValueType::I16: return Value(read_elements<int16_t>(reader, count, what));
    case ValueType::U32: return Value(read_elements<uint32_t>(reader, count, what));
    case ValueType::I32: return Value(read_elements<int32_t>(reader, count, what));
    case ValueType::U64: return Value(read_elements<uint64_t>(reader, count, what));
    case ValueType::I64: return Value(read_elements<int64_t>(reader, count, what));
    case ValueType::F32: return Value(read_elements<float>(reader, count, what));
    case ValueType::F64: return Value(read_elements<double>(reader, count, what));
    case ValueType::Bool: return Value(read_bools(reader, count, what));
    case ValueType::String: {
      std::vector<std::string> out;
      out.reserve(std::min<uint64_t>(count, uint64_t{1} << 20));
      for (uint64_t i = 0; i < count; ++i) {
        out.push_back(reader.read_string("string " + std::to_string(i) + " of '" + std::string(key) + "'"));
      }
      return Value(std::move(out));
    }
    case ValueType::Array: break;
  }
  throw Error(ErrorCode::Internal, "unreachable array element type");
}

}  // namespace

Value read_value(ByteReader& reader, uint32_t type_id, uint64_t type_offset, std::string_view key) {
  if (!known_type(type_id)) {
    reader.fail(type_offset, "value type of '" + std::string(key) +
                                 "': expected a GGUF value type (0..12), got " + std::to_string(type_id));
  }
  const auto type = static_cast<ValueType>(type_id);
  if (type == ValueType::Array) return read_array(reader, key);
  return read_scalar(reader, type, "value of '" + std::string(key) + "'");
}

}  // namespace wgrt::gguf
