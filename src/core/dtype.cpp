#include "wgrt/dtype.h"

namespace wgrt {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::F32: return "f32";
    case DType::F16: return "f16";
    case DType::I32: return "i32";
    case DType::I64: return "i64";
    case DType::U8: return "u8";
    case DType::I8: return "i8";
    case DType::Bool: return "bool";
  }
  return "?";
}

size_t host_size(DType t) {
  switch (t) {
    case DType::F32: case DType::I32: return 4;
    case DType::F16: return 2;
    case DType::I64: return 8;
    case DType::U8: case DType::I8: case DType::Bool: return 1;
  }
  return 0;
}

size_t device_size(DType t) { return t == DType::I64 ? 4 : host_size(t); }

}  // namespace wgrt
