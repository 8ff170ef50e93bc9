// The .pte reader up to (not including) GPU allocation: see pte_up_to_gpu.h.
#include "pte_up_to_gpu.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  wgrt::fuzz::pte_up_to_gpu({data, size}, [](const wgrt::Error&) {});
  return 0;
}
