#include "ops/quant/weight_prep.h"

namespace wgrt::ops {

bool ggml_rows_fit(const QuantLayout& layout, const Tensor& w, int64_t cols) {
  const uint64_t row = uint64_t(w.max_dims[1]);
  return row == gpu_row_bytes(layout, cols) ||
         (w.storage == StorageKind::Constant && row == file_row_bytes(layout, cols));
}

void prepare_ggml_weight(ConstantPrep& prep, size_t weight_arg, size_t type_arg, int64_t cols) {
  const QuantLayout& layout = *find_quant_layout(static_cast<uint32_t>(prep.args().integer(type_arg)));
  const Tensor& w = prep.args().tensor(weight_arg);
  if (uint64_t(w.max_dims[1]) == gpu_row_bytes(layout, cols)) return;  // already in the GPU layout
  const int64_t rows = w.max_dims[0];
  prep.replace_constant(weight_arg, {rows, int64_t(gpu_row_bytes(layout, cols))},
                        repack_for_gpu(layout, prep.constant(weight_arg).bytes, rows, cols));
}

}  // namespace wgrt::ops
