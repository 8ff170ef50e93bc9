// Quantized linear and embedding in ggml block formats, against the CPU
// dequantizer (itself checked against the gguf Python package) and a double
// precision matmul.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <utility>

#include "gpu_test_env.h"
#include "graph/executable_graph.h"
#include "host_tensors.h"
#include "import/gguf/dequantize.h"
#include "ops/linear/gemm.h"
#include "ops/quant/quant_layout.h"
#include "ops/quant/weight_prep.h"
#include "ops/random_blocks.h"
#include "cli/environment.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

using test::NoSubgroupsTest;

struct Case {
  uint32_t type;
  const char* name;
};

class QuantLinearTest : public test::GpuTest, public ::testing::WithParamInterface<Case> {};

// The tuning every load in this file starts from: a test sets the fields it
// means (tiles, depths, lanes...) and a TuningScope puts the defaults back.
Tuning g_tuning;
struct TuningScope {
  ~TuningScope() { g_tuning = {}; }
};
LoadOptions load_options() {
  LoadOptions o;
  o.tuning = g_tuning;
  return o;
}

// How the test hands the weight to the graph: already in the block GPU
// layout, or already in the planar layout (quant_layout.h; Q4_0, Q4_1, Q8_0, Q4_K, Q5_K, Q6_K).
enum class Given { Blocks, Planar };

// Runs M = 1, kMaxM, 8, 1 and checks each against the double-precision
// product, relative to the sum of |terms| per output; returns the worst
// prefill (M > 1) error seen.
// With large_tile_at_max_m, the runs are timed and the kernel that ran must
// be the large GEMM tile at M = kMaxM and not at M = 8.
double check_linear(gpu::Device& device, const Case& c, int64_t K, int64_t N, int64_t kMaxM,
                    MatmulPrecision precision = MatmulPrecision::F32, double prefill_bound = 1e-5,
                    Given given = Given::Blocks, bool large_tile_at_max_m = false) {
  const ops::QuantLayout* l = ops::find_quant_layout(c.type);
  EXPECT_NE(l, nullptr);
  if (l == nullptr) return 1;
  const auto file = test::random_blocks(*l, N, K, c.type + 1);
  std::vector<float> wf(N * K);
  gguf::dequantize(static_cast<gguf::GgmlType>(c.type), file, wf);
  const bool planar = given == Given::Planar;
  const auto gpu_bytes = planar ? ops::repack_planar(c.type, file, N, K) : ops::repack_for_gpu(*l, file, N, K);
  const Dims wdims = planar ? Dims{N, int64_t(ops::planar_row_bytes(c.type, K) / 16), 16}
                            : Dims{N, int64_t(ops::gpu_row_bytes(*l, K))};
  const auto bias = test::random_floats(N, 77);

  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {kMaxM, K});
  b.mark_input(x);
  const ValueId w = b.add_constant(DType::U8, wdims, gpu_bytes);
  const ValueId bi = b.add_constant(DType::F32, {N}, test::bytes_of(bias));
  const ValueId out = b.add_tensor(DType::F32, {kMaxM, N});
  b.add_op("wgrt.linear_ggml", {x, w, b.add_int(c.type), bi, b.add_null(), out});
  b.mark_output(out);
  LoadOptions options = load_options();
  options.tuning.matmul_precision = precision;
  auto g = ExecutableGraph::load(device, std::move(b).build(), options);

  double prefill_worst = 0;
  for (int64_t m : {int64_t{1}, kMaxM, int64_t{8}, int64_t{1}}) {
    SCOPED_TRACE(std::string(c.name) + " M=" + std::to_string(m));
    const auto xs = test::random_floats(m * K, uint32_t(m));
    const HostTensorView in[] = {test::f32_view(xs, {m, K})};
    ExecuteOptions opts;
    opts.time_dispatches = large_tile_at_max_m;
    const HostTensor res = g->execute(in, opts)[0];
    if (large_tile_at_max_m && m > 1) {
      bool large = false;
      for (const auto& t : g->last_timings()) large = large || t.label.find("128x64_8x4") != std::string::npos;
      EXPECT_EQ(large, m == kMaxM);
    }
    EXPECT_EQ(res.dims, (Dims{m, N}));
    if (res.dims != Dims{m, N}) return 1;
    const auto got = test::floats(res);
    double worst = 0;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t n = 0; n < N; ++n) {
        double want = bias[n], mag = std::abs(bias[n]);
        for (int64_t k = 0; k < K; ++k) {
          want += double(xs[i * K + k]) * wf[n * K + k];
          mag += std::abs(double(xs[i * K + k]) * wf[n * K + k]);
        }
        worst = std::max(worst, std::abs(got[i * N + n] - want) / (mag + 1e-6));
      }
    }
    // f32 accumulation in a different order: 1e-5 of the sum of |terms|
    // (the GEMV is always f32); the prefill GEMM within its precision's bound.
    EXPECT_LT(worst, m == 1 ? 1e-5 : prefill_bound);
    if (m > 1) prefill_worst = std::max(prefill_worst, worst);
  }
  return prefill_worst;
}

