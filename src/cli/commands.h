// One function per subcommand; each takes argv starting at its own name and
// returns the process exit status.
#pragma once

namespace wgrt::cli {

int run_info(int argc, char** argv);
int run_generate(int argc, char** argv);
int run_run(int argc, char** argv);
int run_inspect(int argc, char** argv);
int run_bench(int argc, char** argv);
int run_ops(int argc, char** argv);
int run_serve(int argc, char** argv);

}  // namespace wgrt::cli
