// The one error type of wgrt: a code saying what kind of failure, and a message
// saying what and where. Library code throws it; the CLI and bindings turn it
// into an exit status or a Python exception.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace wgrt {

enum class ErrorCode {
  InvalidArgument,  // a caller passed something wrong
  InvalidProgram,   // a file or graph is malformed
  NotFound,         // a name, file or device that does not exist
  NotSupported,     // valid, but not implemented or not offered by the adapter
  OutOfMemory,      // a GPU or host allocation failed
  DeviceLost,       // the GPU device went away
  Internal,         // a broken invariant inside wgrt
};

std::string_view to_string(ErrorCode code);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message);

  ErrorCode code() const { return code_; }

  // The same error with "context: " prepended, for adding where it happened
  // as the error travels outwards.
  Error with_context(std::string_view context) const;

 private:
  ErrorCode code_;
};

}  // namespace wgrt
