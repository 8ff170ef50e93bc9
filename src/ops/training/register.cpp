#include "ops/register_ops.h"

namespace wgrt::ops {

void register_linear_dw(OpRegistry& registry);
void register_q4gsw_backward(OpRegistry& registry);
void register_q4gsw_requant(OpRegistry& registry);
void register_fused_ce(OpRegistry& registry);

void register_training(OpRegistry& registry) {
  register_linear_dw(registry);
  register_q4gsw_backward(registry);
  register_q4gsw_requant(registry);
  register_fused_ce(registry);
}

}  // namespace wgrt::ops
