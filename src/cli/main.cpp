// wgrt command-line entry: dispatches to one subcommand per file.
#include <cstdio>
#include <cstring>
#include <string>

#include "cli/commands.h"
#include "cli/guard.h"
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
  using Subcommand = int (*)(int, char**);
  Subcommand run = nullptr;
  if (command == "info") run = wgrt::cli::run_info;
  if (command == "generate") run = wgrt::cli::run_generate;
  if (command == "run") run = wgrt::cli::run_run;
  if (command == "inspect") run = wgrt::cli::run_inspect;
  if (command == "bench") run = wgrt::cli::run_bench;
  if (command == "ops") run = wgrt::cli::run_ops;
  if (command == "serve") run = wgrt::cli::run_serve;
  if (run != nullptr) return wgrt::cli::run_guarded(command, [&] { return run(argc - 1, argv + 1); });
  std::fprintf(stderr, "wgrt: unknown command '%s'\n", command.c_str());
  print_usage();
  return 2;
}
