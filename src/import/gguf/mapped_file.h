// A whole file mapped read-only into memory (mmap). GGUF weights are read in
// place from the mapping rather than copied.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace wgrt::gguf {

class MappedFile {
 public:
  // Throws Error(NotFound) when the file cannot be opened, Error(Internal)
  // when it cannot be mapped.
  static MappedFile open(const std::string& path);

  MappedFile() = default;
  ~MappedFile();
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const uint8_t> bytes() const { return {data_, size_}; }

 private:
  void release();

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace wgrt::gguf
