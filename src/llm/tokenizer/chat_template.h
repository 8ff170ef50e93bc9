// Chat templates: turning a conversation into the prompt text a model was
// trained on. GGUF files carry the template as Jinja source
// (`tokenizer.chat_template`), which wgrt runs with its Jinja subset
// (llm/jinja/jinja.h). Templates outside that subset, and files without one,
// fall back to built-in renderings of the common formats, recognised from
// their markers:
//   ChatML   <|im_start|>role\ncontent<|im_end|>\n      (SmolLM2, Qwen, ...)
//   Llama 2  <s>[INST] <<SYS>>\nsys\n<</SYS>>\n\nuser [/INST] answer </s>
//   Llama 3  <|begin_of_text|><|start_header_id|>role<|end_header_id|>\n\ncontent<|eot_id|>
// The output contains special-token text; encode it with parse_special and
// without add_special (the BOS is already in the text where the format has one).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wgrt::gguf {
class GgufFile;
}

namespace wgrt::llm {

namespace jinja {
class Template;
struct Value;
}

struct ChatMessage {
  std::string role;  // "system", "user", "assistant"
  std::string content;
};

enum class ChatFormat { ChatML, Llama2, Llama3 };

class ChatTemplate {
 public:
  // Recognises the format of Jinja source. NotSupported when none matches.
  static ChatTemplate from_source(std::string_view source);
  // tokenizer.chat_template run as Jinja when it parses; otherwise its
  // recognised format; a file without one gets ChatML.
  static ChatTemplate from_gguf(const gguf::GgufFile& file);
  // Jinja source run as it is, with these texts as bos_token / eos_token.
  // InvalidArgument naming the line of anything outside the subset.
  static ChatTemplate from_jinja(std::string_view source, std::string bos_token, std::string eos_token);
  explicit ChatTemplate(ChatFormat format, std::optional<std::string> default_system = std::nullopt)
      : format_(format), default_system_(std::move(default_system)) {}

  ChatFormat format() const { return format_; }
  // Whether apply() runs the file's own Jinja template.
  bool runs_jinja() const { return jinja_ != nullptr; }
  // The system message the template inserts when the conversation has none
  // (SmolLM2's "You are a helpful AI assistant named SmolLM, ...").
  const std::optional<std::string>& default_system() const { return default_system_; }

  // `add_generation_prompt` appends the opening of the assistant's turn.
  // InvalidArgument for roles the format cannot express, and for the
  // template's own raise_exception() (e.g. roles that do not alternate).
  std::string apply(const std::vector<ChatMessage>& messages, bool add_generation_prompt) const;
  // The file's Jinja template run on values the caller made: `messages` a
  // list of message dicts (role and content, and tool_calls, tool_call_id
  // where a conversation with tools has them), `tools` a list of OpenAI tool
  // dicts. NotSupported when the template is not run as Jinja (the built-in
  // renderings have no tools).
  std::string apply_values(const jinja::Value& messages, const jinja::Value& tools, bool add_generation_prompt) const;
  // The Jinja source the template was made from ("" for the built-in renderings).
  const std::string& source() const { return source_; }

 private:
  ChatFormat format_;
  std::optional<std::string> default_system_;
  std::shared_ptr<const jinja::Template> jinja_;
  std::string bos_token_, eos_token_;
  std::string source_;
};

// ChatTemplate::from_source(source).apply(messages, add_generation_prompt).
std::string apply_chat_template(std::string_view source, const std::vector<ChatMessage>& messages,
                                bool add_generation_prompt);

}  // namespace wgrt::llm
