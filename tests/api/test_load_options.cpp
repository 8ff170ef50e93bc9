// LoadOptions' tuning reaches the kernels (wgrt/tuning.h): flash attention
// forced on or off changes the scratch memory and not the logits; a matmul
// precision selects the GEMM family (its dispatch label) and not the logits
// beyond f32 rounding; a field out of range is refused at load naming it; the
// environment maps onto the fields only through src/cli/environment.h, and the
// library ignores it otherwise.
// On the tiny Q4_0 GGUF Llama, whose prompt chunk is small enough that
// the defaults pick the three attention passes and the older tiles.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <optional>

#include "api/api_test.h"
#include "gpu_test_env.h"
#include "cli/environment.h"
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
  off.tuning.flash_attention = FlashAttention::Off;
  on.tuning.flash_attention = FlashAttention::On;
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
  tiles.tuning.matmul_precision = MatmulPrecision::Auto;
  family.tuning.matmul_precision = MatmulPrecision::F32;
  tiles.tuning.fuse = family.tuning.fuse = false;  // fused linears never take the family
  api::RunOptions timed;
  timed.time_dispatches = true;
  // The family is the default GEMM: gemm_family off keeps the old tiles.
  tiles.tuning.gemm_family = false;
  api::Llm old_tiles = load(tiles);
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

TEST_F(LoadOptionsTest, AFieldOutOfRangeIsRefusedAtLoadNamingIt) {
  api::LoadOptions bad;
  bad.tuning.sdpa_split = 4;
  Error error(ErrorCode::Internal, "none thrown");
  try {
    load(bad);
  } catch (const Error& e) {
    error = e;
  }
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(std::string(error.what()).find("Tuning::sdpa_split"), std::string::npos) << error.what();
  bad.tuning.sdpa_split = 128;
  bad.tuning.gemm_tile = "3x3";
  error = Error(ErrorCode::Internal, "none thrown");
  try {
    load(bad);
  } catch (const Error& e) {
    error = e;
  }
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(std::string(error.what()).find("Tuning::gemm_tile: unknown tile '3x3'"), std::string::npos) << error.what();
  load({});
}

// The engine ignores the environment; the mapping (src/cli/environment.h)
// applies it where an entry point asks, and refuses a value naming the variable.
TEST_F(LoadOptionsTest, TheEnvironmentReachesOnlyThroughTheMapping) {
  setenv("WGRT_FLASH_ATTENTION", "yes", 1);
  setenv("WGRT_SDPA_SPLIT", "64", 1);
  EXPECT_NO_THROW(load({}));  // not read by the library
  try {
    tuning_from_environment();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("WGRT_FLASH_ATTENTION=yes: expected 0 or 1"), std::string::npos) << e.what();
  }
  setenv("WGRT_FLASH_ATTENTION", "0", 1);
  const Tuning t = tuning_from_environment();
  EXPECT_EQ(t.flash_attention, FlashAttention::Off);
  EXPECT_EQ(t.sdpa_split, 64u);
  EXPECT_EQ(t.matmul_precision, Tuning{}.matmul_precision);  // unset: the default
  unsetenv("WGRT_FLASH_ATTENTION");
  unsetenv("WGRT_SDPA_SPLIT");
}

}  // namespace
}  // namespace wgrt
