// The bytes of one input file (.pte or .ptd), either mapped read-only from disk
// or owned in memory, plus bounds-checked little-endian reads that turn every
// out-of-range access into Error(InvalidProgram) naming the file and offset.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wgrt::pte {

class FileBytes {
 public:
  // Maps the file read-only; an LLM's weights are never copied.
  // Throws Error(NotFound) when it cannot be opened.
  static std::shared_ptr<const FileBytes> map(const std::filesystem::path& path);
  // Takes ownership of bytes already in memory; name is used in messages.
  static std::shared_ptr<const FileBytes> own(std::vector<uint8_t> bytes, std::string name);

  ~FileBytes();
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;

  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  const std::string& name() const { return name_; }

  // [offset, offset + size) of this file, or Error(InvalidProgram)
  // "NAME: WHAT at byte O: needs S bytes, file has N".
  std::span<const uint8_t> slice(uint64_t offset, uint64_t size, std::string_view what) const;

  // Error(InvalidProgram) "NAME: WHAT at byte O: DETAIL".
  [[noreturn]] void fail(std::string_view what, uint64_t offset, std::string_view detail) const;

 private:
  FileBytes() = default;
  std::string name_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  std::vector<uint8_t> owned_;
  void* mapping_ = nullptr;  // non-null when data_ is an mmap
};

// Little-endian reads from a span the caller has already bounds-checked.
uint16_t read_u16(std::span<const uint8_t> bytes, size_t offset);
uint32_t read_u32(std::span<const uint8_t> bytes, size_t offset);
uint64_t read_u64(std::span<const uint8_t> bytes, size_t offset);

// Four bytes of magic as text for a message: 'VH00', or hex escapes for
// anything unprintable.
std::string quote_magic(std::span<const uint8_t> bytes, size_t offset);

// flatbuffers' Verifier asserts on anything larger (FLATBUFFERS_MAX_BUFFER_SIZE),
// so a header claiming more must be refused before verification.
constexpr uint64_t kMaxFlatbufferSize = (uint64_t{1} << 31) - 1;

// a + b <= limit without overflow.
inline bool fits(uint64_t a, uint64_t b, uint64_t limit) { return a <= limit && b <= limit - a; }

}  // namespace wgrt::pte
