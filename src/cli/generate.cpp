// `wgrt generate`: text generation with a Llama-family GGUF model (the
// built-in SmolLM2-135M-Instruct unless --model says otherwise). Uses only
// wgrt's public API.
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/progress.h"
#include "wgrt/error.h"
#include "wgrt/grammar.h"
#include "wgrt/json_schema.h"
#include "wgrt/llm.h"
#include "wgrt/tensor.h"

namespace wgrt::cli {
namespace {

// The command line, as parsed.
struct GenerateArgs {
  std::vector<std::string> prompt_words;
  std::string model, tokenizer, system, file, prompt_tokens, dump_logits, json_schema, grammar;
  std::vector<int> devices;
  bool json = false;
  int32_t n = 128;
  float temp = 0.8f, top_p = 0.95f, min_p = 0.05f, repeat_penalty = 1.0f, presence_penalty = 0.0f,
        frequency_penalty = 0.0f;
  int32_t top_k = 40;
  uint64_t seed = 0;
  std::vector<std::string> stop;
  int32_t in_flight = api::GenerateOptions{}.in_flight;
  bool cpu_sampling = false, kv_f16 = false;
  bool no_fuse = false;
  int64_t ctx = 2048, chunk = 256;
  bool chat = false, quiet = false, print_token_ids = false, ignore_eos = false;
};

std::atomic<bool> g_cancel{false};

void on_sigint(int) {
  if (g_cancel.exchange(true)) std::_Exit(130);  // a second Ctrl-C ends at once
}

std::vector<int32_t> parse_token_ids(const std::string& list) {
  std::vector<int32_t> ids;
  size_t i = 0;
  while (i < list.size()) {
    const size_t j = std::min(list.find(',', i), list.size());
    const std::string item = list.substr(i, j - i);
    size_t used = 0;
    long long id = -1;
    try {
      id = std::stoll(item, &used);
    } catch (...) {
      used = 0;
    }
    if (used == 0 || used != item.size() || id < 0 || id > std::numeric_limits<int32_t>::max()) {
      throw Error(ErrorCode::InvalidArgument, "--prompt-tokens: '" + item + "' is not a token id (0 to 2^31 - 1)");
    }
    ids.push_back(int32_t(id));
    i = j + 1;
  }
  if (ids.empty()) throw Error(ErrorCode::InvalidArgument, "--prompt-tokens is empty");
  return ids;
}

std::string read_all(std::FILE* f) {
  std::string s;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) s.append(buf, n);
  return s;
}

std::string read_file(const std::string& path, const char* what) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw Error(ErrorCode::NotFound, std::string("cannot open ") + what + " " + path + ": " + std::strerror(errno));
  std::string s = read_all(f);
  std::fclose(f);
  return s;
}

// The prompt's text: --file, stdin ("-"), or the words on the command line.
std::string prompt_text(const GenerateArgs& args) {
  if (!args.file.empty()) return read_file(args.file, "prompt file");
  if (!args.prompt_words.empty() && args.prompt_words[0] == "-") return read_all(stdin);
  std::string prompt;
  for (const auto& p : args.prompt_words) prompt += (prompt.empty() ? "" : " ") + p;
  return prompt;
}

// The sampling options, checked before the model loads.
api::GenerateOptions generate_options(const GenerateArgs& args) {
  api::GenerateOptions gen;
  gen.max_tokens = args.n;
  gen.temperature = args.temp;
  gen.top_k = args.top_k;
  gen.top_p = args.top_p;
  gen.min_p = args.min_p;
  gen.repeat_penalty = args.repeat_penalty;
  gen.presence_penalty = args.presence_penalty;
  gen.frequency_penalty = args.frequency_penalty;
  gen.seed = args.seed;
  gen.in_flight = args.in_flight;
  gen.gpu_sampling = !args.cpu_sampling;
  gen.cancel = &g_cancel;
  gen.ignore_eos = args.ignore_eos;
  gen.stop = args.stop;
  gen.json_object = args.json;
  if (!args.json_schema.empty()) {
    try {
      gen.json_schema = api::parse_json_schema(read_file(args.json_schema, "JSON schema file"));
    } catch (const Error& e) {
      throw e.with_context("--json-schema " + args.json_schema);
    }
  }
  if (!args.grammar.empty()) {
    if (gen.json_object || gen.json_schema) {
      throw Error(ErrorCode::InvalidArgument, "--grammar: cannot be used with --json or --json-schema");
    }
    try {
      gen.grammar = api::parse_grammar(read_file(args.grammar, "GBNF grammar file"));
    } catch (const Error& e) {
      throw e.with_context("--grammar " + args.grammar);
    }
  }
  api::validate(gen);  // before loading; top-k is checked against the vocabulary once it is known
  return gen;
}

