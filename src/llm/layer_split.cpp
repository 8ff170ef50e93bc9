#include "llm/layer_split.h"

#include <string>

#include "wgrt/error.h"

namespace wgrt::llm {
namespace {
// The layer a tensor belongs to ("blk.N.…"), or -1 (embeddings, head, norms).
int64_t layer_of(const std::string& name) {
  if (name.rfind("blk.", 0) != 0) return -1;
  int64_t layer = 0;
  size_t i = 4;
  for (; i < name.size() && name[i] >= '0' && name[i] <= '9'; ++i) layer = layer * 10 + (name[i] - '0');
  return i > 4 && i < name.size() && name[i] == '.' ? layer : -1;
}
}  // namespace

std::vector<LayerRange> split_layers(const gguf::GgufFile& file, int64_t n_layers, size_t parts) {
  if (parts < 1 || int64_t(parts) > n_layers) {
    throw Error(ErrorCode::InvalidArgument, "a model of " + std::to_string(n_layers) + " layers cannot be split across " +
                                                std::to_string(parts) + " devices (at most one device per layer)");
  }
  std::vector<uint64_t> layer_bytes(size_t(n_layers), 0);
  uint64_t embedding = 0, head = 0;
  bool own_head = false;
  for (const gguf::TensorInfo& t : file.tensors()) {
    const int64_t layer = layer_of(t.name);
    if (layer >= 0 && layer < n_layers) layer_bytes[size_t(layer)] += t.n_bytes;
    else if (t.name.rfind("token_embd", 0) == 0) embedding += t.n_bytes;
    else head += t.n_bytes;
    own_head = own_head || t.name == "output.weight";
  }
  // A tied head reads the embeddings on the last device: they are uploaded
  // to both ends.
  if (!own_head) head += embedding;
  uint64_t total = embedding + head;
  for (uint64_t b : layer_bytes) total += b;
  std::vector<LayerRange> out;
  uint64_t done = embedding;
  int64_t first = 0;
  for (size_t p = 0; p + 1 < parts; ++p) {
    // End this part where its running total first reaches its share, keeping
    // at least one layer for each part after it.
    const uint64_t target = total / parts * (p + 1);
    int64_t end = first + 1;
    done += layer_bytes[size_t(first)];
    while (end < n_layers - int64_t(parts - p - 1) && done + layer_bytes[size_t(end)] / 2 < target) {
      done += layer_bytes[size_t(end)];
      ++end;
    }
    out.push_back({first, end});
    first = end;
  }
  out.push_back({first, n_layers});
  return out;
}

}  // namespace wgrt::llm
