// A .ptd (FlatTensor external weights) beside the valid program that needs
// it (tests/fixtures/pte/external_weights.pte), through to the graph.
#include "fuzz_util.h"
#include "graph/op_registry.h"
#include "import/pte/program.h"
#include "import/pte/to_graph.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wgrt;
  static const std::vector<uint8_t> pte = fuzz::read_file(fuzz::fixture("pte/external_weights.pte"));
  return fuzz::run([&] {
    const pte::Program program =
        pte::parse_program({"external_weights.pte", pte}, {{"fuzz.ptd", {data, data + size}}});
    for (const pte::Method& method : program.methods) {
      Graph graph = pte::to_graph(method, "external_weights.pte");
      OpRegistry::builtin().check_graph(graph);
    }
  });
}
