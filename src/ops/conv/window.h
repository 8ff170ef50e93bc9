// Sliding-window geometry shared by convolution and pooling: the (h, w)
// pairs of kernel size, stride, padding and dilation read from an op's int
// lists, and the output extent they give.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "graph/op_registry.h"

namespace wgrt::ops {

// An int list of `spatial` entries (1 for 1D ops, 2 for 2D) or a single entry
// meaning all of them, as {h, w} (h = 1-equivalent `fill` for 1D). Each entry
// must be >= min; failures name the argument and what it is.
std::array<int64_t, 2> window_pair(const OpArgs& args, size_t i, size_t spatial, int64_t min, int64_t fill,
                                   const char* what);

// Output extent of a window sweep: floor (or ceil, PyTorch's ceil_mode rule:
// the last window must start inside the input or its left padding) of
// (in + 2 pad - dil (k - 1) - 1) / stride + 1.
int64_t window_out_size(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dil, bool ceil_mode);

// Output extent of a transposed convolution.
int64_t transposed_out_size(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dil, int64_t out_pad);

}  // namespace wgrt::ops