// K = 512: 8 lanes per row in the GEMV (32 rows per workgroup); K = 2048:
// 16 lanes, and prefill tiles with a partial last tile.
TEST_P(QuantLinearTest, MatchesDequantizedMatmulForDecodeAndPrefill) { check_linear(device(), GetParam(), 512, 72, 19); }
TEST_P(QuantLinearTest, LongRowsUseAllLanes) { check_linear(device(), GetParam(), 2048, 40, 9); }
// K past one staged chunk of x (2048 elements): three chunks, the last one
// partial; 32 lanes per row, more than one subgroup on most devices.
TEST_P(QuantLinearTest, RowsLongerThanOneStagedChunk) {
  const uint32_t block = ops::find_quant_layout(GetParam().type)->block_elems;
  check_linear(device(), GetParam(), block == 32 ? 4160 : 4352, 21, 9);
}
// An odd row count and K of 19 units (32-element formats) or 3 super-blocks
// (256-element formats): not a power of two, lanes partly idle.
TEST_P(QuantLinearTest, OddShapes) {
  const uint32_t block = ops::find_quant_layout(GetParam().type)->block_elems;
  check_linear(device(), GetParam(), block == 32 ? 608 : 768, 37, 9);
}

// The f16 GEMMs (lavapipe offers shader-f16, so these run them; elsewhere
// they fall back to f32 and meet the bound trivially). Bounds relative to the
// sum of |terms|: F16 rounds x and W to f16 (2^-11 each) and sums up to 128
// products in f16 per K tile before adding into f32: 2e-3 holds with margin at K = 2048
// (measured worst printed). F16Acc sums all of K in f16: its error grows with
// K; 1e-2 at K = 2048.
TEST_P(QuantLinearTest, F16GemmWithinItsBound) {
  const double worst = check_linear(device(), GetParam(), 2048, 72, 37, MatmulPrecision::F16, 2e-3);
  std::printf("[ bound    ] %s F16 GEMM K=2048: worst |error| / sum|terms| = %.2e\n", GetParam().name, worst);
}
// Each f16 partial-sum span (WGRT_GEMM_F16_SPAN, at most a K tile: 128
// products at depth 4; the default is 128) stays within the same bound.
TEST_P(QuantLinearTest, F16GemmSpansWithinTheirBounds) {
  TuningScope scope;
  g_tuning.gemm_depth = 4;
  for (uint32_t span : {32u, 64u, 128u}) {
    g_tuning.gemm_f16_span = span;
    const double worst = check_linear(device(), GetParam(), 2048, 72, 37, MatmulPrecision::F16, 2e-3);
    std::printf("[ bound    ] %s F16 GEMM K=2048, %u products per f16 sum: worst |error| / sum|terms| = %.2e\n",
                GetParam().name, span, worst);
  }
}
TEST_P(QuantLinearTest, F16AccumulateGemmWithinItsBound) {
  const double worst = check_linear(device(), GetParam(), 2048, 72, 37, MatmulPrecision::F16Acc, 1e-2);
  std::printf("[ bound    ] %s F16Acc GEMM K=2048: worst |error| / sum|terms| = %.2e\n", GetParam().name, worst);
}

