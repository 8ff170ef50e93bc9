// One function per subcommand, each in its own file: it adds the subcommand
// and its options to the app and returns what runs it (see command_line.h).
#pragma once

#include "cli/command_line.h"

namespace wgrt::cli {

Command add_info(CLI::App& app);
Command add_generate(CLI::App& app);
Command add_run(CLI::App& app);
Command add_inspect(CLI::App& app);
Command add_bench(CLI::App& app);
Command add_ops(CLI::App& app);
Command add_serve(CLI::App& app);

}  // namespace wgrt::cli
