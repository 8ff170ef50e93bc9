#include "wgrt/range_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
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

// How far past each read FileReader asks the kernel to read ahead. Loading
// reads a file front to back, but in pieces on several workers at once, which
// the kernel's own readahead takes for random reads: from a cold cache a
// 37 GiB file uploaded at 1.5 GB/s from a disk that reads 2.0 (H100 host,
// bench/RESULTS.md session 24) and the 930 MiB test file at 0.5 GB/s here.
constexpr uint64_t kReadAheadBytes = uint64_t{64} << 20;

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
    read_ahead(offset + out.size());
  }

 private:
  // Asks for [end, end + kReadAheadBytes) unless an earlier read asked for
  // most of it already (one hint a few chunks, not one a piece).
  void read_ahead(uint64_t end) const {
    uint64_t asked = asked_until_.load(std::memory_order_relaxed);
    if (end + kReadAheadBytes / 2 <= asked || end >= size_) return;
    const uint64_t from = std::max(asked, end), until = std::min(size_, end + kReadAheadBytes);
    if (from >= until || !asked_until_.compare_exchange_strong(asked, until, std::memory_order_relaxed)) return;
    // Only a hint: a failure changes nothing but speed.
    (void)::posix_fadvise(fd_, off_t(from), off_t(until - from), POSIX_FADV_WILLNEED);
  }

  mutable std::atomic<uint64_t> asked_until_{0};
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
