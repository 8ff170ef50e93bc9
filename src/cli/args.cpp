#include "cli/args.h"

#include <string_view>

#include "wgrt/error.h"

namespace wgrt::cli {

bool asks_for_help(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "-h") return true;
  }
  return false;
}

Args::Args(int argc, char** argv, const std::set<std::string>& with_value, const std::set<std::string>& flags) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.size() < 2 || arg[0] != '-' || arg == "--") {
      if (arg == "--") {
        for (++i; i < argc; ++i) positionals_.push_back(argv[i]);
        break;
      }
      positionals_.push_back(arg);
      continue;
    }
    std::string value;
    bool has_inline = false;
    if (const auto eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) == 0) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_inline = true;
    }
    if (flags.count(arg)) {
      if (has_inline) throw Error(ErrorCode::InvalidArgument, "option " + arg + " takes no value");
      flags_.insert(arg);
    } else if (with_value.count(arg)) {
      if (!has_inline) {
        if (i + 1 >= argc) throw Error(ErrorCode::InvalidArgument, "option " + arg + " needs a value");
        value = argv[++i];
      }
      values_.emplace(arg, value);
    } else {
      throw Error(ErrorCode::InvalidArgument, "unknown option " + arg + " (see --help)");
    }
  }
}

std::optional<std::string> Args::get(const std::string& name) const {
  auto range = values_.equal_range(name);
  if (range.first == range.second) return std::nullopt;
  return std::prev(range.second)->second;  // the last one wins
}

std::vector<std::string> Args::get_all(const std::string& name) const {
  std::vector<std::string> out;
  for (auto [it, end] = values_.equal_range(name); it != end; ++it) out.push_back(it->second);
  return out;
}

std::string Args::get_or(const std::string& name, const std::string& fallback) const {
  return get(name).value_or(fallback);
}

int64_t Args::get_int(const std::string& name, int64_t fallback) const {
  const auto v = get(name);
  if (!v) return fallback;
  try {
    size_t used = 0;
    const int64_t x = std::stoll(*v, &used);
    if (used == v->size()) return x;
  } catch (...) {
  }
  throw Error(ErrorCode::InvalidArgument, "option " + name + " expects an integer, got '" + *v + "'");
}

double Args::get_double(const std::string& name, double fallback) const {
  const auto v = get(name);
  if (!v) return fallback;
  try {
    size_t used = 0;
    const double x = std::stod(*v, &used);
    if (used == v->size()) return x;
  } catch (...) {
  }
  throw Error(ErrorCode::InvalidArgument, "option " + name + " expects a number, got '" + *v + "'");
}

}  // namespace wgrt::cli
