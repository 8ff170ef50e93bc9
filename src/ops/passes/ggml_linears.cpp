#include "ops/passes/ggml_linears.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>

#include "ops/passes/pass_graph.h"
#include "ops/linear/linear_forms.h"
#include "ops/quant/quant_layout.h"

namespace wgrt::passes {
namespace {

constexpr std::string_view kQ4gsw = "et_vk.linear_q4gsw.default";
constexpr std::string_view kQcs4w = "et_vk.linear_qcs4w.default";
constexpr std::string_view kLinear = "aten.linear.default";
constexpr std::string_view kDq8ca = "et_vk.linear_dq8ca_q4gsw.default";
constexpr std::string_view kChooseQparams = "torchao.choose_qparams_affine.default";
constexpr uint32_t kGgmlF32 = 0, kGgmlF16 = 1;

float f32_at(const Tensor& t, uint64_t i) {
  float v;
  std::memcpy(&v, t.bytes.data() + i * 4, 4);
  return v;
}

// Rows of K 4-bit values (nibble(n, k) in 0..15 meaning nibble - 8) with
// scale(n, block of 32) as Q4_0F32 blocks: [d f32][byte j: element j low,
// element j + 16 high]. Templates, not std::function: a 1B model's weights
// are a billion nibbles.
template <class Nibble, class Scale>
std::vector<uint8_t> q4f32_rows(int64_t rows, int64_t k, const Nibble& nibble, const Scale& scale) {
  const ops::QuantLayout& layout = *ops::find_quant_layout(ops::kQ4F32Type);
  const int64_t blocks = k / 32;
  std::vector<uint8_t> out(uint64_t(rows) * blocks * layout.file_bytes);
  uint8_t* p = out.data();
  for (int64_t n = 0; n < rows; ++n) {
    for (int64_t b = 0; b < blocks; ++b, p += layout.file_bytes) {
      const float d = scale(n, b);
      std::memcpy(p, &d, 4);
      for (int64_t j = 0; j < 16; ++j) {
        p[4 + j] = uint8_t(nibble(n, 32 * b + j) | (nibble(n, 32 * b + j + 16) << 4));
      }
    }
  }
  return out;
}

constexpr ValueId kNoBias = std::numeric_limits<ValueId>::max();  // the caller adds a Null

// The weight bytes a rewrite would make, with the GPU layout's padding (at
// most 16 bytes a row, as fuse_linear.cpp bounds it): checked before
// converting, so an oversized weight is never rewritten only to be dropped.
bool fits(const PassLimits& limits, int64_t rows, uint64_t bytes) {
  return bytes + 16 * uint64_t(rows) <= limits.max_weight_bytes;
}

uint64_t q4f32_bytes(int64_t rows, int64_t k) { return uint64_t(rows) * uint64_t(k / 32) * 20; }

struct Rewrite {
  ValueId x, bias, out;
  std::vector<uint8_t> weight;
  int64_t rows = 0;
  uint32_t type = 0;
  std::optional<double> x_eps;  // x requantized per row (8da4w), with this eps
};

// linear_q4gsw: W u8 [N, K/2] (element 2i in byte i's low nibble), scales f32 [K/G, >= N].
std::optional<Rewrite> from_q4gsw(const Graph& g, const OpCall& op, const PassLimits& limits) {
  if (op.args.size() != 6) return std::nullopt;
  const Tensor* x = f32_tensor(g, op.args[0]);
  const Tensor* w = constant_tensor(g, op.args[1]);
  const Tensor* s = constant_tensor(g, op.args[2]);
  const auto* group = std::get_if<int64_t>(&g.values[op.args[3]]);
  if (!x || !w || !s || !group || x->max_dims.empty() || w->max_dims.size() != 2 || s->max_dims.size() != 2) return {};
  const int64_t k = x->max_dims.back(), n = w->max_dims[0], gs = *group, stride = s->max_dims[1];
  if (k % 32 != 0 || gs <= 0 || gs % 32 != 0 || k % gs != 0 || w->max_dims[1] * 2 != k) return std::nullopt;
  if (s->dtype != DType::F32 || s->max_dims[0] != k / gs || stride < n) return std::nullopt;
  if (!fits(limits, n, q4f32_bytes(n, k))) return std::nullopt;
  Rewrite r{op.args[0], op.args[4], op.args[5], {}, n, ops::kQ4F32Type};
  r.weight = q4f32_rows(
      n, k, [&](int64_t row, int64_t e) { return (w->bytes[uint64_t(row) * (k / 2) + e / 2] >> (4 * (e % 2))) & 15u; },
      [&](int64_t row, int64_t b) { return f32_at(*s, uint64_t(b * 32 / gs) * stride + row); });
  return r;
}

// A choose_qparams_affine call that makes x's scale and zero point as the
// family's per-row requantization does (linear/x_dq8.wgsl): per row (block
// [1, ..., 1, K]), ASYMMETRIC, int8 range.
struct RowRequant {
  ValueId x, scale, zp;
  double eps;
};

// The calls of the graph that are RowRequants (listed before the rewrite
// loop moves ops away).
std::vector<RowRequant> row_requants(const Graph& g) {
  std::vector<RowRequant> found;
  for (const OpCall& op : g.ops) {
    if (op.name != kChooseQparams || op.args.size() != 11 || !g.is_tensor(op.args[0])) continue;
    const auto* outs = std::get_if<ValueList>(&g.values[op.args[10]]);
    const auto* mapping = std::get_if<std::string>(&g.values[op.args[1]]);
    const auto* block = std::get_if<IntList>(&g.values[op.args[2]]);
    const auto* qmin = std::get_if<int64_t>(&g.values[op.args[4]]);
    const auto* qmax = std::get_if<int64_t>(&g.values[op.args[5]]);
    const Dims& dims = g.tensor(op.args[0]).max_dims;
    if (!outs || outs->items.size() != 2 || !mapping || *mapping != "ASYMMETRIC" || !block || !qmin || !qmax) continue;
    if (*qmin != -128 || *qmax != 127 || dims.empty() || block->size() != dims.size() || block->back() != dims.back()) {
      continue;
    }
    if (std::any_of(block->begin(), block->end() - 1, [](int64_t b) { return b != 1; })) continue;
    // None: torch.finfo(float32).smallest_normal, as torchao (and qdq/choose_qparams.cpp).
    const auto* eps = std::get_if<double>(&g.values[op.args[6]]);
    if (!eps && !is_null(g, op.args[6])) continue;
    found.push_back({op.args[0], outs->items[0], outs->items[1], eps ? *eps : double(std::numeric_limits<float>::min())});
  }
  return found;
}

// linear_dq8ca_q4gsw (x, x scales, x zero points, W, weight sums, scales, G,
// bias, out): x requantized per row, then linear_q4gsw's weights; weight sums
// are an integer-path correction not needed. Only where choose_qparams made
// the scales as the family's kernels requantize.
std::optional<Rewrite> from_dq8ca(const Graph& g, const OpCall& op, const PassLimits& limits,
                                  const std::vector<RowRequant>& requants) {
  if (op.args.size() != 9) return std::nullopt;
  const auto requant = std::find_if(requants.begin(), requants.end(), [&](const RowRequant& q) {
    return q.x == op.args[0] && q.scale == op.args[1] && q.zp == op.args[2];
  });
  if (requant == requants.end()) return std::nullopt;
  const OpCall q4gsw{std::string(kQ4gsw), {op.args[0], op.args[3], op.args[5], op.args[6], op.args[7], op.args[8]}};
  std::optional<Rewrite> r = from_q4gsw(g, q4gsw, limits);
  if (r) r->x_eps = requant->eps;
  return r;
}

// linear_qcs4w: W u8 [N, K/2] (element 2i in byte i's high nibble), scales f32 [N]; no bias.
std::optional<Rewrite> from_qcs4w(const Graph& g, const OpCall& op, const PassLimits& limits) {
  if (op.args.size() != 4) return std::nullopt;
  const Tensor* x = f32_tensor(g, op.args[0]);
  const Tensor* w = constant_tensor(g, op.args[1]);
  const Tensor* s = constant_tensor(g, op.args[2]);
  if (!x || !w || !s || x->max_dims.empty() || w->max_dims.size() != 2 || s->dtype != DType::F32) return std::nullopt;
  const int64_t k = x->max_dims.back(), n = w->max_dims[0];
  if (k % 32 != 0 || w->max_dims[1] * 2 != k || numel(s->max_dims) != n) return std::nullopt;
  if (!fits(limits, n, q4f32_bytes(n, k))) return std::nullopt;
  Rewrite r{op.args[0], kNoBias, op.args[3], {}, n, ops::kQ4F32Type};
  r.weight = q4f32_rows(
      n, k, [&](int64_t row, int64_t e) { return (w->bytes[uint64_t(row) * (k / 2) + e / 2] >> (4 * (1 - e % 2))) & 15u; },
      [&](int64_t row, int64_t) { return f32_at(*s, uint64_t(row)); });
  return r;
}

// aten.linear: W f32 or f16 [N, K]; its rows are already ggml F32 / F16 rows.
std::optional<Rewrite> from_float_linear(const Graph& g, const OpCall& op, const PassLimits& limits) {
  if (op.args.size() != 4) return std::nullopt;
  const Tensor* x = f32_tensor(g, op.args[0]);
  const Tensor* w = constant_tensor(g, op.args[1]);
  if (!x || !w || x->max_dims.empty() || w->max_dims.size() != 2 || x->max_dims.back() != w->max_dims[1]) return {};
  if ((w->dtype != DType::F32 && w->dtype != DType::F16) || w->max_dims[1] % 32 != 0) return std::nullopt;
  if (!fits(limits, w->max_dims[0], w->bytes.size())) return std::nullopt;
  Rewrite r{op.args[0], op.args[2], op.args[3], {w->bytes.begin(), w->bytes.end()}, w->max_dims[0],
            w->dtype == DType::F32 ? kGgmlF32 : kGgmlF16};
  return r;
}

std::optional<Rewrite> rewrite_of(const Graph& g, const OpCall& op, const PassLimits& limits,
                                  const std::vector<RowRequant>& requants) {
  if (op.name == kQ4gsw) return from_q4gsw(g, op, limits);
  if (op.name == kQcs4w) return from_qcs4w(g, op, limits);
  if (op.name == kLinear) return from_float_linear(g, op, limits);
  if (op.name == kDq8ca) return from_dq8ca(g, op, limits, requants);
  return std::nullopt;
}

// choose_qparams_affine calls whose scale and zero point no op reads any
// more (their linears now requantize x themselves).
void drop_unread_qparams(Graph& g) {
  const Uses uses(g);
  std::erase_if(g.ops, [&](const OpCall& op) {
    if (op.name != kChooseQparams || op.args.size() != 11) return false;
    const auto* outs = std::get_if<ValueList>(&g.values[op.args[10]]);
    if (outs == nullptr) return false;
    for (ValueId v : outs->items) {
      if (uses.is_output[v] || !uses.by_value[v].empty()) return false;
    }
    return true;
  });
}

// A bias the family takes: none, or f32 [N].
bool bias_fits(const Graph& g, ValueId bias, int64_t n) {
  if (bias == kNoBias || is_null(g, bias)) return true;
  const Tensor* b = f32_tensor(g, bias);
  return b != nullptr && b->max_dims == Dims{n};
}

}  // namespace

size_t ggml_linears(Graph& g, const PassLimits& limits) {
  size_t rewritten = 0;
  const std::vector<bool> named_before = named_values(g);
  std::vector<OpCall> ops;
  ops.reserve(g.ops.size());
  const std::vector<RowRequant> requants = row_requants(g);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    std::optional<Rewrite> r = rewrite_of(g, g.ops[i], limits, requants);
    if (!r || !bias_fits(g, r->bias, r->rows)) {
      ops.push_back(std::move(g.ops[i]));
      continue;
    }
    const int64_t row_bytes = int64_t(r->weight.size()) / r->rows;
    const ValueId w = add_owned_constant(g, DType::U8, {r->rows, row_bytes}, std::move(r->weight));
    const ValueId type = add_value(g, int64_t(r->type));
    const ValueId bias = r->bias == kNoBias ? add_value(g, Null{}) : r->bias;
    const ValueId x_quant = r->x_eps ? add_value(g, *r->x_eps) : add_value(g, Null{});
    ops.push_back(OpCall{std::string(ops::kLinearPlain.name), {r->x, w, type, bias, x_quant, r->out}});
    ++rewritten;
  }
  g.ops = std::move(ops);
  drop_unread_qparams(g);
  drop_unnamed_tensors(g, named_before);
  return rewritten;
}

}  // namespace wgrt::passes
