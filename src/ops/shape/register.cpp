#include "ops/register_ops.h"

namespace wgrt::ops {

void register_reshape_ops(OpRegistry& registry);
void register_slice_select(OpRegistry& registry);
void register_layout_ops(OpRegistry& registry);
void register_split_copy(OpRegistry& registry);

void register_shape(OpRegistry& registry) {
  register_reshape_ops(registry);
  register_slice_select(registry);
  register_layout_ops(registry);
  register_split_copy(registry);
}

}  // namespace wgrt::ops
