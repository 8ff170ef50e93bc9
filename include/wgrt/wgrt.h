// wgrt's public C++ API, all of it. Start with wgrt/runtime.h, which states
// the conventions (errors, ownership, threads) every header follows.
#pragma once

#include "wgrt/dtype.h"
#include "wgrt/error.h"
#include "wgrt/llm.h"
#include "wgrt/memory_stats.h"
#include "wgrt/program.h"
#include "wgrt/runtime.h"
#include "wgrt/tensor.h"
#include "wgrt/version.h"
