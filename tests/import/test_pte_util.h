// Helpers shared by the .pte tests: fixture paths, file bytes, a minimal JSON
// reader for the fixture manifests (NAME.json). Arrays are read with
// core/npy.h.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace wgrt::pte::testing {

inline std::string fixture(const std::string& name) {
  return std::string(WGRT_FIXTURES_DIR) + "/pte/" + name;
}

// Every .pte fixture with a manifest, as its path under pte/ without
// ".json" ("ops/conv2d"), sorted.
inline std::vector<std::string> fixture_names() {
  std::vector<std::string> names;
  // models_local/ (git-ignored) holds what is too big to commit (resnet18).
  for (const char* sub : {"", "ops/", "quant/", "models/", "models_local/"}) {
    const std::filesystem::path dir = std::string(WGRT_FIXTURES_DIR) + "/pte/" + sub;
    if (!std::filesystem::is_directory(dir)) continue;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (e.path().extension() == ".json") names.push_back(sub + e.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The folder part of a fixture name ("ops/" for "ops/conv2d"): the manifest's
// file names are relative to it.
inline std::string folder_of(const std::string& name) {
  const size_t slash = name.rfind('/');
  return slash == std::string::npos ? "" : name.substr(0, slash + 1);
}

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// --- JSON: just enough for the manifests the exporter writes ------------------

struct Json {
  enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  std::map<std::string, Json> object;

  const Json& operator[](const std::string& key) const& {
    auto it = object.find(key);
    if (it == object.end()) throw std::runtime_error("manifest has no key '" + key + "'");
    return it->second;
  }
  const Json& operator[](size_t i) const& { return array.at(i); }
  // On a temporary, copies: a reference into it would dangle at once.
  Json operator[](const std::string& key) && { return static_cast<const Json&>(*this)[key]; }
  Json operator[](size_t i) && { return static_cast<const Json&>(*this)[i]; }
  size_t size() const { return kind == Kind::Array ? array.size() : object.size(); }
  int64_t integer() const { return static_cast<int64_t>(number); }
  std::vector<int64_t> integers() const {
    std::vector<int64_t> out;
    for (const Json& j : array) out.push_back(j.integer());
    return out;
  }
  std::vector<std::string> strings() const {
    std::vector<std::string> out;
    for (const Json& j : array) out.push_back(j.string);
    return out;
  }
};

class JsonParser {
 public:
  explicit JsonParser(std::string text) : s_(std::move(text)) {}

  Json parse() {
    Json j = value();
    space();
    if (i_ != s_.size()) fail("trailing characters");
    return j;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("JSON: " + what + " at character " + std::to_string(i_));
  }
  void space() {
    while (i_ < s_.size() && std::strchr(" \t\r\n", s_[i_]) != nullptr) ++i_;
  }
  bool eat(char c) {
    space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  std::string str() {
    expect('"');
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      char c = s_[i_++];
      if (c == '\\') {
        if (i_ >= s_.size()) fail("bad escape");
        char e = s_[i_++];
        switch (e) {
          case 'n': out += '\n'; break;
          case 't': out += '\t'; break;
          case 'u': out += '?'; i_ += 4; break;  // not used by the manifests
          default: out += e;
        }
      } else {
        out += c;
      }
    }
    expect('"');
    return out;
  }
  Json value() {
    space();
    if (i_ >= s_.size()) fail("unexpected end");
    Json j;
    const char c = s_[i_];
    if (c == '{') {
      ++i_;
      j.kind = Json::Kind::Object;
      if (eat('}')) return j;
      do {
        std::string key = str();
        expect(':');
        j.object[key] = value();
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      ++i_;
      j.kind = Json::Kind::Array;
      if (eat(']')) return j;
      do j.array.push_back(value());
      while (eat(','));
      expect(']');
    } else if (c == '"') {
      j.kind = Json::Kind::String;
      j.string = str();
    } else if (s_.compare(i_, 4, "true") == 0 || s_.compare(i_, 5, "false") == 0) {
      j.kind = Json::Kind::Bool;
      j.boolean = s_[i_] == 't';
      i_ += j.boolean ? 4 : 5;
    } else if (s_.compare(i_, 4, "null") == 0) {
      i_ += 4;
    } else {
      size_t used = 0;
      j.kind = Json::Kind::Number;
      j.number = std::stod(s_.substr(i_, 40), &used);
      if (used == 0) fail("bad number");
      i_ += used;
    }
    return j;
  }

  std::string s_;
  size_t i_ = 0;
};

inline Json read_json(const std::string& path) {
  const auto bytes = read_bytes(path);
  return JsonParser(std::string(bytes.begin(), bytes.end())).parse();
}

}  // namespace wgrt::pte::testing
