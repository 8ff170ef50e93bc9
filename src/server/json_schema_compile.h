// OpenAI's `response_format: {"type": "json_schema", "json_schema": {"schema": ...}}`:
// the schema's JSON compiled into wgrt::JsonSchema (wgrt/json_schema.h), the
// subset llm/json_schema.h matches. A keyword outside the subset is refused
// by name rather than ignored, so no reply silently breaks the schema.
#pragma once

#include <memory>

#include <nlohmann/json.hpp>

#include "wgrt/json_schema.h"

namespace wgrt::server {

// Throws ApiError(400, param "response_format") naming the keyword or value
// and where it is (a JSON pointer into the schema).
std::shared_ptr<const JsonSchema> compile_json_schema(const nlohmann::json& schema);

}  // namespace wgrt::server
