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
  size_t dtypes_width = 0;
  for (const auto& op : ops) dtypes_width = std::max(dtypes_width, op.dtypes.size());
  for (const auto& op : ops) {
    // fp16 programs compute in f32 (their f16 tensors widened at load): an
    // op that takes f32 runs inside them.
    const bool in_f16 = op.dtypes.find("f32") != std::string::npos;
    if (in_f16) {
      std::printf("%-*s  %-*s  f16 (as f32)\n", static_cast<int>(width), op.name.c_str(),
                  static_cast<int>(dtypes_width), op.dtypes.c_str());
    } else {
      std::printf("%-*s  %s\n", static_cast<int>(width), op.name.c_str(), op.dtypes.c_str());
    }
  }
  std::fprintf(stderr,
               "\nf16 (as f32): the op runs in fp16 programs, which wgrt computes in f32 inside; their f16 inputs,\n"
               "outputs and constants are converted at load and at the graph's edges.\n");
  return 0;
}

}  // namespace

Command add_ops(CLI::App& app) {
  CLI::App* cmd = add_command(app, "ops", "every operator wgrt runs, with its dtypes",
                              "Lists every operator wgrt runs (the names a .pte's Vulkan graph uses), one per\n"
                              "line, with the element types it accepts, and whether it runs in fp16 programs.");
  return {cmd, list_ops};
}

}  // namespace wgrt::cli
