#include "ops/common/env_count.h"

#include <cstdlib>
#include <string>

#include "wgrt/error.h"

namespace wgrt::ops {

uint64_t env_count(const char* name, const char* what, uint64_t fallback, uint64_t lo, uint64_t hi) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == 0) return fallback;
  const std::string s(v);
  const bool digits = s.size() <= 9 && s.find_first_not_of("0123456789") == std::string::npos;
  const uint64_t n = digits ? std::stoull(s) : 0;
  if (!digits || n < lo || n > hi) {
    throw Error(ErrorCode::InvalidArgument, std::string(name) + ": expected " + what + ", got '" + s + "'");
  }
  return n;
}

}  // namespace wgrt::ops
