// Helpers for tests that feed host data into graphs and read it back.
#pragma once

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
  std::memcpy(out.data(), t.data.data(), t.data.size());
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

}  // namespace wgrt::test
