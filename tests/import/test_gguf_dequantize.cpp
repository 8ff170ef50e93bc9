// The CPU dequantizer against gguf.quants.dequantize (numpy), whose output
// tools/fixtures/make_gguf_fixtures.py stored beside all_types.gguf. The
// comparison is bitwise (tolerance 0): both follow the format's f32
// operations in the same order.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "import/gguf/dequantize.h"
#include "import/gguf/gguf_file.h"
#include "import/test_gguf_util.h"

namespace wgrt::gguf {
namespace {

using testing::fixture;

class DequantFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(DequantFixture, MatchesGgufPackageBitwise) {
  const std::string name = GetParam();
  const GgufFile f = GgufFile::open(fixture("all_types.gguf"));
  const TensorInfo& t = f.tensor(name);
  const std::vector<float> got = dequantize_tensor(f, t);
  const std::vector<float> want = testing::read_f32(fixture(name + ".f32"));
  ASSERT_EQ(got.size(), want.size());
  ASSERT_GT(want.size(), 0u);
  size_t mismatches = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::bit_cast<uint32_t>(got[i]) != std::bit_cast<uint32_t>(want[i])) {
      if (++mismatches <= 5) ADD_FAILURE() << name << "[" << i << "]: got " << got[i] << ", want " << want[i];
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

INSTANTIATE_TEST_SUITE_P(Dequant, DequantFixture,
                         ::testing::Values("t_f32", "t_f16", "t_bf16", "t_q4_0", "t_q4_1", "t_q5_0", "t_q5_1",
                                           "t_q8_0", "t_q2_k", "t_q3_k", "t_q4_k", "t_q5_k", "t_q6_k", "t_iq4_nl",
                                           "t_iq4_xs"));

TEST(Dequant, UnsupportedTypeNamesTensorAndType) {
  const GgufFile f = GgufFile::open(fixture("all_types.gguf"));
  const TensorInfo& t = f.tensor("t_iq2_xxs");
  EXPECT_EQ(t.type, GgmlType::IQ2_XXS);
  EXPECT_FALSE(is_supported(t.type));
  try {
    dequantize_tensor(f, t);
    FAIL() << "expected NotSupported";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::NotSupported);
    const std::string m = e.what();
    EXPECT_NE(m.find("t_iq2_xxs"), std::string::npos) << m;
    EXPECT_NE(m.find("IQ2_XXS (16)"), std::string::npos) << m;
  }
}

TEST(Dequant, SizeMismatchIsInvalidArgument) {
  std::vector<uint8_t> bytes(18);  // one Q4_0 block
  std::vector<float> out(64);      // two blocks' worth
  EXPECT_THROW(dequantize(GgmlType::Q4_0, bytes, out), Error);
  std::vector<float> odd(31);
  EXPECT_THROW(dequantize(GgmlType::Q4_0, bytes, odd), Error);
}

TEST(Dequant, BlockGeometry) {
  // From the GGUF format description (and gguf.GGML_QUANT_SIZES).
  EXPECT_EQ(ggml_type_info(GgmlType::Q4_0).block_bytes, 18u);
  EXPECT_EQ(ggml_type_info(GgmlType::Q4_1).block_bytes, 20u);
  EXPECT_EQ(ggml_type_info(GgmlType::Q8_0).block_bytes, 34u);
  EXPECT_EQ(ggml_type_info(GgmlType::Q4_K).block_bytes, 144u);
  EXPECT_EQ(ggml_type_info(GgmlType::Q6_K).block_bytes, 210u);
  EXPECT_EQ(ggml_type_info(GgmlType::Q5_0).block_bytes, 22u);
  EXPECT_EQ(ggml_type_info(GgmlType::Q5_1).block_bytes, 24u);
  EXPECT_EQ(ggml_type_info(GgmlType::Q2_K).block_bytes, 84u);
  EXPECT_EQ(ggml_type_info(GgmlType::Q3_K).block_bytes, 110u);
  EXPECT_EQ(ggml_type_info(GgmlType::Q5_K).block_bytes, 176u);
  EXPECT_EQ(ggml_type_info(GgmlType::IQ4_NL).block_bytes, 18u);
  EXPECT_EQ(ggml_type_info(GgmlType::IQ4_XS).block_bytes, 136u);
  EXPECT_EQ(ggml_type_info(GgmlType::Q4_K).block_size, 256u);
  EXPECT_EQ(ggml_type_info(GgmlType::BF16).block_bytes, 2u);
  EXPECT_EQ(find_ggml_type(4), nullptr);  // a removed type id
}

#if defined(__FLT16_MAX__)
// Every f16 bit pattern against the compiler's own _Float16 conversion (NaNs:
// both NaN with the same sign).
TEST(Dequant, F16AllBitPatternsMatchCompiler) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const auto bits = static_cast<uint16_t>(h);
    const float want = static_cast<float>(std::bit_cast<_Float16>(bits));
    const float got = f16_to_f32(bits);
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << h;
      ASSERT_EQ(std::signbit(got), std::signbit(want)) << h;
    } else {
      ASSERT_EQ(std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(want)) << h;
    }
  }
}
#endif

TEST(Dequant, F16KnownValues) {
  EXPECT_EQ(f16_to_f32(0x3C00), 1.0f);
  EXPECT_EQ(f16_to_f32(0xC000), -2.0f);
  EXPECT_EQ(f16_to_f32(0x7BFF), 65504.0f);
  EXPECT_EQ(f16_to_f32(0x0001), 0x1p-24f);
  EXPECT_EQ(f16_to_f32(0x03FF), 0x3FFp-24f);
  EXPECT_TRUE(std::isinf(f16_to_f32(0xFC00)) && f16_to_f32(0xFC00) < 0);
  EXPECT_TRUE(std::signbit(f16_to_f32(0x8000)));
  EXPECT_EQ(bf16_to_f32(0x3F80), 1.0f);
}

}  // namespace
}  // namespace wgrt::gguf
