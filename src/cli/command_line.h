// The command line, on CLI11: each subcommand's file defines its options in
// one add_<name>() function (the one place to add a flag) and returns what
// runs the subcommand once the whole command line has been parsed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "wgrt/llm.h"
#include "wgrt/runtime.h"

namespace wgrt::cli {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

// Sets wgrt's help layout on the top-level app: `wgrt --help` lists each
// command's summary, `wgrt <command> --help` its description.
void use_wgrt_help(CLI::App& app);

// A subcommand with wgrt's conventions: a repeated option keeps its last
// value (options holding a list say otherwise), `--help` prints
// `description` before the options and `footer` after them. Every
// subcommand gets `--limits adapter|default` (runtime_options()).
CLI::App* add_command(CLI::App& app, const std::string& name, const std::string& summary,
                      const std::string& description, const std::string& footer = {});

// The runtime options of the command line: the limits mode its --limits
// chose, else WGRT_LIMITS, else adapter. An unknown value is
// Error(InvalidArgument) naming the option (or variable) and the accepted values.
api::RuntimeOptions runtime_options();
// The same on the first adapter of an LLM's --devices (when given), so that
// the runtime's device holds the model's first layers.
api::RuntimeOptions runtime_options(const std::vector<int>& devices);
// The tuning the WGRT_* variables ask for (src/cli/environment.h); --no-fuse
// turns the fusion passes off.
api::LoadOptions load_options(bool no_fuse = false);
// An LLM's options: `model`, else WGRT_DEFAULT_MODEL when set (it must be a
// file), else empty (the built-in model); its load options as above.
api::LlmOptions llm_options(const std::string& model, bool no_fuse = false);

// --ptd when given, else the .ptd beside the .pte (api::ptd_beside), which
// `command` says on stderr that it uses; "" when there is neither.
std::string ptd_or_beside(const char* command, const std::string& pte, const std::string& ptd);

// An integer check with a plain message ("-n: -1 is not in [0, 2147483647]")
// and nothing added to the option's --help line.
CLI::Validator in_range(int64_t lo, int64_t hi);

// "name (backend)" of each adapter the model is on, joined by " + ".
std::string adapter_names(const api::Llm& model);

// --devices LIST: the GPUs (adapter indices, as `wgrt info` lists them) an
// LLM's layers are split across (api::LlmOptions::devices).
CLI::Option* add_devices_option(CLI::App* cmd, std::vector<int>& devices);

// A repeatable option: every occurrence adds one value.
CLI::Option* repeatable(CLI::Option* option);

}  // namespace wgrt::cli
