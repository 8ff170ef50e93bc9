// wgrt's public C++ API: Llama-family LLMs (conventions: wgrt/runtime.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wgrt/grammar.h"
#include "wgrt/json_schema.h"
#include "wgrt/tool_calls.h"
#include "wgrt/memory_stats.h"
#include "wgrt/program.h"
#include "wgrt/range_reader.h"
#include "wgrt/runtime.h"

namespace wgrt::api {


// The most alternatives GenerateOptions::logprobs may ask for (OpenAI's limit).
constexpr int32_t kMaxTopLogprobs = 20;

struct GenerateOptions {
  int32_t max_tokens = 128;
  float temperature = 0.8f;  // 0: greedy
  int32_t top_k = 40;        // 0: off
  float top_p = 0.95f;       // 1: off
  float min_p = 0.05f;       // 0: off
  float repeat_penalty = 1.0f;
  // OpenAI's penalties over the same 64 recent tokens (prompt included):
  // subtracted once from each distinct token's logit (presence) and once per
  // occurrence (frequency); 0: off.
  float presence_penalty = 0.0f;
  float frequency_penalty = 0.0f;
  // Added to those tokens' logits before the penalties (OpenAI's logit_bias;
  // at most 1024 entries, ids inside the vocabulary).
  std::vector<std::pair<int32_t, float>> logit_bias;
  uint64_t seed = 0;
  bool ignore_eos = false;
  // Tokens are sampled on the GPU and fed back there, with `in_flight`
  // decode steps queued ahead of the host (1: wait for each token); false
  // reads the logits back and samples on the CPU. Each repeats itself for a
  // seed (and any number of steps in flight), and greedy decoding (temperature
  // 0) gives the same tokens on both; a seeded draw at a temperature differs
  // between the two, whose random streams are not the same.
  bool gpu_sampling = true;
  // 8: measured +1-3 % tok/s over 4 on the H200 (bench/RESULTS.md, 2026-12-02 eighth run).
  int32_t in_flight = 8;
  // Generation ends where the text first contains one of these; the stop
  // string is not part of the output.
  std::vector<std::string> stop;
  // Checked between tokens: set it (from another thread or a signal handler)
  // to stop cleanly; GenerateResult::cancelled says so.
  const std::atomic<bool>* cancel = nullptr;
  // For testing against a reference: sees each logits vector a token is
  // sampled from (the prompt's last position, then one per decode step).
  // Setting it samples on the CPU.
  std::function<void(std::span<const float>)> on_logits;
  // >= 0: each GenerationStep carries its token's log-probability and this
  // many (at most 20) of the most likely alternatives: the log-softmax of
  // the logits after the biases and penalties, before temperature and
  // top-k/top-p/min-p (as OpenAI reports them). With GPU sampling each
  // step's logits are also copied back (vocabulary x 4 bytes a token); the
  // tokens drawn are the same as without.
  int32_t logprobs = -1;
  // The text generated must be one JSON object (OpenAI's response_format
  // json_object): tokens that cannot continue it are masked before each draw;
  // once it is whole only end-of-generation tokens remain. Each step waits
  // for its token (the mask depends on it); the host finds the next mask
  // while the GPU runs the next forward pass, and with gpu_sampling only
  // the mask goes to the GPU (a bit per token), no logits come back.
  bool json_object = false;
  // The text generated must be one value of this schema (OpenAI's
  // response_format json_schema; wgrt/json_schema.h), the same way.
  std::shared_ptr<const JsonSchema> json_schema;
  // The text generated must be a sentence of this GBNF grammar (llama.cpp's
  // `grammar`; wgrt/grammar.h), the same way, except that a whole sentence
  // may go on where the grammar allows. At most one of the three.
  std::shared_ptr<const Grammar> grammar;
};

// Throws Error(InvalidArgument) naming the first bad option (temperature,
// top-p, min-p, repeat penalty, in_flight, max_tokens); with `vocab` > 0,
// also top-k against it.
void validate(const GenerateOptions& options, int64_t vocab = 0);

struct LlmOptions {
  std::string path;            // .gguf, or a .pte from ExecuTorch's Llama export
  std::string tokenizer_path;  // for a .pte: a GGUF file whose tokenizer the model uses
  // A GGUF read through a reader of your own instead of opening `path`
  // (which then only names it); read in ranges as loading needs them.
  std::shared_ptr<const RangeReader> file;
  int64_t context = 2048;      // KV cache length; capped at the model's trained context
  int64_t chunk = 256;         // most prompt tokens per forward pass
  bool kv_f16 = false;         // KV cache in f16 (GGUF models): half its memory, rows rounded to f16
  // Sequences decoded at once (GGUF models; 1 to 32): the KV cache holds
  // this many, each `context` long, and generate_batch / api::Batch advance
  // them together, one forward pass per token of all of them.
  int64_t parallel = 1;
  // A GGUF model split by layers across GPUs (llama.cpp's --split-mode
  // layer): the adapters (list_adapters() indices) in order, each holding a
  // run of layers of about equal bytes and their KV cache; the hidden state
  // crosses from one to the next through the host. The first is the
  // runtime's own device when the runtime was made on that adapter
  // (RuntimeOptions::adapter); every other gets a device of its own, made
  // with the runtime's options. Empty: the runtime's device holds the whole
  // model. Error(InvalidArgument) for a repeated index or more
  // devices than layers, Error(NotFound) for an index past the adapters.
  std::vector<int> devices;
  // Test only: lets `devices` name one adapter more than once (each entry
  // still a device of its own), so one GPU tests the split.
  bool devices_may_repeat_for_test = false;
  LoadOptions load;
  // Progress while the model loads: (done, total, stage); "preparing
  // weights" counts tensors, "uploading" bytes, "warm-up pass" steps;
  // "planning the graph" and "creating kernels" are reported once each.
  std::function<void(size_t, size_t, const char*)> on_progress;
  // Checked (see validate) against the tokenizer's vocabulary before any
  // weight is read, so a bad option fails before the long part of loading.
  std::optional<GenerateOptions> check;
};
struct GenerateResult {
  std::vector<int32_t> tokens;  // generated
  std::string text;             // their text
  size_t prompt_tokens = 0;
  size_t cached_tokens = 0;  // of prompt_tokens: found in the KV cache and not run again (api::Batch)
  size_t generated_tokens = 0;
  double prompt_seconds = 0;    // prefill, including the first token
  double generate_seconds = 0;  // every decode step after that
  double wait_seconds = 0;      // of generate_seconds: the host blocked on a token (GPU sampling)
  double prompt_tokens_per_second = 0;
  double generate_tokens_per_second = 0;
  bool stopped_at_eos = false;
  bool stopped_at_stop_string = false;
  bool cancelled = false;
  bool context_full = false;
};

struct ChatMessage {
  std::string role;  // "system", "user", "assistant", "tool"
  std::string content;
  std::vector<ToolCall> tool_calls;  // an assistant's calls (wgrt/tool_calls.h)
  std::string tool_call_id;          // a "tool" message: the call whose result it is
};

// Host milliseconds of a forward pass's steps, for measurements.
struct HostTimes {
  double prepare_ms = 0;   // input checks, shape changes, uploads
  double encode_ms = 0;    // recording dispatches and copies, submitting
  double wait_ms = 0;      // waiting for the GPU to finish
  double readback_ms = 0;  // mapping outputs and converting them
  size_t dispatches = 0;   // compute dispatches issued (recorded ones sized to zero are skipped)
  double submit_ms = 0;    // of encode_ms: finishing the command buffer and submitting it
};

// One step of a Generation: a token and the text it completes (possibly
// none, inside a UTF-8 sequence). After the last token, one more step with
// token -1 may carry text held back.
struct TokenLogprobs {
  float logprob = 0;                              // of the token taken
  std::vector<std::pair<int32_t, float>> top;     // the likeliest tokens and theirs, likeliest first
};
struct GenerationStep {
  int32_t token = -1;
  std::string text;
  std::optional<TokenLogprobs> logprobs;  // with GenerateOptions::logprobs
};

// Called with each piece of text as it completes (a token may complete no
// text, when it ends inside a UTF-8 sequence). Return false to stop.
using TextCallback = std::function<bool(std::string_view)>;

// A model, its tokenizer and its KV cache on the GPU. Generation continues
// from what the cache holds; reset() empties it. After a generation the cache
// holds its prompt and every generated token but the last (steps that ran
// ahead are dropped): to continue, start the next prompt with that token.
//
// Threads: as wgrt/runtime.h says, with one exception a server needs: the
// calls marked "any thread" read only what loading fixed (the tokenizer, the
// chat template, sizes), so they may run on other threads while one thread
// generates.
class Llm {
 public:
  // Errors: NotFound, InvalidProgram, NotSupported (an architecture or weight
  // format wgrt lacks), OutOfMemory.
  static Llm load(const Runtime& runtime, const LlmOptions& options);

