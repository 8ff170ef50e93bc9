#include "ops/register_ops.h"

#include "graph/executable_graph.h"
#include "ops/passes/canonicalize.h"
#include "ops/passes/fuse_linear.h"
#include "ops/passes/ggml_linears.h"

namespace wgrt {

const OpRegistry& OpRegistry::builtin() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    ops::register_elementwise(r);
    ops::register_norm(r);
    ops::register_qdq(r);
    ops::register_attention(r);
    ops::register_rope(r);
    ops::register_linear(r);
    ops::register_embedding(r);
    ops::register_shape(r);
    ops::register_symint(r);
    ops::register_conv(r);
    ops::register_pool(r);
    ops::register_reduce(r);
    ops::register_creation(r);
    ops::register_sample(r);
    ops::register_grid_sampler(r);
    ops::register_sampling(r);
    ops::register_indexing(r);
    ops::register_training(r);
    // Exporters' idioms in the ops the fusion passes know, ExecuTorch's
    // linears in the GGUF family, then the fusion passes, which make ops of
    // the families above (linear_ggml, conv).
    r.add_pass("canonicalize", [](Graph& g, const PassLimits&) { return passes::canonicalize(g).total() > 0; });
    r.add_pass("ggml_linears", [](Graph& g, const PassLimits& limits) { return passes::ggml_linears(g, limits) > 0; });
    r.add_pass("fuse_linear_layers", [](Graph& g, const PassLimits& limits) {
      const FusionStats st = fuse_linear_layers(g, limits);
      return st.ops_after != st.ops_before;
    });
    return r;
  }();
  return registry;
}

std::unique_ptr<ExecutableGraph> ExecutableGraph::load(gpu::Device& device, Graph graph, const LoadOptions& options) {
  return load(device, std::move(graph), options.registry ? *options.registry : OpRegistry::builtin(), options);
}

}  // namespace wgrt
