// A bounds-checked little-endian cursor over a GGUF file's bytes. Every read
// that would pass the end throws Error(InvalidProgram) naming the byte offset,
// what was being read, and how many bytes it needed versus how many remain.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

namespace wgrt::gguf {

class ByteReader {
 public:
  // `source` names the file in messages.
  ByteReader(std::span<const uint8_t> bytes, std::string source)
      : bytes_(bytes), source_(std::move(source)) {}

  uint64_t offset() const { return pos_; }
  uint64_t size() const { return bytes_.size(); }
  uint64_t remaining() const { return bytes_.size() - pos_; }

  template <class T>
  T read(std::string_view what) {
    require(sizeof(T), what);
    T value;
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));  // GGUF is little-endian, as are wgrt's hosts
    pos_ += sizeof(T);
    return value;
  }

  // A GGUF string: u64 length, then that many bytes (not NUL-terminated).
  std::string read_string(std::string_view what);

  // Throws unless `bytes` more bytes are available.
  void require(uint64_t bytes, std::string_view what) const;

  // Error(InvalidProgram, "<source>: at byte <offset>: <message>").
  [[noreturn]] void fail(uint64_t offset, const std::string& message) const;
  const std::string& source() const { return source_; }

 private:
  std::span<const uint8_t> bytes_;
  std::string source_;
  uint64_t pos_ = 0;
};

}  // namespace wgrt::gguf