// Every tile shape of the GEMM family (Tuning::gemm_tile, read when the op is
// lowered) at M = 131 and N = 150 (more than one workgroup each way, partial
// last tiles for every shape) and an odd number of 32-element units, in f32
// and f16. Two formats (a 32-element block, a 256-element super-block): the
// tiles share every format's decode_unit, and each format with the default
// tile is tested above (each pipeline takes seconds to compile on lavapipe).
class GemmTileTest : public QuantLinearTest {};
TEST_P(GemmTileTest, EveryTileMatches) {
  const uint32_t block = ops::find_quant_layout(GetParam().type)->block_elems;
  for (const char* tile :
       {"64x64_4x4", "64x128_4x8", "128x128_8x8", "64x128_8x8", "32x64_4x4", "64x64_8x4", "128x64_8x4"}) {
    SCOPED_TRACE(tile);
    ASSERT_NE(ops::find_gemm_tile(tile), nullptr);
    TuningScope scope;
    g_tuning.gemm_tile = tile;
    check_linear(device(), GetParam(), block == 32 ? 608 : 768, 150, 131);
    check_linear(device(), GetParam(), block == 32 ? 608 : 768, 150, 131, MatmulPrecision::F16, 2e-3);
  }
}

// The K depths besides the default 2 (Tuning::gemm_depth: 1 or 4 units staged per
// barrier pair, each by its own threads) on an odd number of units (19: the
// last K tile is partial at depth 4), in f32 (depth 4 lowered to 2 where
// 64 KiB of workgroup memory is not offered) and f16.
TEST_P(GemmTileTest, OtherKDepthsMatch) {
  const uint32_t block = ops::find_quant_layout(GetParam().type)->block_elems;
  for (uint32_t ku : {1u, 4u}) {
    for (const char* tile : {"64x64_4x4", "128x128_8x8"}) {
      SCOPED_TRACE(std::string(tile) + " KU=" + std::to_string(ku));
      TuningScope scope;
      g_tuning.gemm_depth = ku;
      g_tuning.gemm_tile = tile;
      check_linear(device(), GetParam(), block == 32 ? 608 : 768, 150, 131);
      check_linear(device(), GetParam(), block == 32 ? 608 : 768, 150, 131, MatmulPrecision::F16, 2e-3);
    }
  }
}

// The large tile (128x64_8x4) beside the default one, chosen per live shape:
// with the minimum at 6 workgroups, M = 131 (a 2 x 3 grid of large tiles)
// runs it and M = 8 (1 x 3) the default tile, in one loaded graph.
TEST_P(GemmTileTest, LargeTileFollowsTheLiveRows) {
  if (!device().features().timestamp_query) {
    GTEST_SKIP() << "needs timestamp-query (the labels of the dispatches that ran), which this device lacks "
                    "(--limits default requests no optional feature)";
  }
  const uint32_t block = ops::find_quant_layout(GetParam().type)->block_elems;
  TuningScope scope;
  g_tuning.gemm_large_min_workgroups = 6;
  check_linear(device(), GetParam(), block == 32 ? 608 : 768, 150, 131, MatmulPrecision::F32, 1e-5, Given::Blocks, true);
  check_linear(device(), GetParam(), block == 32 ? 608 : 768, 150, 131, MatmulPrecision::F16, 2e-3, Given::Blocks, true);
}

TEST(GemmTile, UnknownDepthIsRefused) {
  Tuning t;
  t.gemm_depth = 3;
  try {
    validate(t);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Tuning::gemm_depth: expected 0 (choose), 1, 2 or 4, got 3"), std::string::npos)
        << e.what();
  }
}

// The large tile by grid size, or by long K from 128 of its workgroups on
// (llama1b's shapes at pp512 and pp256).
TEST(GemmTile, LargeTileByWorkgroupsOrLongK) {
  const ops::GemmTile* large = ops::find_gemm_tile("128x64_8x4");
  ASSERT_NE(large, nullptr);
  EXPECT_TRUE(ops::gemm_use_large(*large, 512, 16384, 2048, 1024, 8192));   // gate/up: 1,024 workgroups
  EXPECT_TRUE(ops::gemm_use_large(*large, 512, 2048, 8192, 1024, 8192));    // down: 128, K 8192
  EXPECT_FALSE(ops::gemm_use_large(*large, 512, 2048, 8192, 1024, 0));      // the K rule off
  EXPECT_FALSE(ops::gemm_use_large(*large, 256, 2048, 8192, 1024, 8192));   // down at 256 rows: 64
  EXPECT_FALSE(ops::gemm_use_large(*large, 512, 2048, 2048, 1024, 8192));   // o
  EXPECT_FALSE(ops::gemm_use_large(*large, 512, 3072, 2048, 1024, 8192));   // QKV: 192
  EXPECT_FALSE(ops::gemm_use_large(*large, 256, 16384, 2048, 1024, 8192));  // gate/up at 256 rows: 512
}

