// Text fixtures of the tokenizer and chat-template tests: tab-separated rows
// with hex-encoded UTF-8 text (tools/fixtures/make_*_fixtures.py write them).
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace wgrt::test {

inline std::string fixture_path(const std::string& relative) { return std::string(WGRT_FIXTURES_DIR) + "/" + relative; }

inline std::string unhex(std::string_view h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2) {
    out += static_cast<char>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16));
  }
  return out;
}

inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  if (!s.empty() && s.back() == sep) out.push_back("");
  return out;
}

// Lines of a fixture file, comments skipped, split at tabs.
inline std::vector<std::vector<std::string>> fixture_rows(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::vector<std::vector<std::string>> out;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#') out.push_back(split(line, '\t'));
  }
  return out;
}

}  // namespace wgrt::test
