// Every .pte fixture (exported by tools/export/export_fixtures.py with
// VulkanPartitioner) run through wgrt and compared with torch's outputs at
// the fixture's stated tolerance: the small programs in pte/, the one-op
// programs in pte/ops/ and the torchvision models in pte/models/. Names are
// paths under pte/ without ".json".
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "wgrt/dtype.h"
#include "core/npy.h"
#include "gpu_test_env.h"
#include "host_tensors.h"
#include "import/test_pte_util.h"
#include "runtime/program.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

using pte::testing::Json;
using pte::testing::fixture_names;
using pte::testing::folder_of;
using pte::testing::read_json;

class PteProgramTest : public test::GpuTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(PteProgramTest, MatchesTorch) {
  const std::string name = GetParam();
  const std::string dir = folder_of(name);
  auto fixture = [&](const std::string& file) { return pte::testing::fixture(dir + file); };
  const Json manifest = read_json(fixture(name.substr(dir.size()) + ".json"));
  const std::string ptd = manifest["ptd"].size() ? fixture(manifest["ptd"][0].string) : "";
  const double atol = manifest["tolerance"]["atol"].number, rtol = manifest["tolerance"]["rtol"].number;

  bool has_cpu_kernels = false;
  for (const auto& [method, spec] : manifest["methods"].object) has_cpu_kernels |= spec["cpu_kernels"].size() > 0;
  if (has_cpu_kernels) {
    // The premise: torch left a kernel on the CPU. wgrt refuses and names it.
    try {
      Program::load(device(), fixture(manifest["pte"].string), ptd, test::load_options());
      FAIL() << "a partially delegated program must be refused";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::NotSupported);
      for (const auto& [method, spec] : manifest["methods"].object) {
        for (const auto& k : spec["cpu_kernels"].strings()) EXPECT_NE(std::string(e.what()).find(k), std::string::npos) << e.what();
      }
    }
    return;
  }

  auto program = Program::load(device(), fixture(manifest["pte"].string), ptd, test::load_options());
  for (const auto& [method_name, spec] : manifest["methods"].object) {
    Method& method = program->method(method_name);
    const auto buffers_before = test::buffer_handles(method.graph());
    for (size_t c = 0; c < spec["cases"].size(); ++c) {
      SCOPED_TRACE(name + "." + method_name + " case " + std::to_string(c));
      const Json& cs = spec["cases"][c];
      std::vector<HostTensor> inputs;
      for (const Json& in : cs["inputs"].array) inputs.push_back(read_npy(fixture(in["file"].string)));
      std::vector<HostTensorView> views;
      for (const auto& t : inputs) views.push_back({t.dtype, t.dims, t.data});
      const auto outputs = method.graph().execute(views);
      ASSERT_EQ(outputs.size(), cs["outputs"].size());
      for (size_t o = 0; o < outputs.size(); ++o) {
        const HostTensor want = read_npy(fixture(cs["outputs"][o]["file"].string));
        const double worst = test::expect_matches_golden(outputs[o], want, atol, rtol, "output " + std::to_string(o));
        std::cout << "[ " << name << "." << method_name << " case " << c << " output " << o << " ] max abs error "
                  << worst << "\n";
      }
    }
    // Dynamic cases ran on one loaded graph: no buffer moved.
    EXPECT_EQ(test::buffer_handles(method.graph()), buffers_before);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, PteProgramTest, ::testing::ValuesIn(fixture_names()), [](const auto& info) {
  std::string id = info.param;
  std::replace(id.begin(), id.end(), '/', '_');  // gtest names are identifiers
  return id;
});

class PteProgramMemory : public test::GpuTest {};

// An fp16 program keeps the weights its linears read in f16
// (ops/passes/widen_f16.h): the fp16 transformer block's constants take
// about half the bytes of its float32 twin's (same shapes; its norm weights
// and prepacked QKV weight are widened).
TEST_F(PteProgramMemory, Fp16ConstantsTakeAboutHalf) {
  auto f32 = Program::load(device(), pte::testing::fixture("transformer_block.pte"), "", test::load_options());
  auto f16 = Program::load(device(), pte::testing::fixture("fp16_transformer_block.pte"), "", test::load_options());
  const uint64_t a = f32->memory_stats().constant_bytes, b = f16->memory_stats().constant_bytes;
  std::printf("[ fp16 memory ] constants %llu B (f32 twin: %llu B)\n", (unsigned long long)b, (unsigned long long)a);
  EXPECT_LT(double(b), 0.55 * double(a));
}

class PteProgramErrors : public test::GpuTest {};

TEST_F(PteProgramErrors, UnknownMethodListsTheMethods) {
  auto program = Program::load(device(), pte::testing::fixture("two_methods.pte"), "", test::load_options());
  try {
    program->method("backward");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::NotFound);
    EXPECT_NE(std::string(e.what()).find("forward"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("triple"), std::string::npos);
  }
}

// shape_ops views its input 0, exported at the fixed shape [6, 8], as
// [2, 3, 8]: a [5, 8] input cannot be viewed so. The error names the input,
// both shapes and the two ways out, and the method still runs afterwards.
TEST_F(PteProgramErrors, AnotherShapeOfAFixedInputNamesTheInputAndBothShapes) {
  auto program = Program::load(device(), pte::testing::fixture("shape_ops.pte"), "", test::load_options());
  Method& method = program->method("forward");
  auto run = [&](Dims x_dims) {
    const HostTensor x{DType::F32, x_dims, std::vector<uint8_t>(size_t(numel(x_dims)) * 4)};
    const HostTensor y{DType::F32, {2, 4}, std::vector<uint8_t>(2 * 4 * 4)};
    const std::vector<HostTensorView> views = {{x.dtype, x.dims, x.data}, {y.dtype, y.dims, y.data}};
    return method.graph().execute(views);
  };
  try {
    run({5, 8});
    FAIL() << "a [5, 8] input to a fixed [6, 8] input must be refused";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << what;
    for (const char* part : {"input 0", "[6, 8]", "[5, 8]", "dim 0 is 5, not 6", "fixed shape", "dynamic_shapes"}) {
      EXPECT_NE(what.find(part), std::string::npos) << part << " missing from: " << what;
    }
  }
  const auto outputs = run({6, 8});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[1].dims, (Dims{6, 8}));
}

}  // namespace
}  // namespace wgrt
