// A Llama-family LLM ready to run: its tokenizer and chat template, and a
// graph on the GPU that holds its KV cache. Two sources give the same shape of
// graph (tokens i64 [1, S], a position, last-token logits [1, vocab]):
//   - a GGUF file, built by import/gguf/llama_graph (tokenizer from the file);
//   - a .pte from ExecuTorch's Llama export with the Vulkan backend, whose
//     tokenizer comes from a GGUF file's metadata (--tokenizer); its forward
//     graph is imported by llm_model_pte.cpp.
// Both graphs then load by one route (load_graph). forward() appends tokens to the cache and returns the last token's logits.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "gpu/buffer.h"
#include "gpu/readback_ring.h"
#include "graph/executable_graph.h"
#include "import/gguf/gguf_file.h"
#include "import/gguf/llama_config.h"
#include "llm/layer_split.h"
#include "llm/tokenizer/chat_template.h"
#include "llm/tokenizer/tokenizer.h"
#include "import/pte/program.h"
#include "ops/sampling/gpu_sampler.h"

namespace wgrt::llm {

struct TokenTexts;

// The most rows of a batched decode step the multi-row GEMV takes (fewer for
// wide models: gemv_rows_for); a larger batch goes through the GEMM
// (WGRT_GEMV_BATCH_ROWS raises it, up to 32).
constexpr int64_t kBatchedGemvRows = 16;
// The most rows the GEMV takes (Tuning::gemv_batch_rows) for an LLM of
// `slots` sequences and a hidden size of `hidden` (0: unknown), `configured` or more.
uint32_t gemv_rows_for(bool cpu_adapter, int64_t slots, uint32_t configured, int64_t hidden);

struct LlmLoadOptions {
  std::string path;             // .gguf or .pte; "" -> the default model (default_model.h)
  std::string tokenizer_path;   // for a .pte: a GGUF file whose tokenizer the model uses
  RangeReaderPtr file;          // a GGUF read through this instead of opening `path`
  int64_t context = 2048;       // KV cache length; capped at the model's trained context
  int64_t chunk = 256;          // most tokens per forward pass
  bool kv_f16 = false;          // the opt-in f16 KV cache (GGUF models): half the cache bytes
  // Sequences the KV cache holds at once (GGUF models; 1 to
  // gguf::kMaxSlots): each slot caches one sequence, and a batched decode
  // step (submit_batch) advances several slots in one forward pass.
  int64_t slots = 1;
  // Progress while weights are prepared and uploaded: (done, total, what).
  std::function<void(size_t, size_t, const char*)> on_progress;
  // Runs the decode pass and the GPU sampler once at load, so that drivers
  // which compile shaders on first use (Mesa's lavapipe) do it inside
  // loading, not inside the first prompt.
  bool warm_up = true;
  // Called with the tokenizer's vocabulary size before any weight is read,
  // so options checked against it (top-k) fail before the long part of loading.
  std::function<void(int64_t)> check_vocab;
  LoadOptions graph;  // how the model's graph is loaded (its on_upload is replaced)
  // A GGUF model split by layers across devices (llm/layer_split.h): the
  // devices after the one load() is given, in order, each holding later
  // layers. Each must outlive the model.
  std::vector<gpu::Device*> more_devices;
};

class LlmModel {
 public:
  static std::unique_ptr<LlmModel> load(gpu::Device& device, const LlmLoadOptions& options);

  const std::string& path() const { return path_; }
  // The device holding the logits and the token input the samplers write
  // (the last one of a model split across devices).
  gpu::Device& device() const { return *device_; }
  // Devices the layers are split across (1: the whole model on device()).
  size_t device_count() const { return leading_parts_.size() + 1; }
  // The layers each device holds, and the devices, in order.
  std::vector<LayerRange> layer_split() const;
  std::vector<gpu::Device*> devices() const;
  const gguf::LlamaConfig& config() const { return config_; }
  const Tokenizer& tokenizer() const { return tokenizer_; }
  const ChatTemplate& chat_template() const { return chat_; }
  int64_t context() const { return context_; }
  int64_t chunk() const { return chunk_; }
  // The loaded graphs' constants (the fusion passes may have merged some):
  // MemoryStats::constant_bytes over every part.
  uint64_t weight_bytes() const { return memory_stats().constant_bytes; }
  // The sequences the cache holds (LlmLoadOptions::slots). Everything below
  // but submit_batch works on the selected slot (0 unless chosen).
  size_t slots() const { return slot_states_.size(); }
  size_t slot() const { return slot_; }
  void select_slot(size_t slot);
  // Tokens in the slot's KV cache: the position the next token gets.
  int64_t cached() const { return state().cached; }
  // Forgets the slot's cache (every slot's with `all`).
  void reset(bool all = false);
  // The token id at each cached position, -1 where a GPU-fed token
  // (submit_fed, submit_batch) has not been reported back with note_fed_token yet.
  // A token noted for the next position, before the step that feeds it is
  // submitted, is recorded when that step is.
  std::span<const TokenId> cached_ids() const { return state().ids; }
  void note_fed_token(int64_t position, TokenId token);
  // How many leading tokens of `prompt` the cache already holds at the same
  // positions, at most prompt.size() - 1 (the last one must run to give
  // logits): a chat's next turn repeats the conversation so far.
  int64_t cached_prefix(std::span<const TokenId> prompt) const;

