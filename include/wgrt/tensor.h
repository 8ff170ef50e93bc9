// wgrt's public C++ API: tensors in host memory (conventions: wgrt/runtime.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "wgrt/dtype.h"

namespace wgrt::api {

// A row-major tensor whose bytes the Tensor owns, in host layout (numpy's:
// i64 as 8 bytes, f16 as IEEE half, bool as one byte).
class Tensor {
 public:
  Tensor() = default;
  // Copies `bytes`; Error(InvalidArgument) unless it is numel * element size.
  Tensor(DType dtype, std::vector<int64_t> shape, std::span<const uint8_t> bytes);
  // Takes `bytes` without a copy; the same check.
  Tensor(DType dtype, std::vector<int64_t> shape, std::vector<uint8_t>&& bytes);
  // A tensor of zeros.
  Tensor(DType dtype, std::vector<int64_t> shape);

  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t numel() const;
  std::span<const uint8_t> bytes() const { return bytes_; }
  std::span<uint8_t> bytes() { return bytes_; }
  // The elements as T; Error(InvalidArgument) when sizeof(T) is not the
  // dtype's element size.
  template <class T>
  std::span<const T> values() const {
    check_element_size(sizeof(T));
    return {reinterpret_cast<const T*>(bytes_.data()), bytes_.size() / sizeof(T)};
  }

 private:
  void check_element_size(size_t size) const;
  void check_byte_count(size_t bytes) const;

  DType dtype_ = DType::F32;
  std::vector<int64_t> shape_;
  std::vector<uint8_t> bytes_;
};

// A .npy file (numpy's format, version 1-3, little-endian, C order) as a
// Tensor, and back. Errors: NotFound (no such file), InvalidArgument (not a
// .npy, a dtype wgrt lacks, Fortran order, or a size that does not match its
// header), naming the file.
Tensor read_npy(const std::string& path);
void write_npy(const std::string& path, const Tensor& tensor);

}  // namespace wgrt::api
