#include "llm/llm_model.h"

#include <algorithm>
#include <filesystem>

#include "import/gguf/llama_graph.h"
#include "llm/default_model.h"
#include "llm/json_constraint.h"
#include "ops/sampling/gpu_sampler.h"
#include "gpu/command_batch.h"
#include "gpu/device.h"
#include "gpu/readback_ring.h"
#include "wgrt/error.h"

namespace wgrt::llm {

LlmModel::LlmModel(gguf::GgufFile file, Tokenizer tokenizer, ChatTemplate chat)
    : file_(std::move(file)), tokenizer_(std::move(tokenizer)), chat_(std::move(chat)) {}

namespace {
template <typename T>
HostTensorView host_view(DType dtype, Dims dims, const T* data, size_t count) {
  return HostTensorView{dtype, std::move(dims), std::span(reinterpret_cast<const uint8_t*>(data), count * sizeof(T))};
}

// How an LLM's graph is loaded: its decode steps are in flight (generate.h),
// so one submit per step unless the caller chose (Tuning::submit_every).
LoadOptions graph_options(const LlmLoadOptions& options) {
  LoadOptions lopt = options.graph;
  if (lopt.tuning.submit_every < 0) lopt.tuning.submit_every = 0;
  return lopt;
}
// A layer's K (or V) cache is one tensor, [1, context, KV heads, head dim];
// above the binding limit it is stored in parts by KV heads (memory_plan.h),
// so one head's positions must fit one binding: refuse a context past that
// before anything is allocated, naming the largest that fits.
void check_kv_cache_fits(const gpu::Device& device, const gguf::LlamaGraph& lg, bool kv_f16, int64_t slots) {
  const uint64_t per_position = uint64_t(lg.config.head_dim) * (kv_f16 ? 2 : 4) * uint64_t(slots);
  const uint64_t limit = device.max_binding_bytes();
  if (per_position == 0 || uint64_t(lg.max_context) * per_position <= limit) return;
  const std::string of = slots > 1 ? " for each of " + std::to_string(slots) + " sequences (--parallel)" : "";
  throw Error(ErrorCode::NotSupported,
              "a context of " + std::to_string(lg.max_context) + " tokens" + of + " needs " +
                  std::to_string(uint64_t(lg.max_context) * per_position) +
                  " bytes of KV cache per layer and KV head, above the device's binding limit of " +
                  std::to_string(limit) +
                  " bytes (--limits " + gpu::limits_mode_name(device.limits_mode()) +
                  "); the largest context that fits is " + std::to_string(limit / per_position) + " (--ctx)" +
                  (kv_f16 ? "" : ", or twice that with the f16 KV cache (--kv-f16)"));
}
}  // namespace

std::unique_ptr<LlmModel> LlmModel::load(gpu::Device& device, const LlmLoadOptions& options) {
  if (options.path.size() > 4 && options.path.compare(options.path.size() - 4, 4, ".pte") == 0) {
    return load_pte(device, options);
  }
  const std::string path = options.file ? options.file->name()
                           : options.path.empty() ? default_model_path()
                                                  : options.path;
  gguf::GgufFile file = options.file ? gguf::GgufFile::open(options.file) : gguf::GgufFile::open(path);
  Tokenizer tokenizer = Tokenizer::from_gguf(file);
  if (options.check_vocab) options.check_vocab(int64_t(tokenizer.vocab_size()));
  ChatTemplate chat = ChatTemplate::from_gguf(file);
  std::unique_ptr<LlmModel> m(new LlmModel(std::move(file), std::move(tokenizer), std::move(chat)));
  m->path_ = path;
  m->shader_checks_ = options.graph.tuning.shader_checks;

  gguf::LlamaGraphOptions gopt;
  gopt.max_context = options.context;
  gopt.max_chunk = options.chunk;
  gopt.kv_f16 = options.kv_f16;
  gopt.slots = options.slots;
  if (options.on_progress) {
    gopt.on_weight = [&](size_t done, size_t total) { options.on_progress(done, total, "preparing weights"); };
  }
  std::vector<gpu::Device*> devices{&device};
  for (gpu::Device* d : options.more_devices) {
    if (d == nullptr) throw Error(ErrorCode::InvalidArgument, "LlmLoadOptions::more_devices holds a null device");
    devices.push_back(d);
  }
  const std::vector<LayerRange> ranges =
      split_layers(m->file_, gguf::LlamaConfig::from_gguf(m->file_).n_layers, devices.size());
  m->slot_states_.resize(size_t(options.slots));
  m->slot_inputs_ = true;
  for (size_t i = 0; i < devices.size(); ++i) {
    const std::string label = devices.size() == 1 ? "uploading"
                                                  : "uploading to device " + std::to_string(i + 1) + " of " +
                                                        std::to_string(devices.size());
    std::unique_ptr<ExecutableGraph> graph = m->load_part(*devices[i], gopt, ranges[i], options, label);
    if (i + 1 < devices.size()) {
      m->leading_parts_.push_back(LayerPart{devices[i], std::move(graph), ranges[i]});
    } else {
      m->own_graph_ = std::move(graph);
      m->last_layers_ = ranges[i];
    }
  }
  m->graph_ = m->own_graph_.get();
  m->device_ = devices.back();
  m->attach_sampler();
  if (devices.size() > 1) {
    m->fed_readback_ = std::make_unique<gpu::ReadbackRing>(*m->device_, 1, m->token_buffer().size());
  }
  if (options.warm_up) m->warm_up(*m->device_, options);
  return m;
}

std::unique_ptr<ExecutableGraph> LlmModel::load_part(gpu::Device& device, gguf::LlamaGraphOptions gopt,
                                                     LayerRange layers, const LlmLoadOptions& options,
                                                     const std::string& upload_label) {
  gopt.layers = layers;
  gguf::LlamaGraph lg = gguf::build_llama_graph(file_, gopt);
  check_kv_cache_fits(device, lg, options.kv_f16, options.slots);
  config_ = lg.config;
  context_ = lg.max_context;
  chunk_ = lg.max_chunk;
  try {
    return load_graph(device, std::move(lg.graph), options, upload_label, layers.end == lg.config.n_layers);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::OutOfMemory || options.slots < 2) throw;
    // Name what the sequences cost: the KV cache grows with --parallel.
    const uint64_t kv = uint64_t(layers.end - layers.first) * 2 * uint64_t(options.slots) *
                        uint64_t(lg.max_context) * uint64_t(lg.config.n_kv_heads) * uint64_t(lg.config.head_dim) *
                        (options.kv_f16 ? 2 : 4);
    throw Error(ErrorCode::OutOfMemory, std::string(e.what()) + " (the KV cache of " + std::to_string(options.slots) +
                                            " sequences x " + std::to_string(lg.max_context) + " tokens is " +
                                            std::to_string(kv) + " bytes here: lower --parallel or --ctx)");
  }
}

