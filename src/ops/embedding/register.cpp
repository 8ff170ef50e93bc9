#include "ops/register_ops.h"

namespace wgrt::ops {

void register_embedding_q4gsw(OpRegistry& registry);
void register_embedding_f32(OpRegistry& registry);
void register_embedding_4bit(OpRegistry& registry);
void register_embedding_ggml(OpRegistry& registry);

void register_embedding(OpRegistry& registry) {
  register_embedding_q4gsw(registry);
  register_embedding_f32(registry);
  register_embedding_4bit(registry);
  register_embedding_ggml(registry);
}

}  // namespace wgrt::ops