// The model, with a progress bar and a line about it unless --quiet.
api::Llm load_model(const api::Runtime& runtime, const GenerateArgs& args, const api::GenerateOptions& gen) {
  api::LlmOptions load = llm_options(args.model, args.no_fuse);
  load.tokenizer_path = args.tokenizer;
  load.context = args.ctx;
  load.chunk = args.chunk;
  load.kv_f16 = args.kv_f16;
  load.devices = args.devices;
  load.check = gen;
  std::optional<api::Llm> model;
  {
    ProgressBar bar("loading");
    if (!args.quiet) {
      load.on_progress = [&](size_t done, size_t total, const char* stage) { bar.update(done, total, stage); };
    }
    model = api::Llm::load(runtime, load);
    if (!args.quiet) bar.finish();
  }
  if (!args.quiet) {
    std::fprintf(stderr, "model: %s\n  %s\n  on %s, context %lld\n", model->path().c_str(),
                 model->description().c_str(), adapter_names(*model).c_str(), static_cast<long long>(model->context()));
  }
  return *std::move(model);
}

// The prompt's tokens (--prompt-tokens, or the text, under the chat template
// with --chat); `prompt` becomes the text the model sees.
std::vector<int32_t> prompt_tokens(const api::Llm& model, const GenerateArgs& args, std::string& prompt) {
  const bool prompt_ids = !args.prompt_tokens.empty();
  if (args.chat && !prompt_ids) {
    std::vector<api::ChatMessage> messages;
    auto message = [](std::string role, std::string content) {
      api::ChatMessage m;
      m.role = std::move(role);
      m.content = std::move(content);
      return m;
    };
    if (!args.system.empty()) messages.push_back(message("system", args.system));
    messages.push_back(message("user", prompt));
    prompt = model.apply_chat_template(messages, /*add_generation_prompt=*/true);
  }
  const std::vector<int32_t> tokens = prompt_ids ? parse_token_ids(args.prompt_tokens) : model.tokenize(prompt);
  if (prompt_ids) prompt = model.detokenize(tokens);
  return tokens;
}

// --dump-logits: every step's logits as one [steps, vocab] f32 .npy.
void write_logits(const std::string& path, const std::vector<float>& dumped, size_t steps) {
  const int64_t vocab = int64_t(dumped.size() / steps);
  api::write_npy(path, api::Tensor(DType::F32, {int64_t(steps), vocab},
                                   std::span(reinterpret_cast<const uint8_t*>(dumped.data()), dumped.size() * 4)));
}

