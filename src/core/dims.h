// Tensor shapes: row-major dims, shared by host tensors and the graph IR.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wgrt {

using Dims = std::vector<int64_t>;

// Throws Error(InvalidProgram) when the product overflows int64: dims come
// from files.
int64_t numel(const Dims& dims);
// Checks dims read from a file: none negative, and the element count times 8
// bytes (the widest dtype) fits int64, so size arithmetic on them cannot
// overflow. Throws Error(InvalidProgram) starting with `what`.
void check_tensor_dims(const Dims& dims, const std::string& what);
// "[2, 3]", for messages.
std::string dims_string(const Dims& dims);

}  // namespace wgrt
