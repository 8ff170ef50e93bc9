#include "graph/constant_source.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <string>
#include <utility>

#include "wgrt/error.h"

namespace wgrt {

void ConstantSource::read_rows(uint64_t first, uint64_t count, uint8_t* out) const {
  if (first > rows_ || count > rows_ - first) {
    throw Error(ErrorCode::Internal, "constant rows " + std::to_string(first) + "+" + std::to_string(count) +
                                         " asked of a constant of " + std::to_string(rows_) + " rows");
  }
  if (count > 0 && row_bytes_ > 0) produce(first, count, out);
}

std::vector<uint8_t> ConstantSource::read_all() const {
  std::vector<uint8_t> out(size());
  read_rows(0, rows_, out.data());
  return out;
}

namespace {

class FileRows final : public ConstantSource {
 public:
  FileRows(RangeReaderPtr file, uint64_t offset, uint64_t rows, uint64_t row_bytes)
      : ConstantSource(rows, row_bytes), file_(std::move(file)), offset_(offset) {}
  void produce(uint64_t first, uint64_t count, uint8_t* out) const override {
    file_->read(offset_ + first * row_bytes(), std::span<uint8_t>(out, count * row_bytes()));
  }

 private:
  RangeReaderPtr file_;
  uint64_t offset_;
};

class ViewedRows final : public ConstantSource {
 public:
  ViewedRows(std::span<const uint8_t> bytes, uint64_t rows)
      : ConstantSource(rows, rows > 0 ? bytes.size() / rows : 0), view_(bytes) {}
  void produce(uint64_t first, uint64_t count, uint8_t* out) const override {
    std::memcpy(out, view_.data() + first * row_bytes(), count * row_bytes());
  }

 private:
  std::span<const uint8_t> view_;
};

class OwnedRows final : public ConstantSource {
 public:
  OwnedRows(std::vector<uint8_t> bytes, uint64_t rows)
      : ConstantSource(rows, rows > 0 ? bytes.size() / rows : 0), bytes_(std::move(bytes)) {}
  void produce(uint64_t first, uint64_t count, uint8_t* out) const override {
    std::memcpy(out, bytes_.data() + first * row_bytes(), count * row_bytes());
  }

 private:
  std::vector<uint8_t> bytes_;
};

class RowRange final : public ConstantSource {
 public:
  RowRange(ConstantSourcePtr source, uint64_t first, uint64_t count)
      : ConstantSource(count, source->row_bytes()), source_(std::move(source)), first_(first) {}
  void produce(uint64_t first, uint64_t count, uint8_t* out) const override {
    source_->read_rows(first_ + first, count, out);
  }

 private:
  ConstantSourcePtr source_;
  uint64_t first_;
};

uint64_t total_rows(const std::vector<ConstantSourcePtr>& parts) {
  uint64_t n = 0;
  for (const auto& p : parts) n += p->rows();
  return n;
}

class StackedRows final : public ConstantSource {
 public:
  explicit StackedRows(std::vector<ConstantSourcePtr> parts)
      : ConstantSource(total_rows(parts), parts.front()->row_bytes()), parts_(std::move(parts)) {}
  void produce(uint64_t first, uint64_t count, uint8_t* out) const override {
    uint64_t start = 0;  // the first row of the part
    for (const auto& part : parts_) {
      const uint64_t end = start + part->rows();
      if (first < end && count > 0) {
        const uint64_t n = std::min(count, end - first);
        part->read_rows(first - start, n, out);
        out += n * row_bytes();
        first += n;
        count -= n;
      }
      start = end;
    }
  }

 private:
  std::vector<ConstantSourcePtr> parts_;
};

class AlternatingRows final : public ConstantSource {
 public:
  AlternatingRows(ConstantSourcePtr even, ConstantSourcePtr odd)
      : ConstantSource(even->rows() + odd->rows(), even->row_bytes()), even_(std::move(even)), odd_(std::move(odd)) {}
  void produce(uint64_t first, uint64_t count, uint8_t* out) const override {
    // The even and odd rows of the range, each read in one piece, then woven.
    const uint64_t rb = row_bytes(), end = first + count;
    const uint64_t e0 = (first + 1) / 2, e1 = (end + 1) / 2, o0 = first / 2, o1 = end / 2;
    std::vector<uint8_t> evens((e1 - e0) * rb), odds((o1 - o0) * rb);
    even_->read_rows(e0, e1 - e0, evens.data());
    odd_->read_rows(o0, o1 - o0, odds.data());
    for (uint64_t r = first; r < end; ++r) {
      const uint8_t* from = r % 2 == 0 ? evens.data() + (r / 2 - e0) * rb : odds.data() + (r / 2 - o0) * rb;
      std::memcpy(out + (r - first) * rb, from, rb);
    }
  }

