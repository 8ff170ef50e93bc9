// The CLI's last line of defence: every exception a subcommand lets out
// becomes one line on stderr and exit status 1, never std::terminate.
#pragma once

#include <functional>
#include <string_view>

namespace wgrt::cli {

// Runs `body` (a subcommand) and returns its status; on an exception prints
// "wgrt <command>: error (<code>): <message>" and returns 1. A wgrt::Error
// keeps its code; std::bad_alloc reads OutOfMemory; any other exception is
// Internal (a wgrt bug: the library should have thrown a wgrt::Error).
int run_guarded(std::string_view command, const std::function<int()>& body);

}  // namespace wgrt::cli
