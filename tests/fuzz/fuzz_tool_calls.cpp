// Tool calls: a model's reply read in every format (wgrt/tool_calls.h), and
// the input as a `tools` array checked and made into a required call's
// constraint. Byte 0 picks the format; the rest is the text.
#include "fuzz_util.h"
#include "wgrt/tool_calls.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wgrt;
  if (size < 1) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const auto format = static_cast<ToolCallFormat>(data[0] % 4);
  return fuzz::run([&] {
    api::parse_tool_calls(format, text);
    api::tool_call_constraint(format == ToolCallFormat::None ? ToolCallFormat::Hermes : format,
                              api::parse_tools(text));
  });
}
