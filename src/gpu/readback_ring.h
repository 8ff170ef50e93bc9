// A small ring of readback buffers for results that come back while more
// work is already queued (token ids of steps in flight): a slot is filled by
// a copy in some submit, mapped asynchronously once that submit is done, and
// read and unmapped by take(), which waits for that submit only, never for
// the work queued after it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpu/buffer.h"
#include "gpu/buffer_map.h"

namespace wgrt::gpu {

class CommandBatch;
class Device;

class ReadbackRing {
 public:
  // `slots` buffers of `bytes` each, made once.
  ReadbackRing(Device& device, size_t slots, uint64_t bytes);
  // Waits for the slots still mapping (discard_all).
  ~ReadbackRing();
  ReadbackRing(const ReadbackRing&) = delete;
  ReadbackRing& operator=(const ReadbackRing&) = delete;

  size_t slots() const { return slots_.size(); }
  // Whether a slot is free to be filled (not waiting to be taken).
  bool free(size_t slot) const;
  // Records a copy of `bytes` from `src` into the slot.
  void record_copy(CommandBatch& batch, const Buffer& src, uint64_t src_offset, size_t slot);
  // After the submit (index `submission`) holding the slot's copy: map it
  // when that work is done.
  void request(size_t slot, uint64_t submission);
  // Blocks until the slot is mapped, copies its bytes to `out`, unmaps it.
  // Throws what the device reported (a lost device, a failed map).
  void take(size_t slot, void* out);
  // Waits for every requested slot and unmaps it, dropping its data.
  void discard_all();

 private:
  struct Slot {
    Buffer buffer;
    bool requested = false;
    MapRequest map;
  };

  Device& device_;
  uint64_t bytes_;
  std::vector<std::unique_ptr<Slot>> slots_;  // stable addresses for map callbacks
};

}  // namespace wgrt::gpu
