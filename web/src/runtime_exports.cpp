// The module's one runtime (the page's WebGPU device) and the shared plumbing
// of every export: the last error and returned strings.
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "exports.h"
#include "runtime_exports.h"
#include "wgrt/runtime.h"

namespace wgrt::web {
namespace {
std::string g_last_error;
std::string g_returned;
std::optional<api::Runtime> g_runtime;
}  // namespace

void set_last_error(std::string message) { g_last_error = std::move(message); }

const char* returned(std::string text) {
  g_returned = std::move(text);
  return g_returned.c_str();
}

const api::Runtime& runtime() {
  if (!g_runtime) throw std::logic_error("wgrt_web_init has not succeeded: no WebGPU device yet");
  return *g_runtime;
}

}  // namespace wgrt::web

using namespace wgrt;

extern "C" {

EMSCRIPTEN_KEEPALIVE const char* wgrt_web_last_error() { return web::g_last_error.c_str(); }

// Creates the device: `limits` is "adapter" (the adapter's own limits) or
// "default" (WebGPU's defaults, as a page that asks for nothing gets).
// Returns 1, or 0 with the error. Async (it waits for the browser).
EMSCRIPTEN_KEEPALIVE int wgrt_web_init(const char* limits) {
  return web::guarded(
      [&] {
        api::RuntimeOptions options;
        options.limits = api::parse_limits_mode(limits, "limits");
        web::g_runtime.emplace(api::Runtime::create(options));
        return 1;
      },
      0);
}

// {"adapter": ..., "limits_mode": ..., "f16": bool, "subgroups": bool} of
// the device, or null before wgrt_web_init.
EMSCRIPTEN_KEEPALIVE const char* wgrt_web_device_info() {
  return web::guarded(
      [&] {
        const api::Runtime& rt = web::runtime();
        const api::AdapterFeatures f = rt.features();
        nlohmann::json info = {{"adapter", rt.adapter_name()},
                               {"limits_mode", api::limits_mode_name(rt.limits_mode())},
                               {"f16", f.shader_f16},
                               {"subgroups", f.subgroups},
                               {"max_storage_buffer_binding_size", rt.limits().max_storage_buffer_binding_size}};
        return web::returned(info.dump());
      },
      static_cast<const char*>(nullptr));
}

}  // extern "C"
