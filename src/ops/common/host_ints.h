// Integers an op reads from a graph input's host bytes (token ids, positions):
// I64 tensors hold 8-byte values on the host, I32 tensors 4-byte ones.
#pragma once

#include <cstdint>
#include <cstring>

namespace wgrt::ops {

// The integer of `elem` bytes (8 or 4) at `p`, widened to int64.
inline int64_t read_host_int(const uint8_t* p, size_t elem) {
  if (elem == 8) {
    int64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  int32_t v32;
  std::memcpy(&v32, p, 4);
  return v32;
}

}  // namespace wgrt::ops
