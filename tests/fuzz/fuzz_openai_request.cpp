// The server's request parser (src/server/openai_request.h): an arbitrary
// body for either route, every OpenAI field. Byte 0 picks the route; the
// rest is the body. A bad request must come back as an ApiError (the 400 the
// client gets); any other exception or a crash is a finding.
#include <string_view>

#include "server/api_error.h"
#include "server/openai_request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wgrt::server;
  if (size < 1) return 0;
  const Endpoint endpoint = data[0] & 1 ? Endpoint::ChatCompletions : Endpoint::Completions;
  try {
    parse_generation_request(endpoint, std::string_view(reinterpret_cast<const char*>(data + 1), size - 1));
  } catch (const ApiError&) {
  }
  return 0;
}
