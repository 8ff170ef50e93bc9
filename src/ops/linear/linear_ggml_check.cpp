// The argument checks of the wgrt.linear_ggml family (linear_ggml.cpp
// lowers it; linear_forms.h lists the forms' arguments).
#include "ops/linear/linear_ggml_check.h"

#include <string>

#include "ops/quant/quant_layout.h"
#include "ops/quant/weight_prep.h"

namespace wgrt::ops {
namespace {

// The outputs: out of shape `want`, or split outputs whose widths add up to
// N, each with x's leading dims.
void check_outputs(const OpArgs& args, const LinearForm& s, const Dims& x_dims, const Dims& want, int64_t n) {
  if (s.out1 == kNoArg) {
    const Tensor& out = args.tensor(s.out, {DType::F32});
    if (out.max_dims != want) args.fail(s.out, "expected shape " + dims_string(want) + ", got " + dims_string(out.max_dims));
    return;
  }
  int64_t total = 0;
  for (size_t i : {s.out, s.out1, s.out2}) {
    if (i == s.out2 && args.is_null(i)) continue;
    const Tensor& o = args.tensor(i, {DType::F32});
    const auto [width, lead] = output_width(s, i, o.max_dims, n);
    if (lead != want) {
      args.fail(i, "expected shape " + dims_string(x_dims) + " but the last dim, got " + dims_string(o.max_dims));
    }
    total += width;
  }
  if (total != n) {
    args.fail(s.out, "output widths add up to " + std::to_string(total) + ", the weight has " + std::to_string(n) +
                         " rows");
  }
}

// RoPE: query and key heads of one even size, and a cos and sin row of
// head_dim / 2 for each row of x.
void check_rope_tables(const OpArgs& args, const LinearForm& s, const Dims& x_dims, int64_t k) {
  const int64_t head_dim = args.tensor(s.out).max_dims.back();
  if (head_dim % 2 != 0 || args.tensor(s.out1).max_dims.back() != head_dim) {
    args.fail(s.out1, "expected query and key heads of one even size, got " + dims_string(args.tensor(s.out).max_dims) +
                          " and " + dims_string(args.tensor(s.out1).max_dims));
  }
  const int64_t rows = numel(x_dims) / std::max<int64_t>(1, k);
  for (size_t i : {s.cos, s.sin}) {
    const Tensor& t = args.tensor(i, {DType::F32});
    if (numel(t.max_dims) != rows * head_dim / 2) {
      args.fail(i, "expected " + std::to_string(rows) + " x " + std::to_string(head_dim / 2) + " RoPE values, got " +
                       dims_string(t.max_dims));
    }
  }
}

}  // namespace

// An output's width and its dims with the width replaced by n; RoPE outputs
// [..., heads, head_dim] count heads * head_dim.
std::pair<int64_t, Dims> output_width(const LinearForm& s, size_t slot, const Dims& dims, int64_t n) {
  Dims lead = dims;
  if (s.cos != kNoArg && slot != s.out2 && lead.size() >= 2) {
    const int64_t width = lead[lead.size() - 2] * lead.back();
    lead.pop_back();
    lead.back() = n;
    return {width, lead};
  }
  const int64_t width = lead.back();
  lead.back() = n;
  return {width, lead};
}

void check_linear_ggml(const OpArgs& args, const LinearForm& s) {
  args.expect_count(s.arg_count());
  const Tensor& x = args.tensor(0, {DType::F32});
  args.expect_rank_at_least(0, 1);
  const Tensor& w = args.tensor(1, {DType::U8});
  if (w.max_dims.size() != 3) args.expect_rank(1, 2);  // rank 3: the planar layout
  const int64_t type = args.integer(2);
  const QuantLayout* layout = find_quant_layout(static_cast<uint32_t>(type));
  if (layout == nullptr) args.unsupported(2, "ggml type " + std::to_string(type) + " has no GPU kernel");
  const int64_t k = x.max_dims.back();
  if (k % layout->block_elems != 0 || k % 32 != 0) {
    args.fail(0, "last dim " + std::to_string(k) + " is not a whole number of " + std::to_string(layout->block_elems) +
                     "-element blocks");
  }
  if (!ggml_rows_fit(*layout, w, k)) {
    if (is_planar_weight(w)) {
      args.fail(1, "expected planar-layout rows [" + std::to_string(planar_row_bytes(layout->ggml_type, k) / 16) +
                       ", 16] for K = " + std::to_string(k) + " and ggml type " + std::to_string(type) + ", got " +
                       dims_string(w.max_dims));
    }
    args.fail(1, "expected rows of " + std::to_string(gpu_row_bytes(*layout, k)) + " bytes for K = " +
                     std::to_string(k) + ", got " + std::to_string(w.max_dims[1]));
  }
  const int64_t n = w.max_dims[0];
  if (!args.is_null(kLinearXQuant) && !(args.number(kLinearXQuant) >= 0)) {
    args.fail(kLinearXQuant, "expected a requantization eps >= 0, got " + std::to_string(args.number(kLinearXQuant)));
  }
  if (present(args, s.bias)) {
    const Tensor& b = args.tensor(s.bias, {DType::F32});
    if (b.max_dims != Dims{n}) args.fail(s.bias, "expected bias shape [" + std::to_string(n) + "], got " + dims_string(b.max_dims));
  }
  if (present(args, s.norm)) {
    const Tensor& g = args.tensor(s.norm, {DType::F32});
    if (numel(g.max_dims) != k) args.fail(s.norm, "expected " + std::to_string(k) + " norm weights, got " + dims_string(g.max_dims));
    args.number(s.eps);
  }
  Dims want = x.max_dims;
  want.back() = n;
  if (s.swiglu) {
    if (n % 2 != 0) args.fail(1, "expected an even number of interleaved gate/up rows, got " + std::to_string(n));
    want.back() = n / 2;
  }
  check_outputs(args, s, x.max_dims, want, n);
  if (s.cos != kNoArg) check_rope_tables(args, s, x.max_dims, k);
  if (present(args, s.residual)) {
    const Tensor& r = args.tensor(s.residual, {DType::F32});
    if (r.max_dims != want) args.fail(s.residual, "expected shape " + dims_string(want) + ", got " + dims_string(r.max_dims));
  }
}

}  // namespace wgrt::ops
