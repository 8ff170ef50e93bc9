#include "ops/register_ops.h"

namespace wgrt {

const OpRegistry& OpRegistry::builtin() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    ops::register_elementwise(r);
    ops::register_norm(r);
    ops::register_quant(r);
    return r;
  }();
  return registry;
}

}  // namespace wgrt
