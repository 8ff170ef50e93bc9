// et_vk.linear_q4gsw.default: what tests need to tell its two kernels apart.
#pragma once

namespace wgrt::ops {

// Dispatch labels: only the kernel chosen for the live M gets workgroups.
inline constexpr const char* kLinearGemvLabel = "linear_q4gsw gemv";
inline constexpr const char* kLinearGemmLabel = "linear_q4gsw gemm";

}  // namespace wgrt::ops
