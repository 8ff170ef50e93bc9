// wgrt's public C++ API: ExecuTorch programs (conventions: wgrt/runtime.h).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "wgrt/device_tensor.h"
#include "wgrt/memory_stats.h"
#include "wgrt/runtime.h"
#include "wgrt/tensor.h"

namespace wgrt::api {

// An input or output of a method: its dtype and the largest shape it takes.
// Inputs may be smaller in any dim (dynamic shapes), never larger.
struct TensorInfo {
  DType dtype = DType::F32;
  std::vector<int64_t> max_shape;
  // A symbolic int (a size the method reads as a number), passed as a
  // one-element i64 tensor: dtype I64, max_shape [1].
  bool symbolic_int = false;
};

// The GPU time of one dispatch.
struct DispatchTime {
  std::string label;  // the kernel: shader path and entry point, or the op's own name
  double ms = 0;
};

struct RunOptions {
  bool time_dispatches = false;  // measure each dispatch (timestamp_query)
  // Method::execute only: per output, true hands it over as a DeviceTensor
  // (a new buffer of its own) instead of reading it back to the host. Empty:
  // every output to the host. Error(InvalidArgument) unless empty or one
  // entry per output.
  std::vector<bool> device_outputs;
};

// One input of Method::execute: host bytes or a DeviceTensor, both viewed
// (what an Input refers to must stay alive and unchanged until the call
// returns). Host bytes are written to the GPU during the call; a
// DeviceTensor's buffer is bound as is (no copy), and must come from the
// method's runtime.
class Input {
 public:
  Input(const Tensor& tensor)  // NOLINT(google-explicit-constructor): a Tensor is an input
      : dtype_(tensor.dtype()), shape_(tensor.shape()), bytes_(tensor.bytes()) {}
  Input(const DeviceTensor& tensor)  // NOLINT(google-explicit-constructor)
      : dtype_(tensor.dtype()), shape_(tensor.shape()), device_(&tensor) {}
  // Host bytes in host layout (numel * host_size(dtype) of them).
  Input(DType dtype, std::vector<int64_t> shape, std::span<const uint8_t> bytes)
      : dtype_(dtype), shape_(std::move(shape)), bytes_(bytes) {}

  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  std::span<const uint8_t> bytes() const { return bytes_; }  // empty for a device tensor
  const DeviceTensor* device_tensor() const { return device_; }  // null for host bytes

 private:
  DType dtype_;
  std::vector<int64_t> shape_;
  std::span<const uint8_t> bytes_;
  const DeviceTensor* device_ = nullptr;
};

// One output of Method::execute, at its live shape: in `host`, or in
// `device` when RunOptions::device_outputs asked for it.
struct Output {
  bool on_device = false;
  Tensor host;
  DeviceTensor device;
};

// One method of a loaded program. A handle: it keeps its program alive.
class Method {
 public:
  // For the other API classes: not part of the API.
  const std::shared_ptr<detail::ProgramImpl>& impl() const { return program_; }
  size_t index() const { return index_; }

  const std::string& name() const;
  const std::vector<TensorInfo>& inputs() const;
  const std::vector<TensorInfo>& outputs() const;

  // Runs the method on `inputs` (in order; a symbolic int is a one-element
  // i64 tensor) and returns its outputs at their live shapes. Bad inputs throw
  // Error(InvalidArgument) naming the input and what is wrong, and leave the
  // method as it was.
  std::vector<Tensor> run(std::span<const Tensor> inputs, const RunOptions& options = {});
  // The same with device tensors in and out (see Input, Output and
  // RunOptions::device_outputs). Device outputs are allocated together
  // before anything runs: when one fails (OutOfMemory), nothing ran and the
  // method is as it was.
  std::vector<Output> execute(std::span<const Input> inputs, const RunOptions& options = {});
  // GPU milliseconds of each dispatch of the last run with time_dispatches,
  // in dispatch order, with the dispatch's label (its kernel); empty when the
  // adapter has no timestamp_query.
  std::vector<DispatchTime> last_dispatch_times() const;
  // GPU compute dispatches recorded at load. A run issues at most this many:
  // an op may record alternatives (a GEMV and a GEMM for one linear), and the
  // one its live shape sizes to zero workgroups is skipped.
  size_t dispatch_count() const;
  MemoryStats memory_stats() const;

