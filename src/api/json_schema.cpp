// JSON Schema text -> wgrt::JsonSchema (wgrt/json_schema.h): the subset
// llm/json_schema.h matches. A keyword outside the subset is refused by name
// rather than ignored, so that no reply silently breaks the schema.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "wgrt/error.h"
#include "wgrt/json_schema.h"

namespace wgrt::api {
namespace {

using nlohmann::json;
using Type = JsonSchemaNode::Type;

constexpr size_t kMaxNodes = 4096;
constexpr int kMaxNesting = 64;  // schemas within schemas, and enum/const values within values

// Whether `v` nests deeper than `limit` (stops looking there: the walk is bounded too).
bool nests_deeper(const json& v, int limit) {
  if (!v.is_structured()) return false;
  if (limit == 0) return true;
  for (const json& child : v) {
    if (nests_deeper(child, limit - 1)) return true;
  }
  return false;
}

// Keywords that only describe (no effect on what is valid), and the ones the matcher enforces.
const std::set<std::string> kAnnotations = {"title", "description", "default", "examples", "$schema", "$id",
                                            "$comment", "strict", "$defs", "definitions", "deprecated", "readOnly",
                                            "writeOnly"};
const std::set<std::string> kEnforced = {"type", "properties", "required", "additionalProperties", "items",
                                         "minItems", "maxItems", "maxLength", "enum", "const", "anyOf", "oneOf",
                                         "$ref"};

class Compiler {
 public:
  explicit Compiler(const json& root) : root_(root) {}

  std::shared_ptr<const JsonSchema> run() {
    out_.nodes.emplace_back();  // the root's place: node 0
    const int32_t root = compile(root_, "");
    out_.nodes[0] = out_.nodes[size_t(root)];
    // A container at the root (or a choice of containers: tool calls' anyOf),
    // so that the value ends where its bracket closes.
    const auto container = [&](const JsonSchemaNode& n) { return n.type == Type::Object || n.type == Type::Array; };
    const JsonSchemaNode& r = out_.nodes[0];
    const bool choice_of_containers =
        r.type == Type::AnyOf && !r.options.empty() &&
        std::all_of(r.options.begin(), r.options.end(), [&](int32_t o) { return container(out_.nodes[size_t(o)]); });
    if (!container(r) && !choice_of_containers) {
      fail("", "the schema's root must be an object or an array (or anyOf of them)");
    }
    return std::make_shared<JsonSchema>(std::move(out_));
  }

 private:
  [[noreturn]] static void fail(const std::string& where, const std::string& what) {
    throw Error(ErrorCode::InvalidArgument, "JSON schema" + (where.empty() ? "" : " at " + where) + ": " + what);
  }

  int32_t add(JsonSchemaNode n, const std::string& where) {
    if (out_.nodes.size() >= kMaxNodes) fail(where, "more than " + std::to_string(kMaxNodes) + " schema nodes");
    out_.nodes.push_back(std::move(n));
    return int32_t(out_.nodes.size() - 1);
  }

  int32_t any(const std::string& where) {
    if (any_ < 0) any_ = add({}, where);
    return any_;
  }

  int64_t count(const json& s, const char* key, const std::string& where) {
    const json& v = s[key];
    if (!v.is_number_integer() || v.get<int64_t>() < 0) fail(where + "/" + key, "must be a whole number >= 0");
    return v.get<int64_t>();
  }

  int32_t reference(const std::string& ref, const std::string& where) {
    if (auto it = refs_.find(ref); it != refs_.end()) return it->second;
    const json* target = nullptr;
    for (const char* prefix : {"#/$defs/", "#/definitions/"}) {
      const std::string p = prefix;
      if (ref.compare(0, p.size(), p) == 0) {
        const std::string section = p.substr(2, p.size() - 3), name = ref.substr(p.size());
        if (root_.contains(section) && root_[section].is_object() && root_[section].contains(name)) {
          target = &root_[section][name];
        }
      }
    }
    if (ref == "#") target = &root_;
    if (target == nullptr) fail(where, "$ref '" + ref + "' names nothing under #/$defs or #/definitions");
    const int32_t slot = add({}, where);  // reserved first: a schema may refer to itself
    refs_[ref] = slot;
    const int32_t body = compile(*target, ref.substr(1));
    out_.nodes[size_t(slot)] = out_.nodes[size_t(body)];
    return slot;
  }

  int32_t compile(const json& s, const std::string& where) {
    if (++nesting_ > kMaxNesting) fail(where, "schemas nest more than " + std::to_string(kMaxNesting) + " deep");
    struct Leave {
      int& n;
      ~Leave() { --n; }
    } leave{nesting_};
    if (s.is_boolean()) {
      if (!s.get<bool>()) fail(where, "the schema false allows nothing");
      return any(where);
    }
    if (!s.is_object()) fail(where, "a schema must be an object");
    check_keywords(s, where);
    if (s.contains("$ref")) {
      if (!s["$ref"].is_string()) fail(where + "/$ref", "must be a string");
      return reference(s["$ref"].get<std::string>(), where + "/$ref");
    }
    if (s.contains("enum") || s.contains("const")) return literals(s, where);
    for (const char* key : {"anyOf", "oneOf"}) {
      if (s.contains(key)) return alternatives(s, key, where);
    }
    if (s.contains("type") && s["type"].is_array()) return type_alternatives(s, where);
    const std::optional<std::string> type = type_of(s, where);
    if (!type) return any(where);
    JsonSchemaNode n;
    if (*type == "object") {
      object_node(s, where, n);
    } else if (*type == "array") {
      n.type = Type::Array;
      n.items = s.contains("items") ? compile(s["items"], where + "/items") : any(where);
      if (s.contains("minItems")) n.min_items = count(s, "minItems", where);
      if (s.contains("maxItems")) n.max_items = count(s, "maxItems", where);
      if (n.max_items >= 0 && n.min_items > n.max_items) fail(where, "minItems is above maxItems");
    } else if (*type == "string") {
      n.type = Type::String;
      if (s.contains("maxLength")) n.max_length = count(s, "maxLength", where);
    } else if (*type == "number" || *type == "integer" || *type == "boolean" || *type == "null") {
      n.type = *type == "number" ? Type::Number : *type == "integer" ? Type::Integer
             : *type == "boolean" ? Type::Boolean : Type::Null;
    } else {
      fail(where + "/type", "'" + *type + "' is not a JSON Schema type");
    }
    return add(std::move(n), where);
  }

