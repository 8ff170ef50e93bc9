// Shared by the libFuzzer targets: a wgrt::Error is the expected answer to bad
// input; anything else escaping (another exception, a sanitizer report, a
// crash, a huge allocation caught by -malloc_limit_mb) is a finding.
#pragma once

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "wgrt/error.h"

namespace wgrt::fuzz {

template <typename Fn>
int run(Fn&& fn) {
  try {
    fn();
  } catch (const Error&) {
  }
  return 0;
}

inline std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline std::string fixture(const std::string& path) { return std::string(WGRT_FIXTURES_DIR) + "/" + path; }

}  // namespace wgrt::fuzz
