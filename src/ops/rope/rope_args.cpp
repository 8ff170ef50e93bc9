#include "ops/rope/rope_args.h"

namespace wgrt::ops {

void check_rope_operands(const OpArgs& args) {
  for (size_t i = 0; i < 4; ++i) args.tensor(i, {DType::F32});
  args.expect_rank(0, 4);
  args.expect_rank(1, 4);
  args.expect_rank(2, 2);
  args.expect_rank(3, 2);
}

}  // namespace wgrt::ops
