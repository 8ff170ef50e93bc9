// Malformed GGUF input: each corruption of a valid fixture must end in
// Error(InvalidProgram) (NotSupported where noted) whose message names the
// byte offset of the problem, and never in a crash.
#include <gtest/gtest.h>

#include <random>

#include "import/gguf/gguf_file.h"
#include "import/test_gguf_util.h"

namespace wgrt::gguf {
namespace {

using testing::fixture;
using testing::find_bytes;
using testing::poke;

std::vector<uint8_t> valid() { return testing::read_bytes(fixture("all_types.gguf")); }

// Parses `bytes`, expecting `code` with "at byte <offset>" in the message.
void expect_error(std::vector<uint8_t> bytes, ErrorCode code, uint64_t offset,
                  const std::string& also = "") {
  try {
    GgufFile::parse(std::move(bytes), "bad.gguf");
    ADD_FAILURE() << "parsed without error; expected one at byte " << offset;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    const std::string m = e.what();
    EXPECT_NE(m.find("at byte " + std::to_string(offset) + ":"), std::string::npos) << m;
    if (!also.empty()) {
      EXPECT_NE(m.find(also), std::string::npos) << m;
    }
  }
}

// Byte offset of the fields of tensor `name`'s info (which follow its name).
struct InfoFields {
  size_t n_dims, type, offset;
};
InfoFields tensor_info_fields(const std::vector<uint8_t>& bytes, const std::string& name, int n_dims) {
  const size_t name_at = find_bytes(bytes, name);
  EXPECT_NE(name_at, std::string::npos);
  const size_t n_dims_at = name_at + name.size();
  const size_t type_at = n_dims_at + 4 + 8 * n_dims;
  return {n_dims_at, type_at, type_at + 4};
}

TEST(GgufMalformed, ValidFixtureParses) { EXPECT_NO_THROW(GgufFile::parse(valid(), "ok.gguf")); }

TEST(GgufMalformed, BadMagic) {
  auto b = valid();
  b[0] = 'G'; b[1] = 'G'; b[2] = 'M'; b[3] = 'L';
  expect_error(b, ErrorCode::InvalidProgram, 0, "expected 'GGUF'");
}

// llama.cpp reads version 2 files; their little-endian layout is version 3's.
TEST(GgufMalformed, Version2Loads) {
  auto b = valid();
  poke<uint32_t>(b, 4, 2);
  const GgufFile f = GgufFile::parse(b, "v2.gguf");
  EXPECT_EQ(f.tensors().size(), GgufFile::parse(valid(), "v3.gguf").tensors().size());
}

TEST(GgufMalformed, WrongVersion) {
  auto b = valid();
  poke<uint32_t>(b, 4, 1);
  expect_error(b, ErrorCode::InvalidProgram, 4, "expected 2 or 3, got 1");
  poke<uint32_t>(b, 4, 4);
  expect_error(b, ErrorCode::InvalidProgram, 4, "expected 2 or 3, got 4");
  poke<uint32_t>(b, 4, 0x03000000);
  expect_error(b, ErrorCode::InvalidProgram, 4, "big-endian");
}

TEST(GgufMalformed, EmptyAndTinyFiles) {
  expect_error({}, ErrorCode::InvalidProgram, 0, "magic");
  expect_error({'G', 'G', 'U', 'F', 3, 0}, ErrorCode::InvalidProgram, 4, "version");
}

TEST(GgufMalformed, TruncatedHeader) {
  auto b = valid();
  b.resize(20);  // inside the metadata count
  expect_error(b, ErrorCode::InvalidProgram, 16, "metadata count");
}

// Every truncation short of the last tensor's end must fail cleanly.
TEST(GgufMalformed, EveryTruncationFailsWithOffset) {
  const auto full = valid();
  const auto f = GgufFile::parse(valid(), "ok");
  const TensorInfo& last = f.tensors().back();
  // The file ends with padding after the last tensor; cutting that is harmless.
  for (size_t n = 0; n < last.file_offset + last.n_bytes; ++n) {
    std::vector<uint8_t> b(full.begin(), full.begin() + n);
    try {
      GgufFile::parse(std::move(b), "cut.gguf");
      ADD_FAILURE() << "truncated to " << n << " bytes parsed without error";
    } catch (const Error& e) {
      ASSERT_EQ(e.code(), ErrorCode::InvalidProgram) << n << ": " << e.what();
      ASSERT_NE(std::string(e.what()).find("at byte "), std::string::npos) << e.what();
    }
  }
}

TEST(GgufMalformed, StringRunsPastEof) {
  auto b = valid();
  // The first key's length field sits at byte 24, right after the header.
  poke<uint64_t>(b, 24, 1ull << 40);
  expect_error(b, ErrorCode::InvalidProgram, 24, "runs past the end of the file");
}

TEST(GgufMalformed, TensorDataPastEof) {
  auto b = valid();
  const auto f = GgufFile::parse(valid(), "ok");
  const TensorInfo& last = f.tensors().back();
  b.resize(last.file_offset + last.n_bytes - 1);
  expect_error(b, ErrorCode::InvalidProgram, last.file_offset, last.name);
}

TEST(GgufMalformed, MisalignedTensorOffset) {
  auto b = valid();
  const auto fields = tensor_info_fields(b, "t_q4_0", 2);
  poke<uint64_t>(b, fields.offset, 64 * 5 + 8);
  expect_error(b, ErrorCode::InvalidProgram, fields.offset, "misaligned");
}

TEST(GgufMalformed, UnknownTensorType) {
  auto b = valid();
  const auto fields = tensor_info_fields(b, "t_q8_0", 2);
  poke<uint32_t>(b, fields.type, 99);
  expect_error(b, ErrorCode::InvalidProgram, fields.type, "unknown type 99");
}

TEST(GgufMalformed, TooManyDimensions) {
  auto b = valid();
  const auto fields = tensor_info_fields(b, "t_f32", 2);
  poke<uint32_t>(b, fields.n_dims, 9);
  expect_error(b, ErrorCode::InvalidProgram, fields.n_dims, "got 9");
}

TEST(GgufMalformed, AbsurdCounts) {
  auto b = valid();
  poke<uint64_t>(b, 16, 1ull << 60);  // metadata count
  expect_error(b, ErrorCode::InvalidProgram, 16, "absurd metadata count");
  b = valid();
  poke<uint64_t>(b, 8, ~0ull);  // tensor count
  expect_error(b, ErrorCode::InvalidProgram, 8, "absurd tensor count");
}

TEST(GgufMalformed, AbsurdArrayLength) {
  auto b = valid();
  const std::string key = "test.arr_u32";
  const size_t at = find_bytes(b, key) + key.size() + 4 /*type*/ + 4 /*element type*/;
  poke<uint64_t>(b, at, 1ull << 61);
  expect_error(b, ErrorCode::InvalidProgram, at, "test.arr_u32");
}

TEST(GgufMalformed, BadValueTypeAndBool) {
  auto b = valid();
  const std::string key = "test.u8";
  const size_t type_at = find_bytes(b, key) + key.size();
  poke<uint32_t>(b, type_at, 77);
  expect_error(b, ErrorCode::InvalidProgram, type_at, "got 77");
  b = valid();
  const std::string bkey = "test.bool_true";
  const size_t value_at = find_bytes(b, bkey) + bkey.size() + 4;
  b[value_at] = 7;
  expect_error(b, ErrorCode::InvalidProgram, value_at, "bool");
}

TEST(GgufMalformed, ArrayOfArraysIsNotSupported) {
  auto b = valid();
  const std::string key = "test.arr_u8";
  poke<uint32_t>(b, find_bytes(b, key) + key.size() + 4, 9);
  expect_error(b, ErrorCode::NotSupported, find_bytes(b, key) + key.size() + 4, "array of arrays");
}

TEST(GgufMalformed, BadAlignment) {
  auto b = valid();
  const std::string key = "general.alignment";
  const size_t key_at = find_bytes(b, key) - 8;  // its length field
  poke<uint32_t>(b, key_at + 8 + key.size() + 4, 48);
  expect_error(b, ErrorCode::InvalidProgram, key_at, "power of two");
}

// Random byte corruption anywhere in the header must never crash: either the
// file still parses or it throws wgrt::Error.
TEST(GgufMalformed, RandomCorruptionNeverCrashes) {
  const auto full = valid();
  const auto f = GgufFile::parse(valid(), "ok");
  std::mt19937 rng(42);
  std::uniform_int_distribution<size_t> pos(0, f.data_offset() - 1);
  std::uniform_int_distribution<int> byte(0, 255);
  int errors = 0;
  for (int i = 0; i < 3000; ++i) {
    auto b = full;
    for (int k = 0; k < 1 + i % 3; ++k) b[pos(rng)] = static_cast<uint8_t>(byte(rng));
    try {
      GgufFile::parse(std::move(b), "fuzz");
    } catch (const Error&) {
      ++errors;
    }
  }
  EXPECT_GT(errors, 100);  // the corruption did hit something
}

}  // namespace
}  // namespace wgrt::gguf
