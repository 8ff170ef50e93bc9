// The one place the WGRT_* variables are read (src/cli/environment.h): a table
// of variable -> the Tuning field it sets, parsed strictly.
#include "cli/environment.h"

#include <cstdlib>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "wgrt/error.h"

namespace wgrt {
namespace {

[[noreturn]] void refuse(std::string_view name, std::string_view expected, std::string_view got) {
  throw Error(ErrorCode::InvalidArgument,
              std::string(name) + "=" + std::string(got) + ": expected " + std::string(expected));
}

uint64_t count(std::string_view name, std::string_view v, std::string_view expected) {
  const bool digits = !v.empty() && v.size() <= 12 && v.find_first_not_of("0123456789") == std::string_view::npos;
  if (!digits) refuse(name, expected, v);
  return std::stoull(std::string(v));
}

// One of `names` (their index), else refused listing them.
template <size_t N>
size_t choice(std::string_view name, std::string_view v, const char* const (&names)[N]) {
  std::string list;
  for (size_t i = 0; i < N; ++i) {
    if (v == names[i]) return i;
    list += std::string(i == 0 ? "" : i + 1 == N ? " or " : ", ") + names[i];
  }
  refuse(name, list, v);
}

struct Variable {
  const char* name;
  std::function<void(Tuning&, std::string_view name, std::string_view value)> apply;
};

const std::vector<Variable>& variables() {
  static const std::vector<Variable> table = {
      {"WGRT_SUBMIT_EVERY", [](Tuning& t, auto n, auto v) { t.submit_every = int64_t(count(n, v, "a count of dispatches (0: once per run)")); }},
      {"WGRT_NO_SCRATCH_POOL", [](Tuning& t, auto n, auto v) { t.scratch_pool = choice(n, v, {"1", "0"}) != 0; }},
      {"WGRT_NO_FUSE", [](Tuning& t, auto n, auto v) { t.fuse = choice(n, v, {"1", "0"}) != 0; }},
      {"WGRT_UPLOAD_THREADS", [](Tuning& t, auto n, auto v) { t.upload_threads = int32_t(count(n, v, "0 to 64 threads")); }},
      {"WGRT_MATMUL", [](Tuning& t, auto n, auto v) {
         t.matmul_precision = MatmulPrecision(choice(n, v, {"auto", "f32", "f16", "f16acc"}));
       }},
      {"WGRT_GEMM_FAMILY", [](Tuning& t, auto n, auto v) { t.gemm_family = choice(n, v, {"0", "1"}) != 0; }},
      {"WGRT_GEMM_TILE", [](Tuning& t, auto, auto v) { t.gemm_tile = std::string(v); }},
      {"WGRT_GEMM_KU", [](Tuning& t, auto n, auto v) { t.gemm_depth = uint32_t(count(n, v, "1, 2 or 4")); }},
      {"WGRT_GEMM_MIN_WORKGROUPS", [](Tuning& t, auto n, auto v) { t.gemm_min_workgroups = count(n, v, "a count of workgroups (0: off)"); }},
      {"WGRT_GEMM_LARGE_MIN_WORKGROUPS", [](Tuning& t, auto n, auto v) { t.gemm_large_min_workgroups = count(n, v, "a count of workgroups (0: off)"); }},
      {"WGRT_GEMM_LARGE_MIN_K", [](Tuning& t, auto n, auto v) { t.gemm_large_min_k = count(n, v, "a K length (0: off)"); }},
      {"WGRT_GEMM_F16_SPAN", [](Tuning& t, auto n, auto v) { t.gemm_f16_span = uint32_t(count(n, v, "a power of two from 32")); }},
      {"WGRT_GEMV", [](Tuning& t, auto n, auto v) { t.gemv_layout = GemvLayout(choice(n, v, {"auto", "planar", "blocks"})); }},
      {"WGRT_GEMV_ACT", [](Tuning& t, auto n, auto v) {
         t.gemv_activation = GemvActivation(choice(n, v, {"auto", "f32", "q8", "q8x2"}));
       }},
      {"WGRT_GEMV_LANES", [](Tuning& t, auto n, auto v) { t.gemv_lanes = uint32_t(count(n, v, "8, 16 or 32")); }},
      {"WGRT_GEMV_UPL", [](Tuning& t, auto n, auto v) { t.gemv_blocks_per_lane = uint32_t(count(n, v, "1 to 8")); }},
      {"WGRT_GEMV_ROW_BLOCKS", [](Tuning& t, auto n, auto v) { t.gemv_row_blocks = uint32_t(count(n, v, "1 to 8")); }},
      {"WGRT_GEMV_BATCH_ROWS", [](Tuning& t, auto n, auto v) { t.gemv_batch_rows = uint32_t(count(n, v, "1 to 32")); }},
      {"WGRT_GEMV_PROBE", [](Tuning& t, auto n, auto v) {
         t.gemv_probe = GemvProbe(choice(n, v, {"off", "no-x", "no-math", "no-weights"}));
       }},
      {"WGRT_FLASH_ATTENTION", [](Tuning& t, auto n, auto v) {
         t.flash_attention = choice(n, v, {"0", "1"}) == 0 ? FlashAttention::Off : FlashAttention::On;
       }},
      {"WGRT_FLASH_KERNEL", [](Tuning& t, auto n, auto v) { t.flash_kernel = FlashKernel(choice(n, v, {"tiled", "rows"})); }},
      {"WGRT_SDPA_SPLIT", [](Tuning& t, auto n, auto v) { t.sdpa_split = uint32_t(count(n, v, "positions per decode split (16 or more)")); }},
      {"WGRT_CONV", [](Tuning& t, auto n, auto v) {
         t.conv_kernel = ConvKernel(choice(n, v, {"igemm", "nosplit", "dwloop", "direct"}));
       }},
      {"WGRT_CONV_SPLIT", [](Tuning& t, auto n, auto v) {
         // FILL or FILL,MIN_SLICES
         const size_t comma = v.find(',');
         const char* what = "FILL or FILL,MIN_SLICES (workgroups, K slices; 1 or more)";
         t.conv_split_fill = count(n, v.substr(0, comma), what);
         if (comma != std::string_view::npos) t.conv_split_min_slices = uint32_t(count(n, v.substr(comma + 1), what));
       }},
      {"WGRT_SHADER_CHECKS", [](Tuning& t, auto n, auto v) {
         t.shader_checks = ShaderChecks(choice(n, v, {"none", "bounds", "all"}));
       }},
  };
  return table;
}

}  // namespace

Tuning tuning_from_environment(Tuning base) {
  for (const Variable& var : variables()) {
    const char* v = std::getenv(var.name);
    if (v == nullptr || *v == '\0') continue;
    var.apply(base, var.name, v);
  }
  return base;
}

namespace api {

RuntimeOptions runtime_options_from_environment(RuntimeOptions base) {
  if (const char* v = std::getenv("WGRT_LIMITS"); v != nullptr && *v != '\0') {
    base.limits = parse_limits_mode(v, "WGRT_LIMITS");
  }
  return base;
}

LoadOptions load_options_from_environment(LoadOptions base) {
  base.tuning = tuning_from_environment(base.tuning);
  return base;
}

}  // namespace api
}  // namespace wgrt
