// Tensors in host memory, in host layout (numpy's), row-major: what callers
// pass to and get back from a graph, and what .npy files hold.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/dims.h"
#include "wgrt/dtype.h"

namespace wgrt {

struct HostTensor {
  DType dtype = DType::F32;
  Dims dims;
  std::vector<uint8_t> data;
};

struct HostTensorView {
  DType dtype = DType::F32;
  Dims dims;
  std::span<const uint8_t> data;
};

}  // namespace wgrt
