#include "cli/kernel_profile.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace wgrt::cli {

std::vector<KernelRow> group_by_label(const std::vector<api::DispatchTime>& timings) {
  std::map<std::string, KernelRow> by_label;
  for (const auto& t : timings) {
    KernelRow& row = by_label[t.label];
    row.label = t.label;
    ++row.count;
    row.gpu_ns += t.ms * 1e6;
  }
  std::vector<KernelRow> rows;
  for (auto& [_, row] : by_label) rows.push_back(std::move(row));
  std::sort(rows.begin(), rows.end(), [](const KernelRow& a, const KernelRow& b) { return a.gpu_ns > b.gpu_ns; });
  return rows;
}

void print_kernel_table(const std::vector<KernelRow>& rows, size_t top) {
  double total_ns = 0;
  for (const auto& r : rows) total_ns += r.gpu_ns;
  std::printf("  %-40s %6s %11s %10s %7s\n", "kernel (dispatch label)", "count", "total us", "avg us", "share");
  for (size_t i = 0; i < rows.size() && i < top; ++i) {
    const KernelRow& k = rows[i];
    std::printf("  %-40.40s %6zu %11.1f %10.2f %6.1f%%\n", k.label.c_str(), k.count, k.gpu_ns * 1e-3,
                k.gpu_ns * 1e-3 / double(k.count), total_ns > 0 ? 100.0 * k.gpu_ns / total_ns : 0.0);
  }
  if (rows.size() > top) std::printf("  ... %zu more labels\n", rows.size() - top);
}

}  // namespace wgrt::cli
