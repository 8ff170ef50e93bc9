#include "import/gguf/llama_graph.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "import/gguf/gguf_file.h"
#include "wgrt/error.h"

namespace wgrt::gguf {
namespace {

class LlamaBuilder {
 public:
  LlamaBuilder(const GgufFile& file, const LlamaConfig& config, const LlamaGraphOptions& options)
      : f_(file), c_(config), opt_(options) {}

  LlamaGraph build() {
    const int64_t D = c_.dim, H = c_.n_heads, KV = c_.n_kv_heads, HD = c_.head_dim, MAXS = opt_.max_chunk;
    total_weights_ = f_.tensors().size();

    const ValueId tokens = b_.add_tensor(DType::I64, {1, MAXS});
    b_.mark_input(tokens);
    const ValueId pos = b_.add_symint(0);
    b_.mark_input(pos);

    // Live sequence length and the RoPE table rows [pos, pos + S).
    const ValueId seq = b_.add_symint(MAXS);
    b_.add_op("sym_size.int", {tokens, b_.add_int(1), seq});
    const ValueId end = b_.add_symint(MAXS);
    b_.add_op("add", {pos, seq, end});
    const auto [cos_table, sin_table] = rope_tables();
    const ValueId cos = b_.add_tensor(DType::F32, {MAXS, HD / 2});
    const ValueId sin = b_.add_tensor(DType::F32, {MAXS, HD / 2});
    const ValueId zero = b_.add_int(0), one = b_.add_int(1);
    b_.add_op("aten.slice_copy.Tensor", {cos_table, zero, pos, end, one, cos});
    b_.add_op("aten.slice_copy.Tensor", {sin_table, zero, pos, end, one, sin});

    const ValueId embd = weight("token_embd.weight");
    ValueId h = b_.add_tensor(DType::F32, {1, MAXS, D});
    b_.add_op("wgrt.embedding_ggml", {embd, type_of("token_embd.weight"), tokens, h});

    const ValueId eps = b_.add_double(c_.rms_eps);
    const ValueId null = b_.add_null();
    const ValueId heads_shape = b_.add_int_list({1, -1, H, HD});
    const ValueId kv_shape = b_.add_int_list({1, -1, KV, HD});
    const ValueId flat_shape = b_.add_int_list({1, -1, D});
    for (int64_t l = 0; l < c_.n_layers; ++l) {
      const std::string p = "blk." + std::to_string(l) + ".";
      const ValueId n1 = rms_norm(h, p + "attn_norm.weight", eps);
      const ValueId q = linear(n1, p + "attn_q", H * HD);
      const ValueId k = linear(n1, p + "attn_k", KV * HD);
      const ValueId v = linear(n1, p + "attn_v", KV * HD);
      const ValueId q4 = view(q, heads_shape, {1, MAXS, H, HD});
      const ValueId k4 = view(k, kv_shape, {1, MAXS, KV, HD});
      const ValueId v4 = view(v, kv_shape, {1, MAXS, KV, HD});
      const ValueId qr = b_.add_tensor(DType::F32, {1, MAXS, H, HD});
      const ValueId kr = b_.add_tensor(DType::F32, {1, MAXS, KV, HD});
      b_.add_op("et_vk.apply_rotary_emb.default", {q4, k4, cos, sin, b_.add_value_list({qr, kr})});
      const ValueId k_cache = b_.add_state(DType::F32, {1, opt_.max_context, KV, HD});
      const ValueId v_cache = b_.add_state(DType::F32, {1, opt_.max_context, KV, HD});
      const ValueId attn = b_.add_tensor(DType::F32, {1, MAXS, H, HD});
      b_.add_op("sdpa_with_kv_cache.default", {qr, kr, v4, k_cache, v_cache, pos, seq, null, b_.add_double(0.0),
                                               b_.add_bool(true), null, attn});
      const ValueId attn_flat = view(attn, flat_shape, {1, MAXS, D});
      h = add(h, linear(attn_flat, p + "attn_output", D));

      const ValueId n2 = rms_norm(h, p + "ffn_norm.weight", eps);
      const ValueId gate = linear(n2, p + "ffn_gate", c_.ffn_dim);
      const ValueId up = linear(n2, p + "ffn_up", c_.ffn_dim);
      const ValueId prod = b_.add_tensor(DType::F32, {1, MAXS, c_.ffn_dim});
      b_.add_op("wgrt.swiglu", {gate, up, prod});
      h = add(h, linear(prod, p + "ffn_down", D));
    }
    const ValueId norm = rms_norm(h, "output_norm.weight", eps);
    // Only the last position's logits are needed to pick the next token.
    const ValueId last = b_.add_tensor(DType::F32, {1, D});
    b_.add_op("aten.select_copy.int", {norm, one, b_.add_int(-1), last});
    const std::string head = c_.tied_output ? "token_embd" : "output";
    const ValueId logits = b_.add_tensor(DType::F32, {1, c_.vocab});
    b_.add_op("wgrt.linear_ggml", {last, weight(head + ".weight"), type_of(head + ".weight"), null, logits});
    b_.mark_output(logits);

    LlamaGraph out;
    out.graph = std::move(b_).build();
    out.config = c_;
    out.max_context = opt_.max_context;
    out.max_chunk = opt_.max_chunk;
    for (const auto& [name, id] : weights_) out.weights.push_back(id);
    return out;
  }

