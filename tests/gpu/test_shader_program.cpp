// Shaders name their imports (gpu/shader_program.h): the program a pipeline
// is made from, what is refused, and that every import of every embedded
// shader names one.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <regex>
#include <string>

#include "gpu/shader_program.h"
#include "gpu/shader_source.h"
#include "wgrt/error.h"

namespace wgrt::gpu {
namespace {

std::string what_of(const std::function<void()>& f, ErrorCode want) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), want) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected an error";
  return "";
}

size_t position(const std::vector<std::string>& files, const std::string& f) {
  return size_t(std::find(files.begin(), files.end(), f) - files.begin());
}

// An import with {slots} must match at least one embedded shader whatever
// the slots hold; one without must name an embedded shader (the build checks
// that too: cmake/embed_wgsl.cmake).
TEST(ShaderProgramTest, EveryImportNamesAnEmbeddedShader) {
  const std::vector<std::string_view> names = shader_names();
  size_t imports = 0;
  for (std::string_view name : names) {
    for (const ShaderImport& imp : shader_imports(shader_source(name))) {
      ++imports;
      const std::string pattern = std::regex_replace(imp.path, std::regex(R"(\{[a-z_]+\})"), "[A-Za-z0-9_/.]+");
      const std::regex re(std::regex_replace(pattern, std::regex(R"(\.wgsl)"), R"(\.wgsl)"));
      const bool found = std::any_of(names.begin(), names.end(),
                                     [&](std::string_view n) { return std::regex_match(std::string(n), re); });
      EXPECT_TRUE(found) << name << " line " << imp.line << " imports " << imp.path;
    }
  }
  EXPECT_GT(imports, 40u);
}

TEST(ShaderProgramTest, ImportsComeOnceBeforeTheirImporters) {
  const ShaderSlot slots[] = {{"rope", "rope_none"}, {"xq", "none"}};
  const ShaderSlot device[] = {{"reduce", "workgroup"}};
  const std::vector<std::string> files = shader_program_files("linear/gemv_planar.wgsl", slots, device);
  EXPECT_EQ(files.back(), "linear/gemv_planar.wgsl");
  for (const auto& f : files) EXPECT_EQ(std::count(files.begin(), files.end(), f), 1) << f;
  // The skeleton's own imports (prelude, reductions, the RoPE-less tail, x staged as it is) precede it.
  const size_t skeleton = position(files, "linear/gemv_skeleton.wgsl");
  ASSERT_LT(skeleton, files.size());
  for (const char* dep : {"common/prelude.wgsl", "common/reduce_workgroup.wgsl", "common/reduce.wgsl",
                          "linear/linear_io.wgsl", "linear/gemv_rope_none.wgsl", "linear/gemv_xq_none.wgsl"}) {
    EXPECT_LT(position(files, dep), skeleton) << dep;
  }
  EXPECT_EQ(position(files, "linear/gemv_rope.wgsl"), files.size()) << "the other alternative is not imported";
  EXPECT_EQ(position(files, "linear/x_dq8.wgsl"), files.size()) << "nor what only the other alternative imports";
  // common/reduce_workgroup.wgsl before common/reduce.wgsl, which builds on it.
  EXPECT_LT(position(files, "common/reduce_workgroup.wgsl"), position(files, "common/reduce.wgsl"));
}

TEST(ShaderProgramTest, AShaderWithoutImportsIsItsOwnText) {
  EXPECT_EQ(shader_program("training/fused_ce_total.wgsl"), std::string(shader_source("training/fused_ce_total.wgsl")));
}

TEST(ShaderProgramTest, EnableDirectivesGoFirst) {
  // gemm_f16.wgsl says `enable f16;` and is imported after nothing else in
  // particular: WGSL wants the directive before every declaration.
  const ShaderSlot slots[] = {{"precision", "f16"},
                              {"tile", "linear/gemm_tile_64x64_4x4.wgsl"},
                              {"ku", "1"},
                              {"decoder", "quant/dequant.wgsl"}};
  const std::string program = shader_program("linear/gemm.wgsl", slots);
  EXPECT_EQ(program.rfind("enable f16;", 0), 0u) << program.substr(0, 200);
  EXPECT_EQ(program.find("enable f16;", 1), std::string::npos) << "once";
}

TEST(ShaderProgramTest, SlotsMustBeGivenAndUsed) {
  const std::string missing =
      what_of([] { shader_program("attention/flash_attention.wgsl"); }, ErrorCode::InvalidArgument);
  EXPECT_NE(missing.find("attention/flash_attention.wgsl line"), std::string::npos) << missing;
  EXPECT_NE(missing.find("slot {cache} was not given"), std::string::npos) << missing;

  const ShaderSlot extra[] = {{"cache", "f32"}, {"tile", "x"}};
  const std::string unused =
      what_of([&] { shader_program("attention/flash_attention.wgsl", extra); }, ErrorCode::InvalidArgument);
  EXPECT_NE(unused.find("no slot {tile}"), std::string::npos) << unused;

  const ShaderSlot wrong[] = {{"cache", "f64"}};
  const std::string absent =
      what_of([&] { shader_program("attention/flash_attention.wgsl", wrong); }, ErrorCode::NotFound);
  EXPECT_NE(absent.find("imports attention/cache_f64.wgsl, which is not an embedded shader"), std::string::npos)
      << absent;
}

TEST(ShaderProgramTest, DefaultsFillOnlyWhatIsAsked) {
  const ShaderSlot device[] = {{"reduce", "subgroup"}};
  const ShaderSlot cache[] = {{"cache", "f16"}};
  // flash attention has no {reduce}: the default goes unused, which is fine.
  EXPECT_NO_THROW(shader_program("attention/flash_attention.wgsl", cache, device));
  const std::vector<std::string> files = shader_program_files("attention/sdpa_decode.wgsl", cache, device);
  EXPECT_LT(position(files, "common/reduce_subgroup.wgsl"), files.size());
  EXPECT_LT(position(files, "attention/cache_f16.wgsl"), files.size());
}

TEST(ShaderProgramTest, ImportLinesAreParsedWithTheirLineNumbers) {
  const auto imports = shader_imports("// a shader\n//! import a/b.wgsl\ncode\n//! import c/{x}.wgsl  \n// ! import no\n");
  ASSERT_EQ(imports.size(), 2u);
  EXPECT_EQ(imports[0].line, 2);
  EXPECT_EQ(imports[0].path, "a/b.wgsl");
  EXPECT_EQ(imports[1].line, 4);
  EXPECT_EQ(imports[1].path, "c/{x}.wgsl");
}

}  // namespace
}  // namespace wgrt::gpu
