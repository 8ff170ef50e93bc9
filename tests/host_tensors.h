// Helpers for tests that feed host data into graphs and read it back.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <span>
#include <vector>

#include "graph/executable_graph.h"
#include "wgrt/dtype.h"

namespace wgrt::test {

inline HostTensorView f32_view(const std::vector<float>& data, Dims dims) {
  return {DType::F32, std::move(dims),
          std::span(reinterpret_cast<const uint8_t*>(data.data()), data.size() * sizeof(float))};
}

inline std::vector<float> floats(const HostTensor& t) {
  std::vector<float> out(t.data.size() / sizeof(float));
  if (!out.empty()) std::memcpy(out.data(), t.data.data(), out.size() * sizeof(float));
  return out;
}

// f32 or f16 elements as floats.
inline std::vector<float> as_floats(DType dtype, std::span<const uint8_t> bytes) {
  std::vector<float> out(bytes.size() / host_size(dtype));
  for (size_t i = 0; i < out.size(); ++i) {
    if (dtype == DType::F16) {
      uint16_t h;
      std::memcpy(&h, bytes.data() + 2 * i, 2);
      out[i] = f16_to_f32(h);
    } else {
      std::memcpy(&out[i], bytes.data() + 4 * i, 4);
    }
  }
  return out;
}

// An output against torch's: f32/f16 within atol + rtol * |want| (the first
// three misses reported), other dtypes bit for bit. Returns the largest
// absolute error (0 for exact dtypes).
inline double expect_matches_golden(const HostTensor& got, const HostTensor& want, double atol, double rtol,
                                    const std::string& what) {
  EXPECT_EQ(got.dims, want.dims) << what;
  EXPECT_EQ(got.dtype, want.dtype) << what;
  if (got.dims != want.dims || got.dtype != want.dtype) return INFINITY;
  if (want.dtype != DType::F32 && want.dtype != DType::F16) {
    EXPECT_EQ(got.data, want.data) << what;
    return 0;
  }
  const std::vector<float> g = as_floats(got.dtype, got.data), w = as_floats(want.dtype, want.data);
  double worst = 0;
  size_t bad = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    const double err = std::abs(double(g[i]) - w[i]);
    worst = std::max(worst, err);
    if (err > atol + rtol * std::abs(w[i]) && bad++ < 3) {
      ADD_FAILURE() << what << " element " << i << ": " << g[i] << " vs torch " << w[i];
    }
  }
  return worst;
}

inline std::span<const uint8_t> bytes_of(const std::vector<float>& v) {
  return {reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(float)};
}

inline std::vector<float> random_floats(size_t n, uint32_t seed, float lo = -2.0f, float hi = 2.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
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

}  // namespace wgrt::test
