// Flash attention (prefill S > 1), both kernels (WGRT_FLASH_KERNEL: tiled,
// ops/attention/flash_attention_tiled.wgsl, the default for head dims up to
// 64; rows, flash_attention.wgsl) against the three-pass attention
// (WGRT_FLASH_ATTENTION=0), itself checked against torch in test_sdpa.cpp:
// whole prefills at S = 1, 7, 512, 2048, a chunked prefill, a sliding window,
// and the scratch each path needs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "gpu_test_env.h"
#include "graph/executable_graph.h"
#include "host_tensors.h"
#include "op_goldens.h"

namespace wgrt {
namespace {

// Absolute; outputs are O(1) averages of values in [-1, 1]. The two paths sum
// in different orders (online softmax rescales per 32-key tile).
constexpr double kTolerance = 2e-5;

struct Dims4 {
  int64_t max_s, cache, heads, kv_heads, dim;
};

Graph attention_graph(const Dims4& d, int64_t window = 0, DType cache_type = DType::F32) {
  GraphBuilder b;
  const ValueId q = b.add_tensor(DType::F32, {1, d.max_s, d.heads, d.dim});
  const ValueId k = b.add_tensor(DType::F32, {1, d.max_s, d.kv_heads, d.dim});
  const ValueId v = b.add_tensor(DType::F32, {1, d.max_s, d.kv_heads, d.dim});
  for (ValueId id : {q, k, v}) b.mark_input(id);
  const ValueId start = b.add_symint(0);
  b.mark_input(start);
  const ValueId kc = b.add_state(cache_type, {1, d.cache, d.kv_heads, d.dim});
  const ValueId vc = b.add_state(cache_type, {1, d.cache, d.kv_heads, d.dim});
  const ValueId out = b.add_tensor(DType::F32, {1, d.max_s, d.heads, d.dim});
  std::vector<ValueId> args = {q,   k, v, kc, vc, start, b.add_int(d.max_s), b.add_null(), b.add_double(0.0),
                               b.add_bool(true), b.add_null(), out};
  if (window > 0) args.push_back(b.add_int(window));
  b.add_op(window > 0 ? "wgrt.sdpa_with_kv_cache_window" : "sdpa_with_kv_cache.default", args);
  b.mark_output(out);
  return std::move(b).build();
}

// The flash kernel the loads below ask for (Tuning::flash_kernel).
FlashKernel g_kernel = FlashKernel::Tiled;

// Loads the graph with flash attention (the kernel g_kernel names) on or off.
std::unique_ptr<ExecutableGraph> load(gpu::Device& device, const Dims4& d, bool flash, int64_t window = 0,
                                      DType cache_type = DType::F32) {
  LoadOptions options;
  options.tuning = test::tuning();
  options.tuning.flash_attention = flash ? FlashAttention::On : FlashAttention::Off;
  options.tuning.flash_kernel = g_kernel;
  return ExecutableGraph::load(device, attention_graph(d, window, cache_type), options);
}

// Feeds positions [0, total) in steps of the given sizes; returns every output row.
std::vector<float> run_chunks(ExecutableGraph& g, const Dims4& d, const std::vector<int64_t>& steps) {
  int64_t total = 0;
  for (int64_t s : steps) total += s;
  const auto q = test::hashed_uniform(size_t(total * d.heads * d.dim), 11);
  const auto k = test::hashed_uniform(size_t(total * d.kv_heads * d.dim), 12);
  const auto v = test::hashed_uniform(size_t(total * d.kv_heads * d.dim), 13);
  std::vector<float> all;
  int64_t pos = 0;
  for (int64_t s : steps) {
    auto slice = [&](const std::vector<float>& x, int64_t heads) {
      return std::vector<float>(x.begin() + pos * heads * d.dim, x.begin() + (pos + s) * heads * d.dim);
    };
    const auto qs = slice(q, d.heads), ks = slice(k, d.kv_heads), vs = slice(v, d.kv_heads);
    const std::vector<int64_t> start{pos};
    const HostTensorView in[] = {test::f32_view(qs, {1, s, d.heads, d.dim}),
                                 test::f32_view(ks, {1, s, d.kv_heads, d.dim}),
                                 test::f32_view(vs, {1, s, d.kv_heads, d.dim}),
                                 test::i64_view(start, {1})};
    const auto got = test::floats(g.execute(in)[0]);
    all.insert(all.end(), got.begin(), got.end());
    pos += s;
  }
  return all;
}

class FlashAttentionTest : public test::GpuTest, public ::testing::WithParamInterface<const char*> {
 protected:
  void SetUp() override {
    test::GpuTest::SetUp();
    g_kernel = std::string(GetParam()) == "rows" ? FlashKernel::Rows : FlashKernel::Tiled;
  }
};

TEST_P(FlashAttentionTest, MatchesThreePassAttentionForWholePrefills) {
  if (!device().features().timestamp_query) {
    GTEST_SKIP() << "needs timestamp-query (the labels of the dispatches that ran), which this device lacks "
                    "(--limits default requests no optional feature)";
  }
  for (int64_t s : {int64_t{1}, int64_t{7}, int64_t{512}, int64_t{2048}}) {
    SCOPED_TRACE("S=" + std::to_string(s));
    // GQA (2 query heads per kv head), D = 64; a small head count keeps S = 2048 quick on a CPU.
    const Dims4 d{s, s, 2, 1, 64};
    auto flash = load(device(), d, true), plain = load(device(), d, false);
    EXPECT_EQ(flash->dispatch_count(), plain->dispatch_count() + (s > 1 ? 1 : 0)) << "flash adds one dispatch";
    if (s > 1) {  // the kernel asked for is the one that runs
      const auto q = test::hashed_uniform(size_t(s * 2 * 64), 1), kv = test::hashed_uniform(size_t(s * 64), 2);
      const std::vector<int64_t> start{0};
      const HostTensorView in[] = {test::f32_view(q, {1, s, 2, 64}), test::f32_view(kv, {1, s, 1, 64}),
                                   test::f32_view(kv, {1, s, 1, 64}), test::i64_view(start, {1})};
      ExecuteOptions timed;
      timed.time_dispatches = true;
      flash->execute(in, timed);
      bool ran = false;
      for (const auto& t : flash->last_timings()) {
        ran = ran || t.label == (std::string(GetParam()) == "tiled" ? "flash attention tiled" : "flash attention");
      }
      EXPECT_TRUE(ran);
    }
    const auto got = run_chunks(*flash, d, {s});
    const auto want = run_chunks(*plain, d, {s});
    const double err = test::max_abs_error(got, want);
    EXPECT_LE(err, kTolerance);
    std::printf("[ flash    ] S=%lld: max abs difference from three-pass attention %.3g\n", (long long)s, err);
  }
}

TEST_P(FlashAttentionTest, ChunkedPrefillMatchesOneShot) {
  // Odd head dim (D = 40: D4 = 10, lanes partly idle) and 3 query heads per kv head.
  const Dims4 d{200, 600, 6, 2, 40};
  auto flash = load(device(), d, true), plain = load(device(), d, false);
  const auto chunked = run_chunks(*flash, d, {200, 1, 137, 3, 1, 200, 58});
  const auto want = run_chunks(*plain, d, {200, 200, 200});
  EXPECT_LE(test::max_abs_error(chunked, want), kTolerance);
}

TEST_P(FlashAttentionTest, SlidingWindowMatchesThreePass) {
  const Dims4 d{150, 300, 4, 2, 64};
  auto flash = load(device(), d, true, 45), plain = load(device(), d, false, 45);
  const auto got = run_chunks(*flash, d, {150, 1, 99});
  const auto want = run_chunks(*plain, d, {150, 1, 99});
  EXPECT_LE(test::max_abs_error(got, want), kTolerance);
}

// The opt-in f16 KV cache: rows rounded to f16 (2^-11 relative; values in
// [-1, 1]) and read by flash attention for S > 1 and by the decode kernel for
// S = 1 (up to 2 splits of the positions at this cache size).
TEST_P(FlashAttentionTest, F16CacheMatchesF32WithinRounding) {
  const Dims4 d{64, 160, 4, 2, 64};
  auto f16 = load(device(), d, true, 0, DType::F16), plain = load(device(), d, false);
  EXPECT_EQ(f16->memory_stats().state_bytes * 2, plain->memory_stats().state_bytes);
  const std::vector<int64_t> steps = {64, 1, 1, 30, 1, 63};
  const double err = test::max_abs_error(run_chunks(*f16, d, steps), run_chunks(*plain, d, steps));
  std::printf("[ flash    ] f16 KV cache: max abs difference from the f32 cache %.3g\n", err);
  EXPECT_LE(err, 2e-3);
}

// The three-pass path keeps heads x S x context f32 scores; flash keeps only
// rows for the decode step.
TEST_P(FlashAttentionTest, ScratchNoLongerGrowsWithSTimesContext) {
  for (int64_t context : {int64_t{2048}, int64_t{8192}}) {
    const Dims4 d{512, context, 4, 1, 64};
    const uint64_t flash = load(device(), d, true)->memory_stats().scratch_bytes;
    const uint64_t plain = load(device(), d, false)->memory_stats().scratch_bytes;
    std::printf("[ flash    ] S=512, context %lld, 4 heads: scratch %.2f MiB three-pass, %.3f MiB flash\n",
                (long long)context, plain / 1048576.0, flash / 1048576.0);
    EXPECT_GE(plain, uint64_t(4 * 512 * context * 4));
    // One row per head for the decode kernel and one for the S = 1 three-pass fallback.
    EXPECT_LE(flash, uint64_t(2 * 4 * context * 4));
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, FlashAttentionTest, ::testing::Values("tiled", "rows"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace wgrt
