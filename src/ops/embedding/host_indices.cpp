#include "ops/embedding/host_indices.h"

#include <algorithm>
#include <string>

#include "ops/common/host_ints.h"
#include "core/dims.h"
#include "wgrt/error.h"

namespace wgrt::ops {

void expect_table_rows(const OpArgs& args, size_t arg) {
  const Dims& dims = args.tensor(arg).max_dims;
  if (dims.empty() || dims[0] < 1) args.fail(arg, "an embedding table needs at least one row, got " + dims_string(dims));
}

void watch_host_indices(OpContext& ctx, ValueId idx) {
  const auto& inputs = ctx.graph().inputs;
  if (std::find(inputs.begin(), inputs.end(), idx) != inputs.end()) ctx.watch_input_data(idx, /*required=*/false);
}

void check_host_indices(const ResizeContext& r, ValueId idx, DType dtype, int64_t rows, std::string_view op) {
  const auto bytes = r.host_input(idx);  // empty at load and for device inputs
  const size_t elem = host_size(dtype);
  for (size_t i = 0; i + elem <= bytes.size(); i += elem) {
    const int64_t v = read_host_int(bytes.data() + i, elem);
    if (v < 0 || v >= rows) {
      throw Error(ErrorCode::InvalidArgument, std::string(op) + ": index " + std::to_string(v) + " at position " +
                                                  std::to_string(i / elem) + " of input value " + std::to_string(idx) +
                                                  " is outside the table of " + std::to_string(rows) + " rows");
    }
  }
}

}  // namespace wgrt::ops
