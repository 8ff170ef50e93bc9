// NumPy .npy files (format 1.0/2.0, little-endian, C order) for the CLI's
// inputs and outputs.
#pragma once

#include <string>

#include "graph/executable_graph.h"

namespace wgrt::cli {

// Throws Error(InvalidArgument) naming the file and what is wrong (dtype,
// Fortran order, truncated data).
HostTensor read_npy(const std::string& path);
void write_npy(const std::string& path, DType dtype, const Dims& dims, std::span<const uint8_t> data);

}  // namespace wgrt::cli
