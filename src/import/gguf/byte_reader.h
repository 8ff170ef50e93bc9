// A bounds-checked little-endian cursor over a GGUF file's header (metadata
// and tensor infos). The bytes are read from the file as the cursor reaches
// them, never the weights after them. Every read that would pass the end
// throws Error(InvalidProgram) naming the byte offset, what was being read,
// and how many bytes it needed versus how many remain.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wgrt/range_reader.h"

namespace wgrt::gguf {

class ByteReader {
 public:
  // The most header bytes read: real headers (a 256K-token vocabulary with
  // its merges) take tens of MiB; a claimed length past this is refused
  // rather than allocated.
  static constexpr uint64_t kMaxHeaderBytes = uint64_t{256} << 20;

  // `source` names the file in messages.
  ByteReader(const RangeReader& file, std::string source) : file_(file), source_(std::move(source)) {}

  uint64_t offset() const { return pos_; }
  uint64_t size() const { return file_.size(); }
  uint64_t remaining() const { return size() - pos_; }

  template <class T>
  T read(std::string_view what) {
    require(sizeof(T), what);
    T value;
    std::memcpy(&value, window_.data() + pos_, sizeof(T));  // GGUF is little-endian, as are wgrt's hosts
    pos_ += sizeof(T);
    return value;
  }

  // The next `n` bytes, without moving the cursor (require'd first).
  std::span<const uint8_t> peek(uint64_t n, std::string_view what);

  // A GGUF string: u64 length, then that many bytes (not NUL-terminated).
  std::string read_string(std::string_view what);

  // Throws unless `bytes` more bytes are available; reads them in.
  void require(uint64_t bytes, std::string_view what);

  // Error(InvalidProgram, "<source>: at byte <offset>: <message>").
  [[noreturn]] void fail(uint64_t offset, const std::string& message) const;
  const std::string& source() const { return source_; }

 private:
  const RangeReader& file_;
  std::string source_;
  std::vector<uint8_t> window_;  // the file's first bytes, [0, window_.size())
  uint64_t pos_ = 0;
};

}  // namespace wgrt::gguf
