// Shared by the libFuzzer targets: a wgrt::Error is the expected answer to bad
// input; anything else escaping (another exception, a sanitizer report, a
// crash, a huge allocation caught by -malloc_limit_mb) is a finding.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

// Reads a fixture the harness needs; aborts when it is missing, so a campaign
// never fuzzes an empty harness by mistake.
inline std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "fuzz harness: cannot read %s\n", path.c_str());
    std::abort();
  }
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The fixtures folder: the build's source tree, or WGRT_FIXTURES_DIR at run
// time (a campaign on another machine, where the tree lies elsewhere).
inline std::string fixture(const std::string& path) {
  const char* dir = std::getenv("WGRT_FIXTURES_DIR");
  return std::string(dir && *dir ? dir : WGRT_FIXTURES_DIR) + "/" + path;
}

}  // namespace wgrt::fuzz
