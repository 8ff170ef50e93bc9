#include "ops/common/shapes.h"

namespace wgrt::ops {

std::optional<Dims> broadcast_shapes(const Dims& a, const Dims& b) {
  const size_t rank = std::max(a.size(), b.size());
  Dims out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::vector<uint32_t> broadcast_strides(const Dims& in, const Dims& out) {
  std::vector<uint32_t> strides(out.size(), 0);
  int64_t stride = 1;
  for (size_t k = 0; k < in.size(); ++k) {
    const size_t i = in.size() - 1 - k;          // dim of `in`
    const size_t o = out.size() - 1 - k;         // matching dim of `out`
    strides[o] = in[i] == 1 ? 0 : static_cast<uint32_t>(stride);
    stride *= in[i];
  }
  return strides;
}

std::vector<int64_t> contiguous_strides(const Dims& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

std::optional<size_t> normalize_dim(int64_t dim, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  if (dim < -r || dim >= r) return std::nullopt;
  return static_cast<size_t>(dim < 0 ? dim + r : dim);
}

}  // namespace wgrt::ops