// The variables behind the tile minimums take counts (src/cli/environment.h),
// and unset leave Tuning's defaults.
TEST(GemmTile, TileMinimumsMustBeCounts) {
  struct Knob {
    const char* name;
    uint64_t Tuning::*field;
    uint64_t fallback;
  };
  for (const Knob& k : {Knob{"WGRT_GEMM_LARGE_MIN_WORKGROUPS", &Tuning::gemm_large_min_workgroups, 1024},
                        Knob{"WGRT_GEMM_LARGE_MIN_K", &Tuning::gemm_large_min_k, 8192},
                        Knob{"WGRT_GEMM_MIN_WORKGROUPS", &Tuning::gemm_min_workgroups, 0}}) {
    SCOPED_TRACE(k.name);
    setenv(k.name, "lots", 1);
    EXPECT_THROW(tuning_from_environment(), Error);
    setenv(k.name, "0", 1);
    EXPECT_EQ(tuning_from_environment().*k.field, 0u);
    unsetenv(k.name);
    EXPECT_EQ(tuning_from_environment().*k.field, k.fallback);
  }
}

// A power of two from 32: 96 (3 units) would not divide a depth of 4, and
// the kernel's fold loop would read past the staged tile.
TEST(GemmTile, F16SpanMustBeAPowerOfTwoFrom32) {
  EXPECT_EQ(Tuning{}.gemm_f16_span, 128u);
  for (uint32_t bad : {0u, 16u, 48u, 96u, 100u}) {
    SCOPED_TRACE(bad);
    Tuning t;
    t.gemm_f16_span = bad;
    EXPECT_THROW(validate(t), Error);
  }
  Tuning t;
  t.gemm_f16_span = 64;
  EXPECT_NO_THROW(validate(t));
}

TEST(GemmTile, UnknownNameIsRefused) {
  Tuning t;
  t.gemm_tile = "32x32_2x2";
  try {
    ops::gemm_tile(t);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Tuning::gemm_tile: unknown tile '32x32_2x2' (known: 64x64_4x4"),
              std::string::npos)
        << e.what();
  }
}

TEST_P(QuantLinearTest, EmbeddingRowsMatchTheDequantizer) {
  const Case c = GetParam();
  const ops::QuantLayout* l = ops::find_quant_layout(c.type);
  constexpr int64_t kVocab = 40, kDim = 256, kMaxT = 6;
  const auto file = test::random_blocks(*l, kVocab, kDim, c.type + 7);
  std::vector<float> table(kVocab * kDim);
  gguf::dequantize(static_cast<gguf::GgmlType>(c.type), file, table);

  GraphBuilder b;
  const ValueId w = b.add_constant(DType::U8, {kVocab, int64_t(ops::gpu_row_bytes(*l, kDim))},
                                   ops::repack_for_gpu(*l, file, kVocab, kDim));
  const ValueId ids = b.add_tensor(DType::I64, {1, kMaxT});
  b.mark_input(ids);
  const ValueId out = b.add_tensor(DType::F32, {1, kMaxT, kDim});
  b.add_op("wgrt.embedding_ggml", {w, b.add_int(c.type), ids, out});
  b.mark_output(out);
  auto g = ExecutableGraph::load(device(), std::move(b).build());

  const std::vector<int64_t> tokens = {39, 0, 7};
  const HostTensorView in[] = {{DType::I64, {1, 3}, std::span(reinterpret_cast<const uint8_t*>(tokens.data()), 24)}};
  const HostTensor res = g->execute(in)[0];
  ASSERT_EQ(res.dims, (Dims{1, 3, kDim}));
  const auto got = test::floats(res);
  for (size_t t = 0; t < tokens.size(); ++t) {
    for (int64_t i = 0; i < kDim; ++i) {
      // Decoding one element is a few f32 operations: allow 1 ulp-scale slack for FMA contraction.
      const float want = table[tokens[t] * kDim + i];
      ASSERT_NEAR(got[t * kDim + i], want, 1e-6f + 1e-6f * std::abs(want)) << "token " << t << " elem " << i;
    }
  }
}

