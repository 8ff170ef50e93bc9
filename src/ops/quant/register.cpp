#include "ops/register_ops.h"

namespace wgrt::ops {

void register_linear_ggml(OpRegistry& registry);
void register_embedding_ggml(OpRegistry& registry);

void register_quant(OpRegistry& registry) {
  register_linear_ggml(registry);
  register_embedding_ggml(registry);
}

}  // namespace wgrt::ops
