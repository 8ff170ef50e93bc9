// A model split across devices by layers (llama.cpp's --split-mode layer):
// each device holds a run of consecutive layers, their weights and their KV
// cache; the first also the token embeddings, the last also the head. A
// forward pass runs the parts in order; the hidden state [1, S, dim] crosses
// each boundary through the host (read back from one device, written to the
// next), which costs S * dim * 4 bytes each way: 16 KiB for a decode step of
// a 4096-wide model, small beside the step's weight reads.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "graph/executable_graph.h"
#include "import/gguf/gguf_file.h"
#include "import/gguf/llama_graph.h"

namespace wgrt::llm {

using LayerRange = gguf::LlamaGraphOptions::LayerRange;

// The layers of a model with `n_layers` layers split into `parts` runs of
// nearly equal weight bytes (the embeddings counted with the first, the
// head and output norm with the last). Error(InvalidArgument) when there are
// more parts than layers.
std::vector<LayerRange> split_layers(const gguf::GgufFile& file, int64_t n_layers, size_t parts);

// One part of a split model: the graph of its layers, on its device.
struct LayerPart {
  gpu::Device* device = nullptr;
  std::unique_ptr<ExecutableGraph> graph;
  LayerRange layers;
};

}  // namespace wgrt::llm
