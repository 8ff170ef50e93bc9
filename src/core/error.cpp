#include "wgrt/error.h"

namespace wgrt {

std::string_view to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::InvalidArgument: return "InvalidArgument";
    case ErrorCode::InvalidProgram: return "InvalidProgram";
    case ErrorCode::NotFound: return "NotFound";
    case ErrorCode::NotSupported: return "NotSupported";
    case ErrorCode::OutOfMemory: return "OutOfMemory";
    case ErrorCode::DeviceLost: return "DeviceLost";
    case ErrorCode::Internal: return "Internal";
  }
  return "Unknown";
}

Error::Error(ErrorCode code, const std::string& message)
    : std::runtime_error(message), code_(code) {}

Error Error::with_context(std::string_view context) const {
  return Error(code_, std::string(context) + ": " + what());
}

}  // namespace wgrt