  // Any thread. `add_special`: the BOS/EOS the model asks for; special-token text such as
  // "<|im_start|>" is always parsed as the special token.
  // `parse_special` false reads such text as plain text.
  std::vector<int32_t> tokenize(std::string_view text, bool add_special = true, bool parse_special = true) const;
  // Any thread. `skip_special` leaves out special tokens (BOS, EOS, chat markers).
  std::string detokenize(std::span<const int32_t> tokens, bool skip_special = false) const;
  // Any thread: the tokenizer's vocabulary, and the one the model's logits
  // cover (it may be larger: padded rows no token uses).
  size_t vocab_size() const;
  int64_t model_vocab() const;
  // Any thread. The end-of-sequence token, -1 when the tokenizer has none.
  int32_t eos() const;
  // Any thread. The prompt text of a conversation, in the model's chat
  // format. Error(InvalidArgument) when the template refuses the messages
  // (its raise_exception, say) or fails on them, naming what and where.
  std::string apply_chat_template(const std::vector<ChatMessage>& messages, bool add_generation_prompt = true) const;
  // The same with the functions a model may call (`tools_json`: OpenAI's
  // `tools` array as JSON text, checked by api::parse_tools) and messages
  // that carry tool calls and results, shown as the model's own Jinja
  // template shows them. NotSupported when the template is not run as Jinja.
  std::string apply_chat_template(const std::vector<ChatMessage>& messages, bool add_generation_prompt,
                                  std::string_view tools_json) const;
  // Any thread. How this model writes tool calls, from its chat template
  // (ToolCallFormat::None: the template shows no tools).
  ToolCallFormat tool_call_format() const;