// Why generation stopped, its speed and the GPU memory, on stderr.
void print_report(const api::GenerateResult& stats, const api::GenerateOptions& gen, const api::Llm& model,
                  const api::Runtime& runtime, bool on_runtime_device) {
  const MemoryStats mem = model.memory_stats();
  std::fprintf(stderr, "\n%s\n", stats.cancelled ? "[stopped by Ctrl-C]" : stats.context_full ? "[context full]" : "");
  std::fprintf(stderr, "prompt:     %5zu tokens in %7.3f s = %8.1f tokens/s\n", stats.prompt_tokens,
               stats.prompt_seconds, stats.prompt_tokens_per_second);
  std::fprintf(stderr, "generation: %5zu tokens in %7.3f s = %8.1f tokens/s (%s)\n", stats.generated_tokens,
               stats.generate_seconds, stats.generate_tokens_per_second,
               !gen.gpu_sampling || gen.on_logits ? "sampled on the CPU"
               : gen.json_object || gen.json_schema || gen.grammar
                   ? "sampled on the GPU behind the constraint's token mask, each step waited for"
                   : ("sampled on the GPU, " + std::to_string(gen.in_flight) + " steps in flight").c_str());
  std::fprintf(stderr, "GPU memory: %.1f MiB for this model (weights %.1f MiB, KV cache and activations %.1f MiB)",
               mem.total_bytes / 1048576.0, mem.constant_bytes / 1048576.0,
               (mem.tensor_bytes + mem.scratch_bytes) / 1048576.0);
  // A split model's other devices are not the runtime's.
  if (on_runtime_device) std::fprintf(stderr, "; peak on the device %.1f MiB", runtime.peak_buffer_bytes() / 1048576.0);
  std::fputc('\n', stderr);
}

int generate(const GenerateArgs& args) {
  std::string prompt = prompt_text(args);
  if (prompt.empty() && args.prompt_tokens.empty()) {
    throw Error(ErrorCode::InvalidArgument, "no prompt: pass one, or --file PATH, or - for stdin");
  }
  api::GenerateOptions gen = generate_options(args);
  const api::Runtime runtime = api::Runtime::create(runtime_options(args.devices));
  api::Llm model = load_model(runtime, args, gen);
  const std::vector<int32_t> tokens = prompt_tokens(model, args, prompt);

  std::signal(SIGINT, on_sigint);
  if (!args.quiet) {
    std::fputs(prompt.c_str(), stdout);
    std::fflush(stdout);
  }
  std::vector<float> dumped;  // every step's logits, for --dump-logits
  size_t dumped_steps = 0;
  if (!args.dump_logits.empty()) {
    gen.on_logits = [&](std::span<const float> logits) {
      dumped.insert(dumped.end(), logits.begin(), logits.end());
      ++dumped_steps;
    };
  }
  const api::GenerateResult stats = model.generate(std::span<const int32_t>(tokens), gen, [&](std::string_view text) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return true;
  });
  std::signal(SIGINT, SIG_DFL);
  std::fputs("\n", stdout);
  if (!args.dump_logits.empty() && dumped_steps > 0) write_logits(args.dump_logits, dumped, dumped_steps);
  if (args.print_token_ids) {
    std::string ids;
    for (int32_t id : stats.tokens) ids += (ids.empty() ? "" : ",") + std::to_string(id);
    std::fprintf(stderr, "token ids: %s\n", ids.c_str());
  }
  if (!args.quiet) print_report(stats, gen, model, runtime, args.devices.size() < 2);
  return stats.cancelled ? 130 : 0;
}

}  // namespace

