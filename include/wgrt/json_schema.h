// A JSON Schema, compiled: what `response_format: json_schema` constrains a
// generation to (GenerateOptions::json_schema). parse_json_schema makes one
// from a schema's text; a caller may also build one directly.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace wgrt {

struct JsonSchemaNode {
  enum class Type : uint8_t { Any, Object, Array, String, Number, Integer, Boolean, Null, Literals, AnyOf };
  Type type = Type::Any;
  // Object: the properties in schema order, which are required, and the
  // node other keys' values follow (-1: no other key).
  std::vector<std::string> property_names;
  std::vector<int32_t> property_nodes;
  std::vector<bool> required;
  int32_t additional = -1;
  // Array: each item's node, and how many items (-1: no most).
  int32_t items = 0;
  int64_t min_items = 0, max_items = -1;
  // String: the most characters (-1: any).
  int64_t max_length = -1;
  // Literals (enum, const): each value's JSON text, without spaces.
  std::vector<std::string> literals;
  // AnyOf (anyOf, oneOf, a list of types): the alternatives.
  std::vector<int32_t> options;
};

// Node 0 is the root; nodes refer to each other by index (so a schema may
// be recursive, as $ref allows).
struct JsonSchema {
  std::vector<JsonSchemaNode> nodes;
};

namespace api {

// A JSON Schema's text compiled: type (one or a list), properties, required,
// additionalProperties, items, minItems, maxItems, maxLength, enum, const,
// anyOf, oneOf, $ref into $defs/definitions; the root an object or an array.
// Error(InvalidArgument) names any other keyword, or a bad value, and where
// it is (a JSON pointer into the schema).
std::shared_ptr<const JsonSchema> parse_json_schema(std::string_view schema_json);

}  // namespace api
}  // namespace wgrt
