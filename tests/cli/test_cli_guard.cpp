// The CLI's exception guard (src/cli/guard.h): whatever a subcommand throws
// ends as one clear line on stderr and exit status 1, never a terminate.
#include <gtest/gtest.h>

#include <new>
#include <stdexcept>
#include <vector>

#include "cli/guard.h"
#include "wgrt/error.h"

namespace wgrt::cli {
namespace {

// Runs `body` under the guard; returns (status, stderr).
std::pair<int, std::string> guarded(const std::function<int()>& body) {
  ::testing::internal::CaptureStderr();
  const int status = run_guarded("run", body);
  return {status, ::testing::internal::GetCapturedStderr()};
}

TEST(CliGuard, StatusPassesThrough) {
  EXPECT_EQ(guarded([] { return 0; }).first, 0);
  EXPECT_EQ(guarded([] { return 3; }).first, 3);
}

TEST(CliGuard, WgrtErrorKeepsItsCode) {
  const auto [status, err] = guarded([]() -> int { throw Error(ErrorCode::InvalidProgram, "bad file at byte 7"); });
  EXPECT_EQ(status, 1);
  EXPECT_EQ(err, "wgrt run: error (InvalidProgram): bad file at byte 7\n");
}

TEST(CliGuard, BadAllocIsOutOfMemory) {
  const auto [status, err] = guarded([]() -> int { throw std::bad_alloc(); });
  EXPECT_EQ(status, 1);
  EXPECT_NE(err.find("wgrt run: error (OutOfMemory):"), std::string::npos) << err;
}

TEST(CliGuard, OtherStdExceptionsAreInternalWithTheirMessage) {
  const auto [status, err] = guarded([]() -> int { return std::vector<int>{}.at(3); });
  EXPECT_EQ(status, 1);
  EXPECT_NE(err.find("wgrt run: error (Internal):"), std::string::npos) << err;
  EXPECT_NE(err.find("vector"), std::string::npos) << "the exception's own message: " << err;
}

TEST(CliGuard, NonStandardThrowIsStillAnError) {
  const auto [status, err] = guarded([]() -> int { throw 42; });
  EXPECT_EQ(status, 1);
  EXPECT_NE(err.find("unknown exception"), std::string::npos) << err;
}

}  // namespace
}  // namespace wgrt::cli
