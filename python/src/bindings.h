// Shared pieces of the Python extension `wgrt._wgrt`: the per-process default
// Runtime, the device tensor type, and a runner for one loaded graph (a .pte
// method or a test graph). The Python package (python/wgrt/) wraps these.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <memory>
#include <string>
#include <vector>

#include "graph/executable_graph.h"
#include "runtime/device_memory.h"
#include "runtime/runtime.h"

namespace wgrt::py {

namespace nb = nanobind;

// Runtime::process_default(): created on first use, kept until the process
// ends, and shared with the ExecuTorch backend (libwgrt_executorch.so). Each
// loaded program still owns its own memory and reports its own stats.
Runtime& default_runtime();

// numpy's name of a dtype ("float32", ...), and the reverse for DLPack dtypes.
const char* numpy_dtype_name(DType dtype);
DType dtype_from_dlpack(nb::dlpack::dtype dt);

// A tensor on the GPU, handed to Python as a graph output: it owns its
// buffer, and passing it back as an input binds that same buffer.
struct DeviceTensor {
  DType dtype = DType::F32;
  Dims dims;
  DeviceMemoryBuffer memory;  // empty when the shape has no elements

  uint64_t live_bytes() const { return uint64_t(numel(dims)) * device_size(dtype); }
  nb::object numpy() const;  // a copy in host layout
};

// Builds a numpy array that owns `bytes` (host layout).
nb::object numpy_from_bytes(DType dtype, const Dims& dims, std::vector<uint8_t> bytes);

// Runs a graph it does not own (the owner is kept alive through `owner`) or
// one it owns (test graphs).
class GraphRunner {
 public:
  GraphRunner(ExecutableGraph* graph, nb::object owner) : graph_(graph), owner_(std::move(owner)) {}
  explicit GraphRunner(std::unique_ptr<ExecutableGraph> graph) : owned_(std::move(graph)), graph_(owned_.get()) {}

  // `inputs`: DeviceTensors or C-contiguous CPU arrays (numpy, DLPack);
  // `device_outputs`: per output, hand it over as a DeviceTensor.
  nb::list run(nb::list inputs, std::vector<bool> device_outputs);
  ExecutableGraph& graph() { return *graph_; }

 private:
  std::unique_ptr<ExecutableGraph> owned_;
  ExecutableGraph* graph_ = nullptr;
  nb::object owner_;
};

nb::dict memory_stats_dict(const MemoryStats& s);

void bind_llm(nb::module_& m);
void bind_program(nb::module_& m);
void bind_testing(nb::module_& m);

}  // namespace wgrt::py
