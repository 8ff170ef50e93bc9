#include "runtime/program.h"

#include <type_traits>

#include "ops/passes/widen_f16.h"
#include "import/pte/to_graph.h"
#include "wgrt/error.h"

namespace wgrt {

Method::Method(std::string name, std::unique_ptr<ExecutableGraph> graph)
    : name_(std::move(name)), graph_(std::move(graph)) {
  const Graph& g = graph_->graph();
  for (ValueId id : g.inputs) {
    if (g.is_tensor(id)) {
      inputs_.push_back({g.tensor(id).dtype, g.tensor(id).max_dims});
    } else {
      inputs_.push_back({DType::I64, {1}});  // a symbolic int passed as one element
    }
  }
  for (ValueId id : g.outputs) outputs_.push_back({g.tensor(id).dtype, g.tensor(id).max_dims});
}

ProgramGraphs ProgramGraphs::import(const std::string& path, const std::string& ptd, const LoadOptions& options) {
  ProgramGraphs p;
  std::vector<std::filesystem::path> data_files;
  if (!ptd.empty()) data_files.push_back(ptd);
  p.parsed = pte::load_program(path, data_files);
  for (const pte::Method& m : p.parsed.methods) {
    if (m.constant() && m.outputs.size() == 1) {
      std::visit([&](const auto& v) {
        if constexpr (!std::is_same_v<std::decay_t<decltype(v)>, std::monostate>) p.constants[m.name] = v;
      }, m.outputs[0].scalar);
      continue;
    }
    Graph g = pte::to_graph(m, path);
    const OpRegistry& registry = options.registry ? *options.registry : OpRegistry::builtin();
    widen_f16(g, registry);
    try {
      registry.check_graph(g);
    } catch (const Error& e) {
      throw e.with_context(path + " method '" + m.name + "'");
    }
    p.graphs.emplace_back(m.name, std::move(g));
  }
  return p;
}

std::unique_ptr<Program> Program::load(gpu::Device& device, const std::string& path, const std::string& ptd,
                                       const LoadOptions& options) {
  auto p = std::unique_ptr<Program>(new Program());
  p->path_ = path;
  // Every graph is built first, so an unsupported method fails before any
  // GPU memory is taken.
  ProgramGraphs imported = ProgramGraphs::import(path, ptd, options);
  p->parsed_ = std::move(imported.parsed);
  p->constants_ = std::move(imported.constants);
  for (auto& [name, g] : imported.graphs) {
    try {
      p->methods_.push_back(std::make_unique<Method>(name, ExecutableGraph::load(device, std::move(g), options)));
    } catch (const Error& e) {
      throw e.with_context(path + " method '" + name + "'");
    }
  }
  return p;
}

std::vector<std::string> Program::method_names() const {
  std::vector<std::string> names;
  for (const auto& m : methods_) names.push_back(m->name());
  return names;
}

Method& Program::method(const std::string& name) {
  for (auto& m : methods_) {
    if (m->name() == name) return *m;
  }
  std::string list;
  for (const auto& m : methods_) list += (list.empty() ? "" : ", ") + m->name();
  throw Error(ErrorCode::NotFound, path_ + " has no method '" + name + "' (methods: " + list + ")");
}

MemoryStats Program::memory_stats() const {
  MemoryStats total;
  for (const auto& m : methods_) total += m->graph().memory_stats();
  return total;
}

}  // namespace wgrt
