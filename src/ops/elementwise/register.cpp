#include "ops/elementwise/binary.h"
#include "ops/register_ops.h"

namespace wgrt::ops {

void register_unary(OpRegistry& registry);
void register_typed(OpRegistry& registry);

void register_elementwise(OpRegistry& registry) {
  register_binary(registry);
  register_unary(registry);
  register_typed(registry);
}

}  // namespace wgrt::ops
