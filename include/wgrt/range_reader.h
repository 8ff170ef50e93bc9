// Byte ranges of a model file, read on demand: the importers parse headers
// and weights go to the GPU a chunk at a time, so no whole copy of a
// multi-gigabyte file is ever held in host (or wasm) memory. Implement it to
// load a model from anywhere bytes come from (a download, an archive
// member, a browser's File: LlmOptions::file).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace wgrt {

class RangeReader {
 public:
  virtual ~RangeReader() = default;
  // For messages: the path, URL or "in-memory" name.
  virtual const std::string& name() const = 0;
  virtual uint64_t size() const = 0;
  // Fills `out` with bytes [offset, offset + out.size()). A range past the
  // end throws Error(InvalidArgument); a failed read Error(Internal), named.
  // Loading calls it from several threads at once (a few workers read and
  // repack weights in parallel): an implementation must allow that, as
  // pread does (lock inside if the source is a stream).
  virtual void read(uint64_t offset, std::span<uint8_t> out) const = 0;

  std::vector<uint8_t> read(uint64_t offset, uint64_t bytes) const;

 protected:
  // Throws unless [offset, offset + bytes) lies inside the file.
  void check_range(uint64_t offset, uint64_t bytes) const;
};

using RangeReaderPtr = std::shared_ptr<const RangeReader>;

// A file on disk, read with pread (thread-safe, no shared cursor).
// Error(NotFound) naming the path when it cannot be opened.
RangeReaderPtr open_file_reader(const std::string& path);

// Bytes already in memory (tests, embedded files), owned by the reader.
RangeReaderPtr memory_reader(std::vector<uint8_t> bytes, std::string name);

}  // namespace wgrt