  // Runs `tokens` at positions [cached, cached + n), in chunks; returns the
  // logits after the last one. Error(InvalidArgument) when the context would
  // overflow (nothing is run then).
  std::span<const float> forward(std::span<const TokenId> tokens, const ExecuteOptions& options = {});

  // Sampling on the GPU: the graph's tail op (ops/sampling/sample_tokens.cpp)
  // draws tokens into token_buffer(), where the next step reads them. Its
  // sampler has a row per slot; callers configure rows through sampler()
  // and name the rows a pass draws (none: it draws nothing).
  ops::GpuSampler& sampler() { return *sampler_; }
  // The steps of generation with the next token kept on the GPU. `copies`
  // records copies of results (into readback rings) into a step's submit,
  // after the pass and its draws. Nothing is waited for or read back unless
  // `read_logits`; positions advance at submit.
  using RecordCopies = std::function<void(gpu::CommandBatch&)>;
  // Runs `tokens` (a prompt) like forward(); its last chunk draws the rows `draw`.
  std::span<const float> submit(std::span<const TokenId> tokens, std::span<const uint32_t> draw,
                                const RecordCopies& copies, bool read_logits = false);
  // One decode step whose token is token_buffer()[0], drawn by the step before.
  void submit_fed(std::span<const uint32_t> draw, const RecordCopies& copies);
  // One batched decode step: row r runs the token in token_buffer()[r] at
  // position rows[r].position of slot rows[r].slot, which must be the
  // position that slot caches next (a negative position skips the row); the
  // logits of row r are row r of logits_buffer().
  // `timed`: the step's dispatches are timed and waited for (profiling;
  // graph().last_timings()).
  struct BatchRow {
    int32_t position = -1;
    int32_t slot = 0;
  };
  void submit_batch(std::span<const BatchRow> rows, std::span<const uint32_t> draw, const RecordCopies& copies,
                    bool timed = false);
  // Draws the rows `draw` from the last pass's logits in a submit of its own
  // (the graph's tail alone): a constrained row, once its mask is known. It
  // may be called from a later pass's `copies`, before that pass is
  // submitted: the draw is then submitted first.
  void draw(std::span<const uint32_t> draw, const RecordCopies& copies);
  // The last submit's index (gpu::ReadbackRing::request).
  uint64_t last_submission() const { return graph_->last_submission(); }
  // Forgets cached positions from `cached` on (steps sampled but not kept);
  // their KV rows stay until later tokens overwrite them.
  void rewind(int64_t cached);
  // The tokens the sampler draws (i32 on the GPU, row r's at its place) and
  // the last pass's logits (f32).
  const gpu::Buffer& token_buffer() const;
  const gpu::Buffer& logits_buffer() const;
  // Tokens that may be sampled: the tokenizer's, without padded rows.
  int64_t sampling_vocab() const;
  // Each sampling token's text as constraints read it (json_constraint.h),
  // made at the first constrained request and shared by every later one:
  // 0.1-0.2 s for SmolLM2's 49,152 tokens on the CI machine, paid once.
  std::shared_ptr<const TokenTexts> token_texts() const;

  // The graph of the model, or of its last part when split across devices.
  ExecutableGraph& graph() { return *graph_; }
  // Compute dispatches of a forward pass, over every part.
  size_t dispatch_count() const;
  // The runtime checks the model's kernels were built with
  // (Tuning::shader_checks): samplers made for it take the same.
  ShaderChecks shader_checks() const { return shader_checks_; }
  MemoryStats memory_stats() const;  // over every part
  // The vocabulary the model's logits cover (the tokenizer may use fewer).
  int64_t model_vocab() const { return config_.vocab; }

