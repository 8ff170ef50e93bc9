// `wgrt info`: what WebGPU adapter wgrt would run on, and what it offers.
// Uses only wgrt's public API.
#include <cstdio>
#include <cstring>
#include <optional>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "wgrt/runtime.h"
#include "wgrt/error.h"

namespace wgrt::cli {
namespace {

const char* yes_no(bool offered, bool enabled) {
  if (!offered) return "no";
  return enabled ? "yes" : "offered, not enabled";
}

std::string mib(uint64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%llu (%.0f MiB)", static_cast<unsigned long long>(bytes), bytes / 1048576.0);
  return buf;
}

int info() {
  std::optional<api::Runtime> runtime;
  try {
    runtime = api::Runtime::create(runtime_options());
  } catch (const Error& e) {
    std::fprintf(stderr, "wgrt info: %s\n", e.what());
    return 1;
  }
  const api::AdapterInfo a = runtime->adapter_info();
  const api::AdapterLimits l = runtime->limits();
  const api::AdapterFeatures on = runtime->features();
  const api::AdapterFeatures offered = runtime->offered_features();
  std::printf("adapter:      %s\n", a.name.c_str());
  std::printf("vendor:       %s (0x%04x), device 0x%04x\n", a.vendor.c_str(), a.vendor_id, a.device_id);
  std::printf("backend:      %s\n", a.backend.c_str());
  std::printf("type:         %s\n", a.device_type.c_str());
  if (!a.architecture.empty()) std::printf("architecture: %s\n", a.architecture.c_str());
  if (!a.driver.empty()) std::printf("driver:       %s\n", a.driver.c_str());
  std::printf("runtime:      %s\n", a.implementation.c_str());
  std::printf("requested:    --limits %s (%s)\n", api::limits_mode_name(runtime->limits_mode()),
              runtime->limits_mode() == api::LimitsMode::Default
                  ? "WebGPU's default limits, no optional feature"
                  : "the adapter's own limits and optional features");
  std::printf("\nfeatures:\n");
  std::printf("  shader-f16:       %s\n", yes_no(offered.shader_f16, on.shader_f16));
  std::printf("  timestamp-query:  %s\n", yes_no(offered.timestamp_query, on.timestamp_query));
  std::printf("  subgroups:        %s\n", yes_no(offered.subgroups, on.subgroups));
  std::printf("\nlimits:\n");
  std::printf("  maxBufferSize:                     %s\n", mib(l.max_buffer_size).c_str());
  std::printf("  maxStorageBufferBindingSize:       %s\n", mib(l.max_storage_buffer_binding_size).c_str());
  std::printf("  maxUniformBufferBindingSize:       %s\n", mib(l.max_uniform_buffer_binding_size).c_str());
  std::printf("  maxStorageBuffersPerShaderStage:   %u\n", l.max_storage_buffers_per_shader_stage);
  std::printf("  maxComputeWorkgroupsPerDimension:  %u\n", l.max_compute_workgroups_per_dimension);
  std::printf("  maxComputeInvocationsPerWorkgroup: %u\n", l.max_compute_invocations_per_workgroup);
  std::printf("  maxComputeWorkgroupSize:           %u x %u x %u\n", l.max_compute_workgroup_size_x,
              l.max_compute_workgroup_size_y, l.max_compute_workgroup_size_z);
  std::printf("  maxComputeWorkgroupStorageSize:    %u\n", l.max_compute_workgroup_storage_size);
  std::printf("  minStorageBufferOffsetAlignment:   %u\n", l.min_storage_buffer_offset_alignment);
  // The numbering --devices uses.
  const std::vector<api::AdapterInfo> all = api::list_adapters();
  std::printf("\nadapters (--devices numbers them):\n");
  for (size_t i = 0; i < all.size(); ++i) {
    std::printf("  %zu  %s (%s, %s)\n", i, all[i].name.c_str(), all[i].backend.c_str(), all[i].device_type.c_str());
  }
  return 0;
}

}  // namespace

Command add_info(CLI::App& app) {
  CLI::App* cmd = add_command(app, "info", "the WebGPU adapter, its limits and features",
                              "Prints the WebGPU adapter wgrt uses (name, vendor, backend, type),\n"
                              "its limits and its optional features, then every adapter with the\n"
                              "number --devices gives it. Exits 1 when there is no adapter.");
  return {cmd, info};
}

}  // namespace wgrt::cli