uint32_t gemv_rows_for(bool cpu_adapter, int64_t slots, uint32_t configured, int64_t hidden) {
  // A batched decode step is `slots` rows through each linear, a short
  // prompt (a chat's next turn, a prompt's last chunk) its tokens: the
  // multi-row GEMV takes up to kBatchedGemvRows of them (8 from a hidden size
  // of 4,096), the GEMM more. Measured on the H100 (bench/RESULTS.md): the
  // GEMM costs a flat ~11 ms (Llama-1B) or ~46 ms (8B) a pass up to 64
  // rows, which a 3-token prompt of a 70B paid as 0.60 s, 17 decode steps;
  // the 8B's multi-row GEMV (f32 x) 35 ms at 8 rows, 68 ms at 16; Llama-1B's
  // ~11 ms at 16. On a CPU adapter the multi-row GEMV gains little and costs
  // pipelines to compile at load (lavapipe): batches only.
  const int64_t most = hidden >= 4096 ? 8 : kBatchedGemvRows;
  const int64_t rows = cpu_adapter ? slots : most;
  return std::max<uint32_t>(configured, uint32_t(std::min<int64_t>(rows, most)));
}

Graph LlmModel::with_sampler(Graph graph, int64_t rows) const {
  // A pass may be fed the drawn tokens in place of its token input, whose
  // bindings then cover them: as many as the input holds (a chunk), at least
  // one a row.
  const int64_t n = std::max(rows, chunk_);
  const ValueId logits = graph.outputs.at(0);
  GraphBuilder b(std::move(graph));
  const ValueId tokens = b.add_state(DType::I32, {n});
  b.add_op(ops::kSampleTokensOp, {logits, b.add_int(sampling_vocab()), b.add_int(rows), tokens});
  return std::move(b).build();
}

