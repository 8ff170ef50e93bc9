// A tiny Llama exported by ExecuTorch's own Llama exporter with the Vulkan
// backend (tools/export/export_llama_fixture.py): 4-bit groupwise linears and
// embedding, sdpa_with_kv_cache, RoPE through apply_rotary_emb, input_pos read
// with select_as_symint. One loaded program runs a prefill, then greedy decode
// steps; its KV cache lives in the program between calls. Every step's logits
// are compared with the exporter's eager module (same source transforms, so
// the same 4-bit weights) on the CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iostream>

#include "core/npy.h"
#include "gpu_test_env.h"
#include "host_tensors.h"
#include "import/test_pte_util.h"
#include "runtime/program.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

using pte::testing::Json;
using pte::testing::read_json;

std::string llama_fixture(const std::string& name) { return std::string(WGRT_FIXTURES_DIR) + "/llama/" + name; }

struct Step {
  std::string kind;
  int64_t input_pos = 0;
  std::vector<HostTensor> inputs;  // tokens i64 [1, S], input_pos i64 [1]
  HostTensor logits;               // f32 [1, vocab]
};

std::vector<Step> read_steps(const Json& manifest) {
  std::vector<Step> steps;
  for (const Json& s : manifest["steps"].array) {
    Step step;
    step.kind = s["kind"].string;
    step.input_pos = s["input_pos"].integer();
    for (const Json& in : s["inputs"].array) step.inputs.push_back(read_npy(llama_fixture(in["file"].string)));
    step.logits = read_npy(llama_fixture(s["logits"]["file"].string));
    steps.push_back(std::move(step));
  }
  return steps;
}

// Runs one step; returns the largest absolute error and counts elements
// outside atol + rtol * |ref|.
double run_step(ExecutableGraph& graph, const Step& step, double atol, double rtol, size_t& bad) {
  std::vector<HostTensorView> views;
  for (const auto& t : step.inputs) views.push_back({t.dtype, t.dims, t.data});
  const auto outputs = graph.execute(views);
  EXPECT_EQ(outputs.size(), 1u);
  if (outputs.empty()) return INFINITY;
  const HostTensor& got = outputs[0];
  EXPECT_EQ(got.dtype, DType::F32);
  EXPECT_EQ(got.dims, step.logits.dims);
  if (got.dims != step.logits.dims || got.dtype != DType::F32) return INFINITY;
  const auto g = test::as_vector<float>(got.data), r = test::as_vector<float>(step.logits.data);
  double worst = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    const double err = std::abs(double(g[i]) - r[i]);
    worst = std::max(worst, err);
    if (!(err <= atol + rtol * std::abs(r[i])) && bad++ < 3) {
      ADD_FAILURE() << step.kind << " at " << step.input_pos << ": logit " << i << " is " << g[i] << ", torch says "
                    << r[i];
    }
  }
  return worst;
}

class LlamaPte : public test::GpuTest {};

// tiny_llama: export_llama -qmode 4w (linear_q4gsw); tiny_llama_8da4w:
// -qmode 8da4w (choose_qparams_affine + linear_dq8ca_q4gsw). Each loaded
// with the graph passes (ExecuTorch's linears in the GGUF family, fused as a
// GGUF model's are) and without them (the exported ops as they are).
class LlamaPteQmode : public test::GpuTest, public ::testing::WithParamInterface<std::tuple<std::string, bool>> {};

size_t count_ops(const ExecutableGraph& graph, std::string_view prefix) {
  size_t n = 0;
  for (const OpCall& op : graph.graph().ops) n += op.name.starts_with(prefix) ? 1 : 0;
  return n;
}

