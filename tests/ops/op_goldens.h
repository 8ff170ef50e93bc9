// Reading the torch goldens of tests/fixtures/ops/ (written by
// tools/export/make_op_goldens.py), and the checks the op tests share.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "core/npy.h"
#include "graph/executable_graph.h"
#include "host_tensors.h"
#include "wgrt/error.h"

namespace wgrt::test {

// A golden array from tests/fixtures/ops, read by the project's .npy reader.
struct Npy {
  DType type = DType::F32;
  Dims dims;
  std::vector<uint8_t> bytes;

  template <typename T>
  std::vector<T> as() const {
    std::vector<T> v(bytes.size() / sizeof(T));
    if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));  // memcpy of null is UB
    return v;
  }
  DType dtype() const { return type; }
  HostTensorView view() const { return {type, dims, bytes}; }
};

inline Npy load_npy(const std::string& name) {
  const std::string path = std::string(WGRT_FIXTURES_DIR) + "/ops/" + name + ".npy";
  if (!std::ifstream(path)) throw Error(ErrorCode::NotFound, path + " (run tools/export/make_op_goldens.py)");
  HostTensor t = read_npy(path);
  return {t.dtype, std::move(t.dims), std::move(t.data)};
}

// The first `rows` rows (along dim `dim`) of a row-major f32 array of shape `dims`.
inline std::vector<float> leading(const std::vector<float>& v, const Dims& dims, size_t dim, int64_t rows) {
  int64_t outer = 1, inner = 1;
  for (size_t i = 0; i < dim; ++i) outer *= dims[i];
  for (size_t i = dim + 1; i < dims.size(); ++i) inner *= dims[i];
  std::vector<float> out;
  for (int64_t o = 0; o < outer; ++o) {
    const auto begin = v.begin() + (o * dims[dim]) * inner;
    out.insert(out.end(), begin, begin + rows * inner);
  }
  return out;
}

// hashed_uniform of make_op_goldens.py, bit for bit.
inline std::vector<float> hashed_uniform(size_t count, uint32_t salt) {
  std::vector<float> v(count);
  for (size_t i = 0; i < count; ++i) {
    uint32_t h = static_cast<uint32_t>(i) * 2654435761u + salt * 40503u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    v[i] = static_cast<float>(static_cast<double>(h >> 8) / double(1 << 23) - 1.0);
  }
  return v;
}

// The output whose live shape is `dims` (multi-output ops: picked by full shape).
inline const HostTensor& output_shaped(const std::vector<HostTensor>& outs, const Dims& dims) {
  for (const HostTensor& t : outs) {
    if (t.dims == dims) return t;
  }
  throw Error(ErrorCode::NotFound, "no output shaped " + dims_string(dims));
}

}  // namespace wgrt::test