void LlmModel::attach_sampler() {
  sample_op_ = graph_->op_index(ops::kSampleTokensOp);
  sampler_ = &graph_->op_state<ops::GpuSampler>(ops::kSampleTokensOp);
  sampled_tokens_ = graph_->graph().ops[sample_op_].args.back();
}

std::unique_ptr<ExecutableGraph> LlmModel::load_graph(gpu::Device& device, Graph graph, const LlmLoadOptions& options,
                                                      const std::string& upload_label, bool samples) {
  if (samples) graph = with_sampler(std::move(graph), int64_t(slot_states_.size()));
  LoadOptions lopt = graph_options(options);
  lopt.tuning.gemv_batch_rows =
      gemv_rows_for(device.cpu_adapter(), options.slots, lopt.tuning.gemv_batch_rows, config_.dim);
  if (options.on_progress) {
    lopt.on_upload = [&](uint64_t done, uint64_t total) { options.on_progress(done, total, upload_label.c_str()); };
    lopt.on_stage = [&](const char* stage) { options.on_progress(0, 1, stage); };
    // Fusion passes and the memory plan: the part of loading before the
    // upload, its own stage in the progress report.
    options.on_progress(0, 1, "planning the graph");
  }
  return ExecutableGraph::load(device, std::move(graph), lopt);
}

std::vector<LayerRange> LlmModel::layer_split() const {
  std::vector<LayerRange> out;
  for (const LayerPart& p : leading_parts_) out.push_back(p.layers);
  out.push_back(last_layers_);
  return out;
}

std::vector<gpu::Device*> LlmModel::devices() const {
  std::vector<gpu::Device*> out;
  for (const LayerPart& p : leading_parts_) out.push_back(p.device);
  out.push_back(device_);
  return out;
}

size_t LlmModel::dispatch_count() const {
  size_t n = graph_->dispatch_count();
  for (const LayerPart& p : leading_parts_) n += p.graph->dispatch_count();
  return n;
}

MemoryStats LlmModel::memory_stats() const {
  MemoryStats stats = graph_->memory_stats();
  for (const LayerPart& p : leading_parts_) stats += p.graph->memory_stats();
  return stats;
}

std::vector<OutputTensor> LlmModel::run_last(std::span<const InputView> inputs, const ExecuteOptions& options,
                                             std::span<const uint32_t> draw) {
  sampler_->draw_next(draw);
  try {
    return graph_->run(inputs, options);
  } catch (...) {
    sampler_->draw_next({});  // refused before its hooks ran: the next run must not draw these
    throw;
  }
}