Command add_generate(CLI::App& app) {
  CLI::App* cmd = add_command(
      app, "generate", "generate text with a Llama-family GGUF model (default: SmolLM2-135M)",
      "Generates text with a Llama-family model. With no --model, uses SmolLM2-135M-Instruct\n"
      "(Q4_1), installed by scripts/setup.sh. The prompt may also come from --file or stdin (-).");
  auto a = std::make_shared<GenerateArgs>();
  cmd->add_option("prompt", a->prompt_words, "the prompt (its words are joined by spaces); - reads stdin")
      ->type_name("PROMPT");
  cmd->add_option("--model", a->model,
                  "GGUF file (llama, mistral, qwen2 architectures), or a .pte from\n"
                  "ExecuTorch's Llama export with the Vulkan backend (needs --tokenizer)")
      ->type_name("PATH");
  cmd->add_option("--tokenizer", a->tokenizer, "for a .pte model: a GGUF file whose tokenizer it uses")->type_name("PATH");
  cmd->add_option("-n", a->n, "tokens to generate (default 128)")->type_name("N")->check(in_range(0, INT32_MAX));
  cmd->add_option("--temp", a->temp, "temperature; 0 is greedy (default 0.8)")->type_name("T");
  cmd->add_option("--top-k", a->top_k, "keep the K most likely tokens; 0 is off (default 40)")->type_name("K");
  cmd->add_option("--top-p", a->top_p, "nucleus sampling mass (default 0.95)")->type_name("P");
  cmd->add_option("--min-p", a->min_p, "drop tokens below P x the best one's probability (default 0.05)")->type_name("P");
  cmd->add_option("--repeat-penalty", a->repeat_penalty, "penalize the last 64 tokens (default 1.0: off)")->type_name("R");
  cmd->add_option("--presence-penalty", a->presence_penalty,
                  "subtract from the logit of each token among the last 64 (OpenAI's; default 0: off)")
      ->type_name("P");
  cmd->add_option("--frequency-penalty", a->frequency_penalty,
                  "subtract once per occurrence among the last 64 tokens (OpenAI's; default 0: off)")
      ->type_name("F");
  cmd->add_option("--seed", a->seed, "random seed (default 0); the same seed repeats the output")->type_name("S");
  repeatable(cmd->add_option("--stop", a->stop, "stop where the output contains TEXT (not printed); repeatable"))
      ->type_name("TEXT");
  cmd->add_option("--in-flight", a->in_flight,
                  "decode steps queued ahead of the host, sampled and fed back on the\n"
                  "GPU (default " + std::to_string(api::GenerateOptions{}.in_flight) + "; 1 waits for each token)")
      ->type_name("K");
  cmd->add_flag("--cpu-sampling", a->cpu_sampling, "read the logits back and sample on the CPU each token instead");
  cmd->add_flag("--no-fuse", a->no_fuse,
                "load without the fusion passes (RMSNorm and residual adds run as their own kernels)");
  cmd->add_flag("--kv-f16", a->kv_f16, "keep the KV cache in f16 (GGUF models): half its memory, rows rounded to f16");
  cmd->add_option("--ctx", a->ctx, "context length: prompt + generated tokens (default 2048)")->type_name("N");
  add_devices_option(cmd, a->devices);
  cmd->add_option("--chunk", a->chunk, "most prompt tokens per forward pass (default 256)")->type_name("N");
  cmd->add_flag("--chat", a->chat, "wrap the prompt in the model's chat template");
  cmd->add_option("--system", a->system, "system message for --chat")->type_name("TEXT");
  cmd->add_option("--file", a->file, "read the prompt from a file")->type_name("PATH");
  cmd->add_flag("--json", a->json, "the reply is one JSON object (constrained decoding: a token mask on the GPU sampler)");
  cmd->add_option("--json-schema", a->json_schema,
                  "the reply is one value of the JSON Schema in this file (the subset wgrt serve takes)")
      ->type_name("PATH");
  cmd->add_option("--grammar", a->grammar,
                  "the reply is a sentence of the GBNF grammar in this file (llama.cpp's format; samples on the CPU)")
      ->type_name("PATH");
  cmd->add_flag("--quiet", a->quiet, "print only the generated text");
  const std::string testing = "for testing against a reference";
  cmd->add_option("--prompt-tokens", a->prompt_tokens, "comma-separated token ids instead of a text prompt")
      ->type_name("IDS")
      ->group(testing);
  cmd->add_option("--dump-logits", a->dump_logits,
                  "write the logits each token was sampled from as .npy [steps, vocab]\n"
                  "(samples on the CPU: every step's logits come back)\n"
                  "(row 0: the prompt's last position; one row per decode step after)")
      ->type_name("PATH")
      ->group(testing);
  cmd->add_flag("--print-token-ids", a->print_token_ids, "print the generated token ids on stderr at the end")->group(testing);
  cmd->add_flag("--ignore-eos", a->ignore_eos, "keep generating past end-of-sequence tokens")->group(testing);
  return {cmd, [a] { return generate(*a); }};
}

}  // namespace wgrt::cli
