// wgrt's public C++ API, all of it. Start with wgrt/runtime.h, which states
// the conventions (errors, ownership, threads) every header follows.
// wgrt/testing.h (hooks for wgrt's own tests) is not included.
#pragma once

#include "wgrt/device_tensor.h"
#include "wgrt/dlpack.h"
#include "wgrt/dtype.h"
#include "wgrt/error.h"
#include "wgrt/batch.h"
#include "wgrt/llm.h"
#include "wgrt/memory_stats.h"
#include "wgrt/program.h"
#include "wgrt/range_reader.h"
#include "wgrt/runtime.h"
#include "wgrt/tensor.h"
#include "wgrt/version.h"
