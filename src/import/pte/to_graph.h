// Turns the Vulkan delegate graph of a fully delegated .pte method into
// wgrt's graph IR. Values keep their ids, so exporter mem_obj_ids and op
// arguments carry over one to one; constants point into the Program's bytes.
#pragma once

#include <map>
#include <set>
#include <span>

#include "graph/graph.h"
#include "import/pte/program.h"

namespace wgrt::pte {

// The graph of `method`. Error(NotSupported) when the method calls CPU
// kernels (listing them) or uses a dtype wgrt lacks; Error(InvalidProgram)
// for a constant of the wrong size or a dangling value id (naming it).
// The program `method` came from must outlive the graph. An fp16 program's graph holds f16
// tensors: widen_f16 (ops/passes/widen_f16.h) makes it one wgrt runs.
Graph to_graph(const Method& method, const std::string& file_name);

// The graph of one Vulkan delegate graph, taking `inputs` and giving `outputs`
// (graph value ids) in that order. io_dtype gives the Program's dtype of I/O
// values where it is known: an Int64 there turns the graph's 32-bit integer
// tensor into wgrt's I64 (int64 on the host, i32 on the device). `where`
// names the graph in messages; `vk`'s constants must outlive the graph.
// `fixed_inputs` lists the inputs (graph value ids) exported with a static
// shape, where that is known. `passed_through` are tensors the delegate never
// sees (method inputs returned unchanged or unused): they get the ids after
// the Vulkan graph's values, in order, and may be named in inputs and outputs.
struct PassThroughTensor {
  wgrt::DType dtype = wgrt::DType::F32;
  Dims dims;
};
Graph vk_to_graph(const VkGraph& vk, std::span<const uint32_t> inputs, std::span<const uint32_t> outputs,
                  const std::map<uint32_t, DType>& io_dtype, const std::string& where,
                  const std::set<uint32_t>& fixed_inputs = {},
                  std::span<const PassThroughTensor> passed_through = {});

wgrt::DType to_wgrt_dtype(DType dtype, const std::string& where);

}  // namespace wgrt::pte
