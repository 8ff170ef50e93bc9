#include "wgrt/tensor.h"

#include "core/dims.h"
#include "core/npy.h"
#include "wgrt/error.h"

namespace wgrt::api {

Tensor::Tensor(DType dtype, std::vector<int64_t> shape, std::span<const uint8_t> bytes)
    : dtype_(dtype), shape_(std::move(shape)) {
  check_byte_count(bytes.size());
  bytes_.assign(bytes.begin(), bytes.end());
}

Tensor::Tensor(DType dtype, std::vector<int64_t> shape, std::vector<uint8_t>&& bytes)
    : dtype_(dtype), shape_(std::move(shape)) {
  check_byte_count(bytes.size());
  bytes_ = std::move(bytes);
}

void Tensor::check_byte_count(size_t bytes) const {
  const uint64_t want = uint64_t(numel()) * host_size(dtype_);
  if (bytes != want) {
    throw Error(ErrorCode::InvalidArgument, "a " + std::string(dtype_name(dtype_)) + " tensor of shape " +
                                                dims_string(shape_) + " needs " + std::to_string(want) +
                                                " bytes, got " + std::to_string(bytes));
  }
}

Tensor::Tensor(DType dtype, std::vector<int64_t> shape)
    : dtype_(dtype), shape_(std::move(shape)), bytes_(uint64_t(wgrt::numel(shape_)) * host_size(dtype), 0) {}

int64_t Tensor::numel() const { return wgrt::numel(shape_); }

void Tensor::check_element_size(size_t size) const {
  if (size != host_size(dtype_)) {
    throw Error(ErrorCode::InvalidArgument, "a " + std::string(dtype_name(dtype_)) + " tensor has " +
                                                std::to_string(host_size(dtype_)) + "-byte elements, not " +
                                                std::to_string(size));
  }
}

Tensor read_npy(const std::string& path) {
  HostTensor t = wgrt::read_npy(path);
  return Tensor(t.dtype, std::move(t.dims), std::move(t.data));
}

void write_npy(const std::string& path, const Tensor& tensor) {
  wgrt::write_npy(path, tensor.dtype(), tensor.shape(), tensor.bytes());
}

}  // namespace wgrt::api
