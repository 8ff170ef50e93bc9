#include "import/gguf/llama_builder.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "wgrt/error.h"

namespace wgrt::gguf {

LlamaGraph LlamaBuilder::build() {
  total_weights_ = f_.tensors().size();
  // Input 0: token ids, or the hidden state where an earlier part of the
  // layers (on another device) left it.
  const auto [first, end] = opt_.layers;
  const bool has_embedding = first == 0, has_head = end == c_.n_layers;
  const ValueId input = has_embedding ? b_.add_tensor(DType::I64, {1, opt_.max_chunk})
                                      : b_.add_tensor(DType::F32, {1, opt_.max_chunk, c_.dim});
  b_.mark_input(input);
  Shared k;
  k.pos = b_.add_symint(0);
  b_.mark_input(k.pos);
  inputs(k);
  positions(input, k);
  ValueId h = has_embedding ? embed(input) : input;
  const int64_t H = c_.n_heads, KV = c_.n_kv_heads, HD = c_.head_dim;
  k.eps = b_.add_double(c_.rms_eps);
  k.null = b_.add_null();
  k.heads_shape = b_.add_int_list({1, -1, H, HD});
  k.kv_shape = b_.add_int_list({1, -1, KV, HD});
  k.attn_shape = b_.add_int_list({1, -1, H * HD});
  for (int64_t l = first; l < end; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    h = attention(l, p, h, k);
    h = feed_forward(p, h, k);
  }
  b_.mark_output(has_head ? logits(h, k) : h);

  LlamaGraph out;
  out.graph = std::move(b_).build();
  out.config = c_;
  out.max_context = opt_.max_context;
  out.max_chunk = opt_.max_chunk;
  return out;
}

void LlamaBuilder::inputs(Shared& k) {
  k.slot = b_.add_symint(0);
  k.token_pos = b_.add_tensor(DType::I64, {opt_.max_chunk});
  k.batch_rows = b_.add_tensor(DType::I32, {max_batch(), 2});
  k.logits_from = b_.add_symint(opt_.max_chunk - max_batch());  // at the largest S, the most rows out
  for (ValueId id : {k.slot, k.token_pos, k.batch_rows, k.logits_from}) b_.mark_input(id);
}

void LlamaBuilder::positions(ValueId tokens, Shared& k) {
  const int64_t MAXS = opt_.max_chunk, HD = c_.head_dim;
  k.seq = b_.add_symint(MAXS);
  b_.add_op("sym_size.int", {tokens, b_.add_int(1), k.seq});
  k.one = b_.add_int(1);
  // cos/sin rows of a table over the whole context, gathered at each token's position.
  auto rope_rows = [&](double theta, double linear_scale, bool freq_factors) {
    const auto [cos_table, sin_table] = rope_tables(theta, linear_scale, freq_factors);
    const ValueId cos = b_.add_tensor(DType::F32, {MAXS, HD / 2});
    const ValueId sin = b_.add_tensor(DType::F32, {MAXS, HD / 2});
    const ValueId no_pad = b_.add_int(-1), no = b_.add_bool(false);
    b_.add_op("aten.embedding.default", {cos_table, k.token_pos, no_pad, no, no, cos});
    b_.add_op("aten.embedding.default", {sin_table, k.token_pos, no_pad, no, no, sin});
    return std::pair{cos, sin};
  };
  k.rope_global = rope_rows(c_.rope_theta, c_.rope_linear_scale, c_.has_rope_freqs);
  k.rope_local = k.rope_global;
  if (c_.sliding_window > 0) k.rope_local = rope_rows(c_.rope_theta_swa, 1.0, false);
}

ValueId LlamaBuilder::embed(ValueId tokens) {
  const ValueId embd = weight("token_embd.weight");
  const ValueId h = b_.add_tensor(DType::F32, {1, opt_.max_chunk, c_.dim});
  b_.add_op("wgrt.embedding_ggml", {embd, type_of("token_embd.weight"), tokens, h});
  return scale_embedding(h);
}

ValueId LlamaBuilder::attention(int64_t l, const std::string& p, ValueId h, const Shared& k) {
  const int64_t D = c_.dim, H = c_.n_heads, KV = c_.n_kv_heads, HD = c_.head_dim, MAXS = opt_.max_chunk;
  const ValueId n1 = rms_norm(h, p + "attn_norm.weight", k.eps);
  const auto [q, kk, v] = project_qkv(p, n1);
  ValueId q4 = view(q, k.heads_shape, {1, MAXS, H, HD});
  ValueId k4 = view(kk, k.kv_shape, {1, MAXS, KV, HD});
  const ValueId v4 = view(v, k.kv_shape, {1, MAXS, KV, HD});
  norm_heads(p, q4, k4, k.eps);
  const bool swa = c_.is_swa_layer(l);
  const auto [cos, sin] = swa ? k.rope_local : k.rope_global;
  const ValueId qr = b_.add_tensor(DType::F32, {1, MAXS, H, HD});
  const ValueId kr = b_.add_tensor(DType::F32, {1, MAXS, KV, HD});
  b_.add_op(c_.rope_halves ? "wgrt.apply_rotary_emb_halves" : "et_vk.apply_rotary_emb.default",
            {q4, k4, cos, sin, b_.add_value_list({qr, kr})});
  const DType cache_type = opt_.kv_f16 ? DType::F16 : DType::F32;
  // Each slot's sequence in its own rows: [slot * context, (slot + 1) * context).
  const ValueId k_cache = b_.add_state(cache_type, {1, opt_.slots * opt_.max_context, KV, HD});
  const ValueId v_cache = b_.add_state(cache_type, {1, opt_.slots * opt_.max_context, KV, HD});
  const ValueId attn = b_.add_tensor(DType::F32, {1, MAXS, H, HD});
  b_.add_op("wgrt.sdpa_slots", {qr, kr, v4, k_cache, v_cache, k.pos, k.slot, k.batch_rows,
                                b_.add_int(opt_.max_context), b_.add_int(swa ? c_.sliding_window : 0), attn});
  const ValueId attn_flat = view(attn, k.attn_shape, {1, MAXS, H * HD});
  return add(h, post_norm(linear(attn_flat, p + "attn_output", D), p + "post_attention_norm.weight", k.eps));
}

std::array<ValueId, 3> LlamaBuilder::project_qkv(const std::string& p, ValueId n1) {
  const int64_t H = c_.n_heads, KV = c_.n_kv_heads, HD = c_.head_dim;
  return {linear(n1, p + "attn_q", H * HD), linear(n1, p + "attn_k", KV * HD), linear(n1, p + "attn_v", KV * HD)};
}

ValueId LlamaBuilder::feed_forward(const std::string& p, ValueId h, const Shared& k) {
  const ValueId n2 = rms_norm(h, p + "ffn_norm.weight", k.eps);
  const auto [gate, up] = gate_up(p, n2);
  const ValueId prod = gated(gate, up);
  return add(h, post_norm(linear(prod, p + "ffn_down", c_.dim), p + "post_ffw_norm.weight", k.eps));
}

std::pair<ValueId, ValueId> LlamaBuilder::gate_up(const std::string& p, ValueId n2) {
  return {linear(n2, p + "ffn_gate", c_.ffn_dim), linear(n2, p + "ffn_up", c_.ffn_dim)};
}

ValueId LlamaBuilder::gated(ValueId gate, ValueId up) {
  const ValueId prod = b_.add_tensor(DType::F32, max_dims(gate));
  b_.add_op("wgrt.swiglu", {gate, up, prod});
  return prod;
}

ValueId LlamaBuilder::logits(ValueId h, const Shared& k) {
  const ValueId norm = rms_norm(h, "output_norm.weight", k.eps);
  const ValueId last = b_.add_tensor(DType::F32, {1, max_batch(), c_.dim});
  b_.add_op("aten.slice_copy.Tensor", {norm, k.one, k.logits_from, k.null, k.one, last});
  const std::string head = c_.tied_output ? "token_embd" : "output";
  const ValueId out = b_.add_tensor(DType::F32, {1, max_batch(), c_.vocab});
  b_.add_op("wgrt.linear_ggml", {last, weight(head + ".weight"), type_of(head + ".weight"), k.null, k.null, out});
  return out;
}

ValueId LlamaBuilder::weight(const std::string& name) {
  if (auto it = weights_.find(name); it != weights_.end()) return it->second;
  const TensorInfo& t = info(name);
  if (t.dims.size() != 1 && t.dims.size() != 2) {
    throw Error(ErrorCode::InvalidProgram, f_.name() + ": tensor " + name + " (file offset " +
                                               std::to_string(t.file_offset) + ") has " +
                                               std::to_string(t.dims.size()) + " dimensions, expected 1 or 2");
  }
  const ValueId id = t.dims.size() == 1 ? vector_weight(name) : matrix_rows(t, 0, int64_t(t.dims[1]));
  weights_.emplace(name, id);
  if (opt_.on_weight) opt_.on_weight(weights_.size(), total_weights_);
  return id;
}

ValueId LlamaBuilder::weight_rows(const std::string& name, int64_t begin, int64_t end) {
  const std::string key = name + "[" + std::to_string(begin) + ":" + std::to_string(end) + "]";
  if (auto it = weights_.find(key); it != weights_.end()) return it->second;
  const ValueId id = matrix_rows(info(name), begin, end);
  weights_.emplace(key, id);
  return id;
}

ValueId LlamaBuilder::vector_weight(const std::string& name) {
  const TensorInfo& t = info(name);
  if (t.type != GgmlType::F32) {
    throw Error(ErrorCode::NotSupported, f_.name() + ": vector " + name + " is " + describe(t.type) + ", expected F32");
  }
  return b_.add_constant(DType::F32, {int64_t(t.dims[0])}, f_.read_tensor(t));
}

ValueId LlamaBuilder::matrix_rows(const TensorInfo& t, int64_t begin, int64_t end) {
  // Named here, with the tensor, rather than by the op's argument check.
  if (!is_supported(t.type) || t.type == GgmlType::BF16) {
    throw Error(ErrorCode::NotSupported, f_.name() + ": tensor " + t.name + " (file offset " +
                                             std::to_string(t.file_offset) + ") is " + describe(t.type) +
                                             ", which wgrt cannot run (weight types: " + supported_type_names() +
                                             " but BF16)");
  }
  const GgmlTypeInfo& type = ggml_type_info(t.type);
  const int64_t cols = int64_t(t.dims[0]), rows = end - begin;
  if (cols % type.block_size != 0) {
    throw Error(ErrorCode::InvalidProgram, f_.name() + ": tensor " + t.name + " (file offset " +
                                               std::to_string(t.file_offset) + ") has rows of " +
                                               std::to_string(cols) + " elements, not whole " + describe(t.type) +
                                               " blocks");
  }
  const uint64_t row_bytes = uint64_t(cols / type.block_size) * type.block_bytes;
  // Read from the file as it is uploaded, never held whole.
  return b_.add_constant_source(DType::U8, {rows, int64_t(row_bytes)},
                                file_rows(f_.reader(), t.file_offset + uint64_t(begin) * row_bytes, uint64_t(rows),
                                          row_bytes));
}

ValueId LlamaBuilder::rms_norm(ValueId x, const std::string& w, ValueId eps) {
  const ValueId out = b_.add_tensor(DType::F32, max_dims(x));
  b_.add_op("et_vk.rms_norm.default", {x, weight(w), eps, out});
  return out;
}

void LlamaBuilder::rms_norm_heads(const std::string& p, ValueId& q4, ValueId& k4, ValueId eps) {
  q4 = rms_norm(q4, p + "attn_q_norm.weight", eps);
  k4 = rms_norm(k4, p + "attn_k_norm.weight", eps);
}

void LlamaBuilder::expect_rows(const std::string& name, int64_t n) const {
  const TensorInfo& t = info(name);
  if (t.dims.size() != 2 || int64_t(t.dims[1]) != n) {
    throw Error(ErrorCode::InvalidProgram, f_.name() + ": " + name + " (file offset " +
                                               std::to_string(t.file_offset) + ") has " +
                                               std::to_string(t.dims.size()) + " dimensions and " +
                                               std::to_string(t.dims.size() == 2 ? t.dims[1] : 0) +
                                               " rows, expected a matrix of " + std::to_string(n) + " rows");
  }
}

ValueId LlamaBuilder::linear(ValueId x, const std::string& prefix, int64_t n) {
  const std::string name = prefix + ".weight";
  expect_rows(name, n);
  const std::string bias = prefix + ".bias";
  return linear(x, weight(name), name, f_.find_tensor(bias) ? weight(bias) : b_.add_null());
}

ValueId LlamaBuilder::linear(ValueId x, ValueId w, const std::string& like, ValueId bias) {
  Dims dims = max_dims(x);
  dims.back() = max_dims(w)[0];
  const ValueId out = b_.add_tensor(DType::F32, dims);
  b_.add_op("wgrt.linear_ggml", {x, w, type_of(like), bias, b_.add_null(), out});
  return out;
}


ValueId LlamaBuilder::scalar(float v) {
  std::vector<uint8_t> bytes(4);
  std::memcpy(bytes.data(), &v, 4);
  return b_.add_constant(DType::F32, {1}, std::move(bytes));
}

ValueId LlamaBuilder::mul(ValueId a, ValueId b) {
  const ValueId out = b_.add_tensor(DType::F32, max_dims(a));
  b_.add_op("aten.mul.Tensor", {a, b, out});
  return out;
}

ValueId LlamaBuilder::view(ValueId x, ValueId shape, Dims max) {
  const ValueId out = b_.add_tensor(DType::F32, std::move(max));
  b_.add_op("aten.view_copy.default", {x, shape, out});
  return out;
}

ValueId LlamaBuilder::add(ValueId a, ValueId b) {
  const ValueId out = b_.add_tensor(DType::F32, max_dims(a));
  b_.add_op("aten.add.Tensor", {a, b, b_.add_int(1), out});
  return out;
}

std::pair<ValueId, ValueId> LlamaBuilder::rope_tables(double theta, double linear_scale, bool freq_factors) {
  const int64_t half = c_.head_dim / 2, n = opt_.max_context;
  std::vector<float> factors(half, 1.0f);
  if (freq_factors) {
    const TensorInfo& t = info("rope_freqs.weight");
    const std::vector<uint8_t> bytes = f_.read_tensor(t);
    if (t.type != GgmlType::F32 || bytes.size() != size_t(half) * 4) {
      throw Error(ErrorCode::InvalidProgram, f_.name() + ": rope_freqs.weight should be " + std::to_string(half) + " f32");
    }
    std::memcpy(factors.data(), bytes.data(), bytes.size());
  }
  std::vector<float> cos(n * half), sin(n * half);
  for (int64_t i = 0; i < half; ++i) {
    const double freq = std::pow(theta, -2.0 * double(i) / double(c_.head_dim)) / factors[i] / linear_scale;
    for (int64_t p = 0; p < n; ++p) {
      cos[p * half + i] = float(std::cos(double(p) * freq));
      sin[p * half + i] = float(std::sin(double(p) * freq));
    }
  }
  auto as_bytes = [](std::vector<float>& v) {
    std::vector<uint8_t> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  return {b_.add_constant(DType::F32, {n, half}, as_bytes(cos)), b_.add_constant(DType::F32, {n, half}, as_bytes(sin))};
}

}  // namespace wgrt::gguf
