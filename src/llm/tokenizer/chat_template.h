// Chat templates: turning a conversation into the prompt text a model was
// trained on. GGUF files carry the template as Jinja source
// (`tokenizer.chat_template`); wgrt does not run Jinja but recognises the
// common formats from their markers and renders them itself:
//   ChatML   <|im_start|>role\ncontent<|im_end|>\n      (SmolLM2, Qwen, ...)
//   Llama 2  <s>[INST] <<SYS>>\nsys\n<</SYS>>\n\nuser [/INST] answer </s>
//   Llama 3  <|begin_of_text|><|start_header_id|>role<|end_header_id|>\n\ncontent<|eot_id|>
// The output contains special-token text; encode it with parse_special and
// without add_special (the BOS is already in the text where the format has one).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wgrt::gguf {
class GgufFile;
}

namespace wgrt::llm {

struct ChatMessage {
  std::string role;  // "system", "user", "assistant"
  std::string content;
};

enum class ChatFormat { ChatML, Llama2, Llama3 };

class ChatTemplate {
 public:
  // Recognises the format of Jinja source. NotSupported when none matches.
  static ChatTemplate from_source(std::string_view source);
  // From tokenizer.chat_template; a file without one gets ChatML.
  static ChatTemplate from_gguf(const gguf::GgufFile& file);
  explicit ChatTemplate(ChatFormat format, std::optional<std::string> default_system = std::nullopt)
      : format_(format), default_system_(std::move(default_system)) {}

  ChatFormat format() const { return format_; }
  // The system message the template inserts when the conversation has none
  // (SmolLM2's "You are a helpful AI assistant named SmolLM, ...").
  const std::optional<std::string>& default_system() const { return default_system_; }

  // `add_generation_prompt` appends the opening of the assistant's turn.
  // InvalidArgument for roles the format cannot express.
  std::string apply(const std::vector<ChatMessage>& messages, bool add_generation_prompt) const;

 private:
  ChatFormat format_;
  std::optional<std::string> default_system_;
};

// ChatTemplate::from_source(source).apply(messages, add_generation_prompt).
std::string apply_chat_template(std::string_view source, const std::vector<ChatMessage>& messages,
                                bool add_generation_prompt);

}  // namespace wgrt::llm
