// One Vulkan delegate blob: the VH00 header, the VK00 graph flatbuffer and the
// constant bytes after it.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>

#include "import/pte/program.h"

namespace wgrt::pte {

using NamedDataMap = std::map<std::string, std::span<const uint8_t>, std::less<>>;

// blob lies inside file at blob_offset (used for messages). Constants stored
// by key are looked up in named_data. Every id in the graph is checked to be
// in range, so later stages may index values without checking.
// With `missing` given, a constant whose named data no file holds is left
// empty and its key added to `missing` (once) instead of failing.
VkGraph parse_vk_blob(const FileBytes& file, uint64_t blob_offset,
                      std::span<const uint8_t> blob, const NamedDataMap& named_data,
                      std::vector<std::string>* missing = nullptr);

}  // namespace wgrt::pte
