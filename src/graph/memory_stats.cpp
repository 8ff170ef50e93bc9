#include "wgrt/memory_stats.h"

#include <cstdio>

namespace wgrt {
namespace {
std::string line(const char* name, uint64_t bytes) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "  %-18s %14llu B  %10.2f MiB\n", name, static_cast<unsigned long long>(bytes),
                bytes / 1048576.0);
  return buf;
}
}  // namespace

MemoryStats& MemoryStats::operator+=(const MemoryStats& o) {
  tensor_bytes += o.tensor_bytes;
  shared_bytes += o.shared_bytes;
  unshared_bytes += o.unshared_bytes;
  state_bytes += o.state_bytes;
  constant_bytes += o.constant_bytes;
  staging_bytes += o.staging_bytes;
  uniform_bytes += o.uniform_bytes;
  scratch_bytes += o.scratch_bytes;
  num_shared_objects += o.num_shared_objects;
  total_bytes += o.total_bytes;
  unaliased_bytes += o.unaliased_bytes;
  return *this;
}

std::string MemoryStats::to_string() const {
  std::string s;
  s += line("tensors", tensor_bytes);
  s += line("  shared", shared_bytes);
  s += line("  unshared", unshared_bytes);
  s += line("    state (KV)", state_bytes);
  s += line("constants", constant_bytes);
  s += line("staging", staging_bytes);
  s += line("uniforms", uniform_bytes);
  s += line("scratch", scratch_bytes);
  s += line("total", total_bytes);
  s += line("without aliasing", unaliased_bytes);
  s += "  shared objects     " + std::to_string(num_shared_objects) + "\n";
  return s;
}

}  // namespace wgrt
