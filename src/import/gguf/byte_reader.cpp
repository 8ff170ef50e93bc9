#include "import/gguf/byte_reader.h"

#include "wgrt/error.h"

namespace wgrt::gguf {

void ByteReader::require(uint64_t bytes, std::string_view what) const {
  if (bytes > remaining()) {
    fail(pos_, "truncated " + std::string(what) + ": expected " + std::to_string(bytes) +
                   " bytes, got " + std::to_string(remaining()) + " before the end of the file (" +
                   std::to_string(size()) + " bytes)");
  }
}

std::string ByteReader::read_string(std::string_view what) {
  const uint64_t start = pos_;
  const uint64_t length = read<uint64_t>(std::string(what) + " length");
  if (length > remaining()) {
    fail(start, std::string(what) + " runs past the end of the file: expected " +
                    std::to_string(length) + " bytes of string after byte " +
                    std::to_string(pos_) + ", got " + std::to_string(remaining()) +
                    " (file is " + std::to_string(size()) + " bytes)");
  }
  std::string s(reinterpret_cast<const char*>(bytes_.data() + pos_), length);
  pos_ += length;
  return s;
}

void ByteReader::fail(uint64_t offset, const std::string& message) const {
  throw Error(ErrorCode::InvalidProgram,
              source_ + ": at byte " + std::to_string(offset) + ": " + message);
}

}  // namespace wgrt::gguf