 private:
  LlmModel(gguf::GgufFile file, Tokenizer tokenizer, ChatTemplate chat);
  static std::unique_ptr<LlmModel> load_pte(gpu::Device& device, const LlmLoadOptions& options);
  void check_room(size_t tokens) const;
  struct SlotState {
    int64_t cached = 0;
    std::vector<TokenId> ids;  // `cached` entries
    TokenId next_fed = -1;     // noted for position `cached`, before its step
  };
  const SlotState& state() const { return slot_states_[slot_]; }
  SlotState& state() { return slot_states_[slot_]; }
  // Runs the graph on `n` tokens of the selected slot from its position `pos`.
  // `draw`: the sampler rows the pass draws.
  std::vector<OutputTensor> run_sequence(const InputView& tokens, int64_t n, int64_t pos,
                                         const ExecuteOptions& options, std::span<const uint32_t> draw);
  std::span<const float> submit_chunks(std::span<const TokenId> tokens, ExecuteOptions options,
                                       std::span<const uint32_t> draw, const RecordCopies* copies, bool read_logits);
  // The sampling op at the tail of a graph whose output is the logits.
  Graph with_sampler(Graph graph, int64_t rows) const;
  void attach_sampler();  // finds the last graph's sampler (after loading)
  void warm_up(gpu::Device& device, const LlmLoadOptions& options);
  // Builds and loads the graph of `layers` (of a GGUF model) on `device`.
  std::unique_ptr<ExecutableGraph> load_part(gpu::Device& device, gguf::LlamaGraphOptions gopt, LayerRange layers,
                                             const LlmLoadOptions& options, const std::string& upload_label);
  // The one route every LLM graph (a GGUF part, a .pte's forward) is loaded
  // by: the LLM's tuning and progress stages.
  // `samples`: the graph gives the logits, and gets the sampler at its tail.
  std::unique_ptr<ExecutableGraph> load_graph(gpu::Device& device, Graph graph, const LlmLoadOptions& options,
                                              const std::string& upload_label, bool samples);
  // Runs a forward pass on llama_graph.h's six inputs: the graph, or each
  // part of a split model in turn (the earlier ones waited for, their hidden
  // state handed on through the host); `options` apply to the last part.
  std::vector<OutputTensor> run_graph(std::span<const InputView> inputs, const ExecuteOptions& options,
                                      std::span<const uint32_t> draw);
  // Runs the last (or only) graph, whose tail draws the sampler rows `draw`.
  std::vector<OutputTensor> run_last(std::span<const InputView> inputs, const ExecuteOptions& options,
                                     std::span<const uint32_t> draw);

  std::string path_;
  gpu::Device* device_ = nullptr;
  gguf::GgufFile file_;  // the graph points into its mapping: destroyed last
  Tokenizer tokenizer_;
  ChatTemplate chat_;
  gguf::LlamaConfig config_;
  std::unique_ptr<ExecutableGraph> own_graph_;  // the graph, or the last part of a split one
  std::unique_ptr<pte::Program> program_file_;   // a .pte's: its graph's constants point into it
  ExecutableGraph* graph_ = nullptr;
  LayerRange last_layers_;
  // A model split across devices: the parts before the last (graph_), and
  // where the sampled tokens (on the last device) are read back for the
  // first part, each pass.
  std::vector<LayerPart> leading_parts_;
  std::unique_ptr<gpu::ReadbackRing> fed_readback_;
  ops::GpuSampler* sampler_ = nullptr;  // the last graph's (its op_state)
  size_t sample_op_ = 0;                // the sampling op's index in it
  ValueId sampled_tokens_ = 0;          // the tokens it draws into (state)
  int64_t context_ = 0, chunk_ = 0;
  std::vector<SlotState> slot_states_{1};
  size_t slot_ = 0;
  bool slot_inputs_ = false;  // a GGUF graph: llama_graph.h's six inputs (a .pte: tokens, input_pos)
  ShaderChecks shader_checks_ = ShaderChecks::None;
  HostTensor logits_;  // the last forward's output, f32 [1, vocab]
  mutable std::mutex texts_mutex_;
  mutable std::shared_ptr<const TokenTexts> token_texts_;
};

}  // namespace wgrt::llm
