// An error the HTTP API reports to its client: the status code and the body
// fields of OpenAI's error object ({"error": {message, type, param, code}}).
#pragma once

#include <stdexcept>
#include <string>

namespace wgrt::server {

struct ApiError : std::runtime_error {
  ApiError(int status, std::string type, std::string message, std::string param = {}, std::string code = {})
      : std::runtime_error(message), status(status), type(std::move(type)), param(std::move(param)),
        code(std::move(code)) {}

  static ApiError invalid(std::string message, std::string param = {}) {
    return ApiError(400, "invalid_request_error", std::move(message), std::move(param));
  }

  int status;
  std::string type;   // "invalid_request_error", "server_error", ...
  std::string param;  // the request field at fault, if one is
  std::string code;
};

}  // namespace wgrt::server
