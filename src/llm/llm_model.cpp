#include "llm/llm_model.h"

#include <algorithm>
#include <filesystem>

#include "import/gguf/llama_graph.h"
#include "llm/default_model.h"
#include "wgrt/error.h"

namespace wgrt::llm {

LlmModel::LlmModel(gguf::GgufFile file, Tokenizer tokenizer, ChatTemplate chat)
    : file_(std::move(file)), tokenizer_(std::move(tokenizer)), chat_(std::move(chat)) {}

std::unique_ptr<LlmModel> LlmModel::load(gpu::Device& device, const LlmLoadOptions& options) {
  if (options.path.size() > 4 && options.path.compare(options.path.size() - 4, 4, ".pte") == 0) {
    return load_pte(device, options);
  }
  const std::string path = options.path.empty() ? default_model_path() : options.path;
  gguf::GgufFile file = gguf::GgufFile::open(path);
  Tokenizer tokenizer = Tokenizer::from_gguf(file);
  ChatTemplate chat = ChatTemplate::from_gguf(file);
  std::unique_ptr<LlmModel> m(new LlmModel(std::move(file), std::move(tokenizer), std::move(chat)));
  m->path_ = path;

  gguf::LlamaGraphOptions gopt;
  gopt.max_context = options.context;
  gopt.max_chunk = options.chunk;
  if (options.on_progress) {
    gopt.on_weight = [&](size_t done, size_t total) { options.on_progress(done, total, "preparing weights"); };
  }
  gguf::LlamaGraph lg = gguf::build_llama_graph(m->file_, gopt);
  m->config_ = lg.config;
  m->context_ = lg.max_context;
  m->chunk_ = lg.max_chunk;
  LoadOptions lopt = options.graph;
  if (options.on_progress) {
    lopt.on_upload = [&](uint64_t done, uint64_t total) { options.on_progress(done, total, "uploading"); };
  }
  m->own_graph_ = ExecutableGraph::load(device, std::move(lg.graph), lopt);
  m->graph_ = m->own_graph_.get();
  for (ValueId w : lg.weights) m->weight_bytes_ += m->graph_->graph().tensor(w).max_device_bytes();
  return m;
}

std::unique_ptr<LlmModel> LlmModel::load_pte(gpu::Device& device, const LlmLoadOptions& options) {
  if (options.tokenizer_path.empty()) {
    throw Error(ErrorCode::InvalidArgument, options.path +
                                                ": a .pte holds no tokenizer; pass a GGUF file whose tokenizer the "
                                                "model uses (--tokenizer)");
  }
  gguf::GgufFile file = gguf::GgufFile::open(options.tokenizer_path);
  Tokenizer tokenizer = Tokenizer::from_gguf(file);
  ChatTemplate chat = ChatTemplate::from_gguf(file);
  std::unique_ptr<LlmModel> m(new LlmModel(std::move(file), std::move(tokenizer), std::move(chat)));
  m->path_ = options.path;
  m->program_ = Program::load(device, options.path, "", options.graph);
  m->graph_ = &m->program_->method("forward").graph();

  // ExecuTorch's Llama export: forward(tokens i64 [1, S], input_pos i64 [1])
  // -> logits [1, vocab], with the sizes also exported as constant methods.
  const Graph& g = m->graph_->graph();
  auto fail = [&](const std::string& why) {
    return Error(ErrorCode::NotSupported, options.path + ": not an ExecuTorch Llama export (" + why + ")");
  };
  if (g.inputs.size() != 2 || g.outputs.size() != 1 || !g.is_tensor(g.inputs[0]) ||
      g.tensor(g.inputs[0]).max_dims.size() != 2) {
    throw fail("forward must take tokens [1, S] and input_pos and return logits");
  }
  const Dims& logits = g.tensor(g.outputs[0]).max_dims;
  m->chunk_ = g.tensor(g.inputs[0]).max_dims[1];
  auto constant = [&](const char* name, int64_t fallback) {
    const auto& c = m->program_->constants();
    auto it = c.find(name);
    if (it == c.end()) return fallback;
    if (const auto* v = std::get_if<int64_t>(&it->second)) return *v;
    return fallback;
  };
  m->context_ = constant("get_max_context_len", constant("get_max_seq_len", m->chunk_));
  m->config_.arch = "executorch-llama";
  m->config_.name = std::filesystem::path(options.path).filename().string();
  m->config_.vocab = logits.back();
  m->config_.n_layers = constant("get_n_layers", 0);
  m->config_.context_length = m->context_;
  if (int64_t(m->tokenizer_.vocab_size()) > m->config_.vocab) {
    throw Error(ErrorCode::InvalidArgument, options.tokenizer_path + ": the tokenizer has " +
                                                std::to_string(m->tokenizer_.vocab_size()) +
                                                " tokens, more than the model's vocabulary of " +
                                                std::to_string(m->config_.vocab));
  }
  return m;
}

std::span<const float> LlmModel::forward(std::span<const TokenId> tokens, const ExecuteOptions& options) {
  if (tokens.empty()) throw Error(ErrorCode::InvalidArgument, "forward: no tokens");
  if (cached_ + int64_t(tokens.size()) > context_) {
    throw Error(ErrorCode::InvalidArgument, "context full: " + std::to_string(cached_) + " cached + " +
                                                std::to_string(tokens.size()) + " new tokens > context " +
                                                std::to_string(context_) + " (raise --ctx)");
  }
  const int64_t vocab = std::min<int64_t>(int64_t(tokenizer_.vocab_size()), model_vocab());
  for (TokenId t : tokens) {
    if (t < 0 || t >= vocab) {
      throw Error(ErrorCode::InvalidArgument, "token id " + std::to_string(t) + " is outside the vocabulary of " +
                                                  std::to_string(vocab));
    }
  }
  std::vector<int64_t> ids;
  for (size_t start = 0; start < tokens.size(); start += size_t(chunk_)) {
    const size_t n = std::min(tokens.size() - start, size_t(chunk_));
    ids.assign(tokens.begin() + start, tokens.begin() + start + n);
    const int64_t pos = cached_;
    const HostTensorView inputs[] = {
        {DType::I64, {1, int64_t(n)}, std::span(reinterpret_cast<const uint8_t*>(ids.data()), n * 8)},
        {DType::I64, {1}, std::span(reinterpret_cast<const uint8_t*>(&pos), 8)},
    };
    logits_ = std::move(graph_->execute(inputs, options)[0]);  // f32: viewed in place, not copied
    cached_ += int64_t(n);
  }
  return {reinterpret_cast<const float*>(logits_.data.data()), logits_.data.size() / sizeof(float)};
}

}  // namespace wgrt::llm
