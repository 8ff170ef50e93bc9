#include "import/gguf/byte_reader.h"

#include <algorithm>

#include "wgrt/error.h"

namespace wgrt::gguf {

void ByteReader::require(uint64_t bytes, std::string_view what) {
  if (bytes > remaining()) {
    fail(pos_, "truncated " + std::string(what) + ": expected " + std::to_string(bytes) +
                   " bytes, got " + std::to_string(remaining()) + " before the end of the file (" +
                   std::to_string(size()) + " bytes)");
  }
  const uint64_t end = pos_ + bytes;
  if (end <= window_.size()) return;
  if (end > kMaxHeaderBytes) {
    fail(pos_, std::string(what) + " of " + std::to_string(bytes) + " bytes would end past the first " +
                   std::to_string(kMaxHeaderBytes >> 20) +
                   " MiB of the file, the most metadata and tensor info wgrt reads");
  }
  // Grow geometrically, so a header is read in a few large reads.
  const uint64_t want = std::min({size(), kMaxHeaderBytes, std::max({end, 2 * uint64_t(window_.size()), uint64_t{1} << 20})});
  const uint64_t have = window_.size();
  window_.resize(want);
  file_.read(have, std::span<uint8_t>(window_.data() + have, want - have));
}

std::span<const uint8_t> ByteReader::peek(uint64_t n, std::string_view what) {
  require(n, what);
  return {window_.data() + pos_, size_t(n)};
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
  require(length, what);
  std::string s(reinterpret_cast<const char*>(window_.data() + pos_), length);
  pos_ += length;
  return s;
}

void ByteReader::fail(uint64_t offset, const std::string& message) const {
  throw Error(ErrorCode::InvalidProgram,
              source_ + ": at byte " + std::to_string(offset) + ": " + message);
}

}  // namespace wgrt::gguf
