// Assigns mem_obj_ids to intermediates of graphs that arrive without them
// (GGUF, tests), so that every path shares memory by lifetime.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

#include "graph/graph.h"

namespace wgrt {

// If no intermediate tensor has a mem_obj_id yet, gives each a shared object
// id: larger tensors first, each into the best-fitting existing object whose
// tensors' lifetimes (first to last op that names them, inclusive) do not
// overlap its own, else a new object. Graphs that already carry ids (from an
// exporter) are left as they are. Returns the number of objects assigned.
//
// Ops for which `is_view` says yes put their output in their input's object
// when both are intermediates: the pair is planned as one tensor whose
// lifetime spans both, so the view costs no copy.
size_t plan_lifetimes(Graph& graph, const std::function<bool(std::string_view)>& is_view = {});

}  // namespace wgrt
