// Moving tensors between ExecuTorch's CPU tensors (the delegate call's
// EValues) and one loaded delegate graph: dtype matching, the int64 <-> int32
// narrowing the Vulkan export implies, and resizing outputs to their live
// shape. Only the live shape's bytes are read or written.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <executorch/runtime/core/evalue.h>

#include "graph/executable_graph.h"

namespace wgrt::et_backend {

// Inputs of one call, viewing the EValues' memory where the dtypes agree and
// owning a narrowed copy where an int64 tensor feeds a 32-bit graph input.
// `scratch` keeps its buffers across calls (no allocation per token).
struct CallInputs {
  std::vector<HostTensorView> views;
  std::vector<std::vector<uint8_t>> scratch;
};

// Fills `in` from the first graph.input_count() args. Error(InvalidArgument)
// naming the argument index, the expected and the given dtype or kind, or
// a non-contiguous tensor; `where` prefixes messages.
void gather_inputs(const ExecutableGraph& graph, std::span<executorch::runtime::EValue*> args, CallInputs& in,
                   const std::string& where);

// Checks that every output arg (after the inputs) is a tensor whose dtype can
// hold the graph output, before anything runs. Error(InvalidArgument).
void check_outputs(const ExecutableGraph& graph, std::span<executorch::runtime::EValue*> args,
                   const std::string& where);

// Resizes each output EValue to the live shape of `outputs` and copies the
// bytes in (widening 32-bit ints into int64 tensors). Error(InvalidArgument)
// when ExecuTorch refuses the resize (a shape beyond the tensor's bound).
void scatter_outputs(const ExecutableGraph& graph, std::span<const HostTensor> outputs,
                     std::span<executorch::runtime::EValue*> args, const std::string& where);

}  // namespace wgrt::et_backend