std::vector<OutputTensor> LlmModel::run_graph(std::span<const InputView> in, const ExecuteOptions& options,
                                              std::span<const uint32_t> draw) {
  if (leading_parts_.empty()) return run_last(in, options, draw);  // one device: nothing copied per step
  std::vector<InputView> inputs(in.begin(), in.end());
  // Tokens on the GPU (the sampler's) are on the last device: read them back
  // for the first part.
  std::vector<int64_t> ids;
  if (const auto* fed = std::get_if<DeviceTensorView>(&inputs[0])) {
    const Dims dims = fed->dims;
    // Through a readback buffer made at load (not one per step).
    gpu::CommandBatch batch(*device_);
    fed_readback_->record_copy(batch, *fed->buffer, 0, 0);
    batch.submit();
    fed_readback_->request(0, batch.submission());
    std::vector<int32_t> words(token_buffer().size() / sizeof(int32_t));
    fed_readback_->take(0, words.data());
    ids.assign(words.begin(), words.begin() + dims[1]);
    inputs[0] = host_view(DType::I64, dims, ids.data(), ids.size());
  }
  HostTensor hidden;
  for (LayerPart& part : leading_parts_) {
    std::vector<OutputTensor> out = part.graph->run(inputs, ExecuteOptions{});
    hidden = HostTensor{DType::F32, out[0].dims, std::move(out[0].data)};
    inputs[0] = HostTensorView{hidden.dtype, hidden.dims, hidden.data};
  }
  return run_last(inputs, options, draw);
}

void LlmModel::draw(std::span<const uint32_t> rows, const RecordCopies& copies) {
  sampler_->draw_next(rows);
  try {
    graph_->run_tail(sample_op_, copies);
  } catch (...) {
    sampler_->draw_next({});
    throw;
  }
}

void LlmModel::warm_up(gpu::Device& device, const LlmLoadOptions& options) {
  // Pipelines are created (and, on most drivers, compiled) while the graph is
  // lowered; this runs the decode pass and the sampler once for drivers that
  // compile on first use. The prompt pass is not run: on lavapipe its tiled
  // kernels cost far more than their compilation saves.
  if (options.on_progress) options.on_progress(0, 2, "warm-up pass");
  const TokenId token = 0;
  const uint32_t row = 0;  // greedy until configured
  submit(std::span(&token, 1), std::span(&row, 1), {}, true);
  if (options.on_progress) options.on_progress(1, 2, "warm-up pass");
  if (slots() > 1) {  // the batched decode kernel, once
    const BatchRow batch_row{int32_t(cached()), int32_t(slot_)};
    submit_batch(std::span(&batch_row, 1), {}, {});
    device.wait_idle();
  }
  reset(true);
  if (options.on_progress) options.on_progress(2, 2, "warm-up pass");
}

std::shared_ptr<const TokenTexts> LlmModel::token_texts() const {
  std::lock_guard<std::mutex> lock(texts_mutex_);
  if (!token_texts_) token_texts_ = std::make_shared<const TokenTexts>(tokenizer_, size_t(sampling_vocab()));
  return token_texts_;
}

int64_t LlmModel::sampling_vocab() const {
  return std::min<int64_t>(int64_t(tokenizer_.vocab_size()), model_vocab());
}

const gpu::Buffer& LlmModel::token_buffer() const {
  return graph_->tensor_buffer(sampled_tokens_);
}

const gpu::Buffer& LlmModel::logits_buffer() const { return graph_->tensor_buffer(graph_->graph().outputs[0]); }

void LlmModel::select_slot(size_t slot) {
  if (slot >= slots()) {
    throw Error(ErrorCode::InvalidArgument, "slot " + std::to_string(slot) + " of a cache holding " +
                                                std::to_string(slots()) + " sequences");
  }
  slot_ = slot;
}

void LlmModel::reset(bool all) {
  for (size_t s = 0; s < slots(); ++s) {
    if (all || s == slot_) slot_states_[s] = SlotState{};
  }
}

void LlmModel::check_room(size_t tokens) const {
  const int64_t now = cached();
  if (now + int64_t(tokens) > context_) {
    throw Error(ErrorCode::InvalidArgument, "context full: " + std::to_string(now) + " cached + " +
                                                std::to_string(tokens) + " new tokens > context " +
                                                std::to_string(context_) + " (raise --ctx)");
  }
}

