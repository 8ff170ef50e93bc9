#include "llm/tokenizer/chat_template.h"

#include "import/gguf/gguf_file.h"
#include "llm/jinja/jinja.h"
#include "wgrt/error.h"

namespace wgrt::llm {
namespace {

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// Jinja's `| trim` / Python's str.strip() for the ASCII whitespace that matters.
std::string strip(std::string_view s) {
  const char* ws = " \t\n\r\f\v";
  const size_t a = s.find_first_not_of(ws);
  if (a == std::string_view::npos) return "";
  const size_t b = s.find_last_not_of(ws);
  return std::string(s.substr(a, b - a + 1));
}

// A Jinja string literal's escapes (\n, \', \") as text.
std::string unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      const char c = s[++i];
      out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
    } else {
      out += s[i];
    }
  }
  return out;
}

// A ChatML template that, when the first message is not a system message,
// emits a fixed system turn: that turn's text.
std::optional<std::string> chatml_default_system(std::string_view src) {
  if (!contains(src, "!= 'system'") && !contains(src, "!= \"system\"")) return std::nullopt;
  const std::string_view open = "<|im_start|>system";
  const size_t at = src.find(open);
  if (at == std::string_view::npos) return std::nullopt;
  size_t body = at + open.size();
  if (src.compare(body, 2, "\\n") == 0) body += 2;
  else if (src.compare(body, 1, "\n") == 0) body += 1;
  else return std::nullopt;  // "system" is followed by template code, not text
  const size_t end = src.find("<|im_end|>", body);
  if (end == std::string_view::npos) return std::nullopt;
  const std::string_view text = src.substr(body, end - body);
  if (contains(text, "'") || contains(text, "{")) return std::nullopt;  // not one literal
  return unescape(text);
}

std::string chatml(const std::vector<ChatMessage>& messages, bool gen,
                   const std::optional<std::string>& default_system) {
  std::string out;
  if (default_system && (messages.empty() || messages[0].role != "system")) {
    // The template only does this inside its message loop (loop.first).
    if (!messages.empty()) out += "<|im_start|>system\n" + *default_system + "<|im_end|>\n";
  }
  for (const ChatMessage& m : messages) out += "<|im_start|>" + m.role + "\n" + m.content + "<|im_end|>\n";
  if (gen) out += "<|im_start|>assistant\n";
  return out;
}

std::string llama2(const std::vector<ChatMessage>& messages) {
  size_t first = 0;
  std::string system;
  if (!messages.empty() && messages[0].role == "system") {
    system = messages[0].content;
    first = 1;
  }
  std::string out;
  for (size_t i = first; i < messages.size(); ++i) {
    const ChatMessage& m = messages[i];
    std::string content = m.content;
    if (i == first && first == 1) content = "<<SYS>>\n" + system + "\n<</SYS>>\n\n" + content;
    if (m.role == "user") {
      out += "<s>[INST] " + strip(content) + " [/INST]";
    } else if (m.role == "assistant") {
      out += ' ';  // appended piecewise: GCC 12 warns (-Wrestrict) on " " + string
      out += strip(content);
      out += " </s>";
    } else {
      throw Error(ErrorCode::InvalidArgument,
                  "the Llama 2 chat format has no role '" + m.role + "' (message " + std::to_string(i) +
                      "); it takes one leading system message, then user and assistant");
    }
  }
  return out;
}

std::string llama3(const std::vector<ChatMessage>& messages, bool gen) {
  std::string out = "<|begin_of_text|>";
  for (const ChatMessage& m : messages) {
    out += "<|start_header_id|>" + m.role + "<|end_header_id|>\n\n" + strip(m.content) + "<|eot_id|>";
  }
  if (gen) out += "<|start_header_id|>assistant<|end_header_id|>\n\n";
  return out;
}

}  // namespace

