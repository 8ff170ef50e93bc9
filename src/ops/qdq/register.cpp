#include "ops/register_ops.h"

namespace wgrt::ops {

void register_qdq_ops(OpRegistry& registry);
void register_q8ta_linear(OpRegistry& registry);
void register_q8ta_conv2d(OpRegistry& registry);
void register_q8ta_elementwise(OpRegistry& registry);
void register_choose_qparams(OpRegistry& registry);

void register_qdq(OpRegistry& registry) {
  register_qdq_ops(registry);
  register_q8ta_linear(registry);
  register_q8ta_conv2d(registry);
  register_q8ta_elementwise(registry);
  register_choose_qparams(registry);
}

}  // namespace wgrt::ops
