// What the public API's handles point at (include/wgrt/*.h): the engine's
// own objects, kept alive together.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "graph/executable_graph.h"
#include "llm/generate.h"
#include "llm/llm_model.h"
#include "runtime/program.h"
#include "runtime/runtime.h"
#include "wgrt/device_tensor.h"
#include "wgrt/llm.h"
#include "wgrt/program.h"
#include "wgrt/runtime.h"

namespace wgrt::api::detail {

struct RuntimeImpl {
  // Shared: the process default is not owned (wgrt::Runtime::process_default).
  std::shared_ptr<wgrt::Runtime> runtime;
};

struct ProgramImpl {
  std::shared_ptr<RuntimeImpl> runtime;  // the device outlives the program
  std::unique_ptr<wgrt::Program> program;     // a .pte's methods
  std::unique_ptr<ExecutableGraph> own_graph;  // or one graph (testing::add_chain)
  std::string path;
  std::vector<std::string> names;
  std::vector<ExecutableGraph*> graphs;                  // per method
  std::vector<std::vector<TensorInfo>> inputs, outputs;  // per method

  // Fills names, graphs, inputs and outputs for one method.
  void add_method(const std::string& name, ExecutableGraph& graph);
};

// api::GenerateOptions as the engine's, and the engine's stats as a result's (llm.cpp).
llm::GenerateOptions engine_generate_options(const GenerateOptions& options);
void copy_generate_stats(const llm::GenerateStats& s, GenerateResult& r);
// The engine's dispatch timings as the API reports them (milliseconds).
std::vector<DispatchTime> dispatch_times(const std::vector<gpu::DispatchTiming>& timings);

struct LlmImpl {
  std::shared_ptr<RuntimeImpl> runtime;
  // A model split across adapters (LlmOptions::devices): its devices,
  // declared before the model so that they outlive it.
  std::vector<std::unique_ptr<gpu::Device>> devices;
  std::unique_ptr<llm::LlmModel> model;
};

// A DeviceTensor's buffer, and the runtime whose device made it.
struct DeviceMemory {
  std::shared_ptr<RuntimeImpl> runtime;
  DeviceMemoryBuffer memory;
};

// An adapter as the API reports it; `implementation` as Device::implementation_version.
AdapterInfo adapter_info(const gpu::AdapterInfo& a, std::string implementation);

// The engine's load options from the API's (defaults from the environment).
wgrt::LoadOptions engine_options(const LoadOptions& options);

}  // namespace wgrt::api::detail
