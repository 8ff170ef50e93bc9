#include "ops/register_ops.h"

namespace wgrt::ops {

void register_sdpa(OpRegistry& registry);
void register_update_cache(OpRegistry& registry);

void register_attention(OpRegistry& registry) {
  register_sdpa(registry);
  register_update_cache(registry);
}

}  // namespace wgrt::ops
