#include "ops/register_ops.h"

namespace wgrt::ops {

void register_rms_norm(OpRegistry& registry);
void register_layer_norm(OpRegistry& registry);
void register_softmax(OpRegistry& registry);
void register_batch_norm(OpRegistry& registry);
void register_group_norm(OpRegistry& registry);

void register_norm(OpRegistry& registry) {
  register_rms_norm(registry);
  register_layer_norm(registry);
  register_softmax(registry);
  register_batch_norm(registry);
  register_group_norm(registry);
}

}  // namespace wgrt::ops
