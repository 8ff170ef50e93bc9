// ExecuTorch programs in the page: load a .pte (and its .ptd) from the
// module's file system and run a method on .npy inputs written there,
// writing its outputs back as .npy files for the page to offer.
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "exports.h"
#include "runtime_exports.h"
#include "wgrt/program.h"
#include "wgrt/tensor.h"

namespace wgrt::web {
namespace {
HandleTable<api::Program> g_programs;

nlohmann::json describe(const api::TensorInfo& t) {
  return {{"dtype", std::string(dtype_name(t.dtype))}, {"shape", t.max_shape}, {"symbolic_int", t.symbolic_int}};
}
}  // namespace
}  // namespace wgrt::web

using namespace wgrt;

extern "C" {

// Loads `pte` (with `ptd`, or ""), returning a program handle or 0. Async.
EMSCRIPTEN_KEEPALIVE int32_t wgrt_web_program_load(const char* pte, const char* ptd) {
  return web::guarded([&] { return web::g_programs.add(api::Program::load(web::runtime(), pte, ptd ? ptd : "")); },
                      int32_t{0});
}

EMSCRIPTEN_KEEPALIVE int wgrt_web_program_free(int32_t program) { return web::g_programs.remove(program) ? 1 : 0; }

// {"methods": {name: {"inputs": [...], "outputs": [...]}}}, or null.
EMSCRIPTEN_KEEPALIVE const char* wgrt_web_program_info(int32_t program) {
  return web::guarded(
      [&] {
        const api::Program& p = web::g_programs.get(program, "program");
        nlohmann::json methods = nlohmann::json::object();
        for (const std::string& name : p.method_names()) {
          const api::Method m = p.method(name);
          nlohmann::json inputs = nlohmann::json::array(), outputs = nlohmann::json::array();
          for (const api::TensorInfo& t : m.inputs()) inputs.push_back(web::describe(t));
          for (const api::TensorInfo& t : m.outputs()) outputs.push_back(web::describe(t));
          methods[name] = {{"inputs", inputs}, {"outputs", outputs}};
        }
        return web::returned(nlohmann::json({{"methods", methods}}).dump());
      },
      static_cast<const char*>(nullptr));
}

// Runs `method` on the .npy files named in `inputs_json` (an array of paths,
// in the method's input order) and writes output i to `<out_prefix><i>.npy`.
// Returns the number of outputs, or -1 with the error. Async.
EMSCRIPTEN_KEEPALIVE int32_t wgrt_web_method_run(int32_t program, const char* method, const char* inputs_json,
                                                 const char* out_prefix) {
  return web::guarded(
      [&] {
        api::Method m = web::g_programs.get(program, "program").method(method);
        const nlohmann::json paths = nlohmann::json::parse(inputs_json, nullptr, false);
        if (paths.is_discarded() || !paths.is_array()) throw std::invalid_argument("inputs must be a JSON array of paths");
        std::vector<api::Tensor> inputs;
        for (const nlohmann::json& path : paths) inputs.push_back(api::read_npy(path.get<std::string>()));
        const std::vector<api::Tensor> outputs = m.run(inputs);
        for (size_t i = 0; i < outputs.size(); ++i) {
          api::write_npy(std::string(out_prefix) + std::to_string(i) + ".npy", outputs[i]);
        }
        return int32_t(outputs.size());
      },
      int32_t{-1});
}

}  // extern "C"