// Importers add weights as the file stores them; the ops' prepare step
// re-lays them out at load. One file-layout table shared by the embedding and
// a tied output head (prepared once, by the embedding) must give the
// dequantizer's values through both ops.
TEST_P(QuantLinearTest, FileLayoutWeightsArePreparedOnceAtLoad) {
  const Case c = GetParam();
  const ops::QuantLayout* l = ops::find_quant_layout(c.type);
  constexpr int64_t kVocab = 40, kDim = 256;
  const auto file = test::random_blocks(*l, kVocab, kDim, c.type + 11);
  std::vector<float> table(kVocab * kDim);
  gguf::dequantize(static_cast<gguf::GgmlType>(c.type), file, table);

  GraphBuilder b;
  const ValueId w = b.add_constant_view(DType::U8, {kVocab, int64_t(ops::file_row_bytes(*l, kDim))}, file);
  const ValueId ids = b.add_tensor(DType::I64, {1, 1});
  b.mark_input(ids);
  const ValueId emb = b.add_tensor(DType::F32, {1, 1, kDim});
  b.add_op("wgrt.embedding_ggml", {w, b.add_int(c.type), ids, emb});
  const ValueId row = b.add_tensor(DType::F32, {1, kDim});
  b.add_op("aten.view_copy.default", {emb, b.add_int_list({1, kDim}), row});
  const ValueId logits = b.add_tensor(DType::F32, {1, kVocab});
  b.add_op("wgrt.linear_ggml", {row, w, b.add_int(c.type), b.add_null(), b.add_null(), logits});
  b.mark_output(logits);
  auto g = ExecutableGraph::load(device(), std::move(b).build());
  // Q4_0, Q4_1, Q8_0, Q4_K, Q5_K, Q6_K: the planar layout, which both ops read; others: blocks.
  const Dims prepared = ops::has_planar_layout(c.type)
                            ? Dims{kVocab, int64_t(ops::planar_row_bytes(c.type, kDim) / 16), 16}
                            : Dims{kVocab, int64_t(ops::gpu_row_bytes(*l, kDim))};
  EXPECT_EQ(g->graph().tensor(w).max_dims, prepared);

  const int64_t token = 5;
  const HostTensorView in[] = {{DType::I64, {1, 1}, std::span(reinterpret_cast<const uint8_t*>(&token), 8)}};
  const auto got = test::floats(g->execute(in)[0]);
  for (int64_t v = 0; v < kVocab; ++v) {
    double want = 0, mag = 0;
    for (int64_t k = 0; k < kDim; ++k) {
      want += double(table[token * kDim + k]) * table[v * kDim + k];
      mag += std::abs(double(table[token * kDim + k]) * table[v * kDim + k]);
    }
    EXPECT_NEAR(got[v], want, 1e-5 * (mag + 1e-6)) << "vocab row " << v;
  }
}

// The workgroup-memory reduction that devices without subgroups get: a
// 32-element format, a K-quant, and F16, over two staged chunks of x.
TEST_F(NoSubgroupsTest, QuantLinearMatchesDequantizedMatmul) {
  check_linear(device(), Case{2, "Q4_0"}, 2400, 37, 9);
  check_linear(device(), Case{12, "Q4_K"}, 2304, 37, 9);
  check_linear(device(), Case{1, "F16"}, 2400, 37, 9);
  check_linear(device(), Case{3, "Q4_1"}, 4160, 37, 9, MatmulPrecision::F32, 1e-5, Given::Planar);
}

// The planar layout and its GEMV (gemv_planar.wgsl) for the formats that have
// it; the prefill GEMMs decode it through dequant.wgsl. Shapes (K-quants: the next
// whole super-blocks, planar_k): K = 608
// (19 blocks, 37 rows), 2048 (one staged chunk), 4160 (130 blocks: a second
// chunk of 2 blocks at 32 lanes).
class QuantLinearPlanar : public QuantLinearTest {};

// K for the planar tests: k, or for 256-element formats (K-quants) the next
// whole number of super-blocks (608 -> 768, 2400 -> 2560, 4160 -> 4352).
int64_t planar_k(const Case& c, int64_t k) {
  const int64_t block = ops::find_quant_layout(c.type)->block_elems;
  return (k + block - 1) / block * block;
}

