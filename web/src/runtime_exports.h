#pragma once

#include "wgrt/runtime.h"

namespace wgrt::web {
// The runtime wgrt_web_init made; throws before that.
const api::Runtime& runtime();
}  // namespace wgrt::web
