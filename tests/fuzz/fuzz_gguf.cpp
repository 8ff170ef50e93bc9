// GGUF reader: header, metadata, tensor table, then every tensor dequantized
// on the host and the tokenizer, chat template and Llama config read from
// the metadata (all that happens to a GGUF before the GPU).
#include "fuzz_util.h"
#include "import/gguf/dequantize.h"
#include "import/gguf/gguf_file.h"
#include "import/gguf/llama_config.h"
#include "llm/tokenizer/chat_template.h"
#include "llm/tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wgrt;
  return fuzz::run([&] {
    const gguf::GgufFile file = gguf::GgufFile::parse({data, data + size}, "fuzz.gguf");
    for (const gguf::TensorInfo& t : file.tensors()) fuzz::run([&] { gguf::dequantize_tensor(file, t); });
    fuzz::run([&] { llm::Tokenizer::from_gguf(file); });
    fuzz::run([&] { llm::ChatTemplate::from_gguf(file); });
    fuzz::run([&] { gguf::LlamaConfig::from_gguf(file); });
  });
}