 private:
  ConstantSourcePtr even_, odd_;
};

class RewrittenRows final : public ConstantSource {
 public:
  RewrittenRows(ConstantSourcePtr source, uint64_t out_row_bytes, RowRewrite rewrite)
      : ConstantSource(source->rows(), out_row_bytes), source_(std::move(source)), rewrite_(std::move(rewrite)) {}
  void produce(uint64_t first, uint64_t count, uint8_t* out) const override {
    // Reused between calls, one per level of rewrites inside rewrites: a
    // fresh chunk-sized buffer each time costs page faults and zeroing.
    thread_local std::deque<std::vector<uint8_t>> scratch;  // growing keeps references
    thread_local size_t depth = 0;
    if (scratch.size() <= depth) scratch.resize(depth + 1);
    std::vector<uint8_t>& in = scratch[depth];
    const uint64_t bytes = count * source_->row_bytes();
    if (in.size() < bytes) in.resize(bytes);
    ++depth;
    try {
      source_->read_rows(first, count, in.data());
    } catch (...) {
      --depth;
      throw;
    }
    --depth;
    rewrite_(std::span<const uint8_t>(in.data(), bytes), count, std::span<uint8_t>(out, count * row_bytes()));
  }

 private:
  ConstantSourcePtr source_;
  RowRewrite rewrite_;
};

void require(bool ok, const std::string& what) {
  if (!ok) throw Error(ErrorCode::Internal, "constant source: " + what);
}

}  // namespace

ConstantSourcePtr file_rows(RangeReaderPtr file, uint64_t offset, uint64_t rows, uint64_t row_bytes) {
  require(rows == 0 || row_bytes <= (file->size() - std::min(offset, file->size())) / rows,
          "rows past the end of " + file->name());
  return std::make_shared<FileRows>(std::move(file), offset, rows, row_bytes);
}

ConstantSourcePtr owned_rows(std::vector<uint8_t> bytes, uint64_t rows) {
  require(rows > 0 ? bytes.size() % rows == 0 : bytes.empty(), "bytes are not whole rows");
  return std::make_shared<OwnedRows>(std::move(bytes), rows);
}

ConstantSourcePtr viewed_rows(std::span<const uint8_t> bytes, uint64_t rows) {
  require(rows > 0 ? bytes.size() % rows == 0 : bytes.empty(), "bytes are not whole rows");
  return std::make_shared<ViewedRows>(bytes, rows);
}

ConstantSourcePtr row_range(ConstantSourcePtr source, uint64_t first, uint64_t count) {
  require(first <= source->rows() && count <= source->rows() - first, "row range outside the source");
  return std::make_shared<RowRange>(std::move(source), first, count);
}

ConstantSourcePtr stacked_rows(std::vector<ConstantSourcePtr> parts) {
  require(!parts.empty(), "nothing to stack");
  for (const auto& p : parts) require(p->row_bytes() == parts.front()->row_bytes(), "stacked rows differ in size");
  return std::make_shared<StackedRows>(std::move(parts));
}

ConstantSourcePtr alternating_rows(ConstantSourcePtr even, ConstantSourcePtr odd) {
  require(even->rows() == odd->rows() && even->row_bytes() == odd->row_bytes(), "alternated rows differ");
  return std::make_shared<AlternatingRows>(std::move(even), std::move(odd));
}

ConstantSourcePtr rewritten_rows(ConstantSourcePtr source, uint64_t out_row_bytes, RowRewrite rewrite) {
  return std::make_shared<RewrittenRows>(std::move(source), out_row_bytes, std::move(rewrite));
}

}  // namespace wgrt
