// Per-dispatch GPU times grouped by dispatch label, for `wgrt run --profile`
// and `wgrt bench --profile`.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "wgrt/program.h"

namespace wgrt::cli {

struct KernelRow {
  std::string label;
  size_t count = 0;
  double gpu_ns = 0;
};

// One row per label, the most GPU time first.
std::vector<KernelRow> group_by_label(const std::vector<api::DispatchTime>& timings);

// The `top` rows as a table (count, total and average microseconds, share).
void print_kernel_table(const std::vector<KernelRow>& rows, size_t top);

}  // namespace wgrt::cli
