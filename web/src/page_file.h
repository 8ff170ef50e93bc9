// A file the page holds (a Blob in wgrt.mjs's table of sources) as a
// RangeReader: each range is read by the browser while the engine waits
// (file_library.js), so weights go from the visitor's disk or download to
// the GPU a chunk at a time.
#pragma once

#include <cstdint>
#include <string>

#include "wgrt/range_reader.h"

namespace wgrt::web {

RangeReaderPtr page_file(int32_t source, uint64_t size, std::string name);

}  // namespace wgrt::web