void LlmModel::rewind(int64_t cached) {
  SlotState& s = state();
  if (cached < 0 || cached > s.cached) {
    throw Error(ErrorCode::InvalidArgument, "rewind to " + std::to_string(cached) + ": only " +
                                                std::to_string(s.cached) + " positions are cached");
  }
  s.cached = cached;
  s.ids.resize(size_t(cached));
  s.next_fed = -1;
}

void LlmModel::note_fed_token(int64_t position, TokenId token) {
  SlotState& s = state();
  if (position >= 0 && position < int64_t(s.ids.size())) s.ids[size_t(position)] = token;
  if (position == int64_t(s.ids.size())) s.next_fed = token;
}

int64_t LlmModel::cached_prefix(std::span<const TokenId> prompt) const {
  const std::vector<TokenId>& ids = state().ids;
  const size_t limit = std::min(ids.size(), prompt.empty() ? 0 : prompt.size() - 1);
  size_t n = 0;
  while (n < limit && ids[n] == prompt[n]) ++n;
  return int64_t(n);
}

std::span<const float> LlmModel::forward(std::span<const TokenId> tokens, const ExecuteOptions& options) {
  return submit_chunks(tokens, options, {}, nullptr, true);
}

std::span<const float> LlmModel::submit(std::span<const TokenId> tokens, std::span<const uint32_t> draw,
                                        const RecordCopies& copies, bool read_logits) {
  ExecuteOptions options;
  options.wait = read_logits;
  return submit_chunks(tokens, options, draw, &copies, read_logits);
}

std::vector<OutputTensor> LlmModel::run_sequence(const InputView& tokens, int64_t n, int64_t pos,
                                                 const ExecuteOptions& options, std::span<const uint32_t> draw) {
  if (!slot_inputs_) {
    const InputView inputs[] = {tokens, host_view(DType::I64, {1}, &pos, 1)};
    return run_last(inputs, options, draw);  // a .pte: one graph
  }
  const int64_t slot = int64_t(slot_), from = n - 1;
  std::vector<int64_t> positions(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) positions[size_t(i)] = pos + i;
  const int32_t unused_row[2] = {-1, 0};
  const InputView inputs[] = {tokens,
                              host_view(DType::I64, {1}, &pos, 1),
                              host_view(DType::I64, {1}, &slot, 1),
                              host_view(DType::I64, {n}, positions.data(), positions.size()),
                              host_view(DType::I32, {1, 2}, unused_row, 2),
                              host_view(DType::I64, {1}, &from, 1)};
  return run_graph(inputs, options, draw);
}

void LlmModel::submit_fed(std::span<const uint32_t> draw, const RecordCopies& copies) {
  check_room(1);
  ExecuteOptions options;
  options.wait = false;
  options.encode_after = copies;
  run_sequence(DeviceTensorView{DType::I64, {1, 1}, &token_buffer()}, 1, cached(), options, draw);
  SlotState& s = state();
  s.cached += 1;
  s.ids.push_back(s.next_fed);  // -1: known once its step's readback arrives
  s.next_fed = -1;
}

