// `wgrt inspect`: what a .pte program holds and whether wgrt can run it:
// methods, inputs and outputs, operators with counts, unsupported ones, and
// the memory plan (loaded on the GPU when every operator is supported).
// Uses only wgrt's public API.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "wgrt/error.h"
#include "wgrt/program.h"

namespace wgrt::cli {
namespace {

std::string joined(const std::vector<int64_t>& shape) {
  std::string s;
  for (size_t d = 0; d < shape.size(); ++d) s += (d ? ", " : "") + std::to_string(shape[d]);
  return s;
}

int inspect(const std::string& path, const std::string& ptd) {
  // Described even without its .ptd: what named data is missing is listed.
  const api::ProgramInfo info = api::describe_program(path, ptd);

  std::printf("program: %s\n", path.c_str());
  bool all_supported = true;
  bool partially_delegated = false;  // CPU kernels, but every delegate op is wgrt's
  for (const api::MethodInfo& m : info.methods) {
    std::printf("\nmethod '%s'\n", m.name.c_str());
    for (size_t i = 0; i < m.inputs.size(); ++i) {
      const api::ValueInfo& in = m.inputs[i];
      std::printf("  input %zu:  %s %s[%s]%s\n", i, in.kind.c_str(), in.dtype.c_str(), joined(in.shape).c_str(),
                  in.dynamic ? " (dynamic, upper bound)" : "");
    }
    for (size_t o = 0; o < m.outputs.size(); ++o) {
      const api::ValueInfo& out = m.outputs[o];
      if (!out.value.empty()) {
        std::printf("  output %zu: %s %s\n", o, out.kind.c_str(), out.value.c_str());
      } else {
        std::printf("  output %zu: %s %s[%s]\n", o, out.kind.c_str(), out.dtype.c_str(), joined(out.shape).c_str());
      }
    }
    if (m.constant) {
      std::printf("  (a constant: no graph to load)\n");
      continue;
    }
    if (!m.cpu_kernels.empty()) {
      partially_delegated = true;
      std::printf("  CPU kernels outside the delegate (wgrt's own runtime cannot run this method):\n");
      for (const auto& k : m.cpu_kernels) std::printf("    %s\n", k.c_str());
    }
    std::printf("  operators (%zu delegate%s):\n", m.delegates, m.delegates == 1 ? "" : "s");
    for (const api::OperatorUse& op : m.operators) {
      std::printf("    %4d  %s%s\n", op.count, op.name.c_str(), op.supported ? "" : "   <- not supported by wgrt");
    }
    // The checks load runs (operators, dtypes, arguments), every failure.
    if (!m.blockers.empty()) {
      all_supported = false;
      std::printf("  loading refuses it:\n");
      for (const auto& b : m.blockers) std::printf("    %s\n", b.c_str());
    }
  }

  if (!info.missing_named_data.empty()) {
    std::printf("\nnamed data in none of the files given (pass the .ptd that holds it with --ptd):\n");
    for (const auto& key : info.missing_named_data) std::printf("  %s\n", key.c_str());
    std::printf("\nmemory: not planned (weights are missing)\n");
    return 1;
  }
  if (!all_supported) {
    std::printf("\nmemory: not planned (the program has parts wgrt cannot run)\n");
    return 1;
  }
  if (partially_delegated) {
    std::printf("\nThis program runs through ExecuTorch's runtime with wgrt.executorch: ExecuTorch's CPU\n"
                "kernels run the kernels listed above and wgrt runs every Vulkan delegate. In Python:\n"
                "  import wgrt.executorch\n"
                "  from executorch.runtime import Runtime\n"
                "  outputs = Runtime.get().load_program(\"%s\").load_method(\"forward\").execute(inputs)\n",
                path.c_str());
    return 0;
  }
  const api::Runtime runtime = api::Runtime::create(runtime_options());
  // What only the device can say (its limits and features): the load itself.
  std::optional<api::Program> loaded;
  try {
    loaded.emplace(api::Program::load(runtime, path, ptd));
  } catch (const Error& e) {
    std::printf("\nloading on %s refuses it:\n  %s\n", runtime.adapter_info().name.c_str(), e.what());
    return 1;
  }
  const api::Program& program = *loaded;
  for (const auto& name : program.method_names()) {
    const api::Method method = program.method(name);
    std::printf("\nmemory plan of '%s' on %s (%zu dispatches):\n%s", name.c_str(), runtime.adapter_info().name.c_str(),
                method.dispatch_count(), method.memory_stats().to_string().c_str());
  }
  return 0;
}

}  // namespace

Command add_inspect(CLI::App& app) {
  CLI::App* cmd = add_command(app, "inspect", "what a .pte program holds and whether wgrt can run it",
                              "Lists methods, inputs and outputs, operators with counts and which of them wgrt\n"
                              "lacks, CPU kernels outside the Vulkan delegate, and the memory plan.");
  auto a = std::make_shared<std::pair<std::string, std::string>>();
  cmd->add_option("model", a->first, "the .pte program")->type_name("MODEL.pte")->required();
  cmd->add_option("--ptd", a->second, "the .ptd file holding the program's external weights")->type_name("PATH");
  return {cmd, [a] { return inspect(a->first, ptd_or_beside("inspect", a->first, a->second)); }};
}

}  // namespace wgrt::cli
