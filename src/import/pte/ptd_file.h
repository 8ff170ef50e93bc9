// A .ptd file (ExecuTorch's FlatTensor, identifier FT01 with an FH01 header):
// named byte ranges holding a program's external constants.
#pragma once

#include "import/pte/file_bytes.h"
#include "import/pte/vk_blob.h"

namespace wgrt::pte {

// Adds every named entry of file to named_data; a key already there keeps its
// first value. Throws Error(InvalidProgram) naming the file and offset.
void read_ptd(const FileBytes& file, NamedDataMap& named_data);

}  // namespace wgrt::pte
