// The load-time step shared by the ggml-format ops: importers add weights as
// the file stores them ([rows, file row bytes]); each op's prepare step puts
// them into the GPU layout of quant_layout.h, once per constant.
#pragma once

#include <cstdint>

#include "graph/op_registry.h"
#include "ops/quant/quant_layout.h"

namespace wgrt::ops {

// Whether rows of `w` hold `cols` elements: in the GPU layout, or (a constant
// only, which prepare_ggml_weight re-lays out) in the file's.
bool ggml_rows_fit(const QuantLayout& layout, const Tensor& w, int64_t cols);

// Re-lays out the weight at argument `weight_arg` (ggml type at `type_arg`)
// when it is still in the file's layout; leaves it as it is otherwise.
void prepare_ggml_weight(ConstantPrep& prep, size_t weight_arg, size_t type_arg, int64_t cols);

}  // namespace wgrt::ops
