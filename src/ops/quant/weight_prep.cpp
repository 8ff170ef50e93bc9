#include "ops/quant/weight_prep.h"

#include <cstdlib>
#include <cstring>

#include "gpu/device.h"

namespace wgrt::ops {

bool is_planar_weight(const Tensor& w) { return w.max_dims.size() == 3; }

bool ggml_rows_fit(const QuantLayout& layout, const Tensor& w, int64_t cols) {
  if (is_planar_weight(w)) {
    return has_planar_layout(layout.ggml_type) && w.max_dims[2] == 16 &&
           uint64_t(w.max_dims[1] * 16) == planar_row_bytes(layout.ggml_type, cols);
  }
  const uint64_t row = uint64_t(w.max_dims[1]);
  return row == gpu_row_bytes(layout, cols) ||
         (w.storage == StorageKind::Constant && row == file_row_bytes(layout, cols));
}

GemvLayout chosen_gemv_layout(GemvLayout wanted, const gpu::AdapterInfo* adapter) {
  if (wanted != GemvLayout::Auto) return wanted;
  return adapter != nullptr && adapter->swiftshader() ? GemvLayout::Blocks : GemvLayout::Planar;
}

void prepare_ggml_weight(ConstantPrep& prep, size_t weight_arg, size_t type_arg, int64_t cols) {
  const uint32_t type = static_cast<uint32_t>(prep.args().integer(type_arg));
  const QuantLayout& layout = *find_quant_layout(type);
  const Tensor& w = prep.args().tensor(weight_arg);
  if (is_planar_weight(w)) return;  // already prepared
  const int64_t rows = w.max_dims[0];
  // Q4_1's file and block layouts have the same bytes: either is a source.
  const bool file_layout = uint64_t(w.max_dims[1]) == file_row_bytes(layout, cols);
  // The repacking is row by row, so it runs as the weight streams to the GPU.
  const gpu::Device* device = prep.args().device();
  const GemvLayout gemv_layout =
      chosen_gemv_layout(prep.tuning().gemv_layout, device != nullptr ? &device->adapter_info() : nullptr);
  if (file_layout && has_planar_layout(type) && gemv_layout == GemvLayout::Planar) {
    const int64_t row_bytes = int64_t(planar_row_bytes(type, cols));
    prep.replace_constant(weight_arg, {rows, row_bytes / 16, 16},
                          rewritten_rows(prep.constant_rows(weight_arg), uint64_t(row_bytes),
                                         [type, cols](std::span<const uint8_t> in, uint64_t n, std::span<uint8_t> out) {
                                           repack_planar(type, in, int64_t(n), cols, out);
                                         }));
    return;
  }
  if (uint64_t(w.max_dims[1]) == gpu_row_bytes(layout, cols)) return;  // already in the block layout
  const uint64_t row_bytes = gpu_row_bytes(layout, cols);
  prep.replace_constant(weight_arg, {rows, int64_t(row_bytes)},
                        rewritten_rows(prep.constant_rows(weight_arg), row_bytes,
                                       [&layout, cols](std::span<const uint8_t> in, uint64_t n, std::span<uint8_t> out) {
                                         repack_for_gpu(layout, in, int64_t(n), cols, out);
                                       }));
}

gpu::OverrideConstants weight_decode_constants(const QuantLayout& layout, const Tensor& w, int64_t cols) {
  return is_planar_weight(w) ? planar_decode_constants(layout.ggml_type, cols) : decode_constants(layout);
}

uint32_t weight_row_words(const Tensor& w) {
  const int64_t bytes = is_planar_weight(w) ? w.max_dims[1] * w.max_dims[2] : w.max_dims[1];
  return static_cast<uint32_t>(bytes / 4);
}

}  // namespace wgrt::ops
