// sdpa_with_kv_cache.default and update_cache.default against torch
// (tests/fixtures/ops/sdpa_*; tools/export/make_op_goldens.py). The goldens
// are causal attention over one whole sequence, so any chunking of it into
// prefill and decode steps must reproduce the golden rows it covers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "gpu/device.h"
#include "gpu_test_env.h"
#include "host_tensors.h"
#include "op_goldens.h"
#include "ops/attention/sdpa.h"

namespace wgrt {
namespace {

using test::load_npy;
using test::NoSubgroupsTest;

// Stated tolerances (absolute; outputs are O(1)).
constexpr double kSmallTolerance = 1e-5;
constexpr double kLongTolerance = 2e-5;

struct Dimensions {
  int64_t max_s, cache, heads, kv_heads, dim;
};

enum class StartPos { Int0, SymIntInput, FromTensorInput };

// q, k, v inputs [1, S, H(kv), D]; start_pos per `pos`; zero caches; out.
// The caches start as `cache_init` (zeros when empty).
Graph sdpa_graph(const Dimensions& d, StartPos pos, std::optional<double> scale = std::nullopt, int64_t window = 0,
                 const std::vector<float>& k_init = {}, const std::vector<float>& v_init = {},
                 DType cache_type = DType::F32) {
  GraphBuilder b;
  const ValueId q = b.add_tensor(DType::F32, {1, d.max_s, d.heads, d.dim});
  const ValueId k = b.add_tensor(DType::F32, {1, d.max_s, d.kv_heads, d.dim});
  const ValueId v = b.add_tensor(DType::F32, {1, d.max_s, d.kv_heads, d.dim});
  for (ValueId id : {q, k, v}) b.mark_input(id);
  ValueId start;
  std::vector<ValueId> pre_ops;
  if (pos == StartPos::Int0) {
    start = b.add_int(0);
  } else if (pos == StartPos::SymIntInput) {
    start = b.add_symint(0);
    b.mark_input(start);
  } else {
    const ValueId input_pos = b.add_tensor(DType::I64, {1});
    b.mark_input(input_pos);
    start = b.add_symint(0);
    b.add_op("et_vk.select_as_symint.default", {input_pos, b.add_int(0), b.add_int(0), start});
  }
  const size_t cache_elems = size_t(d.cache * d.kv_heads * d.dim);
  const auto cache_bytes = [&](const std::vector<float>& init) {
    if (cache_type == DType::F16) {
      std::vector<_Float16> halves(cache_elems, _Float16(0));
      for (size_t i = 0; i < init.size() && i < cache_elems; ++i) halves[i] = static_cast<_Float16>(init[i]);
      std::vector<uint8_t> bytes(cache_elems * 2);
      std::memcpy(bytes.data(), halves.data(), bytes.size());
      return bytes;
    }
    std::vector<uint8_t> bytes(cache_elems * 4, 0);
    if (!init.empty()) std::memcpy(bytes.data(), init.data(), bytes.size());
    return bytes;
  };
  const ValueId kc = b.add_constant(cache_type, {1, d.cache, d.kv_heads, d.dim}, cache_bytes(k_init));
  const ValueId vc = b.add_constant(cache_type, {1, d.cache, d.kv_heads, d.dim}, cache_bytes(v_init));
  const ValueId out = b.add_tensor(DType::F32, {1, d.max_s, d.heads, d.dim});
  std::vector<ValueId> args = {q, k, v, kc, vc, start, b.add_int(d.max_s), b.add_null(), b.add_double(0.0),
                               b.add_bool(true), scale ? b.add_double(*scale) : b.add_null(), out};
  if (window > 0) args.push_back(b.add_int(window));
  b.add_op(window > 0 ? "wgrt.sdpa_with_kv_cache_window" : "sdpa_with_kv_cache.default", args);
  b.mark_output(out);
  return std::move(b).build();
}

// Rows [pos, pos + s) of a [T, H, D] array.
std::vector<float> rows(const std::vector<float>& v, int64_t row_size, int64_t pos, int64_t s) {
  return {v.begin() + pos * row_size, v.begin() + (pos + s) * row_size};
}

class SdpaTest : public test::GpuTest {};

TEST_F(SdpaTest, StaticPrefillMatchesTorch) {
  const auto q = load_npy("sdpa_small.q").as<float>(), k = load_npy("sdpa_small.k").as<float>(),
             v = load_npy("sdpa_small.v").as<float>();
  const Dimensions d{32, 32, 4, 2, 16};
  for (auto [scale, golden] : {std::pair{std::optional<double>{}, "sdpa_small.out"},
                               std::pair{std::optional<double>{0.3}, "sdpa_small.out_scale0.3"}}) {
    SCOPED_TRACE(golden);
    auto g = ExecutableGraph::load(device(), sdpa_graph(d, StartPos::Int0, scale), test::load_options());
    const HostTensorView in[] = {test::f32_view(q, {1, 32, 4, 16}), test::f32_view(k, {1, 32, 2, 16}),
                                 test::f32_view(v, {1, 32, 2, 16})};
    const auto out = g->execute(in)[0];
    EXPECT_EQ(g->hooks_fired_last_execute(), 0u) << "inert on a static graph";
    EXPECT_EQ(out.dims, (Dims{1, 32, 4, 16}));
    const double err = test::max_abs_error(test::floats(out), load_npy(golden).as<float>());
    EXPECT_LE(err, kSmallTolerance);
    std::printf("[ sdpa static %s ] max abs error %.3g\n", golden, err);
  }
}

TEST_F(SdpaTest, OneGraphServesPrefillAndDecodeSteps) {
  const auto q = load_npy("sdpa_small.q").as<float>(), k = load_npy("sdpa_small.k").as<float>(),
             v = load_npy("sdpa_small.v").as<float>(), want = load_npy("sdpa_small.out").as<float>();
  const Dimensions d{16, 32, 4, 2, 16};
  auto g = ExecutableGraph::load(device(), sdpa_graph(d, StartPos::SymIntInput), test::load_options());
  const auto handles = test::buffer_handles(*g);
  double worst = 0;
  // (start_pos, S): a prefill, decode steps, a chunk, the maximum S, the
  // cache's end; then new sequences that shrink and grow S again.
  const std::pair<int64_t, int64_t> steps[] = {{0, 7}, {7, 1}, {8, 1}, {9, 5}, {14, 16}, {30, 2},
                                               {0, 3}, {3, 1}, {4, 1}, {0, 16}, {16, 1}, {17, 12}};
  for (auto [pos, s] : steps) {
    SCOPED_TRACE("start_pos=" + std::to_string(pos) + " S=" + std::to_string(s));
    const auto qs = rows(q, 4 * 16, pos, s), ks = rows(k, 2 * 16, pos, s), vs = rows(v, 2 * 16, pos, s);
    const std::vector<int64_t> start{pos};
    const HostTensorView in[] = {test::f32_view(qs, {1, s, 4, 16}), test::f32_view(ks, {1, s, 2, 16}),
                                 test::f32_view(vs, {1, s, 2, 16}), test::i64_view(start, {1})};
    const auto out = g->execute(in)[0];
    ASSERT_EQ(out.dims, (Dims{1, s, 4, 16}));
    const double err = test::max_abs_error(test::floats(out), rows(want, 4 * 16, pos, s));
    EXPECT_LE(err, kSmallTolerance);
    worst = std::max(worst, err);
  }
  EXPECT_EQ(test::buffer_handles(*g), handles) << "a resize moved a buffer";
  std::printf("[ sdpa dynamic steps ] max abs error %.3g\n", worst);
}

TEST_F(SdpaTest, LongPrefillFoldsDispatchesAndDecodeFollows) {
  const Dimensions d{2048, 2048, 12, 4, 16};
  const int64_t t = 2048;
  const auto q = test::hashed_uniform(size_t(t * d.heads * d.dim), 1);
  const auto k = test::hashed_uniform(size_t(t * d.kv_heads * d.dim), 2);
  const auto v = test::hashed_uniform(size_t(t * d.kv_heads * d.dim), 3);
  const auto sample = load_npy("sdpa_long.rows").as<int64_t>();
  const auto want = load_npy("sdpa_long.out_rows").as<float>();
  const int64_t row = d.heads * d.dim;

  // The premise: at S = 2048 the scores pass needs more workgroups than one
  // dimension holds, so it must fold into 2D.
  const auto& limits = device().limits();
  const uint32_t chunk = ops::sdpa_heads_per_chunk(uint32_t(d.heads), d.max_s, d.cache,
                                                   limits.max_storage_buffer_binding_size);
  ASSERT_GT(uint64_t(chunk) * t * t / ops::kSdpaWorkgroup, limits.max_compute_workgroups_per_dimension);
  const uint64_t chunks = (d.heads + chunk - 1) / chunk;

  // The three-pass path (prefill otherwise runs flash attention, test_flash_attention.cpp).
  LoadOptions three_pass = test::load_options();
  three_pass.tuning.flash_attention = FlashAttention::Off;
  auto g = ExecutableGraph::load(device(), sdpa_graph(d, StartPos::FromTensorInput), three_pass);
  EXPECT_EQ(g->dispatch_count(), 4 + 3 * chunks)
      << "two cache writes, the decode kernel and its split combine, then three passes per head chunk";
  const auto handles = test::buffer_handles(*g);
  double worst = 0;
  for (auto [pos, s] : {std::pair<int64_t, int64_t>{0, 512}, {512, 1}, {513, 1}, {0, 2048}}) {
    SCOPED_TRACE("start_pos=" + std::to_string(pos) + " S=" + std::to_string(s));
    const auto qs = rows(q, row, pos, s), ks = rows(k, d.kv_heads * d.dim, pos, s),
               vs = rows(v, d.kv_heads * d.dim, pos, s);
    const std::vector<int64_t> start{pos};
    const HostTensorView in[] = {test::f32_view(qs, {1, s, d.heads, d.dim}),
                                 test::f32_view(ks, {1, s, d.kv_heads, d.dim}),
                                 test::f32_view(vs, {1, s, d.kv_heads, d.dim}), test::i64_view(start, {1})};
    const auto out = g->execute(in)[0];
    ASSERT_EQ(out.dims, (Dims{1, s, d.heads, d.dim}));
    const auto got = test::floats(out);
    size_t compared = 0;
    for (size_t i = 0; i < sample.size(); ++i) {
      if (sample[i] < pos || sample[i] >= pos + s) continue;
      const std::vector<float> got_row(got.begin() + (sample[i] - pos) * row, got.begin() + (sample[i] - pos + 1) * row);
      const std::vector<float> want_row(want.begin() + int64_t(i) * row, want.begin() + int64_t(i + 1) * row);
      const double err = test::max_abs_error(got_row, want_row);
      EXPECT_LE(err, kLongTolerance) << "row " << sample[i];
      worst = std::max(worst, err);
      ++compared;
    }
    EXPECT_GT(compared, 0u);
  }
  EXPECT_EQ(test::buffer_handles(*g), handles);
  std::printf("[ sdpa S=2048, %u heads per chunk ] max abs error %.3g\n", chunk, worst);
}

TEST_F(SdpaTest, RejectsAMaskNamingTheArgument) {
  GraphBuilder b;
  const ValueId q = b.add_tensor(DType::F32, {1, 4, 2, 8}), k = b.add_tensor(DType::F32, {1, 4, 2, 8});
  const ValueId c = b.add_tensor(DType::F32, {1, 8, 2, 8}), mask = b.add_tensor(DType::F32, {4, 8});
  b.mark_input(q);
  b.add_op("sdpa_with_kv_cache.default", {q, k, k, c, c, b.add_int(0), b.add_int(4), mask, b.add_double(0.0),
                                          b.add_bool(true), b.add_null(), b.add_tensor(DType::F32, {1, 4, 2, 8})});
  try {
    ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
    EXPECT_NE(std::string(e.what()).find("argument 7"), std::string::npos) << e.what();
  }
}

// update_cache.default with the cache as a graph output, to read it back.
TEST_F(SdpaTest, UpdateCacheWritesAtStartPos) {
  const auto k = load_npy("sdpa_small.k").as<float>();  // [32, 2, 16]: 32 rows of values
  GraphBuilder b;
  const ValueId value = b.add_tensor(DType::F32, {1, 8, 2, 16});
  b.mark_input(value);
  const ValueId start = b.add_symint(0);
  b.mark_input(start);
  const ValueId cache = b.add_tensor(DType::F32, {1, 32, 2, 16});
  const ValueId dummy = b.add_tensor(DType::F32, {1});
  b.add_op("update_cache.default", {value, cache, start, dummy});
  b.mark_output(cache);
  auto g = ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
  std::vector<float> cache_now;
  for (auto [pos, s] : {std::pair<int64_t, int64_t>{0, 8}, {8, 3}, {11, 1}, {12, 8}, {20, 1}}) {
    const auto vs = rows(k, 32, pos, s);
    const std::vector<int64_t> p{pos};
    const HostTensorView in[] = {test::f32_view(vs, {1, s, 2, 16}), test::i64_view(p, {1})};
    cache_now = test::floats(g->execute(in)[0]);
  }
  // Positions [0, 21) hold the values written, the rest is still zero.
  std::vector<float> want(32 * 32, 0.0f);
  std::copy(k.begin(), k.begin() + 21 * 32, want.begin());
  EXPECT_EQ(cache_now, want);
  const std::vector<float> vs(4 * 32, 1.0f);
  const std::vector<int64_t> p{30};
  const HostTensorView past_end[] = {test::f32_view(vs, {1, 4, 2, 16}), test::i64_view(p, {1})};
  EXPECT_THROW(g->execute(past_end), Error) << "positions [30, 34) do not fit 32";
}

// Sliding-window attention of query row p, head h, written out in double on
// the host: keys (p - window, p] of a [T, Hkv, D] sequence.
std::vector<double> window_reference(const std::vector<float>& q, const std::vector<float>& k,
                                     const std::vector<float>& v, const Dimensions& d, int64_t window, int64_t p,
                                     int64_t h) {
  const int64_t kvh = h / (d.heads / d.kv_heads);
  const int64_t first = std::max<int64_t>(0, p - window + 1);
  std::vector<double> w;
  double top = -1e300, sum = 0;
  for (int64_t c = first; c <= p; ++c) {
    double dot = 0;
    for (int64_t i = 0; i < d.dim; ++i) {
      dot += double(q[(p * d.heads + h) * d.dim + i]) * k[(c * d.kv_heads + kvh) * d.dim + i];
    }
    w.push_back(dot / std::sqrt(double(d.dim)));
    top = std::max(top, w.back());
  }
  for (double& x : w) sum += (x = std::exp(x - top));
  std::vector<double> out(d.dim, 0.0);
  for (int64_t i = 0; i < d.dim; ++i) {
    for (size_t j = 0; j < w.size(); ++j) out[i] += w[j] / sum * v[((first + int64_t(j)) * d.kv_heads + kvh) * d.dim + i];
  }
  return out;
}

// wgrt.sdpa_with_kv_cache_window: a query at position p sees keys (p - window, p],
// against that attention written out in double on the host.
TEST_F(SdpaTest, SlidingWindowSeesOnlyTheLastWindowPositions) {
  const auto q = load_npy("sdpa_small.q").as<float>(), k = load_npy("sdpa_small.k").as<float>(),
             v = load_npy("sdpa_small.v").as<float>();
  const Dimensions d{32, 32, 4, 2, 16};
  constexpr int64_t kWindow = 5;
  auto g = ExecutableGraph::load(device(), sdpa_graph(d, StartPos::Int0, std::nullopt, kWindow), test::load_options());
  const HostTensorView in[] = {test::f32_view(q, {1, 32, 4, 16}), test::f32_view(k, {1, 32, 2, 16}),
                               test::f32_view(v, {1, 32, 2, 16})};
  const auto got = test::floats(g->execute(in)[0]);
  double worst = 0;
  for (int64_t p = 0; p < d.max_s; ++p) {
    for (int64_t h = 0; h < d.heads; ++h) {
      const auto want = window_reference(q, k, v, d, kWindow, p, h);
      for (int64_t i = 0; i < d.dim; ++i) {
        worst = std::max(worst, std::abs(got[(p * d.heads + h) * d.dim + i] - want[i]));
      }
    }
  }
  EXPECT_LE(worst, kSmallTolerance);
}

// Decode steps (S = 1) run the one-dispatch decode kernel: with a window,
// with four query heads per KV head and a head size of 32, after a prefill.
TEST_F(SdpaTest, DecodeStepsWithAWindowAndGroupedHeads) {
  const Dimensions d{8, 24, 8, 2, 32};
  constexpr int64_t kWindow = 6, kT = 16;
  const auto q = test::random_floats(size_t(kT * d.heads * d.dim), 5);
  const auto k = test::random_floats(size_t(kT * d.kv_heads * d.dim), 6);
  const auto v = test::random_floats(size_t(kT * d.kv_heads * d.dim), 7);
  auto g = ExecutableGraph::load(device(), sdpa_graph(d, StartPos::SymIntInput, std::nullopt, kWindow), test::load_options());
  double worst = 0;
  for (auto [pos, s] : {std::pair<int64_t, int64_t>{0, 8}, {8, 1}, {9, 1}, {10, 3}, {13, 1}, {14, 1}, {15, 1}}) {
    SCOPED_TRACE("start_pos=" + std::to_string(pos) + " S=" + std::to_string(s));
    const auto qs = rows(q, d.heads * d.dim, pos, s), ks = rows(k, d.kv_heads * d.dim, pos, s),
               vs = rows(v, d.kv_heads * d.dim, pos, s);
    const std::vector<int64_t> start{pos};
    const HostTensorView in[] = {test::f32_view(qs, {1, s, d.heads, d.dim}),
                                 test::f32_view(ks, {1, s, d.kv_heads, d.dim}),
                                 test::f32_view(vs, {1, s, d.kv_heads, d.dim}), test::i64_view(start, {1})};
    const auto got = test::floats(g->execute(in)[0]);
    for (int64_t r = 0; r < s; ++r) {
      for (int64_t h = 0; h < d.heads; ++h) {
        const auto want = window_reference(q, k, v, d, kWindow, pos + r, h);
        for (int64_t i = 0; i < d.dim; ++i) {
          worst = std::max(worst, std::abs(got[(r * d.heads + h) * d.dim + i] - want[i]));
        }
      }
    }
  }
  EXPECT_LE(worst, kSmallTolerance);
}

// One decode step at a long context: the decode kernel splits the positions
// over workgroups and a second dispatch merges the splits. Caches hold random
// rows (constants); the reference is the same attention in double. Head
// shapes: 8 query heads per KV head (both vec4s of scores), 3 per KV head with
// D = 128 (teams of 32 lanes, wider than lavapipe's subgroups); positions
// that make one split, several, a short last split, and the most splits.
// With an f16 cache the reference reads rows rounded to f16, except the new
// row of the step itself (attended as given, stored rounded).
// `split`: Tuning::sdpa_split, the positions per decode split.
void check_long_decode(gpu::Device& device, const Dimensions& d, std::initializer_list<int64_t> starts,
                       DType cache_type = DType::F32, uint32_t split = Tuning{}.sdpa_split) {
  const auto kc = test::random_floats(size_t(d.cache * d.kv_heads * d.dim), 11);
  const auto vc = test::random_floats(size_t(d.cache * d.kv_heads * d.dim), 12);
  LoadOptions options = test::load_options();
  options.tuning.sdpa_split = split;
  auto g = ExecutableGraph::load(device, sdpa_graph(d, StartPos::SymIntInput, std::nullopt, 0, kc, vc, cache_type),
                                 options);
  const auto stored = [&](std::vector<float> x) {
    if (cache_type == DType::F16) {
      for (float& e : x) e = float(static_cast<_Float16>(e));
    }
    return x;
  };
  std::vector<float> kr = stored(kc), vr = stored(vc);  // the caches as the kernel leaves them
  double worst = 0;
  for (int64_t pos : starts) {
    SCOPED_TRACE("start_pos=" + std::to_string(pos));
    const auto q = test::random_floats(size_t(d.heads * d.dim), 20 + uint32_t(pos));
    const auto k = test::random_floats(size_t(d.kv_heads * d.dim), 40 + uint32_t(pos));
    const auto v = test::random_floats(size_t(d.kv_heads * d.dim), 60 + uint32_t(pos));
    const std::vector<int64_t> start{pos};
    const HostTensorView in[] = {test::f32_view(q, {1, 1, d.heads, d.dim}), test::f32_view(k, {1, 1, d.kv_heads, d.dim}),
                                 test::f32_view(v, {1, 1, d.kv_heads, d.dim}), test::i64_view(start, {1})};
    const auto got = test::floats(g->execute(in)[0]);
    // Each step's new row lands at its own position, seen by later steps.
    std::copy(k.begin(), k.end(), kr.begin() + pos * d.kv_heads * d.dim);
    std::copy(v.begin(), v.end(), vr.begin() + pos * d.kv_heads * d.dim);
    std::vector<float> qr(size_t((pos + 1) * d.heads * d.dim), 0.0f);
    std::copy(q.begin(), q.end(), qr.begin() + pos * d.heads * d.dim);
    for (int64_t h = 0; h < d.heads; ++h) {
      const auto want = window_reference(qr, kr, vr, d, pos + 1, pos, h);
      for (int64_t i = 0; i < d.dim; ++i) worst = std::max(worst, std::abs(got[h * d.dim + i] - want[i]));
    }
    const auto kq = stored(k), vq = stored(v);
    std::copy(kq.begin(), kq.end(), kr.begin() + pos * d.kv_heads * d.dim);
    std::copy(vq.begin(), vq.end(), vr.begin() + pos * d.kv_heads * d.dim);
  }
  EXPECT_LE(worst, kLongTolerance);
}

// Splits of about Tuning::sdpa_split positions (default 128).
TEST_F(SdpaTest, LongContextDecodeSplitsThePositions) {
  check_long_decode(device(), Dimensions{1, 9000, 16, 2, 64}, {5, 63, 64, 127, 128, 129, 700, 8999});
  check_long_decode(device(), Dimensions{1, 1000, 6, 2, 128}, {0, 129, 999});
  check_long_decode(device(), Dimensions{1, 3000, 8, 2, 64}, {40, 2999}, DType::F16);
  // Short splits: the most splits the scratch holds (8999 positions), and
  // splits that are not a multiple of the teams' positions per step.
  check_long_decode(device(), Dimensions{1, 9000, 16, 2, 64}, {33, 50, 8999}, DType::F32, 16);
  check_long_decode(device(), Dimensions{1, 1000, 6, 2, 128}, {40, 999}, DType::F32, 16);
}

TEST_F(SdpaTest, DecodeSplitLengthMustBeACount) {
  LoadOptions options;
  options.tuning.sdpa_split = 8;
  try {
    ExecutableGraph::load(device(), sdpa_graph(Dimensions{1, 64, 4, 2, 64}, StartPos::SymIntInput), options);
    ADD_FAILURE() << "a split of 8 positions was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Tuning::sdpa_split: expected 16 or more positions, got 8"), std::string::npos)
        << e.what();
  }
}