TEST_P(QuantLinearPlanar, OddShapes) {
  check_linear(device(), GetParam(), planar_k(GetParam(), 608), 37, 9, MatmulPrecision::F32, 1e-5, Given::Planar);
}
TEST_P(QuantLinearPlanar, LongRows) {
  check_linear(device(), GetParam(), planar_k(GetParam(), 2048), 40, 9, MatmulPrecision::F32, 1e-5, Given::Planar);
  check_linear(device(), GetParam(), planar_k(GetParam(), 4160), 21, 9, MatmulPrecision::F32, 1e-5, Given::Planar);
}
// Lanes per row follow the row count (32 for these few rows); 8 and 16 (for
// matrices of many rows) forced here, with K past one staged chunk.
TEST_P(QuantLinearPlanar, EveryLaneCount) {
  for (uint32_t lanes : {8u, 16u}) {
    SCOPED_TRACE("lanes " + std::to_string(lanes));
    TuningScope scope;
    g_tuning.gemv_lanes = lanes;
    check_linear(device(), GetParam(), planar_k(GetParam(), 2400), 37, 9, MatmulPrecision::F32, 1e-5, Given::Planar);
  }
}
// Several blocks of rows per workgroup over one staging of x (the output
// heads' default; forced here): row counts that leave the last workgroup's
// blocks partly or wholly past N, each lane count, K up to one staging.
TEST_P(QuantLinearPlanar, RowBlocksPerWorkgroup) {
  for (auto [blocks, lanes] : {std::pair{3u, 8u}, std::pair{8u, 32u}, std::pair{2u, 16u}}) {
    SCOPED_TRACE("row blocks " + std::to_string(blocks) + ", lanes " + std::to_string(lanes));
    TuningScope scope;
    g_tuning.gemv_row_blocks = blocks;
    g_tuning.gemv_lanes = lanes;
    check_linear(device(), GetParam(), planar_k(GetParam(), 608), 75, 9, MatmulPrecision::F32, 1e-5, Given::Planar);
    check_linear(device(), GetParam(), planar_k(GetParam(), 4096), 37, 9, MatmulPrecision::F32, 1e-5, Given::Planar);
  }
}
TEST_P(QuantLinearPlanar, F16Gemm) {
  check_linear(device(), GetParam(), planar_k(GetParam(), 2048), 72, 37, MatmulPrecision::F16, 2e-3, Given::Planar);
}
// The prefill GEMM on the planar layout (raw words fetched, decoded when
// staged) at K depths 1 and 4 (19 units: a partial last K tile), f32 and
// f16, M = 131 and N = 150 (partial row and column tiles).
TEST_P(QuantLinearPlanar, GemmAtEachDepth) {
  for (uint32_t ku : {1u, 4u}) {
    SCOPED_TRACE("KU=" + std::to_string(ku));
    TuningScope scope;
    g_tuning.gemm_depth = ku;
    check_linear(device(), GetParam(), planar_k(GetParam(), 608), 150, 131, MatmulPrecision::F32, 1e-5, Given::Planar);
    check_linear(device(), GetParam(), planar_k(GetParam(), 608), 150, 131, MatmulPrecision::F16, 2e-3, Given::Planar);
  }
}

