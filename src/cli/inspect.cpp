// `wgrt inspect`: what a .pte program holds and whether wgrt can run it:
// methods, inputs and outputs, operators with counts, unsupported ones, and
// the memory plan (loaded on the GPU when every operator is supported).
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "cli/args.h"
#include "cli/commands.h"
#include "gpu/device.h"
#include "graph/op_registry.h"
#include "import/pte/to_graph.h"
#include "runtime/program.h"
#include "wgrt/error.h"

namespace wgrt::cli {

int run_inspect(int argc, char** argv) {
  if (asks_for_help(argc, argv)) {
    std::fputs("usage: wgrt inspect MODEL.pte [--ptd PATH]\n\n"
               "Lists methods, inputs and outputs, operators with counts and which of them wgrt\n"
               "lacks, CPU kernels outside the Vulkan delegate, and the memory plan.\n",
               stdout);
    return 0;
  }
  const Args args(argc, argv, {"--ptd"}, {});
  if (args.positionals().size() != 1) throw Error(ErrorCode::InvalidArgument, "expected one MODEL.pte (see --help)");
  const std::string path = args.positionals()[0];
  const std::string ptd = args.get_or("--ptd", "");
  std::vector<std::filesystem::path> data;
  if (!ptd.empty()) data.push_back(ptd);
  // Described even without its .ptd: what named data is missing is listed.
  std::vector<std::string> missing_data;
  const pte::Program parsed = pte::describe_program(path, data, missing_data);
  const OpRegistry& registry = OpRegistry::builtin();

  std::printf("program: %s\n", path.c_str());
  bool all_supported = true;
  for (const pte::Method& m : parsed.methods) {
    std::printf("\nmethod '%s'\n", m.name.c_str());
    for (size_t i = 0; i < m.inputs.size(); ++i) {
      std::string dims;
      for (size_t d = 0; d < m.inputs[i].sizes.size(); ++d) dims += (d ? ", " : "") + std::to_string(m.inputs[i].sizes[d]);
      std::printf("  input %zu:  %s %s[%s]%s\n", i, m.inputs[i].kind.c_str(),
                  std::string(pte::to_string(m.inputs[i].dtype)).c_str(), dims.c_str(),
                  m.inputs[i].dynamic ? " (dynamic, upper bound)" : "");
    }
    for (size_t o = 0; o < m.outputs.size(); ++o) {
      std::string dims;
      for (size_t d = 0; d < m.outputs[o].sizes.size(); ++d) dims += (d ? ", " : "") + std::to_string(m.outputs[o].sizes[d]);
      const auto& scalar = m.outputs[o].scalar;
      if (const auto* i = std::get_if<int64_t>(&scalar)) {
        std::printf("  output %zu: Int %lld\n", o, static_cast<long long>(*i));
      } else if (const auto* d = std::get_if<double>(&scalar)) {
        std::printf("  output %zu: Double %g\n", o, *d);
      } else if (const auto* b = std::get_if<bool>(&scalar)) {
        std::printf("  output %zu: Bool %s\n", o, *b ? "true" : "false");
      } else {
        std::printf("  output %zu: %s %s[%s]\n", o, m.outputs[o].kind.c_str(),
                    std::string(pte::to_string(m.outputs[o].dtype)).c_str(), dims.c_str());
      }
    }
    if (m.constant()) {
      std::printf("  (a constant: no graph to load)\n");
      continue;
    }
    if (!m.cpu_kernels.empty()) {
      all_supported = false;
      std::printf("  CPU kernels outside the delegate (wgrt cannot run this method):\n");
      for (const auto& k : m.cpu_kernels) std::printf("    %s\n", k.c_str());
    }
    std::map<std::string, int> counts;
    for (const pte::Delegate& d : m.delegates) {
      for (const auto& op : d.graph.ops) ++counts[op.name];
    }
    std::set<std::string> missing;
    std::printf("  operators (%zu delegate%s):\n", m.delegates.size(), m.delegates.size() == 1 ? "" : "s");
    for (const auto& [name, n] : counts) {
      const bool ok = registry.find(name) != nullptr;
      if (!ok) missing.insert(name);
      std::printf("    %4d  %s%s\n", n, name.c_str(), ok ? "" : "   <- not supported by wgrt");
    }
    if (!missing.empty()) all_supported = false;
  }

  if (!missing_data.empty()) {
    std::printf("\nnamed data in none of the files given (pass the .ptd that holds it with --ptd):\n");
    for (const auto& key : missing_data) std::printf("  %s\n", key.c_str());
    std::printf("\nmemory: not planned (weights are missing)\n");
    return 1;
  }
  if (!all_supported) {
    std::printf("\nmemory: not planned (the program has parts wgrt cannot run)\n");
    return 1;
  }
  auto device = gpu::Device::create();
  auto program = Program::load(*device, path, ptd);
  for (const auto& name : program->method_names()) {
    const ExecutableGraph& g = program->method(name).graph();
    std::printf("\nmemory plan of '%s' on %s (%zu dispatches):\n%s", name.c_str(),
                device->adapter_info().name.c_str(), g.dispatch_count(), g.memory_stats().to_string().c_str());
  }
  return 0;
}

}  // namespace wgrt::cli