 private:
  const TensorInfo& info(const std::string& name) const { return f_.tensor(name); }

  ValueId type_of(const std::string& name) { return b_.add_int(int64_t(info(name).type)); }

  // A weight as a graph constant pointing into the mapped file: f32 vectors
  // as f32, matrices in their stored block format (u8 rows).
  ValueId weight(const std::string& name) {
    if (auto it = weights_.find(name); it != weights_.end()) return it->second;
    const TensorInfo& t = info(name);
    const auto bytes = f_.tensor_data(t);
    ValueId id;
    if (t.dims.size() == 1) {
      if (t.type != GgmlType::F32) {
        throw Error(ErrorCode::NotSupported, f_.name() + ": vector " + name + " is " + describe(t.type) + ", expected F32");
      }
      id = b_.add_constant_view(DType::F32, {int64_t(t.dims[0])}, bytes);
    } else {
      // As stored, [rows, row bytes]: the op's load-time prepare step puts
      // the blocks into the layout its kernels read.
      const GgmlTypeInfo& type = ggml_type_info(t.type);
      const int64_t cols = int64_t(t.dims[0]), rows = int64_t(t.dims[1]);
      if (cols % type.block_size != 0) {
        throw Error(ErrorCode::InvalidProgram, f_.name() + ": tensor " + name + " (file offset " +
                                                   std::to_string(t.file_offset) + ") has rows of " +
                                                   std::to_string(cols) + " elements, not whole " + describe(t.type) +
                                                   " blocks");
      }
      id = b_.add_constant_view(DType::U8, {rows, cols / type.block_size * type.block_bytes}, bytes);
    }
    weights_.emplace(name, id);
    if (opt_.on_weight) opt_.on_weight(weights_.size(), total_weights_);
    return id;
  }

  ValueId rms_norm(ValueId x, const std::string& w, ValueId eps) {
    const ValueId out = b_.add_tensor(DType::F32, max_dims(x));
    b_.add_op("et_vk.rms_norm.default", {x, weight(w), eps, out});
    return out;
  }

  ValueId linear(ValueId x, const std::string& prefix, int64_t n) {
    const std::string name = prefix + ".weight";
    if (int64_t(info(name).dims.at(1)) != n) {
      throw Error(ErrorCode::InvalidProgram, f_.name() + ": " + name + " has " + std::to_string(info(name).dims[1]) +
                                                 " rows, expected " + std::to_string(n));
    }
    Dims dims = max_dims(x);
    dims.back() = n;
    const ValueId out = b_.add_tensor(DType::F32, dims);
    const std::string bias = prefix + ".bias";
    const ValueId b = f_.find_tensor(bias) ? weight(bias) : b_.add_null();
    b_.add_op("wgrt.linear_ggml", {x, weight(name), type_of(name), b, out});
    return out;
  }

  ValueId view(ValueId x, ValueId shape, Dims max) {
    const ValueId out = b_.add_tensor(DType::F32, std::move(max));
    b_.add_op("aten.view_copy.default", {x, shape, out});
    return out;
  }

  ValueId add(ValueId a, ValueId b) {
    const ValueId out = b_.add_tensor(DType::F32, max_dims(a));
    b_.add_op("aten.add.Tensor", {a, b, b_.add_int(1), out});
    return out;
  }

  Dims max_dims(ValueId id) const { return b_.tensor(id).max_dims; }

  // cos/sin of pos * theta_i for every position of the context, adjacent-pair
  // convention (the GGUF llama conversion permutes Q/K rows for it).
  std::pair<ValueId, ValueId> rope_tables() {
    const int64_t half = c_.head_dim / 2, n = opt_.max_context;
    std::vector<float> factors(half, 1.0f);
    if (c_.has_rope_freqs) {
      const TensorInfo& t = info("rope_freqs.weight");
      const auto bytes = f_.tensor_data(t);
      if (t.type != GgmlType::F32 || bytes.size() != size_t(half) * 4) {
        throw Error(ErrorCode::InvalidProgram, f_.name() + ": rope_freqs.weight should be " + std::to_string(half) + " f32");
      }
      std::memcpy(factors.data(), bytes.data(), bytes.size());
    }
    std::vector<float> cos(n * half), sin(n * half);
    for (int64_t i = 0; i < half; ++i) {
      const double freq = std::pow(c_.rope_theta, -2.0 * double(i) / double(c_.head_dim)) / factors[i] /
                          c_.rope_linear_scale;
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

  const GgufFile& f_;
  const LlamaConfig& c_;
  const LlamaGraphOptions& opt_;
  GraphBuilder b_;
  std::map<std::string, ValueId> weights_;
  size_t total_weights_ = 0;
};

}  // namespace

LlamaGraph build_llama_graph(const GgufFile& file, const LlamaGraphOptions& options) {
  const LlamaConfig config = LlamaConfig::from_gguf(file);
  if (options.max_context < 1 || options.max_chunk < 1) {
    throw Error(ErrorCode::InvalidArgument, "context " + std::to_string(options.max_context) + " and chunk " +
                                                std::to_string(options.max_chunk) + " must be at least 1");
  }
  // Never longer than the model was trained for; a chunk never longer than that.
  LlamaGraphOptions capped = options;
  capped.max_context = std::min(options.max_context, config.context_length);
  capped.max_chunk = std::min(options.max_chunk, capped.max_context);
  return LlamaBuilder(file, config, capped).build();
}

}  // namespace wgrt::gguf