 private:
  friend class Program;
  Method(std::shared_ptr<detail::ProgramImpl> program, size_t index) : program_(std::move(program)), index_(index) {}
  std::shared_ptr<detail::ProgramImpl> program_;
  size_t index_ = 0;
};

// A .pte program (ExecuTorch, lowered with the Vulkan partitioner) loaded on
// a runtime's device.
class Program {
 public:
  // For the other API classes: not part of the API.
  explicit Program(std::shared_ptr<detail::ProgramImpl> impl) : impl_(std::move(impl)) {}

  // Parses `path` (and `ptd`, the .ptd holding its external weights), checks
  // every method, then loads each on the device. Errors: NotFound (no such
  // file), InvalidProgram (malformed file), NotSupported (an operator wgrt
  // lacks, or methods that need CPU kernels), OutOfMemory.
  static Program load(const Runtime& runtime, const std::string& path, const std::string& ptd = "",
                      const LoadOptions& options = {});

  const std::string& path() const;  // empty for a test program (wgrt/testing.h)
  std::vector<std::string> method_names() const;
  // Error(NotFound) listing the methods there are.
  Method method(const std::string& name) const;
  MemoryStats memory_stats() const;  // summed over methods

 private:
  std::shared_ptr<detail::ProgramImpl> impl_;
};

// What a .pte holds, read without loading anything on a device, and
// without its .ptd if need be: for deciding whether wgrt can run a program
// (`wgrt inspect`).
struct ValueInfo {
  std::string kind;            // "Tensor", "Int", "Double", "Bool", ...
  std::string dtype;           // a tensor's element type in ExecuTorch's words ("Float", "Long", ...)
  std::vector<int64_t> shape;  // for a dynamic tensor, its upper bound
  bool dynamic = false;
  std::string value;           // an Int, Double or Bool stored in the program, as text; else empty
};

struct OperatorUse {
  std::string name;  // as the Vulkan graph names it ("aten.add.Tensor")
  int count = 0;     // calls in the method's delegates
  bool supported = false;
};

struct MethodInfo {
  std::string name;
  std::vector<ValueInfo> inputs, outputs;
  // Only returns values stored in the program (ExecuTorch's metadata
  // methods): there is no graph to run.
  bool constant = false;
  // Kernels outside the Vulkan delegate, each once: ExecuTorch's runtime
  // must run them (wgrt.executorch), wgrt's own runtime cannot.
  std::vector<std::string> cpu_kernels;
  size_t delegates = 0;
  std::vector<OperatorUse> operators;  // of its delegates, sorted by name
  // What loading refuses before any GPU work, each with where and why (op,
  // argument, dtype, expected vs got): the same checks load runs, every
  // instance rather than the first. Not filled when named data is missing.
  std::vector<std::string> blockers;
};

struct ProgramInfo {
  std::vector<MethodInfo> methods;
  // Named data (external weights) that none of the given files holds.
  std::vector<std::string> missing_named_data;
};

// The .ptd an export writes beside a program (model.pte -> model.ptd), or
// "" when there is no such file: what `wgrt run`, `wgrt inspect` and the
// Python load use when no .ptd is named.
std::string ptd_beside(const std::string& pte_path);

// Parses `path` (and `ptd` when given). Errors: NotFound (no such file),
// InvalidProgram (malformed, naming the file and byte offset), NotSupported
// (a delegate of another backend).
ProgramInfo describe_program(const std::string& path, const std::string& ptd = "");

}  // namespace wgrt::api
