#include "wgrt/range_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "wgrt/error.h"

namespace wgrt {

std::vector<uint8_t> RangeReader::read(uint64_t offset, uint64_t bytes) const {
  check_range(offset, bytes);
  std::vector<uint8_t> out(bytes);
  read(offset, std::span<uint8_t>(out));
  return out;
}

void RangeReader::check_range(uint64_t offset, uint64_t bytes) const {
  if (offset > size() || bytes > size() - offset) {
    throw Error(ErrorCode::InvalidArgument, name() + ": read of " + std::to_string(bytes) + " bytes at byte " +
                                                std::to_string(offset) + " runs past the end of the file (" +
                                                std::to_string(size()) + " bytes)");
  }
}

namespace {

class FileReader final : public RangeReader {
 public:
  FileReader(int fd, uint64_t size, std::string path) : fd_(fd), size_(size), path_(std::move(path)) {}
  ~FileReader() override { ::close(fd_); }
  FileReader(const FileReader&) = delete;
  FileReader& operator=(const FileReader&) = delete;

  const std::string& name() const override { return path_; }
  uint64_t size() const override { return size_; }

  void read(uint64_t offset, std::span<uint8_t> out) const override {
    check_range(offset, out.size());
    uint64_t done = 0;
    while (done < out.size()) {
      const ssize_t n = ::pread(fd_, out.data() + done, out.size() - done, off_t(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        throw Error(ErrorCode::Internal, path_ + ": reading " + std::to_string(out.size()) + " bytes at byte " +
                                             std::to_string(offset) + " failed after " + std::to_string(done) +
                                             ": " + (n < 0 ? std::strerror(errno) : "the file ended early"));
      }
      done += uint64_t(n);
    }
  }

 private:
  int fd_;
  uint64_t size_;
  std::string path_;
};

class MemoryReader final : public RangeReader {
 public:
  MemoryReader(std::vector<uint8_t> bytes, std::string name) : bytes_(std::move(bytes)), name_(std::move(name)) {}
  const std::string& name() const override { return name_; }
  uint64_t size() const override { return bytes_.size(); }
  void read(uint64_t offset, std::span<uint8_t> out) const override {
    check_range(offset, out.size());
    if (!out.empty()) std::memcpy(out.data(), bytes_.data() + offset, out.size());
  }

 private:
  std::vector<uint8_t> bytes_;
  std::string name_;
};

}  // namespace

RangeReaderPtr open_file_reader(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(ErrorCode::NotFound, "cannot open '" + path + "': " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    throw Error(ErrorCode::Internal, "cannot stat '" + path + "': " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(ErrorCode::InvalidArgument, "'" + path + "' is not a regular file");
  }
  return std::make_shared<FileReader>(fd, uint64_t(st.st_size), path);
}

RangeReaderPtr memory_reader(std::vector<uint8_t> bytes, std::string name) {
  return std::make_shared<MemoryReader>(std::move(bytes), std::move(name));
}

}  // namespace wgrt
