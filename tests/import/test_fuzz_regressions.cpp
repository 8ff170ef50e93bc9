// Inputs the fuzzers (tests/fuzz) once crashed on, kept in
// tests/fuzz/regressions/<target>/: each must now end in a clear
// Error(InvalidProgram) naming the problem, never a crash (run under the
// sanitizer build, the null dereference they caused would be reported).
#include <gtest/gtest.h>

#include <filesystem>

#include "import/pte/program.h"
#include "import/test_pte_util.h"
#include "wgrt/error.h"

namespace wgrt::pte {
namespace {

std::vector<std::filesystem::path> regressions(const std::string& target) {
  const std::filesystem::path dir =
      std::filesystem::path(WGRT_FIXTURES_DIR).parent_path() / "fuzz" / "regressions" / target;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files.push_back(e.path());
  return files;
}

// A Program flatbuffer whose instruction union names KernelCall but holds no
// table: a null dereference in pte_file.cpp until checked.
TEST(FuzzRegressions, PteInputsAreClearErrors) {
  const auto files = regressions("fuzz_pte");
  ASSERT_FALSE(files.empty());
  for (const auto& f : files) {
    SCOPED_TRACE(f.filename().string());
    try {
      parse_program({f.filename().string(), testing::read_bytes(f.string())});
      ADD_FAILURE() << "parsed without error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidProgram) << e.what();
      EXPECT_NE(std::string(e.what()).find("without its arguments"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace wgrt::pte