TEST_F(NoSubgroupsTest, SdpaLongContextDecodeSplitsThePositions) {
  check_long_decode(device(), Dimensions{1, 1000, 16, 2, 64}, {3, 200, 999});
  check_long_decode(device(), Dimensions{1, 300, 6, 2, 128}, {130});
  check_long_decode(device(), Dimensions{1, 300, 6, 2, 128}, {130, 299}, DType::F32, 16);
}

// The device reaches the op's check (OpArgs::device()): under WebGPU's
// default limits (16 KiB of workgroup memory) flash attention over head dim
// 128 does not fit, so an f16 KV cache, which only flash attention reads, is
// refused while the graph is checked, naming the argument, before any buffer
// is made.
TEST_F(SdpaTest, AnF16CacheTheDeviceCannotAttendIsRefusedBeforeAllocating) {
  gpu::DeviceOptions o = test::device_options_from_env();
  o.limits = gpu::LimitsMode::Default;
  std::unique_ptr<gpu::Device> bare = gpu::Device::create(o);
  const Dimensions d{4, 16, 2, 2, 128};
  const uint64_t live_before = bare->live_buffer_bytes();
  try {
    ExecutableGraph::load(*bare, sdpa_graph(d, StartPos::SymIntInput, std::nullopt, 0, {}, {}, DType::F16),
                          test::load_options());
    FAIL() << "expected Error(NotSupported)";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::NotSupported) << e.what();
    const std::string m = e.what();
    EXPECT_NE(m.find("sdpa_with_kv_cache.default"), std::string::npos) << m;
    EXPECT_NE(m.find("argument 3"), std::string::npos) << m;
    EXPECT_NE(m.find("bytes of workgroup memory; the device has 16384"), std::string::npos) << m;
  }
  EXPECT_EQ(bare->live_buffer_bytes(), live_before);
  // The same graph loads on a device with the adapter's limits (lavapipe: 64 KiB).
  if (device().limits().max_compute_workgroup_storage_size >= 32768) {
    EXPECT_NO_THROW(ExecutableGraph::load(device(), sdpa_graph(d, StartPos::SymIntInput, std::nullopt, 0, {}, {},
                                                               DType::F16),
                                          test::load_options()));
  }
}

}  // namespace
}  // namespace wgrt
