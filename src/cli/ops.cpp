// `wgrt ops`: every operator wgrt runs, one per line, with its dtypes.
#include <cstdio>
#include <algorithm>
#include <string>

#include "cli/args.h"
#include "cli/commands.h"
#include "graph/op_registry.h"

namespace wgrt::cli {

int run_ops(int argc, char** argv) {
  if (asks_for_help(argc, argv)) {
    std::printf("usage: wgrt ops\n\nLists every operator wgrt runs (the names a .pte's Vulkan graph uses), one per\n"
                "line, with the element types it accepts.\n");
    return 0;
  }
  if (argc > 1) {
    std::fprintf(stderr, "wgrt ops: unexpected argument '%s'\n", argv[1]);
    return 2;
  }
  const OpRegistry& registry = OpRegistry::builtin();
  size_t width = 0;
  for (const auto& name : registry.names()) width = std::max(width, name.size());
  for (const auto& name : registry.names()) {
    std::printf("%-*s  %s\n", static_cast<int>(width), name.c_str(), registry.find(name)->dtypes.c_str());
  }
  return 0;
}

}  // namespace wgrt::cli
