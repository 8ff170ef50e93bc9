#include "cli/guard.h"

#include <cstdio>
#include <new>
#include <string>

#include "wgrt/error.h"

namespace wgrt::cli {
namespace {

int report(std::string_view command, ErrorCode code, const std::string& message) {
  std::fprintf(stderr, "wgrt %.*s: error (%s): %s\n", int(command.size()), command.data(),
               std::string(to_string(code)).c_str(), message.c_str());
  return 1;
}

}  // namespace

int run_guarded(std::string_view command, const std::function<int()>& body) {
  try {
    return body();
  } catch (const Error& e) {
    return report(command, e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return report(command, ErrorCode::OutOfMemory, "a host memory allocation failed (std::bad_alloc)");
  } catch (const std::exception& e) {
    return report(command, ErrorCode::Internal, std::string(e.what()) + " (an unexpected C++ exception: a wgrt bug)");
  } catch (...) {
    return report(command, ErrorCode::Internal, "an unknown exception (a wgrt bug)");
  }
}

}  // namespace wgrt::cli
