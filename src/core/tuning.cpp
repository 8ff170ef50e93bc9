#include "wgrt/tuning.h"

#include <string>

#include "wgrt/error.h"

namespace wgrt {
namespace {

[[noreturn]] void refuse(const char* field, const std::string& expected, const std::string& got) {
  throw Error(ErrorCode::InvalidArgument, std::string("Tuning::") + field + ": expected " + expected + ", got " + got);
}

bool power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace

void validate(const Tuning& t) {
  if (t.submit_every < -1) refuse("submit_every", "-1 (the default), 0 or more", std::to_string(t.submit_every));
  if (t.upload_threads < -1 || t.upload_threads > 64) {
    refuse("upload_threads", "-1 (the default), or 0 to 64", std::to_string(t.upload_threads));
  }
  if (t.gemm_depth != 0 && t.gemm_depth != 1 && t.gemm_depth != 2 && t.gemm_depth != 4) {
    refuse("gemm_depth", "0 (choose), 1, 2 or 4", std::to_string(t.gemm_depth));
  }
  if (t.gemm_f16_span < 32 || !power_of_two(t.gemm_f16_span)) {
    refuse("gemm_f16_span", "a power of two from 32", std::to_string(t.gemm_f16_span));
  }
  if (t.gemv_lanes != 0 && t.gemv_lanes != 8 && t.gemv_lanes != 16 && t.gemv_lanes != 32) {
    refuse("gemv_lanes", "0 (choose), 8, 16 or 32", std::to_string(t.gemv_lanes));
  }
  if (t.gemv_blocks_per_lane < 1 || t.gemv_blocks_per_lane > 8) {
    refuse("gemv_blocks_per_lane", "1 to 8", std::to_string(t.gemv_blocks_per_lane));
  }
  if (t.gemv_batch_rows < 1 || t.gemv_batch_rows > 32) {
    refuse("gemv_batch_rows", "1 to 32", std::to_string(t.gemv_batch_rows));
  }
  if (t.gemv_row_blocks > 8) refuse("gemv_row_blocks", "0 (choose) or 1 to 8", std::to_string(t.gemv_row_blocks));
  if (t.sdpa_split < 16) refuse("sdpa_split", "16 or more positions", std::to_string(t.sdpa_split));
  if (t.conv_split_fill < 1) refuse("conv_split_fill", "1 or more workgroups", std::to_string(t.conv_split_fill));
  if (t.conv_split_min_slices < 1) {
    refuse("conv_split_min_slices", "1 or more slices", std::to_string(t.conv_split_min_slices));
  }
  // gemm_tile is checked against the GEMM family's tiles where the op knows
  // them (ops/linear/gemm.cpp), at load.
}

}  // namespace wgrt
