// The explicit list of op families; OpRegistry::builtin() calls each.
#pragma once

#include "graph/op_registry.h"

namespace wgrt::ops {

void register_elementwise(OpRegistry& registry);
void register_norm(OpRegistry& registry);
void register_quant(OpRegistry& registry);

}  // namespace wgrt::ops
