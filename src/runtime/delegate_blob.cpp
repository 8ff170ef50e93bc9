#include "runtime/delegate_blob.h"

#include "ops/passes/widen_f16.h"
#include "import/pte/file_bytes.h"
#include "import/pte/to_graph.h"
#include "wgrt/error.h"

namespace wgrt {

std::unique_ptr<ExecutableGraph> load_delegate_blob(gpu::Device& device, std::span<const uint8_t> blob,
                                                    const pte::NamedDataLookup& named_data, const std::string& name,
                                                    const LoadOptions& options) {
  // Offsets in messages count from the blob's first byte.
  const auto messages = pte::FileBytes::own({}, name);
  const pte::VkGraph vk = pte::parse_vk_blob(*messages, 0, blob, named_data);
  Graph graph = pte::vk_to_graph(vk, vk.input_ids, vk.output_ids, {}, name);
  const OpRegistry& registry = options.registry ? *options.registry : OpRegistry::builtin();
  widen_f16(graph, registry);
  try {
    registry.check_graph(graph);
    return ExecutableGraph::load(device, std::move(graph), options);
  } catch (const Error& e) {
    throw e.with_context(name);
  }
}

}  // namespace wgrt
