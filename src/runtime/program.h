// A .pte program loaded onto a device: each fully delegated method becomes
// an ExecutableGraph. The parsed file stays mapped while the program lives,
// since constants are uploaded from it and hooks never need it again.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "graph/executable_graph.h"
#include "import/pte/program.h"

namespace wgrt {

namespace gpu {
class Device;
}

struct TensorSpec {
  DType dtype = DType::F32;
  Dims max_dims;
};

class Method {
 public:
  Method(std::string name, std::unique_ptr<ExecutableGraph> graph);

  const std::string& name() const { return name_; }
  const std::vector<TensorSpec>& input_specs() const { return inputs_; }
  const std::vector<TensorSpec>& output_specs() const { return outputs_; }
  ExecutableGraph& graph() { return *graph_; }
  const ExecutableGraph& graph() const { return *graph_; }

 private:
  std::string name_;
  std::unique_ptr<ExecutableGraph> graph_;
  std::vector<TensorSpec> inputs_, outputs_;
};

// A .pte parsed and every method's graph built and checked, nothing on the
// GPU yet: Program::load's first half, which the LLM route (llm_model.h)
// takes to load the forward graph itself.
using ProgramConstant = std::variant<int64_t, double, bool>;
struct ProgramGraphs {
  pte::Program parsed;  // the graphs' constants point into its mapped bytes
  std::map<std::string, ProgramConstant> constants;
  std::vector<std::pair<std::string, Graph>> graphs;  // by method, in the file's order

  // Parses `path` (and `ptd`); a method that calls CPU kernels, or an
  // operator the registry lacks, is refused naming the method.
  static ProgramGraphs import(const std::string& path, const std::string& ptd, const LoadOptions& options);
};

class Program {
 public:
  // Parses the .pte (and the .ptd holding its external weights, if any),
  // checks every method's operators, then loads each method on the device.
  // Methods that call CPU kernels are refused with the list of kernels.
  static std::unique_ptr<Program> load(gpu::Device& device, const std::string& path, const std::string& ptd = "",
                                       const LoadOptions& options = {});

  const std::string& path() const { return path_; }
  std::vector<std::string> method_names() const;
  // Error(NotFound) listing the method names.
  Method& method(const std::string& name);
  MemoryStats memory_stats() const;  // summed over methods
  // Methods that only return a scalar stored in the program (export_llama's
  // metadata: get_max_seq_len, use_kv_cache, ...) load no graph; their
  // values, by method name. Not listed in method_names().
  using Constant = ProgramConstant;
  const std::map<std::string, Constant>& constants() const { return constants_; }

 private:
  std::string path_;
  pte::Program parsed_;  // constants point into its mapped bytes
  std::vector<std::unique_ptr<Method>> methods_;
  std::map<std::string, Constant> constants_;
};

}  // namespace wgrt
