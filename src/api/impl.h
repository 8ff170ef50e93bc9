// What the public API's handles point at (include/wgrt/*.h): the engine's
// own objects, kept alive together.
#pragma once

#include <memory>
#include <vector>

#include "llm/llm_model.h"
#include "runtime/program.h"
#include "runtime/runtime.h"
#include "wgrt/program.h"
#include "wgrt/runtime.h"

namespace wgrt::api::detail {

struct RuntimeImpl {
  // Shared: the process default is not owned (wgrt::Runtime::process_default).
  std::shared_ptr<wgrt::Runtime> runtime;
};

struct ProgramImpl {
  std::shared_ptr<RuntimeImpl> runtime;  // the device outlives the program
  std::unique_ptr<wgrt::Program> program;
  std::vector<std::string> names;
  std::vector<std::vector<TensorInfo>> inputs, outputs;  // per method
};

struct LlmImpl {
  std::shared_ptr<RuntimeImpl> runtime;
  std::unique_ptr<llm::LlmModel> model;
};

// The engine's load options from the API's (defaults from the environment).
wgrt::LoadOptions engine_options(const LoadOptions& options);

}  // namespace wgrt::api::detail
