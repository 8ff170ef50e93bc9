// Shape arithmetic shared by op families (no GPU).
#pragma once

#include <optional>

#include "graph/value.h"

namespace wgrt::ops {

// numpy broadcasting of two shapes; nullopt when they are incompatible.
std::optional<Dims> broadcast_shapes(const Dims& a, const Dims& b);

// Strides (in elements) for reading `in` while walking `out` in row-major
// order: right-aligned, 0 along dims that `in` broadcasts. out.size() entries.
std::vector<uint32_t> broadcast_strides(const Dims& in, const Dims& out);

// Row-major strides of a contiguous tensor.
std::vector<int64_t> contiguous_strides(const Dims& dims);

// Resolves a possibly negative dim index against a rank; nullopt if out of range.
std::optional<size_t> normalize_dim(int64_t dim, size_t rank);

}  // namespace wgrt::ops
