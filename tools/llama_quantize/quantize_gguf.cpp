// A minimal quantizer over llama.cpp's library: llama_model_quantize(), the
// function llama.cpp's own `llama-quantize` tool calls, with its default
// parameters (so each mix gets exactly the per-tensor types llama-quantize
// picks) and requantization allowed. Built by scripts/build_llama_quantize.sh
// against libllama alone: llama-quantize itself also links llama.cpp's
// `common` library (argument parsing, chat, HTTP), which is nearly half of the
// build on a 2-core machine and which quantizing does not need.
//
// Usage: quantize_gguf IN.gguf OUT.gguf TYPE[-pure] [THREADS]
//        TYPE: Q4_K_M Q5_K_M Q3_K_M Q2_K IQ4_XS Q4_0 Q5_0 Q8_0 ...; "-pure"
//        is llama-quantize's --pure (one type for every matrix it can hold).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "llama.h"

namespace {

struct Mix {
  const char* name;
  llama_ftype ftype;
};

constexpr Mix kMixes[] = {
    {"Q4_0", LLAMA_FTYPE_MOSTLY_Q4_0},     {"Q4_1", LLAMA_FTYPE_MOSTLY_Q4_1},
    {"Q5_0", LLAMA_FTYPE_MOSTLY_Q5_0},     {"Q5_1", LLAMA_FTYPE_MOSTLY_Q5_1},
    {"Q8_0", LLAMA_FTYPE_MOSTLY_Q8_0},     {"Q2_K", LLAMA_FTYPE_MOSTLY_Q2_K},
    {"Q3_K_S", LLAMA_FTYPE_MOSTLY_Q3_K_S}, {"Q3_K_M", LLAMA_FTYPE_MOSTLY_Q3_K_M},
    {"Q3_K_L", LLAMA_FTYPE_MOSTLY_Q3_K_L}, {"Q4_K_S", LLAMA_FTYPE_MOSTLY_Q4_K_S},
    {"Q4_K_M", LLAMA_FTYPE_MOSTLY_Q4_K_M}, {"Q5_K_S", LLAMA_FTYPE_MOSTLY_Q5_K_S},
    {"Q5_K_M", LLAMA_FTYPE_MOSTLY_Q5_K_M}, {"Q6_K", LLAMA_FTYPE_MOSTLY_Q6_K},
    {"IQ4_NL", LLAMA_FTYPE_MOSTLY_IQ4_NL}, {"IQ4_XS", LLAMA_FTYPE_MOSTLY_IQ4_XS},
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || argc > 5) {
    std::fprintf(stderr, "usage: %s IN.gguf OUT.gguf TYPE [THREADS]\n", argv[0]);
    return 2;
  }
  std::string type = argv[3];
  const bool pure = type.size() > 5 && type.compare(type.size() - 5, 5, "-pure") == 0;
  if (pure) type.resize(type.size() - 5);
  const Mix* mix = nullptr;
  for (const Mix& m : kMixes) {
    if (type == m.name) mix = &m;
  }
  if (!mix) {
    std::fprintf(stderr, "%s: unknown type '%s'\n", argv[0], argv[3]);
    return 2;
  }
  llama_backend_init();
  llama_model_quantize_params params = llama_model_quantize_default_params();
  params.ftype = mix->ftype;
  params.allow_requantize = true;  // the source may already be quantized
  params.pure = pure;
  params.nthread = argc == 5 ? std::atoi(argv[4]) : 0;
  const uint32_t rc = llama_model_quantize(argv[1], argv[2], &params);
  llama_backend_free();
  if (rc != 0) {
    std::fprintf(stderr, "%s: quantizing %s to %s failed\n", argv[0], argv[1], argv[3]);
    return 1;
  }
  return 0;
}
