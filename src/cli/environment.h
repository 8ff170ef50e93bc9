// The WGRT_* environment variables, mapped onto options for the entry
// points that honour them: the `wgrt` CLI, the Python module, the ExecuTorch
// backend (ExecuTorch passes no options of its own) and the test harness,
// each of which compiles this file in (it is no part of the library, which
// never reads the environment). Uses the public API only. The variables and
// the fields they set are the README's table.
#pragma once

#include "wgrt/runtime.h"
#include "wgrt/tuning.h"

namespace wgrt {

// `base` with every WGRT_* tuning variable that is set applied (an empty
// value counts as unset). A value a variable cannot mean is
// Error(InvalidArgument) naming the variable and what it accepts.
Tuning tuning_from_environment(Tuning base = {});

namespace api {
// `base` with WGRT_LIMITS (adapter, default) applied when set.
RuntimeOptions runtime_options_from_environment(RuntimeOptions base = {});
// `base` with its tuning from tuning_from_environment.
LoadOptions load_options_from_environment(LoadOptions base = {});
}  // namespace api

}  // namespace wgrt
