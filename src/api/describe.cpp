// api::describe_program: the public view of the .pte importer's parse.
#include <cstdio>
#include <filesystem>
#include <map>
#include <variant>

#include "graph/op_registry.h"
#include "ops/passes/widen_f16.h"
#include "import/pte/program.h"
#include "import/pte/to_graph.h"
#include "wgrt/error.h"
#include "wgrt/program.h"

namespace wgrt::api {
namespace {

ValueInfo value_info(const pte::IoValue& io) {
  ValueInfo v;
  v.kind = io.kind;
  v.dtype = std::string(pte::to_string(io.dtype));
  v.shape.assign(io.sizes.begin(), io.sizes.end());
  v.dynamic = io.dynamic;
  if (const auto* i = std::get_if<int64_t>(&io.scalar)) {
    v.value = std::to_string(*i);
  } else if (const auto* d = std::get_if<double>(&io.scalar)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", *d);
    v.value = buf;
  } else if (const auto* b = std::get_if<bool>(&io.scalar)) {
    v.value = *b ? "true" : "false";
  }
  return v;
}

// What load would refuse in one method: its whole graph through wgrt's own
// runtime, or each delegate's graph as ExecuTorch's runtime hands it to wgrt
// (a method with CPU kernels).
std::vector<std::string> blockers(const pte::Method& m, const std::string& path,
                                  const OpRegistry& registry) {
  std::vector<std::string> out;
  auto check = [&](auto make_graph) {
    try {
      Graph g = make_graph();
      widen_f16(g, registry);
      for (auto& b : registry.blockers(g)) out.push_back(std::move(b));
    } catch (const Error& e) {
      out.push_back(e.what());
    }
  };
  if (m.cpu_kernels.empty()) {
    check([&] { return pte::to_graph(m, path); });
  } else {
    for (size_t i = 0; i < m.delegates.size(); ++i) {
      const pte::VkGraph& vk = m.delegates[i].graph;
      check([&] { return pte::vk_to_graph(vk, vk.input_ids, vk.output_ids, {}, "delegate " + std::to_string(i)); });
    }
  }
  return out;
}

}  // namespace

ProgramInfo describe_program(const std::string& path, const std::string& ptd) {
  std::vector<std::filesystem::path> data;
  if (!ptd.empty()) data.push_back(ptd);
  ProgramInfo info;
  const pte::Program parsed = pte::describe_program(path, data, info.missing_named_data);
  const OpRegistry& registry = OpRegistry::builtin();
  for (const pte::Method& m : parsed.methods) {
    MethodInfo mi;
    mi.name = m.name;
    for (const auto& io : m.inputs) mi.inputs.push_back(value_info(io));
    for (const auto& io : m.outputs) mi.outputs.push_back(value_info(io));
    mi.constant = m.constant();
    mi.cpu_kernels = m.cpu_kernels;
    mi.delegates = m.delegates.size();
    std::map<std::string, int> counts;
    for (const pte::Delegate& d : m.delegates) {
      for (const auto& op : d.graph.ops) ++counts[op.name];
    }
    for (const auto& [name, n] : counts) mi.operators.push_back({name, n, registry.find(name) != nullptr});
    if (!mi.constant && info.missing_named_data.empty()) mi.blockers = blockers(m, path, registry);
    info.methods.push_back(std::move(mi));
  }
  return info;
}

}  // namespace wgrt::api
