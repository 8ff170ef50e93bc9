// Chat templates: a template source (recognised or refused) rendered over
// arbitrary messages. The input is split at NUL bytes: the source, then
// role, content pairs; byte 0 sets add_generation_prompt.
#include "fuzz_util.h"
#include "llm/tokenizer/chat_template.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wgrt;
  if (size < 1) return 0;
  std::vector<std::string> parts(1);
  for (size_t i = 1; i < size; ++i) {
    if (data[i] == 0) {
      parts.emplace_back();
    } else {
      parts.back() += char(data[i]);
    }
  }
  std::vector<llm::ChatMessage> messages;
  for (size_t i = 1; i + 1 < parts.size(); i += 2) messages.push_back({parts[i], parts[i + 1]});
  return fuzz::run([&] { llm::apply_chat_template(parts[0], messages, data[0] & 1); });
}
