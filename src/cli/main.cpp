// wgrt command-line entry: parses the command line (CLI11) and runs the
// chosen subcommand, one per file, inside the exception guard.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/guard.h"
#include "wgrt/error.h"
#include "wgrt/version.h"

int main(int argc, char** argv) {
  using namespace wgrt::cli;
  CLI::App app("wgrt runs ML programs on any GPU through WebGPU.", "wgrt");
  app.set_version_flag("--version", std::string("wgrt ") + WGRT_VERSION);
  use_wgrt_help(app);
  app.require_subcommand(1);
  app.footer("`wgrt <command> --help` describes each command; `wgrt --version` prints the version.");
  const std::vector<Command> commands = {add_bench(app),   add_generate(app), add_info(app), add_inspect(app),
                                         add_ops(app),     add_run(app),      add_serve(app)};
  if (argc < 2) {
    std::fputs(app.help().c_str(), stderr);
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForVersion&) {
    std::printf("wgrt %s\n", WGRT_VERSION);
    return 0;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    const auto chosen = app.get_subcommands();
    if (chosen.empty()) {  // no or an unknown command
      const std::string what = argv[1][0] != '-' ? "unknown command '" + std::string(argv[1]) + "'" : e.what();
      std::fprintf(stderr, "wgrt: %s\n\n%s", what.c_str(), app.help().c_str());
      return 2;
    }
    // A bad option of a command: reported like the command's own errors.
    return run_guarded(chosen.front()->get_name(), [&]() -> int {
      throw wgrt::Error(wgrt::ErrorCode::InvalidArgument, std::string(e.what()) + " (see --help)");
    });
  }
  for (const Command& c : commands) {
    if (c.app->parsed()) return run_guarded(c.app->get_name(), c.run);
  }
  return 2;  // require_subcommand(1) makes this unreachable
}
