// Hooks for wgrt's own tests (the Python package's wgrt._testing): failure
// injection, allocation and traffic counters, and a small built-in graph.
// Not a stable API: these change whenever the tests need them to.
// Conventions as wgrt/runtime.h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "wgrt/program.h"
#include "wgrt/runtime.h"

namespace wgrt::api::testing {

// The nth GPU buffer allocation on `runtime`'s device from now fails with
// OutOfMemory (0 disarms).
void fail_nth_allocation(const Runtime& runtime, uint32_t n);

// A program of one method, "add_chain": inputs x, y (f32, [<= rows, cols]);
// output k (k = 1..n) is x + k * y, each the previous output plus y, and
// each a graph output with its own buffer. Error(InvalidArgument) for n < 1.
Program add_chain(const Runtime& runtime, int64_t n, int64_t rows, int64_t cols);

// What a method's last execute moved between host and device.
struct Traffic {
  uint64_t host_upload_bytes = 0;    // input bytes written from the host
  uint64_t readback_bytes = 0;       // output bytes read back to the host
  uint64_t device_output_bytes = 0;  // bytes copied into new device outputs
  size_t rebound_dispatches = 0;     // dispatches given a caller's buffer
  std::vector<const void*> bound_input_buffers;  // per input: the caller's WGPUBuffer, or null
};
Traffic last_traffic(const Method& method);

// Where a method keeps each output.
struct OutputStorage {
  std::string storage;            // "output", "shared", ... (how the memory plan placed it)
  int32_t mem_obj_id = -1;
  std::vector<int64_t> live_shape;
  const void* buffer = nullptr;   // the method's own WGPUBuffer for it
};
std::vector<OutputStorage> output_storage(const Method& method);

// The device allocator registry (one allocator per device type, "webgpu" or
// "cpu"): the runtime's own, and registries of a test's own.
bool allocator_registered(const Runtime& runtime, const std::string& device_type);
// Error(InvalidArgument) when the type already has one.
void register_allocator(const Runtime& runtime, const std::string& device_type);

struct Allocation {
  std::string device;               // "webgpu" or "cpu"
  uint64_t size = 0;                // bytes allocated
  std::vector<std::string> usage;   // WebGPU usage flags by name; empty for CPU memory
};

class AllocatorRegistry {
 public:
  // Its WebGPU allocator (once registered) allocates on `runtime`'s device.
  explicit AllocatorRegistry(const Runtime& runtime);
  ~AllocatorRegistry();
  AllocatorRegistry(AllocatorRegistry&&) noexcept;
  AllocatorRegistry& operator=(AllocatorRegistry&&) noexcept;

  // Error(InvalidArgument) when the type already has one.
  void add(const std::string& device_type);
  bool has(const std::string& device_type) const;
  // Allocates and frees at once, returning what it got. Error(NotFound) when
  // the type has no allocator.
  Allocation allocate(const std::string& device_type, uint64_t bytes) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace wgrt::api::testing
