#include "ops/common/qparams.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <string>

#include "ops/common/host_ints.h"

namespace wgrt::ops {

IntRange int_range(const OpArgs& args, size_t arg, DType t) {
  switch (t) {
    case DType::I8: return {-128, 127};
    case DType::U8: return {0, 255};
    case DType::I32:
    case DType::I64: return {INT32_MIN, INT32_MAX};
    default: args.fail(arg, "expected an int8, uint8 or int32 tensor, got " + std::string(dtype_name(t)));
  }
}

IntRange check_qrange(const OpArgs& args, size_t qmin_arg, size_t qmax_arg, DType t) {
  const IntRange type = int_range(args, qmax_arg, t);
  const int64_t qmin = args.whole_number(qmin_arg), qmax = args.whole_number(qmax_arg);
  if (qmin < type.lo || qmin > type.hi) {
    args.fail(qmin_arg, "quant_min " + std::to_string(qmin) + " is outside " + std::string(dtype_name(t)) + "'s range [" +
                            std::to_string(type.lo) + ", " + std::to_string(type.hi) + "]");
  }
  if (qmax < qmin || qmax > type.hi) {
    args.fail(qmax_arg, "quant_max " + std::to_string(qmax) + " must be in [quant_min " + std::to_string(qmin) + ", " +
                            std::to_string(type.hi) + "]");
  }
  return {qmin, qmax};
}

namespace {

void check_scale_value(const OpArgs& args, size_t arg, double s, const std::string& where, bool zero_allowed = false) {
  if (!std::isfinite(s) || (s == 0 && !zero_allowed)) {
    std::ostringstream text;
    text << "scale" << where << " is " << s << (zero_allowed ? ": must be finite" : ": must be finite and non-zero");
    args.fail(arg, text.str());
  }
}

void check_zp_value(const OpArgs& args, size_t arg, int64_t zp, IntRange range, const std::string& where) {
  if (zp < range.lo || zp > range.hi) {
    args.fail(arg, "zero point" + where + " " + std::to_string(zp) + " is outside [quant_min " + std::to_string(range.lo) +
                       ", quant_max " + std::to_string(range.hi) + "]");
  }
}

void expect_count(const OpArgs& args, size_t arg, int64_t count) {
  const int64_t n = numel(args.tensor(arg).max_dims);
  if (n != count) {
    args.fail(arg, "expected " + std::to_string(count) + " elements, got " + dims_string(args.tensor(arg).max_dims));
  }
}

}  // namespace

double check_scale(const OpArgs& args, size_t arg) {
  const double s = args.number(arg);
  check_scale_value(args, arg, s, "");
  return s;
}

int64_t zero_point_value(const OpArgs& args, size_t arg) { return args.whole_number(arg); }

int64_t check_zero_point(const OpArgs& args, size_t arg, IntRange range) {
  const int64_t zp = zero_point_value(args, arg);
  check_zp_value(args, arg, zp, range, "");
  return zp;
}

void check_scale_tensor(const OpArgs& args, size_t arg, int64_t count, int64_t used) {
  const Tensor& t = args.tensor(arg, {DType::F32});
  expect_count(args, arg, count);
  if (t.storage != StorageKind::Constant) return;
  for (int64_t i = 0; i < (used < 0 ? count : std::min(used, count)); ++i) {
    float s;
    std::memcpy(&s, t.bytes.data() + i * 4, 4);
    check_scale_value(args, arg, s, "[" + std::to_string(i) + "]");
  }
}

void check_scale_matrix(const OpArgs& args, size_t arg, int64_t used, bool zero_allowed) {
  const Tensor& t = args.tensor(arg, {DType::F32});
  args.expect_rank(arg, 2);
  if (t.storage != StorageKind::Constant) return;
  const int64_t rows = t.max_dims[0], stride = t.max_dims[1];
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < std::min(used, stride); ++c) {
      float s;
      std::memcpy(&s, t.bytes.data() + (r * stride + c) * 4, 4);
      check_scale_value(args, arg, s, "[" + std::to_string(r) + ", " + std::to_string(c) + "]", zero_allowed);
    }
  }
}

void check_zero_point_tensor(const OpArgs& args, size_t arg, int64_t count, IntRange range) {
  const Tensor& t = args.tensor(arg, {DType::I8, DType::I32, DType::I64});
  expect_count(args, arg, count);
  if (t.storage != StorageKind::Constant) return;
  const size_t elem = host_size(t.dtype);
  for (int64_t i = 0; i < count; ++i) {
    const uint8_t* p = t.bytes.data() + i * elem;
    const int64_t zp = elem == 1 ? int64_t(static_cast<int8_t>(*p)) : read_host_int(p, elem);
    check_zp_value(args, arg, zp, range, "[" + std::to_string(i) + "]");
  }
}

}  // namespace wgrt::ops