void LlmModel::submit_batch(std::span<const BatchRow> rows, std::span<const uint32_t> draw, const RecordCopies& copies,
                            bool timed) {
  if (rows.empty() || rows.size() > std::min(slots(), size_t(chunk_))) {
    throw Error(ErrorCode::InvalidArgument, "a batch of " + std::to_string(rows.size()) + " rows; 1 to " +
                                                std::to_string(std::min(slots(), size_t(chunk_))) + " fit");
  }
  if (!slot_inputs_) throw Error(ErrorCode::NotSupported, "batched decode needs a GGUF model");
  const auto n = int64_t(rows.size());
  std::vector<int64_t> positions(rows.size(), 0);
  std::vector<int32_t> pairs;
  int64_t most = 1;
  std::vector<bool> seen(slots(), false);
  for (size_t r = 0; r < rows.size(); ++r) {
    const BatchRow& row = rows[r];
    pairs.insert(pairs.end(), {row.position, row.slot});
    if (row.position < 0) continue;
    if (row.slot < 0 || size_t(row.slot) >= slots() || seen[size_t(row.slot)] ||
        row.position != slot_states_[size_t(row.slot)].cached || row.position >= context_) {
      throw Error(ErrorCode::InvalidArgument,
                  "batch row " + std::to_string(r) + ": position " + std::to_string(row.position) + " of slot " +
                      std::to_string(row.slot) + " is not that slot's next position (or the slot is named twice, "
                      "or its context of " + std::to_string(context_) + " is full)");
    }
    seen[size_t(row.slot)] = true;
    positions[r] = row.position;
    most = std::max<int64_t>(most, int64_t(row.position) + 1);
  }
  const int64_t batch_slot = -1, from = 0;
  const InputView inputs[] = {DeviceTensorView{DType::I64, {1, n}, &token_buffer()},
                              host_view(DType::I64, {1}, &most, 1),
                              host_view(DType::I64, {1}, &batch_slot, 1),
                              host_view(DType::I64, {n}, positions.data(), positions.size()),
                              host_view(DType::I32, {n, 2}, pairs.data(), pairs.size()),
                              host_view(DType::I64, {1}, &from, 1)};
  ExecuteOptions options;
  options.wait = timed;
  options.time_dispatches = timed;
  options.encode_after = copies;
  run_graph(inputs, options, draw);
  for (const BatchRow& row : rows) {
    if (row.position < 0) continue;
    SlotState& s = slot_states_[size_t(row.slot)];
    s.cached += 1;
    s.ids.push_back(s.next_fed);
    s.next_fed = -1;
  }
}

std::span<const float> LlmModel::submit_chunks(std::span<const TokenId> tokens, ExecuteOptions options,
                                               std::span<const uint32_t> draw, const RecordCopies* copies,
                                               bool read_logits) {
  if (tokens.empty()) throw Error(ErrorCode::InvalidArgument, "forward: no tokens");
  check_room(tokens.size());
  const int64_t vocab = sampling_vocab();
  for (TokenId t : tokens) {
    if (t < 0 || t >= vocab) {
      throw Error(ErrorCode::InvalidArgument, "token id " + std::to_string(t) + " is outside the vocabulary of " +
                                                  std::to_string(vocab));
    }
  }
  std::vector<int64_t> ids;
  const bool wait = options.wait;
  for (size_t start = 0; start < tokens.size(); start += size_t(chunk_)) {
    const size_t n = std::min(tokens.size() - start, size_t(chunk_));
    const bool last = start + n == tokens.size();
    ids.assign(tokens.begin() + start, tokens.begin() + start + n);
    // Only the last chunk's logits matter; earlier chunks queue without a wait.
    options.wait = last && wait;
    options.read_outputs = {last && read_logits};
    options.encode_after = last && copies != nullptr ? *copies : RecordCopies{};
    std::vector<OutputTensor> out =
        run_sequence(host_view(DType::I64, {1, int64_t(n)}, ids.data(), n), int64_t(n), cached(), options,
                     last ? draw : std::span<const uint32_t>{});
    if (last && read_logits) logits_.data = std::move(out[0].data);  // f32: viewed in place, not copied
    state().cached += int64_t(n);
    state().ids.insert(state().ids.end(), tokens.begin() + start, tokens.begin() + start + n);
    state().next_fed = -1;
  }
  if (!read_logits) return {};
  return {reinterpret_cast<const float*>(logits_.data.data()), logits_.data.size() / sizeof(float)};
}

}  // namespace wgrt::llm
