#include "cli/command_line.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>

#include "cli/environment.h"
#include "wgrt/error.h"
#include "wgrt/program.h"

namespace wgrt::cli {
namespace {

// A subcommand's description is "summary\n\ndescription": the summary goes
// in the list of commands, the rest in the command's own --help.
constexpr const char* kSummaryEnd = "\n\n";

// --limits of the subcommand that ran (only one runs per process).
std::string g_limits;

class HelpFormatter : public CLI::Formatter {
 public:
  HelpFormatter() { column_width(24); }
  std::string make_subcommand(const CLI::App* sub) const override {
    std::stringstream out;
    const std::string& d = sub->get_description();
    CLI::detail::format_help(out, sub->get_name(), d.substr(0, d.find(kSummaryEnd)), get_column_width());
    return out.str();
  }
  std::string make_description(const CLI::App* app) const override {
    const std::string& d = app->get_description();
    const size_t end = d.find(kSummaryEnd);
    if (app->get_parent() == nullptr || end == std::string::npos) return d.empty() ? d : d + "\n\n";
    return d.substr(end + 2) + "\n\n";
  }
};

}  // namespace

void use_wgrt_help(CLI::App& app) { app.formatter(std::make_shared<HelpFormatter>()); }

CLI::App* add_command(CLI::App& app, const std::string& name, const std::string& summary,
                      const std::string& description, const std::string& footer) {
  // The defaults apply to options added after this line: the subcommand's.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  CLI::App* cmd = app.add_subcommand(name, summary + kSummaryEnd + description);
  cmd->footer(footer);  // not the top level's
  cmd->add_option("--limits", g_limits,
                  "device limits: adapter (its own, the default) or default (WebGPU's default limits, no optional "
                  "feature; what a browser guarantees); WGRT_LIMITS when not given")
      ->check(CLI::IsMember({"adapter", "default"}));
  return cmd;
}

api::RuntimeOptions runtime_options() {
  api::RuntimeOptions options = api::runtime_options_from_environment();
  if (!g_limits.empty()) options.limits = api::parse_limits_mode(g_limits, "--limits");
  return options;
}

api::RuntimeOptions runtime_options(const std::vector<int>& devices) {
  api::RuntimeOptions options = runtime_options();
  if (!devices.empty()) options.adapter = devices[0];
  return options;
}

api::LoadOptions load_options(bool no_fuse) {
  api::LoadOptions options = api::load_options_from_environment();
  if (no_fuse) options.tuning.fuse = false;
  return options;
}

api::LlmOptions llm_options(const std::string& model, bool no_fuse) {
  api::LlmOptions options;
  options.path = model;
  if (const char* v = std::getenv("WGRT_DEFAULT_MODEL"); model.empty() && v != nullptr && *v != '\0') {
    if (!std::filesystem::is_regular_file(v)) {
      throw Error(ErrorCode::NotFound, std::string("WGRT_DEFAULT_MODEL is '") + v + "', which is not a file");
    }
    options.path = v;
  }
  options.load = load_options(no_fuse);
  return options;
}

std::string ptd_or_beside(const char* command, const std::string& pte, const std::string& ptd) {
  if (!ptd.empty()) return ptd;
  std::string beside = api::ptd_beside(pte);
  if (!beside.empty()) {
    std::fprintf(stderr, "wgrt %s: using %s, the .ptd beside the program (--ptd names another)\n", command,
                 beside.c_str());
  }
  return beside;
}

CLI::Validator in_range(int64_t lo, int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& value) -> std::string {
        int64_t v = 0;
        if (!CLI::detail::lexical_cast(value, v)) return "'" + value + "' is not an integer";
        if (v < lo || v > hi) return value + " is not in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
        return {};
      },
      "");
}

std::string adapter_names(const api::Llm& model) {
  std::string out;
  for (const api::AdapterInfo& a : model.adapters()) out += (out.empty() ? "" : " + ") + a.name + " (" + a.backend + ")";
  return out;
}

CLI::Option* add_devices_option(CLI::App* cmd, std::vector<int>& devices) {
  return cmd
      ->add_option("--devices", devices,
                   "split the model's layers across these GPUs (comma-separated adapter\n"
                   "indices from `wgrt info`, e.g. 0,1), each holding a run of layers and\n"
                   "its KV cache (default: the whole model on one GPU)")
      ->delimiter(',')
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->type_name("LIST")
      ->check(CLI::NonNegativeNumber);
}

CLI::Option* repeatable(CLI::Option* option) {
  return option->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)->allow_extra_args(false);
}

}  // namespace wgrt::cli
