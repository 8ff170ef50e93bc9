// LoadOptions' kernel choices reach the kernels (wgrt/runtime.h): flash
// attention forced on or off changes the scratch memory and not the logits;
// a matmul precision selects the GEMM family (its dispatch label) and not
// the logits beyond f32 rounding; a bad environment value is refused at load.
// On the tiny Q4_0 GGUF Llama, whose prompt chunk is small enough that
// the defaults pick the three attention passes and the older tiles.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <optional>

#include "api/api_test.h"
#include "gpu_test_env.h"
#include "wgrt/error.h"
#include "wgrt/wgrt.h"

namespace wgrt {
namespace {

std::string fixture(const std::string& name) { return std::string(WGRT_FIXTURES_DIR) + "/" + name; }

class LoadOptionsTest : public test::ApiTest {
 protected:
  api::Llm load(const api::LoadOptions& load) {
    api::LlmOptions o;
    o.path = fixture("gguf/tiny_llama_q4_0.gguf");
    o.context = 256;
    o.chunk = 64;
    o.load = load;
    return api::Llm::load(*runtime_, o);
  }
  std::vector<int32_t> prompt() const {
    std::vector<int32_t> p;
    for (int32_t i = 0; i < 48; ++i) p.push_back(1 + (i * 7) % 50);
    return p;
  }
  static float max_diff(const std::vector<float>& a, const std::vector<float>& b) {
    float d = 0;
    for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
    return d;
  }
};

TEST_F(LoadOptionsTest, FlashAttentionOnOrOffChangesTheScratchNotTheLogits) {
  api::LoadOptions off, on;
  off.flash_attention = 0;
  on.flash_attention = 1;
  api::Llm three = load(off);
  const std::vector<float> a = three.forward(prompt());
  const uint64_t three_scratch = three.memory_stats().scratch_bytes;
  api::Llm flash = load(on);
  const std::vector<float> b = flash.forward(prompt());
  const uint64_t flash_scratch = flash.memory_stats().scratch_bytes;
  ASSERT_EQ(a.size(), b.size());
  EXPECT_LT(max_diff(a, b), 1e-3f);
  // The three passes keep a heads x chunk x context score matrix; flash
  // attention keeps none.
  EXPECT_LT(flash_scratch, three_scratch) << flash_scratch << " vs " << three_scratch;
}

TEST_F(LoadOptionsTest, AMatmulPrecisionSelectsTheGemmFamily) {
  api::LoadOptions tiles, family;
  tiles.matmul_precision = api::MatmulPrecision::Auto;
  family.matmul_precision = api::MatmulPrecision::F32;
  tiles.fuse = family.fuse = 0;  // fused linears never take the family
  api::RunOptions timed;
  timed.time_dispatches = true;
  // The family is the default GEMM: WGRT_GEMM_FAMILY=0 (read at load) keeps the old tiles.
  setenv("WGRT_GEMM_FAMILY", "0", 1);
  api::Llm old_tiles = load(tiles);
  unsetenv("WGRT_GEMM_FAMILY");
  const std::vector<float> a = old_tiles.forward(prompt(), timed);
  const std::vector<api::DispatchTime> a_times = old_tiles.last_dispatch_times();
  api::Llm gemm = load(family);
  const std::vector<float> b = gemm.forward(prompt(), timed);
  const std::vector<api::DispatchTime> b_times = gemm.last_dispatch_times();
  EXPECT_LT(max_diff(a, b), 1e-3f);
  if (!runtime_->features().timestamp_query) {
    GTEST_SKIP() << "SKIPPED (labels only): no timestamp_query, so no dispatch labels to tell the kernels apart";
  }
  auto uses_gemm = [](const std::vector<api::DispatchTime>& times) {
    return std::any_of(times.begin(), times.end(),
                       [](const api::DispatchTime& t) { return t.label.starts_with("gemm"); });  // the family's label
  };
  EXPECT_FALSE(uses_gemm(a_times));
  EXPECT_TRUE(uses_gemm(b_times));
}

TEST_F(LoadOptionsTest, ABadEnvironmentValueIsRefusedAtLoad) {
  setenv("WGRT_FLASH_ATTENTION", "yes", 1);
  Error error(ErrorCode::Internal, "none thrown");
  try {
    load({});
  } catch (const Error& e) {
    error = e;
  }
  unsetenv("WGRT_FLASH_ATTENTION");
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(std::string(error.what()).find("WGRT_FLASH_ATTENTION=yes"), std::string::npos) << error.what();
  load({});  // and loads once it is gone
}

}  // namespace
}  // namespace wgrt