  void check_keywords(const json& s, const std::string& where) {
    for (const auto& [key, value] : s.items()) {
      if (!kAnnotations.count(key) && !kEnforced.count(key)) {
        fail(where, "the keyword '" + key + "' is not supported by wgrt (supported: type, properties, required, "
                    "additionalProperties, items, minItems, maxItems, maxLength, enum, const, anyOf, oneOf, $ref)");
      }
    }
  }

  // enum and const: the values' JSON texts.
  int32_t literals(const json& s, const std::string& where) {
    JsonSchemaNode n;
    n.type = Type::Literals;
    if (nests_deeper(s.value("const", json()), kMaxNesting) || nests_deeper(s.value("enum", json()), kMaxNesting)) {
      fail(where, "an enum or const value nests more than " + std::to_string(kMaxNesting) + " deep");
    }
    if (s.contains("const")) n.literals.push_back(s["const"].dump());
    if (s.contains("enum")) {
      if (!s["enum"].is_array() || s["enum"].empty()) fail(where + "/enum", "must be a non-empty array");
      for (const json& v : s["enum"]) n.literals.push_back(v.dump());
    }
    return add(std::move(n), where);
  }

  // anyOf or oneOf (`key`): one option per schema in the list.
  int32_t alternatives(const json& s, const char* key, const std::string& where) {
    if (!s[key].is_array() || s[key].empty()) fail(where + "/" + key, "must be a non-empty array");
    JsonSchemaNode n;
    n.type = Type::AnyOf;
    for (size_t i = 0; i < s[key].size(); ++i) {
      n.options.push_back(compile(s[key][i], where + "/" + key + "/" + std::to_string(i)));
    }
    return add(std::move(n), where);
  }

  // Several types: one alternative each, the schema with that one type.
  int32_t type_alternatives(const json& s, const std::string& where) {
    JsonSchemaNode n;
    n.type = Type::AnyOf;
    for (const json& t : s["type"]) {
      json one = s;
      one["type"] = t;
      n.options.push_back(compile(one, where));
    }
    if (n.options.empty()) fail(where + "/type", "must name at least one type");
    return add(std::move(n), where);
  }

  // The type a schema names, or the one its keywords imply (none: any value).
  std::optional<std::string> type_of(const json& s, const std::string& where) {
    if (s.contains("type")) {
      if (!s["type"].is_string()) fail(where + "/type", "must be a string or an array of strings");
      return s["type"].get<std::string>();
    }
    if (s.contains("properties") || s.contains("additionalProperties") || s.contains("required")) return "object";
    if (s.contains("items")) return "array";
    return std::nullopt;
  }

  // properties, required (checked against them before any property compiles)
  // and additionalProperties into `n`.
  void object_node(const json& s, const std::string& where, JsonSchemaNode& n) {
    n.type = Type::Object;
    if (s.contains("properties")) {
      if (!s["properties"].is_object()) fail(where + "/properties", "must be an object");
      for (const auto& [name, sub] : s["properties"].items()) {
        n.property_names.push_back(name);
        n.property_nodes.push_back(0);  // compiled below: `n` must not move while children are added
      }
    }
    n.required.assign(n.property_names.size(), false);
    if (s.contains("required")) {
      if (!s["required"].is_array()) fail(where + "/required", "must be an array of property names");
      for (const json& r : s["required"]) {
        size_t i = 0;
        while (i < n.property_names.size() && (!r.is_string() || n.property_names[i] != r.get<std::string>())) ++i;
        if (i == n.property_names.size()) fail(where + "/required", "names " + r.dump() + ", which is not in properties");
        n.required[i] = true;
      }
    }
    const json properties = s.value("properties", json::object());
    size_t i = 0;
    for (const auto& [name, sub] : properties.items()) {
      n.property_nodes[i++] = compile(sub, where + "/properties/" + name);
    }
    const json additional = s.value("additionalProperties", json(true));
    n.additional = additional.is_boolean() ? (additional.get<bool>() ? any(where) : -1)
                                           : compile(additional, where + "/additionalProperties");
  }

  const json& root_;
  JsonSchema out_;
  std::map<std::string, int32_t> refs_;
  int32_t any_ = -1;
  int nesting_ = 0;
};

}  // namespace

std::shared_ptr<const JsonSchema> parse_json_schema(std::string_view schema_json) {
  json schema;
  try {
    schema = json::parse(schema_json);
  } catch (const json::exception& e) {
    throw Error(ErrorCode::InvalidArgument, std::string("JSON schema: not valid JSON: ") + e.what());
  }
  return Compiler(schema).run();
}

}  // namespace wgrt::api
