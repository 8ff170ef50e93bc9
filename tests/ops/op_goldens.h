// Reading the torch goldens of tests/fixtures/ops/ (written by
// tools/export/make_op_goldens.py), and the checks the op tests share.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "graph/executable_graph.h"
#include "wgrt/error.h"

namespace wgrt::test {

// A .npy array (C order, little-endian): its numpy dtype string and bytes.
struct Npy {
  std::string descr;
  Dims dims;
  std::vector<uint8_t> bytes;

  template <typename T>
  std::vector<T> as() const {
    std::vector<T> v(bytes.size() / sizeof(T));
    std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
    return v;
  }
  DType dtype() const {
    if (descr == "<f4") return DType::F32;
    if (descr == "<i8") return DType::I64;
    if (descr == "|u1") return DType::U8;
    throw Error(ErrorCode::NotSupported, "npy dtype " + descr);
  }
  HostTensorView view() const { return {dtype(), dims, bytes}; }
};

inline Npy load_npy(const std::string& name) {
  const std::string path = std::string(WGRT_FIXTURES_DIR) + "/ops/" + name + ".npy";
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(ErrorCode::NotFound, path + " (run tools/export/make_op_goldens.py)");
  std::vector<uint8_t> all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (all.size() < 10 || std::memcmp(all.data(), "\x93NUMPY", 6) != 0) throw Error(ErrorCode::InvalidProgram, path);
  const bool v1 = all[6] == 1;
  const size_t header_len = v1 ? size_t(all[8] | all[9] << 8) : size_t(all[8] | all[9] << 8 | all[10] << 16);
  const size_t start = v1 ? 10 : 12;
  const std::string header(all.begin() + start, all.begin() + start + header_len);
  Npy n;
  const auto d = header.find("'descr': '") + 10;
  n.descr = header.substr(d, header.find('\'', d) - d);
  if (header.find("'fortran_order': False") == std::string::npos) throw Error(ErrorCode::NotSupported, path);
  const auto s = header.find('(', header.find("'shape'")) + 1;
  const std::string shape = header.substr(s, header.find(')', s) - s);
  for (size_t p = 0; p < shape.size();) {
    const size_t q = shape.find(',', p);
    const std::string item = shape.substr(p, q == std::string::npos ? std::string::npos : q - p);
    if (item.find_first_of("0123456789") != std::string::npos) n.dims.push_back(std::stoll(item));
    if (q == std::string::npos) break;
    p = q + 1;
  }
  n.bytes.assign(all.begin() + start + header_len, all.end());
  return n;
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

// Largest |got - want|; fails the test if the sizes differ.
inline double max_abs_error(const std::vector<float>& got, const std::vector<float>& want) {
  EXPECT_EQ(got.size(), want.size());
  double worst = 0;
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    const double e = std::abs(double(got[i]) - double(want[i]));
    worst = std::isnan(e) ? INFINITY : std::max(worst, e);
  }
  return worst;
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

// Every tensor's buffer handle, to prove that running at other shapes never
// reallocates (bind groups stay valid).
inline std::vector<const void*> buffer_handles(const ExecutableGraph& g) {
  std::vector<const void*> h;
  for (ValueId id = 0; id < g.graph().values.size(); ++id) {
    if (g.graph().is_tensor(id)) h.push_back(g.tensor_buffer(id).raw());
  }
  return h;
}

inline HostTensorView i64_view(const std::vector<int64_t>& v, Dims dims) {
  return {DType::I64, std::move(dims),
          std::span(reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(int64_t))};
}

// The output whose live shape is `dims` (multi-output ops: picked by full shape).
inline const HostTensor& output_shaped(const std::vector<HostTensor>& outs, const Dims& dims) {
  for (const HostTensor& t : outs) {
    if (t.dims == dims) return t;
  }
  throw Error(ErrorCode::NotFound, "no output shaped " + dims_string(dims));
}

}  // namespace wgrt::test
