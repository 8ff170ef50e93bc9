#include "page_file.h"

#include <memory>

#include "wgrt/error.h"

extern "C" {
// file_library.js. Offsets and lengths as doubles: exact up to 2^53 bytes.
int wgrt_web_read_range(int32_t source, double offset, double length, uint8_t* dest);
}

namespace wgrt::web {
namespace {

class PageFile final : public RangeReader {
 public:
  PageFile(int32_t source, uint64_t size, std::string name) : source_(source), size_(size), name_(std::move(name)) {}
  const std::string& name() const override { return name_; }
  uint64_t size() const override { return size_; }
  void read(uint64_t offset, std::span<uint8_t> out) const override {
    check_range(offset, out.size());
    if (out.empty()) return;
    if (!wgrt_web_read_range(source_, double(offset), double(out.size()), out.data())) {
      throw Error(ErrorCode::Internal, name_ + ": the browser could not read " + std::to_string(out.size()) +
                                           " bytes at byte " + std::to_string(offset) +
                                           " (was the file changed or released?)");
    }
  }

 private:
  int32_t source_;
  uint64_t size_;
  std::string name_;
};

}  // namespace

RangeReaderPtr page_file(int32_t source, uint64_t size, std::string name) {
  return std::make_shared<PageFile>(source, size, std::move(name));
}

}  // namespace wgrt::web
