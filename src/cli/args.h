// A small command-line parser shared by the subcommands: options with values
// (--name VALUE or --name=VALUE), flags, and positionals, with errors that
// name the option and what was expected.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace wgrt::cli {

// Whether the command line (after the subcommand) asks for --help or -h.
bool asks_for_help(int argc, char** argv);

class Args {
 public:
  // `with_value` lists options that take a value (with their aliases, e.g.
  // "-n"); `flags` those that do not. Throws Error(InvalidArgument) for
  // unknown options or a missing value.
  Args(int argc, char** argv, const std::set<std::string>& with_value, const std::set<std::string>& flags);

  bool flag(const std::string& name) const { return flags_.count(name) != 0; }
  std::optional<std::string> get(const std::string& name) const;
  std::vector<std::string> get_all(const std::string& name) const;
  std::string get_or(const std::string& name, const std::string& fallback) const;
  int64_t get_int(const std::string& name, int64_t fallback) const;
  double get_double(const std::string& name, double fallback) const;
  const std::vector<std::string>& positionals() const { return positionals_; }

 private:
  std::multimap<std::string, std::string> values_;
  std::set<std::string> flags_;
  std::vector<std::string> positionals_;
};

}  // namespace wgrt::cli
