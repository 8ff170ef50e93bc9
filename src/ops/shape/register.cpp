#include <algorithm>

#include "ops/register_ops.h"

namespace wgrt::ops {

void register_reshape_ops(OpRegistry& registry);
void register_slice_select(OpRegistry& registry);
void register_layout_ops(OpRegistry& registry);
void register_split_copy(OpRegistry& registry);
void register_pad(OpRegistry& registry);

void register_shape(OpRegistry& registry) {
  const auto before = registry.names();
  register_reshape_ops(registry);
  register_slice_select(registry);
  register_layout_ops(registry);
  register_split_copy(registry);
  register_pad(registry);
  // Every shape op moves what strided_copy's `copyable` takes.
  for (const auto& name : registry.names()) {
    if (!std::binary_search(before.begin(), before.end(), name)) registry.set_dtypes(name, "f32, i32, i64, bool, i8, u8");
  }
}

}  // namespace wgrt::ops
