#include "core/npy.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "wgrt/error.h"

namespace wgrt {
namespace {

struct NpyType {
  const char* descr;
  DType dtype;
};
constexpr NpyType kTypes[] = {{"<f4", DType::F32}, {"<f2", DType::F16}, {"<i4", DType::I32}, {"<i8", DType::I64},
                              {"|u1", DType::U8},  {"|i1", DType::I8},  {"|b1", DType::Bool}};

std::string field(const std::string& header, const std::string& key) {
  const auto k = header.find("'" + key + "'");
  if (k == std::string::npos) return {};
  auto v = header.find(':', k);
  if (v == std::string::npos) return {};
  ++v;
  while (v < header.size() && header[v] == ' ') ++v;
  if (header[v] == '(') return header.substr(v, header.find(')', v) - v + 1);
  if (header[v] == '\'') return header.substr(v + 1, header.find('\'', v + 1) - v - 1);
  return header.substr(v, header.find_first_of(",}", v) - v);
}

}  // namespace

HostTensor read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::NotFound, "cannot open " + path);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto bad = [&](const std::string& why) { return Error(ErrorCode::InvalidArgument, path + ": " + why); };
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) throw bad("not a .npy file (bad magic at offset 0)");
  const int major = bytes[6];
  size_t header_len = 0, start = 0;
  if (major == 1) {
    header_len = bytes[8] | (bytes[9] << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw bad("truncated header");
    header_len = bytes[8] | (bytes[9] << 8) | (bytes[10] << 16) | (size_t(bytes[11]) << 24);
    start = 12;
  } else {
    throw bad("unsupported .npy version " + std::to_string(major));
  }
  if (start + header_len > bytes.size()) throw bad("header runs past the end of the file");
  const std::string header(bytes.begin() + start, bytes.begin() + start + header_len);
  if (field(header, "fortran_order") != "False") throw bad("Fortran-ordered arrays are not supported; save with C order");
  const std::string descr = field(header, "descr");
  HostTensor t;
  bool known = false;
  for (const auto& ty : kTypes) {
    if (descr == ty.descr) {
      t.dtype = ty.dtype;
      known = true;
    }
  }
  if (!known) throw bad("dtype '" + descr + "' is not supported (f4, f2, i4, i8, u1, i1, b1)");
  const std::string shape = field(header, "shape");
  for (size_t i = 1; i < shape.size();) {
    const size_t j = shape.find_first_of(",)", i);
    const std::string num = shape.substr(i, j - i);
    if (num.find_first_not_of(' ') != std::string::npos) t.dims.push_back(std::stoll(num));
    i = j + 1;
  }
  const size_t data_start = start + header_len;
  const uint64_t need = uint64_t(numel(t.dims)) * host_size(t.dtype);
  if (bytes.size() - data_start != need) {
    throw bad("shape " + dims_string(t.dims) + " of " + std::string(dtype_name(t.dtype)) + " needs " +
              std::to_string(need) + " data bytes from offset " + std::to_string(data_start) + ", the file has " +
              std::to_string(bytes.size() - data_start));
  }
  t.data.assign(bytes.begin() + data_start, bytes.end());
  return t;
}

void write_npy(const std::string& path, DType dtype, const Dims& dims, std::span<const uint8_t> data) {
  const char* descr = nullptr;
  for (const auto& ty : kTypes) {
    if (ty.dtype == dtype) descr = ty.descr;
  }
  std::string shape = "(";
  for (size_t i = 0; i < dims.size(); ++i) shape += std::to_string(dims[i]) + (dims.size() == 1 || i + 1 < dims.size() ? "," : "");
  shape += ")";
  std::string header = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so the data starts on a 64-byte boundary, header ending in '\n'.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw Error(ErrorCode::NotFound, "cannot write " + path + ": " + std::strerror(errno));
  const uint8_t preamble[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, uint8_t(header.size() & 0xff),
                                uint8_t(header.size() >> 8)};
  const bool ok = std::fwrite(preamble, 1, 10, f) == 10 && std::fwrite(header.data(), 1, header.size(), f) == header.size() &&
                  std::fwrite(data.data(), 1, data.size(), f) == data.size();
  if (std::fclose(f) != 0 || !ok) throw Error(ErrorCode::Internal, "writing " + path + " failed");
}

}  // namespace wgrt
