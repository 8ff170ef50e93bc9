// Shared pieces of the Python extension `wgrt._wgrt`, on wgrt's public C++
// API only (include/wgrt): the per-process default Runtime, numpy
// conversion, and a runner for one method (a .pte method or a test graph).
// The Python package (python/wgrt/) wraps these.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <vector>

#include "wgrt/device_tensor.h"
#include "wgrt/memory_stats.h"
#include "wgrt/program.h"
#include "wgrt/runtime.h"

namespace wgrt::py {

namespace nb = nanobind;

// Runtime::process_default(): created on first use, kept until the process
// ends, and shared with the ExecuTorch backend (libwgrt_executorch.so). Each
// loaded program still owns its own memory and reports its own stats.
api::Runtime default_runtime();

// numpy's name of a dtype ("float32", ...).
const char* numpy_dtype_name(DType dtype);

// A numpy array that owns `tensor`'s bytes (host layout).
nb::object numpy_from_tensor(api::Tensor&& tensor);

// Runs one method; the method keeps its program alive.
class GraphRunner {
 public:
  explicit GraphRunner(api::Method method) : method_(std::move(method)) {}

  // `inputs`: wgrt.Tensors (api::DeviceTensor) or C-contiguous CPU arrays
  // (numpy, DLPack); `device_outputs`: per output, hand it over as a
  // wgrt.Tensor.
  nb::list run(nb::list inputs, std::vector<bool> device_outputs);
  api::Method& method() { return method_; }

 private:
  api::Method method_;
};

nb::dict memory_stats_dict(const MemoryStats& s);

void bind_llm(nb::module_& m);
void bind_program(nb::module_& m);
void bind_testing(nb::module_& m);

}  // namespace wgrt::py
