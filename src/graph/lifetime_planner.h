// Assigns mem_obj_ids to intermediates of graphs that arrive without them
// (GGUF, tests), so that every path shares memory by lifetime.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>
#include <vector>

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

// An exporter's memory plan (the intermediates' mem_obj_ids), taken out of a
// graph while graph passes rewrite it. The plan was made for the graph as
// exported: a pass that moves a read or write, or drops a copy, would have to
// keep within it (most could not). So the passes see a graph without it;
// when they changed the graph, plan_lifetimes plans the new one; when they
// did not, restore() puts the exporter's plan back.
class ExporterPlan {
 public:
  static ExporterPlan take(Graph& graph);
  void restore(Graph& graph) const;

 private:
  std::vector<int32_t> ids_;  // by value id; -1 for values that are no intermediate
};

}  // namespace wgrt
