#include "ops/conv/window.h"

namespace wgrt::ops {

std::array<int64_t, 2> window_pair(const OpArgs& args, size_t i, size_t spatial, int64_t min, int64_t fill,
                                   const char* what) {
  const IntList& list = args.int_list(i);
  if (list.size() != 1 && list.size() != spatial) {
    args.fail(i, std::string(what) + ": expected 1 or " + std::to_string(spatial) + " values, got " +
                     dims_string(list));
  }
  for (int64_t v : list) {
    if (v < min) args.fail(i, std::string(what) + " " + std::to_string(v) + " is below " + std::to_string(min));
  }
  if (spatial == 1) return {fill, list[0]};
  return {list[0], list.size() == 1 ? list[0] : list[1]};
}

int64_t window_out_size(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dil, bool ceil_mode) {
  const int64_t span = in + 2 * pad - dil * (k - 1) - 1;
  if (span < 0) return 0;
  int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

int64_t transposed_out_size(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dil, int64_t out_pad) {
  return (in - 1) * stride - 2 * pad + dil * (k - 1) + out_pad + 1;
}

}  // namespace wgrt::ops
