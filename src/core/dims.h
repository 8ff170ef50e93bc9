// Tensor shapes: row-major dims, shared by host tensors and the graph IR.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wgrt {

using Dims = std::vector<int64_t>;

int64_t numel(const Dims& dims);
// "[2, 3]", for messages.
std::string dims_string(const Dims& dims);

}  // namespace wgrt
