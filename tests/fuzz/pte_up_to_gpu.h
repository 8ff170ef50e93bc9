// What fuzz_pte drives, shared with the GTest that replays its findings
// (tests/import/test_fuzz_regressions.cpp): the .pte container, its
// flatbuffers, the VH00 header and VK00 graph, then each method's translation
// into a wgrt graph, its op checks and lifetime planning: everything
// ExecutableGraph::load does before allocating GPU memory. Each wgrt::Error
// (the parse's, else one per failing method) goes to `on_error`, so later
// methods still run; anything else escapes.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "graph/lifetime_planner.h"
#include "graph/op_registry.h"
#include "import/pte/program.h"
#include "import/pte/to_graph.h"
#include "wgrt/error.h"

namespace wgrt::fuzz {

inline void pte_up_to_gpu(std::span<const uint8_t> bytes, const std::function<void(const Error&)>& on_error) {
  std::optional<pte::Program> program;
  try {
    program.emplace(pte::parse_program({"fuzz.pte", {bytes.begin(), bytes.end()}}));
  } catch (const Error& e) {
    on_error(e);
    return;
  }
  for (const pte::Method& method : program->methods) {
    if (method.constant()) continue;
    try {
      Graph graph = pte::to_graph(method, "fuzz.pte");
      const OpRegistry& registry = OpRegistry::builtin();
      registry.check_graph(graph);
      plan_lifetimes(graph, [&](std::string_view op) {
        const OpDef* def = registry.find(op);
        return def != nullptr && def->is_view;
      });
    } catch (const Error& e) {
      on_error(e);
    }
  }
}

}  // namespace wgrt::fuzz