// gemv_planar_q8.wgsl: x rounded to int8 per 32-element unit (scale
// max|x| / 127) and packed integer dot products. With one rounding
// (GemvActivation::Q8) each term's error is at most |w_k| * max|x over k's
// unit| / 254 (half a quantization step), so |got - exact| <= sum_k |w_k| *
// unit_max(k) / 254, plus f32 slack; checked per row. With two (q8x2, the
// default on large matrices) the remainder is rounded again at a 254 times
// finer step: the bound's divisor is 254 * 254. Shapes: K = 608 (19
// units), 2048, 6400 (200 units: two staged chunks of x), every lane count;
// N odd (37 rows: with 3 or 8 blocks of rows, the last workgroup's blocks
// lie partly or wholly past N).
// Runs the int8-x GEMV with `levels` roundings on the shapes above and
// checks every row against its bound; returns the worst |error| / bound.
double check_int8_gemv(gpu::Device& device, const Case& c, int levels) {
  const ops::QuantLayout* l = ops::find_quant_layout(c.type);
  constexpr int64_t kN = 37;
  TuningScope scope;
  const double divisor = levels == 1 ? 254.0 : 254.0 * 254.0;
  double worst_ratio = 0;
  for (int64_t k : {planar_k(c, 608), int64_t{2048}, int64_t{6400}}) {
    for (uint32_t lanes : {8u, 16u, 32u}) {
      // Row blocks: as chosen (0), or x quantized once for 3 or 8 (the output
      // heads' default) blocks of rows, where K fits one staging.
      for (uint32_t blocks : {0u, 3u, 8u}) {
        if (blocks != 0 && k > 4096) continue;
        SCOPED_TRACE("levels " + std::to_string(levels) + " K=" + std::to_string(k) + " lanes " +
                     std::to_string(lanes) + " row blocks " + (blocks != 0 ? std::to_string(blocks) : "as chosen"));
        g_tuning.gemv_activation = levels == 1 ? GemvActivation::Q8 : GemvActivation::Q8x2;
        g_tuning.gemv_lanes = lanes;
        g_tuning.gemv_row_blocks = blocks;
        const auto file = test::random_blocks(*l, kN, k, c.type + 5);
        std::vector<float> wf(kN * k);
        gguf::dequantize(static_cast<gguf::GgmlType>(c.type), file, wf);
        GraphBuilder b;
        const ValueId x = b.add_tensor(DType::F32, {1, k});
        b.mark_input(x);
        const ValueId w = b.add_constant(DType::U8, {kN, int64_t(ops::planar_row_bytes(c.type, k) / 16), 16},
                                         ops::repack_planar(c.type, file, kN, k));
        const ValueId out = b.add_tensor(DType::F32, {1, kN});
        b.add_op("wgrt.linear_ggml", {x, w, b.add_int(c.type), b.add_null(), b.add_null(), out});
        b.mark_output(out);
        auto g = ExecutableGraph::load(device, std::move(b).build(), load_options());
        auto xs = test::random_floats(k, uint32_t(k));
        for (int64_t i = 0; i < k; i += 97) xs[i] *= 8.0f;  // units with an outlier: a coarse step
        const HostTensorView in[] = {test::f32_view(xs, {1, k})};
        const auto got = test::floats(g->execute(in)[0]);
        for (int64_t n = 0; n < kN; ++n) {
          double want = 0, mag = 0, bound = 0;
          for (int64_t u = 0; u < k / 32; ++u) {
            double top = 0;
            for (int64_t e = u * 32; e < u * 32 + 32; ++e) top = std::max(top, std::abs(double(xs[e])));
            for (int64_t e = u * 32; e < u * 32 + 32; ++e) {
              want += double(xs[e]) * wf[n * k + e];
              mag += std::abs(double(xs[e]) * wf[n * k + e]);
              bound += std::abs(double(wf[n * k + e])) * top / divisor;
            }
          }
          const double err = std::abs(got[n] - want);
          EXPECT_LE(err, bound + 1e-5 * (mag + 1e-6)) << "row " << n;
          worst_ratio = std::max(worst_ratio, err / bound);
        }
      }
    }
  }
  return worst_ratio;
}

TEST_P(QuantLinearPlanar, Int8ActivationsWithinTheRoundingBound) {
  const double one = check_int8_gemv(device(), GetParam(), 1);
  const double two = check_int8_gemv(device(), GetParam(), 2);
  std::printf("[ bound    ] %s int8-x GEMV: worst |error| / rounding bound = %.3g (one rounding), %.3g (two)\n",
              GetParam().name, one, two);
}

// The same with the workgroup-memory reductions of devices without subgroups.
TEST_F(NoSubgroupsTest, Int8ActivationGemvWithinTheRoundingBound) {
  check_int8_gemv(device(), Case{2, "Q4_0"}, 2);
  check_int8_gemv(device(), Case{3, "Q4_1"}, 1);
}

