// One Vulkan delegate blob (VH00 header, VK00 graph, constant bytes) loaded
// on a device by itself, for a host runtime that runs the rest of the program
// and calls the blob as one step of it: ExecuTorch's own runtime, through
// src/executorch/. wgrt's Program loads whole methods instead.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "graph/executable_graph.h"
#include "import/pte/vk_blob.h"

namespace wgrt {

namespace gpu {
class Device;
}

// The blob's graph loaded on `device`, taking its inputs and giving its
// outputs in the blob's own order (input_ids, output_ids): the order of the
// delegate call's arguments. 64-bit integer I/O stays the 32-bit tensor the
// exporter wrote; the caller narrows and widens. Constants stored by key come
// from named_data. `name` says where the blob came from in messages.
// Error(InvalidProgram) with the byte offset for a malformed blob,
// Error(NotSupported) naming each op or dtype wgrt lacks; nothing stays
// allocated on failure. The blob and named data need only live during the
// call: constants are on the GPU when it returns.
std::unique_ptr<ExecutableGraph> load_delegate_blob(gpu::Device& device, std::span<const uint8_t> blob,
                                                    const pte::NamedDataLookup& named_data, const std::string& name,
                                                    const LoadOptions& options = {});

}  // namespace wgrt