TEST_P(LlamaPteQmode, PrefillThenDecodeMatchesEagerTorch) {
  const auto& [name, fuse] = GetParam();
  const Json manifest = read_json(llama_fixture(name + ".json"));
  const double atol = manifest["tolerance"]["atol"].number, rtol = manifest["tolerance"]["rtol"].number;
  const auto steps = read_steps(manifest);
  ASSERT_GE(steps.size(), 2u);
  ASSERT_EQ(steps[0].kind, "prefill");
  ASSERT_GT(steps[0].inputs[0].dims[1], 1) << "the prefill feeds several tokens";

  // The exporter's premise: one delegate, nothing left on the CPU.
  ASSERT_EQ(manifest["cpu_kernels"].size(), 0u);
  ASSERT_EQ(manifest["delegates"].size(), 1u);

  LoadOptions options = test::load_options();
  options.tuning.fuse = fuse;
  auto program = Program::load(device(), llama_fixture(manifest["pte"].string), "", options);
  ExecutableGraph& graph = program->method("forward").graph();
  // The variant meant ran: the 4w linears as GGUF-family GEMVs when fused
  // (Q/K/V as one, with RoPE where a stage binds the 10 storage buffers that
  // GEMV needs), as ExecuTorch's op otherwise.
  // 8da4w's linears requantize x in the family's kernels, after the norm
  // they fuse: no choose_qparams is left.
  const bool rope_gemv = device().limits().max_storage_buffers_per_shader_stage >= 10;
  const std::string exported = name == "tiny_llama" ? "et_vk.linear_q4gsw" : "et_vk.linear_dq8ca_q4gsw";
  EXPECT_EQ(count_ops(graph, "wgrt.linear_ggml"), fuse ? 9u : 0u);
  EXPECT_EQ(count_ops(graph, "wgrt.linear_ggml_split_rope"), fuse && rope_gemv ? 2u : 0u);
  EXPECT_EQ(count_ops(graph, exported), fuse ? 0u : 15u);
  EXPECT_EQ(count_ops(graph, "et_vk.rms_norm"), fuse ? 0u : 5u);
  if (name != "tiny_llama") EXPECT_EQ(count_ops(graph, "torchao.choose_qparams"), fuse ? 0u : 15u);
  ASSERT_EQ(graph.input_count(), 2u) << "tokens, input_pos";
  ASSERT_EQ(graph.output_count(), 1u) << "logits of the last token";
  const auto buffers_before = test::buffer_handles(graph);

  bool prefill_checked = false, decode_checked = false;
  for (const Step& step : steps) {
    SCOPED_TRACE(step.kind + " at input_pos " + std::to_string(step.input_pos));
    size_t bad = 0;
    const double worst = run_step(graph, step, atol, rtol, bad);
    std::cout << "[ " << name << (fuse ? " fused " : " unfused ") << step.kind << " S=" << step.inputs[0].dims[1] << " input_pos=" << step.input_pos
              << " ] max abs logit error " << worst << " (atol " << atol << ", rtol " << rtol << ")\n";
    EXPECT_EQ(bad, 0u);
    (step.kind == "prefill" ? prefill_checked : decode_checked) = true;
  }
  EXPECT_TRUE(prefill_checked);
  EXPECT_TRUE(decode_checked);

  // All steps ran on one loaded graph: no buffer moved (the KV cache stayed put).
  EXPECT_EQ(test::buffer_handles(graph), buffers_before);

  // A second prefill at input_pos 0 overwrites the cache's first rows and
  // attends only to them: it reproduces the first step, and the decode steps
  // after it reproduce theirs.
  for (const Step& step : steps) {
    SCOPED_TRACE("again: " + step.kind + " at input_pos " + std::to_string(step.input_pos));
    size_t bad = 0;
    run_step(graph, step, atol, rtol, bad);
    EXPECT_EQ(bad, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, LlamaPteQmode,
                         ::testing::Combine(::testing::Values("tiny_llama", "tiny_llama_8da4w"), ::testing::Bool()),
                         [](const auto& info) {
                           return std::get<0>(info.param) + (std::get<1>(info.param) ? "_fused" : "_unfused");
                         });

// The premise of the test above: decode logits depend on what the prefill
// left in the cache. A fresh program that skips the prefill must miss them.
TEST_F(LlamaPte, DecodeWithoutPrefillDiffers) {
  const Json manifest = read_json(llama_fixture("tiny_llama.json"));
  const auto steps = read_steps(manifest);
  ASSERT_GE(steps.size(), 2u);
  auto program = Program::load(device(), llama_fixture(manifest["pte"].string), "", test::load_options());
  ExecutableGraph& graph = program->method("forward").graph();
  size_t bad = 0;
  const double worst = run_step(graph, steps[1], INFINITY, 0, bad);  // counts nothing: only the error matters
  EXPECT_GT(worst, 1e-2) << "decode at " << steps[1].input_pos << " matched without the prefill's KV cache";
}

std::vector<Dims> live_dims(const ExecutableGraph& graph) {
  std::vector<Dims> dims;
  for (const auto& v : graph.graph().values) {
    if (const auto* t = std::get_if<Tensor>(&v)) dims.push_back(t->cur_dims);
  }
  return dims;
}

// Expects executing `inputs` to fail with InvalidArgument naming `fragment`,
// leaving every live shape as it was, and the next step to still match torch.
void expect_refused_then_recovers(ExecutableGraph& graph, const std::vector<HostTensor>& inputs,
                                  const std::string& fragment, const Step& next, double atol, double rtol) {
  const auto before = live_dims(graph);
  std::vector<HostTensorView> views;
  for (const auto& t : inputs) views.push_back({t.dtype, t.dims, t.data});
  try {
    graph.execute(views);
    ADD_FAILURE() << "expected an error naming '" << fragment << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
  EXPECT_EQ(live_dims(graph), before) << "a refused call changed live shapes";
  size_t bad = 0;
  run_step(graph, next, atol, rtol, bad);
  EXPECT_EQ(bad, 0u) << "the step after a refused call";
}

HostTensor i64_tensor(Dims dims, std::vector<int64_t> values) {
  HostTensor t{DType::I64, std::move(dims), std::vector<uint8_t>(values.size() * 8)};
  std::memcpy(t.data.data(), values.data(), t.data.size());
  return t;
}

// A resize hook that throws (positions past the KV cache) and token ids past
// the vocabulary (checked on the host: the GPU's robust buffer access would
// hide the out-of-bounds read) are refused all-or-nothing.
TEST_F(LlamaPte, BadPositionsAndTokenIdsAreRefusedAndChangeNothing) {
  const Json manifest = read_json(llama_fixture("tiny_llama.json"));
  const double atol = manifest["tolerance"]["atol"].number, rtol = manifest["tolerance"]["rtol"].number;
  const auto steps = read_steps(manifest);
  ASSERT_GE(steps.size(), 3u);
  auto program = Program::load(device(), llama_fixture(manifest["pte"].string), "", test::load_options());
  ExecutableGraph& graph = program->method("forward").graph();
  size_t bad = 0;
  run_step(graph, steps[0], atol, rtol, bad);  // the prefill: S tokens
  ASSERT_EQ(bad, 0u);
  // One token at position 40 of a 32-row cache: the shape changes ([1, S] to
  // [1, 1]), hooks run, and the first to see the position refuses it: RoPE's
  // (its frequency rows, sliced at 40, come out empty), or the attention's
  // where RoPE rides in the Q/K/V GEMV (fused, on devices with the 10
  // storage buffers that GEMV binds).
  const bool rope_op = count_ops(graph, "et_vk.apply_rotary_emb") > 0;
  expect_refused_then_recovers(graph, {i64_tensor({1, 1}, {5}), i64_tensor({1}, {40})},
                               rope_op ? "disagree on S" : "do not fit a cache of 32", steps[1], atol, rtol);
  const int64_t pos = steps[2].input_pos;
  expect_refused_then_recovers(graph, {i64_tensor({1, 1}, {256}), i64_tensor({1}, {pos})}, "256", steps[2], atol,
                               rtol);
  expect_refused_then_recovers(graph, {i64_tensor({1, 2}, {3, -1}), i64_tensor({1}, {pos})}, "-1", steps[2], atol,
                               rtol);
}

// export_llama's metadata methods load as constants, not graphs.
TEST_F(LlamaPte, MetadataMethodsAreConstants) {
  auto program = Program::load(device(), llama_fixture("tiny_llama.pte"), "", test::load_options());
  EXPECT_EQ(program->method_names(), std::vector<std::string>{"forward"});
  const auto& c = program->constants();
  ASSERT_EQ(c.count("get_max_seq_len"), 1u);
  EXPECT_EQ(std::get<int64_t>(c.at("get_max_seq_len")), 32);
  EXPECT_EQ(std::get<int64_t>(c.at("get_max_context_len")), 32);
  EXPECT_EQ(std::get<int64_t>(c.at("get_n_layers")), 2);
  EXPECT_EQ(std::get<int64_t>(c.at("get_vocab_size")), 256);
  EXPECT_TRUE(std::get<bool>(c.at("use_kv_cache")));
  EXPECT_TRUE(std::get<bool>(c.at("use_sdpa_with_kv_cache")));
  EXPECT_TRUE(std::get<bool>(c.at("enable_dynamic_shape")));
}

}  // namespace
}  // namespace wgrt
