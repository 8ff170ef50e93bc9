// Assigns mem_obj_ids to intermediates of graphs that arrive without them
// (GGUF, tests), so that every path shares memory by lifetime.
#pragma once

#include <cstddef>

#include "graph/graph.h"

namespace wgrt {

// If no intermediate tensor has a mem_obj_id yet, gives each a shared object
// id: larger tensors first, each into the best-fitting existing object whose
// tensors' lifetimes (first to last op that names them, inclusive) do not
// overlap its own, else a new object. Graphs that already carry ids (from an
// exporter) are left as they are. Returns the number of objects assigned.
size_t plan_lifetimes(Graph& graph);

}  // namespace wgrt
