// GPU memory of one loaded program, by what it holds. Every figure is bytes
// of GPU buffers this program owns; nothing is process-global.
#pragma once

#include <cstdint>
#include <string>

namespace wgrt {

struct MemoryStats {
  uint64_t tensor_bytes = 0;      // inputs, outputs, intermediates: shared + unshared
  uint64_t shared_bytes = 0;      // the shared objects (one per mem_obj_id)
  uint64_t unshared_bytes = 0;    // tensors with a buffer of their own
  uint64_t state_bytes = 0;       //   of which state kept between runs (KV caches)
  uint64_t constant_bytes = 0;    // weights and other constants
  uint64_t staging_bytes = 0;     // readback buffers for outputs
  uint64_t uniform_bytes = 0;     // per-dispatch parameters
  uint64_t scratch_bytes = 0;     // single-op scratch slots and whole-graph scratch
  uint32_t num_shared_objects = 0;
  uint64_t total_bytes = 0;       // all of the above
  uint64_t unaliased_bytes = 0;   // the total if every tensor had its own buffer

  // Adds another program's (or method's) figures.
  MemoryStats& operator+=(const MemoryStats& other);
  // A multi-line, human-readable table.
  std::string to_string() const;
};

}  // namespace wgrt
