// `wgrt generate`: text generation with a Llama-family GGUF model (the
// built-in SmolLM2-135M-Instruct unless --model says otherwise).
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>

#include "cli/args.h"
#include "cli/commands.h"
#include "core/npy.h"
#include "cli/progress.h"
#include "gpu/device.h"
#include "llm/generate.h"
#include "llm/llm_model.h"
#include "wgrt/error.h"

namespace wgrt::cli {
namespace {

constexpr const char* kUsage =
    "usage: wgrt generate [PROMPT] [options]\n"
    "\n"
    "Generates text with a Llama-family model. With no --model, uses SmolLM2-135M-Instruct\n"
    "(Q4_1), installed by scripts/setup.sh. The prompt may also come from --file or stdin (-).\n"
    "\n"
    "options:\n"
    "  --model PATH         GGUF file (llama, mistral, qwen2 architectures), or a .pte from\n"
    "                       ExecuTorch's Llama export with the Vulkan backend (needs --tokenizer)\n"
    "  --tokenizer PATH     for a .pte model: a GGUF file whose tokenizer it uses\n"
    "  -n N                 tokens to generate (default 128)\n"
    "  --temp T             temperature; 0 is greedy (default 0.8)\n"
    "  --top-k K            keep the K most likely tokens; 0 is off (default 40)\n"
    "  --top-p P            nucleus sampling mass (default 0.95)\n"
    "  --min-p P            drop tokens below P x the best one's probability (default 0.05)\n"
    "  --repeat-penalty R   penalize the last 64 tokens (default 1.0: off)\n"
    "  --seed S             random seed (default 0); the same seed repeats the output\n"
    "  --stop TEXT          stop where the output contains TEXT (not printed); repeatable\n"
    "  --in-flight K        decode steps queued ahead of the host, sampled and fed back on the\n"
    "                       GPU (default 4; 1 waits for each token)\n"
    "  --cpu-sampling       read the logits back and sample on the CPU each token instead\n"
    "  --ctx N              context length: prompt + generated tokens (default 2048)\n"
    "  --chunk N            most prompt tokens per forward pass (default 256)\n"
    "  --kv-f16             keep the KV cache in f16 (GGUF models): half its memory, rows rounded to f16\n"
    "  --chat               wrap the prompt in the model's chat template\n"
    "  --system TEXT        system message for --chat\n"
    "  --file PATH          read the prompt from a file\n"
    "  --quiet              print only the generated text\n"
    "\n"
    "for testing against a reference:\n"
    "  --prompt-tokens IDS  comma-separated token ids instead of a text prompt\n"
    "  --dump-logits PATH   write the logits each token was sampled from as .npy [steps, vocab]\n"
    "                       (samples on the CPU: every step's logits come back)\n"
    "                       (row 0: the prompt's last position; one row per decode step after)\n"
    "  --print-token-ids    print the generated token ids on stderr at the end\n"
    "  --ignore-eos         keep generating past end-of-sequence tokens\n";

std::atomic<bool> g_cancel{false};

void on_sigint(int) {
  if (g_cancel.exchange(true)) std::_Exit(130);  // a second Ctrl-C ends at once
}

std::vector<llm::TokenId> parse_token_ids(const std::string& list) {
  std::vector<llm::TokenId> ids;
  size_t i = 0;
  while (i < list.size()) {
    const size_t j = std::min(list.find(',', i), list.size());
    try {
      ids.push_back(llm::TokenId(std::stol(list.substr(i, j - i))));
    } catch (...) {
      throw Error(ErrorCode::InvalidArgument, "--prompt-tokens: '" + list.substr(i, j - i) + "' is not a token id");
    }
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

}  // namespace

int run_generate(int argc, char** argv) {
  if (asks_for_help(argc, argv)) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  const Args args(argc, argv,
                  {"--model", "--tokenizer", "-n", "--temp", "--top-k", "--top-p", "--min-p", "--repeat-penalty", "--seed", "--stop", "--ctx",
                   "--chunk", "--system", "--file", "--prompt-tokens", "--dump-logits", "--in-flight"},
                  {"--chat", "--quiet", "--print-token-ids", "--ignore-eos", "--cpu-sampling", "--kv-f16"});
  std::string prompt;
  if (auto file = args.get("--file")) {
    std::FILE* f = std::fopen(file->c_str(), "rb");
    if (!f) throw Error(ErrorCode::NotFound, "cannot open prompt file " + *file + ": " + std::strerror(errno));
    prompt = read_all(f);
    std::fclose(f);
  } else if (!args.positionals().empty() && args.positionals()[0] == "-") {
    prompt = read_all(stdin);
  } else {
    for (const auto& p : args.positionals()) prompt += (prompt.empty() ? "" : " ") + p;
  }
  const auto prompt_ids = args.get("--prompt-tokens");
  if (prompt.empty() && !prompt_ids) throw Error(ErrorCode::InvalidArgument, "no prompt: pass one, or --file PATH, or - for stdin");
  const bool quiet = args.flag("--quiet");

  llm::GenerateOptions gen;
  gen.max_tokens = int32_t(args.get_int("-n", 128));
  gen.sampler.temperature = float(args.get_double("--temp", 0.8));
  gen.sampler.top_k = int32_t(args.get_int("--top-k", 40));
  gen.sampler.top_p = float(args.get_double("--top-p", 0.95));
  gen.sampler.min_p = float(args.get_double("--min-p", 0.05));
  gen.sampler.repeat_penalty = float(args.get_double("--repeat-penalty", 1.0));
  gen.sampler.seed = uint64_t(args.get_int("--seed", 0));
  gen.in_flight = int32_t(args.get_int("--in-flight", 4));
  gen.gpu_sampling = !args.flag("--cpu-sampling");
  gen.cancel = &g_cancel;
  gen.ignore_eos = args.flag("--ignore-eos");
  gen.stop = args.get_all("--stop");
  if (gen.max_tokens < 0) throw Error(ErrorCode::InvalidArgument, "-n must be >= 0");
  llm::validate(gen);  // before loading; top-k is checked against the vocabulary once it is known

  auto device = gpu::Device::create();
  llm::LlmLoadOptions load;
  load.path = args.get_or("--model", "");
  load.tokenizer_path = args.get_or("--tokenizer", "");
  load.context = args.get_int("--ctx", 2048);
  load.chunk = args.get_int("--chunk", 256);
  load.kv_f16 = args.flag("--kv-f16");
  load.check_vocab = [&](int64_t vocab) { llm::validate(gen, vocab); };
  std::unique_ptr<llm::LlmModel> model;
  {
    ProgressBar bar("loading");
    if (!quiet) load.on_progress = [&](size_t done, size_t total, const char* stage) { bar.update(done, total, stage); };
    model = llm::LlmModel::load(*device, load);
  }
  if (!quiet) {
    std::fprintf(stderr, "model: %s\n  %s\n  on %s (%s), context %lld\n", model->path().c_str(),
                 model->config().summary().c_str(), device->adapter_info().name.c_str(),
                 device->adapter_info().backend.c_str(), static_cast<long long>(model->context()));
  }

  if (args.flag("--chat") && !prompt_ids) {
    std::vector<llm::ChatMessage> messages;
    if (auto sys = args.get("--system")) messages.push_back({"system", *sys});
    messages.push_back({"user", prompt});
    prompt = model->chat_template().apply(messages, /*add_generation_prompt=*/true);
  }
  const std::vector<llm::TokenId> tokens =
      prompt_ids ? parse_token_ids(*prompt_ids) : model->tokenizer().encode(prompt, /*add_special=*/true, /*parse_special=*/true);
  if (prompt_ids) prompt = model->tokenizer().decode(tokens);

  std::signal(SIGINT, on_sigint);
  if (!quiet) {
    std::fputs(prompt.c_str(), stdout);
    std::fflush(stdout);
  }
  std::vector<llm::TokenId> generated;
  std::vector<float> dumped;  // every step's logits, for --dump-logits
  size_t dumped_steps = 0;
  if (args.get("--dump-logits")) {
    gen.on_logits = [&](std::span<const float> logits) {
      dumped.insert(dumped.end(), logits.begin(), logits.end());
      ++dumped_steps;
    };
  }
  const llm::GenerateStats stats = llm::generate(*model, tokens, gen, [&](llm::TokenId id, std::string_view text) {
    if (id >= 0) generated.push_back(id);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return true;
  });
  std::signal(SIGINT, SIG_DFL);
  std::fputs("\n", stdout);
  if (auto path = args.get("--dump-logits"); path && dumped_steps > 0) {
    write_npy(*path, DType::F32, {int64_t(dumped_steps), int64_t(dumped.size() / dumped_steps)},
              std::span(reinterpret_cast<const uint8_t*>(dumped.data()), dumped.size() * 4));
  }

  if (args.flag("--print-token-ids")) {
    std::string ids;
    for (llm::TokenId id : generated) ids += (ids.empty() ? "" : ",") + std::to_string(id);
    std::fprintf(stderr, "token ids: %s\n", ids.c_str());
  }
  if (!quiet) {
    const MemoryStats mem = model->memory_stats();
    std::fprintf(stderr, "\n%s\n", stats.cancelled ? "[stopped by Ctrl-C]" : stats.context_full ? "[context full]" : "");
    std::fprintf(stderr, "prompt:     %5zu tokens in %7.3f s = %8.1f tokens/s\n", stats.prompt_tokens,
                 stats.prompt_seconds, stats.prompt_tokens_per_second());
    std::fprintf(stderr, "generation: %5zu tokens in %7.3f s = %8.1f tokens/s (%s)\n", stats.generated_tokens,
                 stats.generate_seconds, stats.generate_tokens_per_second(),
                 gen.gpu_sampling && model->can_sample_on_gpu() && !gen.on_logits
                     ? ("sampled on the GPU, " + std::to_string(gen.in_flight) + " steps in flight").c_str()
                     : "sampled on the CPU");
    std::fprintf(stderr, "GPU memory: %.1f MiB for this model (weights %.1f MiB, KV cache and activations %.1f MiB); "
                 "peak on the device %.1f MiB\n",
                 mem.total_bytes / 1048576.0, mem.constant_bytes / 1048576.0,
                 (mem.tensor_bytes + mem.scratch_bytes) / 1048576.0, device->peak_buffer_bytes() / 1048576.0);
  }
  return stats.cancelled ? 130 : 0;
}

}  // namespace wgrt::cli
