// Tensors above the device's binding limit (memory_plan.h): constants stored
// in runs of rows, read by the embedding and the linears one run per
// dispatch; KV caches stored in parts by heads, read by attention per part.
// A device whose split size is forced low (DeviceOptions::
// split_bytes_for_test) must give what the shared device gives, hold the
// same constant bytes, and refuse clearly where an op cannot read parts.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "gpu_test_env.h"
#include "graph/executable_graph.h"
#include "host_tensors.h"
#include "ops/quant/quant_layout.h"
#include "ops/random_blocks.h"
#include "split_device.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

struct Case {
  uint32_t type;
  const char* name;
};

// The split device's 16 KiB (split_device.h): with 256-element rows (144 to
// 1,024 bytes) the 200-row tables below come in 4 to 13 runs, the last one
// short.
using test::split_device;
using test::SplitDeviceTest;

class BindingSplitTest : public SplitDeviceTest, public ::testing::WithParamInterface<Case> {};
class BindingSplitPteOps : public SplitDeviceTest {};

// A tied embedding and output head over one file-layout table, and a
// second linear with RMSNorm before and a residual after it
// (linear_ggml_fused): the ops that read weights in runs of rows.
Graph tied_model(const Case& c, int64_t vocab, int64_t dim, int64_t max_t, const std::vector<uint8_t>& table,
                 const std::vector<uint8_t>& w2, const std::vector<float>& bias, const std::vector<float>& norm) {
  const ops::QuantLayout& l = *ops::find_quant_layout(c.type);
  GraphBuilder b;
  const ValueId w = b.add_constant_view(DType::U8, {vocab, int64_t(ops::file_row_bytes(l, dim))}, table);
  const ValueId ids = b.add_tensor(DType::I64, {1, max_t});
  b.mark_input(ids);
  const ValueId emb = b.add_tensor(DType::F32, {1, max_t, dim});
  b.add_op("wgrt.embedding_ggml", {w, b.add_int(c.type), ids, emb});
  b.mark_output(emb);
  const ValueId rows = b.add_tensor(DType::F32, {max_t, dim});
  b.add_op("aten.view_copy.default", {emb, b.add_int_list({-1, dim}), rows});
  const ValueId logits = b.add_tensor(DType::F32, {max_t, vocab});
  b.add_op("wgrt.linear_ggml", {rows, w, b.add_int(c.type), b.add_constant(DType::F32, {vocab}, test::bytes_of(bias)),
                                b.add_null(), logits});
  b.mark_output(logits);
  const ValueId wb = b.add_constant_view(DType::U8, {vocab, int64_t(ops::file_row_bytes(l, dim))}, w2);
  const ValueId fused = b.add_tensor(DType::F32, {max_t, vocab});
  b.add_op("wgrt.linear_ggml_fused", {rows, wb, b.add_int(c.type), b.add_null(), b.add_null(),
                                      b.add_constant(DType::F32, {dim}, test::bytes_of(norm)), b.add_double(1e-5),
                                      logits, fused});
  b.mark_output(fused);
  return std::move(b).build();
}

