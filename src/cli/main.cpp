// wgrt command-line entry: dispatches to one subcommand per file.
#include <cstdio>
#include <cstring>
#include <string>

#include "cli/commands.h"
#include "wgrt/error.h"
#include "wgrt/version.h"

namespace {

void print_usage() {
  std::fprintf(stderr,
               "usage: wgrt <command> [options]\n"
               "\n"
               "commands:\n"
               "  bench       tokens/s of a GGUF model: prompt processing and generation, like llama-bench\n"
               "  generate    generate text with a Llama-family GGUF model (default: SmolLM2-135M)\n"
               "  info        the WebGPU adapter, its limits and features\n"
               "  inspect     what a .pte program holds and whether wgrt can run it\n"
               "  ops         every operator wgrt runs, with its dtypes\n"
               "  run         run a method of a .pte program (ExecuTorch, VulkanPartitioner)\n"
               "  serve       an OpenAI-compatible HTTP server for a Llama-family model\n"
               "\n"
               "`wgrt <command> --help` describes each command; `wgrt --version` prints the version.\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    print_usage();
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::printf("wgrt %s\n", WGRT_VERSION);
    return 0;
  }
  const std::string command = argv[1];
  try {
    if (command == "info") return wgrt::cli::run_info(argc - 1, argv + 1);
    if (command == "generate") return wgrt::cli::run_generate(argc - 1, argv + 1);
    if (command == "run") return wgrt::cli::run_run(argc - 1, argv + 1);
    if (command == "inspect") return wgrt::cli::run_inspect(argc - 1, argv + 1);
    if (command == "bench") return wgrt::cli::run_bench(argc - 1, argv + 1);
    if (command == "ops") return wgrt::cli::run_ops(argc - 1, argv + 1);
    if (command == "serve") return wgrt::cli::run_serve(argc - 1, argv + 1);
  } catch (const wgrt::Error& e) {
    std::fprintf(stderr, "wgrt %s: error (%s): %s\n", command.c_str(), std::string(wgrt::to_string(e.code())).c_str(),
                 e.what());
    return 1;
  }
  std::fprintf(stderr, "wgrt: unknown command '%s'\n", command.c_str());
  print_usage();
  return 2;
}
