// Turns the Vulkan delegate graph of a fully delegated .pte method into
// wgrt's graph IR. Values keep their ids, so exporter mem_obj_ids and op
// arguments carry over one to one; constants point into the Program's bytes.
#pragma once

#include "graph/graph.h"
#include "import/pte/program.h"

namespace wgrt::pte {

// The graph of `method`. Error(NotSupported) when the method calls CPU
// kernels (listing them) or uses a dtype wgrt lacks; Error(InvalidProgram)
// for a constant of the wrong size or a dangling value id (naming it).
// `program` must outlive the graph.
Graph to_graph(const Program& program, const Method& method, const std::string& file_name);

wgrt::DType to_wgrt_dtype(DType dtype, const std::string& where);

}  // namespace wgrt::pte
