// Programs whose operator arguments wgrt cannot honour (exported by
// tools/export/export_fixtures.py --set refused through VulkanPartitioner, so
// the arguments are the real serialized ones) are refused at load with the
// op, the argument and the value named: never run to a wrong answer.
#include <gtest/gtest.h>

#include "gpu_test_env.h"
#include "import/test_pte_util.h"
#include "runtime/program.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

class PteRefused : public test::GpuTest {};

TEST_F(PteRefused, AddmmWithBetaIsRefusedNamingOpArgumentAndValue) {
  try {
    Program::load(device(), pte::testing::fixture("refused/addmm_beta.pte"), "", test::load_options());
    FAIL() << "addmm with beta 0.5 must be refused";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.code(), ErrorCode::InvalidProgram) << what;
    for (const char* part : {"aten.addmm.default", "argument 3", "beta 0.5"}) {
      EXPECT_NE(what.find(part), std::string::npos) << "'" << part << "' missing from: " << what;
    }
  }
}

}  // namespace
}  // namespace wgrt
