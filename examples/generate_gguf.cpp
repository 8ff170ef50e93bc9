// Generates text from a GGUF model, streaming it as it comes.
//   generate_gguf model.gguf ["prompt"] [max tokens]
#include <cstdio>
#include <cstdlib>
#include <string>

#include <wgrt/wgrt.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s model.gguf [\"prompt\"] [max tokens]\n", argv[0]);
    return 2;
  }
  try {
    wgrt::api::Runtime runtime = wgrt::api::Runtime::create();
    wgrt::api::LlmOptions options;
    options.path = argv[1];
    options.context = 256;
    wgrt::api::Llm llm = wgrt::api::Llm::load(runtime, options);

    const std::string prompt = llm.apply_chat_template({{"user", argc > 2 ? argv[2] : "What is the capital of France?"}});
    wgrt::api::GenerateOptions gen;
    gen.max_tokens = argc > 3 ? std::atoi(argv[3]) : 32;
    gen.temperature = 0;  // greedy: the same text every run
    const wgrt::api::GenerateResult r = llm.generate(prompt, gen, [](std::string_view text) {
      std::fwrite(text.data(), 1, text.size(), stdout);
      std::fflush(stdout);
      return true;
    });
    std::printf("\n%zu prompt tokens, %zu generated (%.1f tokens/s)\n", r.prompt_tokens, r.tokens.size(),
                r.generate_tokens_per_second);
    return r.tokens.empty() ? 1 : 0;
  } catch (const wgrt::Error& e) {
    std::fprintf(stderr, "error (%s): %s\n", std::string(wgrt::to_string(e.code())).c_str(), e.what());
    return 1;
  }
}
