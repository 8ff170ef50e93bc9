// The load-time step shared by the ggml-format ops: importers add weights as
// the file stores them ([rows, file row bytes]); each op's prepare step puts
// them into a GPU layout of quant_layout.h, once per constant.
#pragma once

#include <cstdint>

#include "graph/op_registry.h"
#include "ops/quant/quant_layout.h"

namespace wgrt::gpu {
struct AdapterInfo;
}

namespace wgrt::ops {

// Whether rows of `w` hold `cols` elements: in the block GPU layout, in the
// planar layout ([rows, row bytes / 16, 16]), or (a constant only, which the
// prepare steps re-lay out) in the file's.
bool ggml_rows_fit(const QuantLayout& layout, const Tensor& w, int64_t cols);

// Whether `w` is in the planar layout (rank 3).
bool is_planar_weight(const Tensor& w);

// The layout Tuning::gemv_layout `wanted` means on `adapter` (null: none
// known): Auto is Planar, except Blocks on SwiftShader.
GemvLayout chosen_gemv_layout(GemvLayout wanted, const gpu::AdapterInfo* adapter);

// Re-lays out the weight at argument `weight_arg` (ggml type at `type_arg`)
// when it is still in the file's layout: into the planar layout where the
// format has one and chosen_gemv_layout gives Planar, the block layout
// otherwise.
// Every op reading ggml weights (linear_ggml*, embedding_ggml) decodes both,
// so a constant they share (a tied embedding and output head) is prepared
// once, by whichever comes first.
void prepare_ggml_weight(ConstantPrep& prep, size_t weight_arg, size_t type_arg, int64_t cols);

// The override constants dequant.wgsl needs for `w` with rows of `cols`
// elements, in whichever layout it is.
gpu::OverrideConstants weight_decode_constants(const QuantLayout& layout, const Tensor& w, int64_t cols);

// 32-bit words per row of `w` (either layout).
uint32_t weight_row_words(const Tensor& w);

}  // namespace wgrt::ops
