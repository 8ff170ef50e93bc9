#include "import/pte/file_bytes.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "wgrt/error.h"

namespace wgrt::pte {

std::shared_ptr<const FileBytes> FileBytes::map(const std::filesystem::path& path) {
  const std::string name = path.string();
  int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw Error(ErrorCode::NotFound, name + ": cannot open: " + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(ErrorCode::NotFound, name + ": not a regular file");
  }
  std::shared_ptr<FileBytes> file(new FileBytes());
  file->name_ = name;
  file->size_ = static_cast<size_t>(st.st_size);
  if (file->size_ > 0) {
    void* p = ::mmap(nullptr, file->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      throw Error(ErrorCode::OutOfMemory, name + ": mmap failed: " + std::strerror(err));
    }
    file->mapping_ = p;
    file->data_ = static_cast<const uint8_t*>(p);
  }
  ::close(fd);  // the mapping stays valid without the descriptor
  return file;
}

std::shared_ptr<const FileBytes> FileBytes::own(std::vector<uint8_t> bytes, std::string name) {
  std::shared_ptr<FileBytes> file(new FileBytes());
  file->name_ = std::move(name);
  file->owned_ = std::move(bytes);
  file->data_ = file->owned_.data();
  file->size_ = file->owned_.size();
  return file;
}

FileBytes::~FileBytes() {
  if (mapping_ != nullptr) ::munmap(mapping_, size_);
}

std::span<const uint8_t> FileBytes::slice(uint64_t offset, uint64_t size,
                                          std::string_view what) const {
  if (!fits(offset, size, size_)) {
    fail(what, offset,
         "needs " + std::to_string(size) + " bytes, file has " + std::to_string(size_));
  }
  return {data_ + offset, static_cast<size_t>(size)};
}

void FileBytes::fail(std::string_view what, uint64_t offset, std::string_view detail) const {
  throw Error(ErrorCode::InvalidProgram, name_ + ": " + std::string(what) + " at byte " +
                                             std::to_string(offset) + ": " + std::string(detail));
}

uint16_t read_u16(std::span<const uint8_t> b, size_t o) {
  return static_cast<uint16_t>(b[o] | (b[o + 1] << 8));
}

uint32_t read_u32(std::span<const uint8_t> b, size_t o) {
  return uint32_t{b[o]} | uint32_t{b[o + 1]} << 8 | uint32_t{b[o + 2]} << 16 |
         uint32_t{b[o + 3]} << 24;
}

uint64_t read_u64(std::span<const uint8_t> b, size_t o) {
  return uint64_t{read_u32(b, o)} | uint64_t{read_u32(b, o + 4)} << 32;
}

std::string quote_magic(std::span<const uint8_t> b, size_t o) {
  static const char* hex = "0123456789abcdef";
  std::string s = "'";
  for (size_t i = o; i < o + 4 && i < b.size(); ++i) {
    uint8_t c = b[i];
    if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\') {
      s += static_cast<char>(c);
    } else {
      s += "\\x";
      s += hex[c >> 4];
      s += hex[c & 15];
    }
  }
  return s + "'";
}

}  // namespace wgrt::pte
