#include "ops/linear/matmul.h"
#include "ops/register_ops.h"

namespace wgrt::ops {

void register_linear_q4gsw(OpRegistry& registry);
void register_linear_qcw(OpRegistry& registry);
void register_linear_dq8ca_q4gsw(OpRegistry& registry);
void register_linear_ggml(OpRegistry& registry);

void register_linear(OpRegistry& registry) {
  register_linear_q4gsw(registry);
  register_linear_qcw(registry);
  register_linear_dq8ca_q4gsw(registry);
  register_matmul(registry);
  register_linear_ggml(registry);
}

}  // namespace wgrt::ops
