// Reading one GGUF metadata value (after its type id) from a ByteReader.
#pragma once

#include <cstdint>
#include <string_view>

#include "import/gguf/byte_reader.h"
#include "import/gguf/gguf_value.h"

namespace wgrt::gguf {

// `type_id` is the raw u32 read from the file and `type_offset` where it was;
// `key` names the value in messages. Unknown type ids and absurd array counts
// are InvalidProgram; arrays of arrays are NotSupported.
Value read_value(ByteReader& reader, uint32_t type_id, uint64_t type_offset, std::string_view key);

}  // namespace wgrt::gguf
