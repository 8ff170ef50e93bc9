// .pte container, its flatbuffers, the VH00 header and VK00 graph, then each
// method's translation into a wgrt graph, its op checks and lifetime
// planning: everything ExecutableGraph::load does before allocating GPU memory.
#include "fuzz_util.h"
#include "graph/lifetime_planner.h"
#include "graph/op_registry.h"
#include "import/pte/program.h"
#include "import/pte/to_graph.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wgrt;
  return fuzz::run([&] {
    const pte::Program program = pte::parse_program({"fuzz.pte", {data, data + size}});
    for (const pte::Method& method : program.methods) {
      fuzz::run([&] {
        if (method.constant()) return;
        Graph graph = pte::to_graph(program, method, "fuzz.pte");
        const OpRegistry& registry = OpRegistry::builtin();
        registry.check_graph(graph);
        plan_lifetimes(graph, [&](std::string_view op) {
          const OpDef* def = registry.find(op);
          return def != nullptr && def->is_view;
        });
      });
    }
  });
}