  // Appends the prompt to the cache and generates. Error(InvalidArgument) when
  // the prompt does not fit the context (nothing is run then).
  GenerateResult generate(std::span<const int32_t> prompt, const GenerateOptions& options = {},
                          const TextCallback& on_text = {});
  GenerateResult generate(std::string_view prompt, const GenerateOptions& options = {},
                          const TextCallback& on_text = {});
  // Generates for every prompt at once, at most parallel() sequences at a
  // time (the rest start as slots free: api::Batch), each from its slot's
  // cache as generate() does from the cache; results in the prompts' order.
  // Options as generate()'s with GPU sampling (no logprobs or on_logits; a
  // JSON constraint or grammar applies to every prompt). Error(InvalidArgument) for an empty list or a bad prompt,
  // naming its row (nothing runs then).
  std::vector<GenerateResult> generate_batch(std::span<const std::vector<int32_t>> prompts,
                                             const GenerateOptions& options = {});
  // Sequences the cache holds (LlmOptions::parallel).
  int64_t parallel() const;

  // Appends `tokens` to the cache and returns the last one's logits
  // (vocabulary size), for scoring and tests. Error(InvalidArgument) when
  // they do not fit the context (nothing is run then).
  // `options.time_dispatches` times the last pass's dispatches (see
  // last_dispatch_times).
  std::vector<float> forward(std::span<const int32_t> tokens, const RunOptions& options = {});
  // Of the last forward pass (a prompt's last chunk, or one decode step):
  // GPU time per dispatch when it was timed, and the host's time per step.
  std::vector<DispatchTime> last_dispatch_times() const;
  HostTimes last_host_times() const;
  // Compute dispatches a forward pass records (sampling not included); a
  // pass skips those with no work at its token count.
  size_t dispatch_count() const;

  void reset();
  // Keeps the part of the cache that `prompt` starts with and forgets the
  // rest; returns how many of the prompt's tokens it holds (at most all but
  // the last, which must run to give logits). Generating prompt[n:] then
  // continues as the whole prompt would from an empty cache: a chat's next
  // turn repeats the conversation so far, and only the new turn runs.
  int64_t reuse_cached_prefix(std::span<const int32_t> prompt);
  // Test only: destroys the model's GPU device as a driver reset would;
  // everything the model runs afterwards fails with Error(DeviceLost).
  void lose_device_for_test();
  // Test only: the model's next GPU buffer creation fails (as out of
  // memory); the call making it fails with Error(OutOfMemory).
  void fail_next_allocation_for_test();
  // Any thread (to the comment above cached_tokens). The file it was loaded
  // from, and a one-line description of the model (architecture, sizes,
  // weight format).
  const std::string& path() const;
  std::string description() const;
  // Whether GenerateOptions::gpu_sampling can take effect for this model:
  // true for every model now that sampling is the end of its graph (a .pte
  // whose memory plan shares the token input with the logits too).
  bool can_sample_on_gpu() const;
  int64_t context() const;
  // Any thread. The adapter of each device the model is on, in layer order
  // (one unless LlmOptions::devices split it).
  std::vector<AdapterInfo> adapters() const;
  int64_t chunk() const;           // most prompt tokens per forward pass
  uint64_t weight_bytes() const;   // GPU bytes of the model's weights
  // Not from another thread while generating:
  int64_t cached_tokens() const;
  MemoryStats memory_stats() const;

 private:
  friend class Generation;
  friend class Batch;
  explicit Llm(std::shared_ptr<detail::LlmImpl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<detail::LlmImpl> impl_;
};

// Llm::generate one step at a time, for callers that pull (an iterator):
// nothing runs until the first next(). It keeps its Llm alive; the Llm must
// not run anything else until the Generation is destroyed.
class Generation {
 public:
  // Appends `prompt` to the Llm's cache; validates `options` at once.
  Generation(const Llm& llm, std::span<const int32_t> prompt, const GenerateOptions& options = {});
  ~Generation();
  Generation(Generation&&) noexcept;
  Generation& operator=(Generation&&) noexcept;
  // The next step; nothing once generation has ended (end of sequence, a
  // stop string, max_tokens, a full context, cancel or stop()).
  std::optional<GenerationStep> next();
  // Ends it early: the next next() returns only text held back, if any.
  void stop();
  // The counts, times and how it ended, so far (text and tokens are the
  // caller's to collect from the steps).
  GenerateResult stats() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace wgrt::api