// A file-layout weight is put into the planar layout at load, the same bytes but for the scale part's padding; with
// Tuning::gemv_layout Blocks it gets the block layout instead, and with Auto (the default) what this adapter gets.
TEST_P(QuantLinearPlanar, FileLayoutWeightIsRepackedAtLoad) {
  const Case c = GetParam();
  const ops::QuantLayout* l = ops::find_quant_layout(c.type);
  constexpr int64_t kN = 24;
  const int64_t kK = planar_k(c, 576);
  const auto file = test::random_blocks(*l, kN, kK, c.type + 3);
  const bool auto_planar =
      ops::chosen_gemv_layout(GemvLayout::Auto, &device().adapter_info()) == GemvLayout::Planar;
  for (const char* name : {"planar", "blocks", "auto"}) {
    SCOPED_TRACE(name);
    TuningScope scope;
    const std::string_view mode = std::string_view(name) == "auto" ? (auto_planar ? "planar" : "blocks") : name;
    g_tuning.gemv_layout = std::string_view(name) == "auto" ? GemvLayout::Auto
                           : mode == "planar"               ? GemvLayout::Planar
                                                            : GemvLayout::Blocks;
    GraphBuilder b;
    const ValueId x = b.add_tensor(DType::F32, {1, kK});
    b.mark_input(x);
    const ValueId w = b.add_constant_view(DType::U8, {kN, int64_t(ops::file_row_bytes(*l, kK))}, file);
    const ValueId out = b.add_tensor(DType::F32, {1, kN});
    b.add_op("wgrt.linear_ggml", {x, w, b.add_int(c.type), b.add_null(), b.add_null(), out});
    b.mark_output(out);
    auto g = ExecutableGraph::load(device(), std::move(b).build(), load_options());
    const Dims want = mode == "planar" ? Dims{kN, int64_t(ops::planar_row_bytes(c.type, kK) / 16), 16}
                                                    : Dims{kN, int64_t(ops::gpu_row_bytes(*l, kK))};
    EXPECT_EQ(g->graph().tensor(w).max_dims, want);
    if (mode == "planar") {
      EXPECT_LE(double(numel(want)), 1.04 * double(file.size()));
    }
    std::vector<float> wf(kN * kK);
    gguf::dequantize(static_cast<gguf::GgmlType>(c.type), file, wf);
    const auto xs = test::random_floats(kK, 5);
    const HostTensorView in[] = {test::f32_view(xs, {1, kK})};
    const auto got = test::floats(g->execute(in)[0]);
    for (int64_t n = 0; n < kN; ++n) {
      double want_v = 0, mag = 0;
      for (int64_t k = 0; k < kK; ++k) {
        want_v += double(xs[k]) * wf[n * kK + k];
        mag += std::abs(double(xs[k]) * wf[n * kK + k]);
      }
      EXPECT_NEAR(got[n], want_v, 1e-5 * (mag + 1e-6)) << "row " << n;
    }
  }
}

// Auto is the planar layout but on SwiftShader (as Chromium reports it); a
// layout asked for by name is kept everywhere.
TEST(GemvLayoutChoice, AutoIsPlanarButOnSwiftShader) {
  gpu::AdapterInfo swiftshader, lavapipe;
  swiftshader.vendor = "google";
  swiftshader.architecture = "swiftshader";
  swiftshader.device_type = "CPU";
  lavapipe.name = "llvmpipe (LLVM 19.1.7, 256 bits)";
  lavapipe.driver = "Mesa 25.0.7";
  lavapipe.device_type = "CPU";
  EXPECT_EQ(ops::chosen_gemv_layout(GemvLayout::Auto, &swiftshader), GemvLayout::Blocks);
  EXPECT_EQ(ops::chosen_gemv_layout(GemvLayout::Auto, &lavapipe), GemvLayout::Planar);
  EXPECT_EQ(ops::chosen_gemv_layout(GemvLayout::Auto, nullptr), GemvLayout::Planar);
  EXPECT_EQ(ops::chosen_gemv_layout(GemvLayout::Planar, &swiftshader), GemvLayout::Planar);
  EXPECT_EQ(ops::chosen_gemv_layout(GemvLayout::Blocks, &lavapipe), GemvLayout::Blocks);
}

INSTANTIATE_TEST_SUITE_P(Formats, QuantLinearPlanar,
                         ::testing::Values(Case{2, "Q4_0"}, Case{3, "Q4_1"}, Case{8, "Q8_0"}, Case{12, "Q4_K"},
                                           Case{13, "Q5_K"}, Case{14, "Q6_K"}),
                         [](const auto& info) { return std::string(info.param.name); });

INSTANTIATE_TEST_SUITE_P(Formats, QuantLinearTest,
                         ::testing::Values(Case{0, "F32"}, Case{1, "F16"}, Case{2, "Q4_0"}, Case{3, "Q4_1"},
                                           Case{6, "Q5_0"}, Case{7, "Q5_1"}, Case{8, "Q8_0"}, Case{10, "Q2_K"},
                                           Case{11, "Q3_K"}, Case{12, "Q4_K"}, Case{13, "Q5_K"}, Case{14, "Q6_K"},
                                           Case{20, "IQ4_NL"}, Case{23, "IQ4_XS"}),
                         [](const auto& info) { return std::string(info.param.name); });
INSTANTIATE_TEST_SUITE_P(Formats, GemmTileTest, ::testing::Values(Case{2, "Q4_0"}, Case{14, "Q6_K"}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace wgrt
