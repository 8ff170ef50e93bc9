#include "core/dims.h"

#include <limits>

#include "wgrt/error.h"

namespace wgrt {

int64_t numel(const Dims& dims) {
  // A product past int64 is an error, never a wrap.
  int64_t n = 1;
  for (int64_t d : dims) {
    if (__builtin_mul_overflow(n, d, &n)) {
      throw Error(ErrorCode::InvalidProgram, "the element count of " + dims_string(dims) + " overflows 64 bits");
    }
  }
  return n;
}

void check_tensor_dims(const Dims& dims, const std::string& what) {
  for (int64_t d : dims) {
    if (d < 0) throw Error(ErrorCode::InvalidProgram, what + " has a negative dimension: " + dims_string(dims));
  }
  int64_t n = 0;
  try {
    n = numel(dims);
  } catch (const Error& e) {
    throw e.with_context(what);
  }
  if (n > std::numeric_limits<int64_t>::max() / 8) {
    throw Error(ErrorCode::InvalidProgram, what + " " + dims_string(dims) + " has " + std::to_string(n) +
                                               " elements: its byte size overflows 64 bits");
  }
}

std::string dims_string(const Dims& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

}  // namespace wgrt
