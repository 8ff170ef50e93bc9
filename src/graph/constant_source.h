// A constant's bytes produced on demand, a run of rows at a time. GGUF
// weights are sources reading their file; the load-time steps that change a
// weight (stacking Q, K and V, interleaving gate and up, repacking blocks
// for a kernel) wrap sources in sources instead of copying bytes, and the
// memory plan pulls each constant through a chunk-sized buffer on its way to
// the GPU. So a model's weights are never held whole in host memory.
//
// Every source is a matrix of `rows` rows of `row_bytes` (a constant of
// fewer than two dims is one row); the steps above all work on whole rows.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "wgrt/range_reader.h"

namespace wgrt {

class ConstantSource {
 public:
  ConstantSource(uint64_t rows, uint64_t row_bytes) : rows_(rows), row_bytes_(row_bytes) {}
  virtual ~ConstantSource() = default;

  uint64_t rows() const { return rows_; }
  uint64_t row_bytes() const { return row_bytes_; }
  uint64_t size() const { return rows_ * row_bytes_; }

  // Writes rows [first, first + count) to `out` (count * row_bytes bytes);
  // Error(Internal) for a range outside the rows.
  void read_rows(uint64_t first, uint64_t count, uint8_t* out) const;
  // Every row, as one vector (small constants; tests).
  std::vector<uint8_t> read_all() const;

 protected:
  virtual void produce(uint64_t first, uint64_t count, uint8_t* out) const = 0;

 private:
  uint64_t rows_, row_bytes_;
};

using ConstantSourcePtr = std::shared_ptr<const ConstantSource>;

// Bytes [offset, offset + rows * row_bytes) of a file.
ConstantSourcePtr file_rows(RangeReaderPtr file, uint64_t offset, uint64_t rows, uint64_t row_bytes);
// Bytes held by the source.
ConstantSourcePtr owned_rows(std::vector<uint8_t> bytes, uint64_t rows);
// Bytes someone else keeps alive for as long as the source is used (an
// importer's mapped file, a graph's constant).
ConstantSourcePtr viewed_rows(std::span<const uint8_t> bytes, uint64_t rows);
// Rows [first, first + count) of a source.
ConstantSourcePtr row_range(ConstantSourcePtr source, uint64_t first, uint64_t count);
// The rows of each part, one part after another (parts of one row size).
ConstantSourcePtr stacked_rows(std::vector<ConstantSourcePtr> parts);
// Row 2i is row i of `even`, row 2i + 1 row i of `odd` (equal shapes).
ConstantSourcePtr alternating_rows(ConstantSourcePtr even, ConstantSourcePtr odd);
// Each row of `source` rewritten into a row of `out_row_bytes` by `rewrite`,
// which turns `count` consecutive rows into as many output rows. It must
// treat rows independently (repacking blocks within a row).
using RowRewrite = std::function<void(std::span<const uint8_t> in, uint64_t count, std::span<uint8_t> out)>;
ConstantSourcePtr rewritten_rows(ConstantSourcePtr source, uint64_t out_row_bytes, RowRewrite rewrite);

}  // namespace wgrt
