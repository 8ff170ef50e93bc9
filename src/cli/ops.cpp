// `wgrt ops`: every operator wgrt runs, one per line, with its dtypes. Uses
// only wgrt's public API.
#include <cstdio>
#include <algorithm>
#include <string>

#include "cli/commands.h"
#include "wgrt/runtime.h"

namespace wgrt::cli {

namespace {

int list_ops() {
  const std::vector<api::OperatorInfo> ops = api::supported_operators();
  size_t width = 0;
  for (const auto& op : ops) width = std::max(width, op.name.size());
  for (const auto& op : ops) std::printf("%-*s  %s\n", static_cast<int>(width), op.name.c_str(), op.dtypes.c_str());
  return 0;
}

}  // namespace

Command add_ops(CLI::App& app) {
  CLI::App* cmd = add_command(app, "ops", "every operator wgrt runs, with its dtypes",
                              "Lists every operator wgrt runs (the names a .pte's Vulkan graph uses), one per\n"
                              "line, with the element types it accepts.");
  return {cmd, list_ops};
}

}  // namespace wgrt::cli
