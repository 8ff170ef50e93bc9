// An LLM from ExecuTorch's Llama export (a .pte with the Vulkan backend):
// its forward graph is imported here and loaded by the same route as a GGUF
// model's graph (LlmModel::load_graph: progress, the weights' bytes, warm-up).
#include <algorithm>
#include <filesystem>

#include "llm/llm_model.h"
#include "runtime/program.h"
#include "wgrt/error.h"

namespace wgrt::llm {
namespace {

// What a .pte cannot do that a GGUF model can, refused before the file is read.
void refuse_gguf_only_options(const LlmLoadOptions& options) {
  if (options.kv_f16) {
    throw Error(ErrorCode::InvalidArgument, options.path + ": the f16 KV cache applies to GGUF models only (a .pte "
                                                           "brings its own cache)");
  }
  if (!options.more_devices.empty()) {
    throw Error(ErrorCode::NotSupported, options.path + ": a model split across devices needs a GGUF model (a .pte "
                                                        "is one graph)");
  }
  if (options.slots != 1) {
    throw Error(ErrorCode::NotSupported, options.path + ": several sequences at once (--parallel " +
                                             std::to_string(options.slots) +
                                             ") need a GGUF model (a .pte's cache holds one sequence)");
  }
  if (options.tokenizer_path.empty()) {
    throw Error(ErrorCode::InvalidArgument, options.path +
                                                ": a .pte holds no tokenizer; pass a GGUF file whose tokenizer the "
                                                "model uses (--tokenizer)");
  }
}

int64_t constant_int(const std::map<std::string, ProgramConstant>& constants, const char* name, int64_t fallback) {
  auto it = constants.find(name);
  if (it == constants.end()) return fallback;
  if (const auto* v = std::get_if<int64_t>(&it->second)) return *v;
  return fallback;
}

}  // namespace

std::unique_ptr<LlmModel> LlmModel::load_pte(gpu::Device& device, const LlmLoadOptions& options) {
  refuse_gguf_only_options(options);
  gguf::GgufFile file = gguf::GgufFile::open(options.tokenizer_path);
  Tokenizer tokenizer = Tokenizer::from_gguf(file);
  if (options.check_vocab) options.check_vocab(int64_t(tokenizer.vocab_size()));
  ChatTemplate chat = ChatTemplate::from_gguf(file);
  std::unique_ptr<LlmModel> m(new LlmModel(std::move(file), std::move(tokenizer), std::move(chat)));
  m->path_ = options.path;
  m->device_ = &device;
  m->shader_checks_ = options.graph.tuning.shader_checks;

  ProgramGraphs imported = ProgramGraphs::import(options.path, "", options.graph);
  auto fail = [&](const std::string& why) {
    return Error(ErrorCode::NotSupported, options.path + ": not an ExecuTorch Llama export (" + why + ")");
  };
  auto forward = std::find_if(imported.graphs.begin(), imported.graphs.end(),
                              [](const auto& named) { return named.first == "forward"; });
  if (forward == imported.graphs.end()) throw fail("no method 'forward'");
  // forward(tokens i64 [1, S], input_pos i64 [1]) -> logits [1, vocab], with
  // the sizes also exported as constant methods. Checked before any GPU memory.
  const Graph& g = forward->second;
  if (g.inputs.size() != 2 || g.outputs.size() != 1 || !g.is_tensor(g.inputs[0]) ||
      g.tensor(g.inputs[0]).max_dims.size() != 2 || !g.is_tensor(g.outputs[0])) {
    throw fail("forward must take tokens [1, S] and input_pos and return logits");
  }
  m->chunk_ = g.tensor(g.inputs[0]).max_dims[1];
  const auto& c = imported.constants;
  m->context_ = constant_int(c, "get_max_context_len", constant_int(c, "get_max_seq_len", m->chunk_));
  m->config_.arch = "executorch-llama";
  m->config_.name = std::filesystem::path(options.path).filename().string();
  m->config_.vocab = g.tensor(g.outputs[0]).max_dims.back();
  m->config_.n_layers = constant_int(c, "get_n_layers", 0);
  m->config_.context_length = m->context_;
  if (int64_t(m->tokenizer_.vocab_size()) > m->config_.vocab) {
    throw Error(ErrorCode::InvalidArgument, options.tokenizer_path + ": the tokenizer has " +
                                                std::to_string(m->tokenizer_.vocab_size()) +
                                                " tokens, more than the model's vocabulary of " +
                                                std::to_string(m->config_.vocab));
  }
  m->program_file_ = std::make_unique<pte::Program>(std::move(imported.parsed));
  try {
    m->own_graph_ = m->load_graph(device, std::move(forward->second), options, "uploading", true);
  } catch (const Error& e) {
    throw e.with_context(options.path + " method 'forward'");
  }
  m->graph_ = m->own_graph_.get();
  m->attach_sampler();
  if (options.warm_up) m->warm_up(device, options);
  return m;
}

}  // namespace wgrt::llm
