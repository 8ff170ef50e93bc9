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