ChatTemplate ChatTemplate::from_source(std::string_view src) {
  if (contains(src, "<|im_start|>")) return ChatTemplate(ChatFormat::ChatML, chatml_default_system(src));
  if (contains(src, "<|start_header_id|>")) return ChatTemplate(ChatFormat::Llama3);
  if (contains(src, "[INST]")) return ChatTemplate(ChatFormat::Llama2);
  throw Error(ErrorCode::NotSupported,
              "unrecognised chat template (wgrt knows ChatML, Llama 2 [INST] and Llama 3 header "
              "formats): " + std::string(src.substr(0, 120)) + (src.size() > 120 ? "..." : ""));
}

ChatTemplate ChatTemplate::from_jinja(std::string_view source, std::string bos_token, std::string eos_token) {
  ChatTemplate t(ChatFormat::ChatML);
  try {
    t = from_source(source);  // the format too, for callers that ask
  } catch (const Error&) {
  }
  t.jinja_ = std::make_shared<const jinja::Template>(jinja::Template::parse(source));
  t.source_ = std::string(source);
  t.bos_token_ = std::move(bos_token);
  t.eos_token_ = std::move(eos_token);
  return t;
}

ChatTemplate ChatTemplate::from_gguf(const gguf::GgufFile& file) {
  const auto src = file.get_optional<std::string>("tokenizer.chat_template");
  if (!src || src->empty()) return ChatTemplate(ChatFormat::ChatML);
  // The texts of the BOS and EOS tokens, which templates print.
  auto token_text = [&](const char* key) -> std::string {
    const auto id = file.get_int_optional(key);
    if (!id || !file.has("tokenizer.ggml.tokens")) return "";
    const auto& tokens = file.get_array<std::string>("tokenizer.ggml.tokens");
    return *id >= 0 && uint64_t(*id) < tokens.size() ? tokens[size_t(*id)] : "";
  };
  try {
    return from_jinja(*src, token_text("tokenizer.ggml.bos_token_id"), token_text("tokenizer.ggml.eos_token_id"));
  } catch (const Error&) {
    return from_source(*src);  // outside the Jinja subset: the built-in rendering of its format
  }
}

std::string ChatTemplate::apply(const std::vector<ChatMessage>& messages,
                                bool add_generation_prompt) const {
  if (jinja_) {
    jinja::Array list;
    for (const ChatMessage& m : messages) {
      list.push_back(jinja::Value::dict({{"role", jinja::Value::string(m.role)},
                                         {"content", jinja::Value::string(m.content)}}));
    }
    return jinja_->render({{"messages", jinja::Value::list(std::move(list))},
                           {"add_generation_prompt", jinja::Value::boolean(add_generation_prompt)},
                           {"bos_token", jinja::Value::string(bos_token_)},
                           {"eos_token", jinja::Value::string(eos_token_)}});
  }
  switch (format_) {
    case ChatFormat::ChatML: return chatml(messages, add_generation_prompt, default_system_);
    case ChatFormat::Llama2: return llama2(messages);  // the prompt already ends in [/INST]
    case ChatFormat::Llama3: return llama3(messages, add_generation_prompt);
  }
  throw Error(ErrorCode::Internal, "unknown chat format");
}

std::string ChatTemplate::apply_values(const jinja::Value& messages, const jinja::Value& tools,
                                       bool add_generation_prompt) const {
  if (!jinja_) {
    throw Error(ErrorCode::NotSupported,
                "this model's chat template is not run as Jinja (wgrt's built-in rendering of its format), "
                "which cannot show tools or tool calls");
  }
  return jinja_->render({{"messages", messages},
                         {"tools", tools},
                         {"add_generation_prompt", jinja::Value::boolean(add_generation_prompt)},
                         {"bos_token", jinja::Value::string(bos_token_)},
                         {"eos_token", jinja::Value::string(eos_token_)}});
}

std::string apply_chat_template(std::string_view source, const std::vector<ChatMessage>& messages,
                                bool add_generation_prompt) {
  return ChatTemplate::from_source(source).apply(messages, add_generation_prompt);
}

}  // namespace wgrt::llm