TEST_P(BindingSplitTest, RunsOfRowsMatchTheUnsplitGraph) {
  const Case c = GetParam();
  const ops::QuantLayout& l = *ops::find_quant_layout(c.type);
  constexpr int64_t kVocab = 200, kDim = 256, kMaxT = 7;
  const auto table = test::random_blocks(l, kVocab, kDim, c.type + 3);
  const auto w2 = test::random_blocks(l, kVocab, kDim, c.type + 5);
  const auto bias = test::random_floats(kVocab, 9);
  const auto norm = test::random_floats(kDim, 10, 0.5f, 1.5f);
  LoadOptions options;
  options.tuning.fuse = false;  // the graph is already in the forms under test
  auto whole = ExecutableGraph::load(device(), tied_model(c, kVocab, kDim, kMaxT, table, w2, bias, norm), options);
  auto split = ExecutableGraph::load(*split_device(), tied_model(c, kVocab, kDim, kMaxT, table, w2, bias, norm), options);
  // Nothing is held twice: the runs together are the constants' bytes.
  EXPECT_EQ(split->memory_stats().constant_bytes, whole->memory_stats().constant_bytes);
  // More dispatches: one set per run (the table is above 16 KiB in every format).
  EXPECT_GT(split->dispatch_count(), whole->dispatch_count());

  // Decode (one token: the GEMVs) and prefill (the GEMMs), with ids in the
  // first, a middle and the last run of rows.
  for (const std::vector<int64_t>& tokens :
       {std::vector<int64_t>{199}, std::vector<int64_t>{0, 63, 64, 130, 199, 5, 128}, std::vector<int64_t>{77}}) {
    const int64_t t = int64_t(tokens.size());
    SCOPED_TRACE(std::string(c.name) + " T=" + std::to_string(t));
    const HostTensorView in[] = {
        {DType::I64, {1, t}, std::span(reinterpret_cast<const uint8_t*>(tokens.data()), tokens.size() * 8)}};
    const auto a = whole->execute(in);
    const auto b = split->execute(in);
    ASSERT_EQ(a.size(), b.size());
    for (size_t o = 0; o < a.size(); ++o) {
      ASSERT_EQ(a[o].dims, b[o].dims) << "output " << o;
      const auto x = test::floats(a[o]), y = test::floats(b[o]);
      for (size_t i = 0; i < x.size(); ++i) {
        // The same arithmetic per output element, in another dispatch: 1e-6 relative.
        ASSERT_NEAR(y[i], x[i], 1e-6f * (1.0f + std::abs(x[i]))) << "output " << o << " element " << i;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, BindingSplitTest,
                         ::testing::Values(Case{0, "F32"}, Case{1, "F16"}, Case{2, "Q4_0"}, Case{3, "Q4_1"},
                                           Case{6, "Q5_0"}, Case{7, "Q5_1"}, Case{8, "Q8_0"}, Case{10, "Q2_K"},
                                           Case{11, "Q3_K"}, Case{12, "Q4_K"}, Case{13, "Q5_K"}, Case{14, "Q6_K"},
                                           Case{20, "IQ4_NL"}, Case{23, "IQ4_XS"}),
                         [](const auto& info) { return std::string(info.param.name); });

// ExecuTorch's 4-bit LLM ops (et_vk.embedding_q4gsw, et_vk.linear_q4gsw) over
// weights above the split size: what a .pte Llama's embedding and output
// head need under WebGPU's default limits.
Graph q4gsw_model(int64_t vocab, int64_t dim, int64_t max_t, int64_t group, const std::vector<uint8_t>& table,
                  const std::vector<float>& table_scales, const std::vector<uint8_t>& head,
                  const std::vector<float>& head_scales, const std::vector<float>& bias) {
  GraphBuilder b;
  const ValueId ids = b.add_tensor(DType::I64, {1, max_t});
  b.mark_input(ids);
  const ValueId emb = b.add_tensor(DType::F32, {1, max_t, dim});
  b.add_op("et_vk.embedding_q4gsw.default",
           {b.add_constant(DType::U8, {vocab, dim / 2}, table),
            b.add_constant(DType::F32, {vocab, dim / group}, test::bytes_of(table_scales)), b.add_int(group), ids,
            b.add_bool(true), emb});
  b.mark_output(emb);
  const ValueId logits = b.add_tensor(DType::F32, {1, max_t, vocab});
  b.add_op("et_vk.linear_q4gsw.default",
           {emb, b.add_constant(DType::U8, {vocab, dim / 2}, head),
            b.add_constant(DType::F32, {dim / group, vocab}, test::bytes_of(head_scales)), b.add_int(group),
            b.add_constant(DType::F32, {vocab}, test::bytes_of(bias)), logits});
  b.mark_output(logits);
  return std::move(b).build();
}

TEST_F(BindingSplitPteOps, Q4gswEmbeddingAndHeadMatchTheUnsplitGraph) {
  constexpr int64_t kVocab = 200, kDim = 256, kMaxT = 7, kGroup = 32;  // 25,600-byte weights: 2 runs
  std::vector<uint8_t> table(kVocab * kDim / 2), head(kVocab * kDim / 2);
  for (size_t i = 0; i < table.size(); ++i) {
    table[i] = uint8_t(i * 37 + 11);
    head[i] = uint8_t(i * 53 + 7);
  }
  const auto table_scales = test::random_floats(kVocab * kDim / kGroup, 3, 0.01f, 0.1f);
  const auto head_scales = test::random_floats(kVocab * kDim / kGroup, 4, 0.01f, 0.1f);
  const auto bias = test::random_floats(kVocab, 5);
  // Auto: the op's own GEMM; F32: the GEMM family (q4gsw_unit.wgsl).
  for (MatmulPrecision precision : {MatmulPrecision::Auto, MatmulPrecision::F32}) {
    LoadOptions options;
    options.tuning.matmul_precision = precision;
    options.tuning.fuse = false;  // the op's own kernels (the passes would move the whole graph's into linear_ggml)
    auto make = [&] { return q4gsw_model(kVocab, kDim, kMaxT, kGroup, table, table_scales, head, head_scales, bias); };
    auto whole = ExecutableGraph::load(device(), make(), options);
    auto split = ExecutableGraph::load(*split_device(), make(), options);
    EXPECT_EQ(split->memory_stats().constant_bytes, whole->memory_stats().constant_bytes);
    EXPECT_GT(split->dispatch_count(), whole->dispatch_count());
    for (const std::vector<int64_t>& tokens : {std::vector<int64_t>{199}, std::vector<int64_t>{0, 127, 128, 199, 64, 5, 150}}) {
      const int64_t t = int64_t(tokens.size());
      SCOPED_TRACE("T=" + std::to_string(t) + (precision == MatmulPrecision::Auto ? " own GEMM" : " GEMM family"));
      const HostTensorView in[] = {
          {DType::I64, {1, t}, std::span(reinterpret_cast<const uint8_t*>(tokens.data()), tokens.size() * 8)}};
      const auto a = whole->execute(in);
      const auto b = split->execute(in);
      for (size_t o = 0; o < a.size(); ++o) {
        ASSERT_EQ(a[o].dims, b[o].dims) << "output " << o;
        const auto x = test::floats(a[o]), y = test::floats(b[o]);
        for (size_t i = 0; i < x.size(); ++i) {
          ASSERT_NEAR(y[i], x[i], 1e-6f * (1.0f + std::abs(x[i]))) << "output " << o << " element " << i;
        }
      }
    }
  }
}

// An f32 table of a .pte program (aten.embedding): 200 rows of 256 bytes
// in runs of 64.
TEST_F(BindingSplitPteOps, F32EmbeddingOfAProgram) {
  constexpr int64_t kVocab = 200, kDim = 64, kMaxT = 5;
  const auto table = test::random_floats(kVocab * kDim, 8);
  auto make = [&] {
    GraphBuilder b;
    const ValueId ids = b.add_tensor(DType::I64, {kMaxT});
    b.mark_input(ids);
    const ValueId out = b.add_tensor(DType::F32, {kMaxT, kDim});
    b.add_op("aten.embedding.default", {b.add_constant(DType::F32, {kVocab, kDim}, test::bytes_of(table)), ids,
                                        b.add_int(-1), b.add_bool(false), b.add_bool(false), out});
    b.mark_output(out);
    return std::move(b).build();
  };
  auto split = ExecutableGraph::load(*split_device(), make(), test::load_options());
  EXPECT_EQ(split->dispatch_count(), 4u);
  const std::vector<int64_t> tokens = {199, 0, 64, 63, 130};
  const HostTensorView in[] = {{DType::I64, {kMaxT}, std::span(reinterpret_cast<const uint8_t*>(tokens.data()), 40)}};
  const auto got = test::floats(split->execute(in)[0]);
  for (size_t t = 0; t < tokens.size(); ++t) {
    for (int64_t i = 0; i < kDim; ++i) {
      ASSERT_EQ(got[t * kDim + i], table[tokens[t] * kDim + i]) << "token " << t << " element " << i;  // a copy
    }
  }
}

// aten.linear over an f32 weight of a .pte program (a tied GPT-2 head is
// 154 MB): 200 rows of 256 bytes in runs of 64, GEMV and both GEMMs.
TEST_F(BindingSplitPteOps, F32LinearOfAProgram) {
  constexpr int64_t kN = 200, kK = 64, kMaxM = 5;
  const auto weight = test::random_floats(kN * kK, 11);
  const auto bias = test::random_floats(kN, 12);
  auto make = [&] {
    GraphBuilder b;
    const ValueId x = b.add_tensor(DType::F32, {kMaxM, kK});
    b.mark_input(x);
    const ValueId out = b.add_tensor(DType::F32, {kMaxM, kN});
    b.add_op("aten.linear.default", {x, b.add_constant(DType::F32, {kN, kK}, test::bytes_of(weight)),
                                     b.add_constant(DType::F32, {kN}, test::bytes_of(bias)), out});
    b.mark_output(out);
    return std::move(b).build();
  };
  for (MatmulPrecision precision : {MatmulPrecision::Auto, MatmulPrecision::F32}) {
    LoadOptions options;
    options.tuning.matmul_precision = precision;
    options.tuning.fuse = false;  // the op's own kernels (the passes would move the whole graph's into linear_ggml)
    auto whole = ExecutableGraph::load(device(), make(), options);
    auto split = ExecutableGraph::load(*split_device(), make(), options);
    EXPECT_EQ(split->dispatch_count(), 4 * whole->dispatch_count());
    for (int64_t m : {int64_t{1}, kMaxM, int64_t{3}}) {
      SCOPED_TRACE("M=" + std::to_string(m) + (precision == MatmulPrecision::Auto ? " own GEMM" : " GEMM family"));
      const auto xs = test::random_floats(size_t(m * kK), uint32_t(m));
      const HostTensorView in[] = {test::f32_view(xs, {m, kK})};
      const auto want = test::floats(whole->execute(in)[0]), got = test::floats(split->execute(in)[0]);
      ASSERT_EQ(got.size(), size_t(m * kN));
      for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-6f * (1.0f + std::abs(want[i]))) << i;
    }
  }
}

// KV caches above the split size: stored in parts by KV heads (dim 2,
// memory_plan.h), which the cache writes, the decode kernel, flash attention
// and the three passes read part by part. 5 KV heads of 128 positions x 16
// f32 (8 KiB each) come in parts of 2, 2 and 1 heads; f16 (4 KiB), in 3 and 2.
struct KvCase {
  const char* name;
  DType cache;
  FlashAttention flash;
  int64_t window;
  bool constant_caches;  // as a .pte holds them: constants with initial bytes, not state
};

Graph kv_graph(const KvCase& c, int64_t max_s, int64_t cache, int64_t heads, int64_t kv_heads, int64_t dim) {
  GraphBuilder b;
  const ValueId q = b.add_tensor(DType::F32, {1, max_s, heads, dim});
  const ValueId k = b.add_tensor(DType::F32, {1, max_s, kv_heads, dim});
  const ValueId v = b.add_tensor(DType::F32, {1, max_s, kv_heads, dim});
  for (ValueId id : {q, k, v}) b.mark_input(id);
  const ValueId start = b.add_symint(0);
  b.mark_input(start);
  const Dims cache_dims = {1, cache, kv_heads, dim};
  const auto make_cache = [&](uint32_t seed) {
    if (!c.constant_caches) return b.add_state(c.cache, cache_dims);
    return b.add_constant(DType::F32, cache_dims, test::bytes_of(test::random_floats(size_t(numel(cache_dims)), seed)));
  };
  const ValueId kc = make_cache(41), vc = make_cache(42);
  const ValueId out = b.add_tensor(DType::F32, {1, max_s, heads, dim});
  std::vector<ValueId> args = {q, k, v, kc, vc, start, b.add_int(max_s), b.add_null(), b.add_double(0.0),
                               b.add_bool(true), b.add_null(), out};
  if (c.window > 0) args.push_back(b.add_int(c.window));
  b.add_op(c.window > 0 ? "wgrt.sdpa_with_kv_cache_window" : "sdpa_with_kv_cache.default", args);
  b.mark_output(out);
  return std::move(b).build();
}

class KvCacheSplitTest : public SplitDeviceTest, public ::testing::WithParamInterface<KvCase> {};

TEST_P(KvCacheSplitTest, PartsByHeadsMatchTheUnsplitCache) {
  const KvCase c = GetParam();
  constexpr int64_t kMaxS = 8, kCache = 128, kHeads = 10, kKvHeads = 5, kDim = 16;
  LoadOptions options;
  options.tuning.flash_attention = c.flash;
  options.tuning.sdpa_split = 16;  // decode steps past 16 positions take several splits and the combine
  auto whole = ExecutableGraph::load(device(), kv_graph(c, kMaxS, kCache, kHeads, kKvHeads, kDim), options);
  auto split = ExecutableGraph::load(*split_device(), kv_graph(c, kMaxS, kCache, kHeads, kKvHeads, kDim), options);
  // Nothing is held twice: the parts together are the caches' bytes.
  const uint64_t cache_bytes = uint64_t(2 * kCache * kKvHeads * kDim) * device_size(c.cache);
  if (c.constant_caches) {
    EXPECT_EQ(split->memory_stats().constant_bytes, whole->memory_stats().constant_bytes);
    EXPECT_EQ(split->memory_stats().constant_bytes, cache_bytes);
  } else {
    EXPECT_EQ(split->memory_stats().state_bytes, whole->memory_stats().state_bytes);
    EXPECT_EQ(split->memory_stats().state_bytes, cache_bytes);
  }
  EXPECT_GT(split->dispatch_count(), whole->dispatch_count());  // one set per part
  // (start, S): prefills, decode steps (one split, then several), chunks.
  // Constant caches start at position 4: positions 0-3 are their initial bytes.
  const std::pair<int64_t, int64_t> steps[] = {{c.constant_caches ? 4 : 0, c.constant_caches ? 4 : 8},
                                               {8, 1}, {9, 1}, {10, 5}, {15, 8}, {23, 1},
                                               {24, 8}, {32, 8}, {40, 8}, {48, 1}, {49, 3}, {52, 1}};
  for (auto [pos, s] : steps) {
    SCOPED_TRACE(std::string(c.name) + " start_pos=" + std::to_string(pos) + " S=" + std::to_string(s));
    const auto qs = test::random_floats(size_t(s * kHeads * kDim), uint32_t(3 * pos + 1));
    const auto ks = test::random_floats(size_t(s * kKvHeads * kDim), uint32_t(3 * pos + 2));
    const auto vs = test::random_floats(size_t(s * kKvHeads * kDim), uint32_t(3 * pos + 3));
    const std::vector<int64_t> start{pos};
    const HostTensorView in[] = {test::f32_view(qs, {1, s, kHeads, kDim}), test::f32_view(ks, {1, s, kKvHeads, kDim}),
                                 test::f32_view(vs, {1, s, kKvHeads, kDim}), test::i64_view(start, {1})};
    const auto want = test::floats(whole->execute(in)[0]), got = test::floats(split->execute(in)[0]);
    ASSERT_EQ(got.size(), size_t(s * kHeads * kDim));
    // The same arithmetic per head, in another dispatch: 1e-6 relative.
    for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-6f * (1.0f + std::abs(want[i]))) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, KvCacheSplitTest,
                         ::testing::Values(KvCase{"F32Flash", DType::F32, FlashAttention::Auto, 0, false},
                                           KvCase{"F32ThreePasses", DType::F32, FlashAttention::Off, 0, false},
                                           KvCase{"F16Cache", DType::F16, FlashAttention::Auto, 0, false},
                                           KvCase{"SlidingWindow", DType::F32, FlashAttention::Auto, 20, false},
                                           KvCase{"PteConstantCaches", DType::F32, FlashAttention::Auto, 0, true}),
                         [](const auto& info) { return std::string(info.param.name); });

class BindingLimitTest : public test::GpuTest {};

// An op that cannot read a weight in parts names itself, the argument and the limit.
TEST_F(BindingLimitTest, OpWithoutSplitPathIsRefusedByName) {
  ASSERT_NE(split_device(), nullptr);
  constexpr int64_t kK = 64, kN = 128;  // 32 KiB of f32 weight
  const auto weight = test::random_floats(kK * kN, 4);
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {kK, kN});
  b.mark_input(x);
  const ValueId w = b.add_constant(DType::F32, {kK, kN}, test::bytes_of(weight));
  const ValueId out = b.add_tensor(DType::F32, {kK, kN});
  b.add_op("aten.mul.Tensor", {x, w, out});
  b.mark_output(out);
  test::expect_split_load_refused(std::move(b).build(),
                                  {"aten.mul.Tensor", "argument 1", "32768 bytes", "binding limit of 16384"});
}

// A single row above the limit cannot be split into buffers that fit.
TEST_F(BindingLimitTest, RowAboveTheLimitIsRefused) {
  ASSERT_NE(split_device(), nullptr);
  const ops::QuantLayout& l = *ops::find_quant_layout(8);
  constexpr int64_t kVocab = 2, kDim = 16384;  // rows of 17,408 bytes
  const auto table = test::random_blocks(l, kVocab, kDim, 1);
  GraphBuilder b;
  const ValueId w = b.add_constant_view(DType::U8, {kVocab, int64_t(ops::file_row_bytes(l, kDim))}, table);
  const ValueId ids = b.add_tensor(DType::I64, {1, 1});
  b.mark_input(ids);
  const ValueId emb = b.add_tensor(DType::F32, {1, 1, kDim});
  b.add_op("wgrt.embedding_ggml", {w, b.add_int(8), ids, emb});
  b.mark_output(emb);
  try {
    ExecutableGraph::load(*split_device(), std::move(b).build(), test::load_options());
    FAIL() << "expected Error(NotSupported)";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::NotSupported) << e.what();
    EXPECT_NE(std::string(e.what()).find("one row"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace wgrt
