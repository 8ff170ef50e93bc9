// NumPy .npy files (format 1.0/2.0, little-endian, C order): how the CLI,
// tests and fixtures exchange tensors.
#pragma once

#include <string>

#include "core/host_tensor.h"

namespace wgrt {

// Throws Error(InvalidArgument) naming the file and what is wrong (dtype,
// Fortran order, truncated data).
HostTensor read_npy(const std::string& path);
void write_npy(const std::string& path, DType dtype, const Dims& dims, std::span<const uint8_t> data);

}  // namespace wgrt
