// Constants produced on demand (graph/constant_source.h) and streamed to the
// GPU a chunk at a time (graph/constant_upload.h): each source against the
// same rows built directly in memory, and uploads of every shape of run
// (chunks smaller than a row, larger than the constant, across the runs of
// a constant stored in several buffers) read back byte for byte.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "wgrt/range_reader.h"
#include "gpu_test_env.h"
#include "graph/constant_source.h"
#include "graph/memory_plan.h"
#include "ops/split_device.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint8_t(i * 7 + seed + i / 251);
  return v;
}

std::vector<uint8_t> rows_of(const std::vector<uint8_t>& v, uint64_t row_bytes, uint64_t first, uint64_t count) {
  return {v.begin() + first * row_bytes, v.begin() + (first + count) * row_bytes};
}

std::vector<uint8_t> read(const ConstantSource& s, uint64_t first, uint64_t count) {
  std::vector<uint8_t> out(count * s.row_bytes());
  s.read_rows(first, count, out.data());
  return out;
}

TEST(RangeReader, AFileReadsItsRangesAndRefusesOnesPastTheEnd) {
  const auto path = std::filesystem::temp_directory_path() / "wgrt_range_reader.bin";
  const auto bytes = pattern(10000, 3);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  const RangeReaderPtr f = open_file_reader(path.string());
  EXPECT_EQ(f->size(), bytes.size());
  EXPECT_EQ(f->read(1234, 500), rows_of(bytes, 1, 1234, 500));
  EXPECT_EQ(f->read(10000, 0).size(), 0u);
  try {
    f->read(9990, 11);
    FAIL() << "read past the end";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("at byte 9990"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
  EXPECT_THROW(open_file_reader(path.string()), Error);
}

TEST(ConstantSource, EachFormGivesTheRowsBuiltInMemory) {
  constexpr uint64_t kRow = 12, kRows = 40;
  const auto a = pattern(kRow * kRows, 1), b = pattern(kRow * 10, 2);
  std::vector<uint8_t> padded(64, 0);  // the rows at an offset inside a bigger file
  padded.insert(padded.end(), a.begin(), a.end());
  const auto fa = file_rows(memory_reader(padded, "a.bin"), 64, kRows, kRow);
  EXPECT_EQ(fa->read_all(), a);
  EXPECT_EQ(read(*fa, 7, 5), rows_of(a, kRow, 7, 5));

  // Stacked: a then b; a run across the seam.
  const auto st = stacked_rows({fa, owned_rows(b, 10)});
  EXPECT_EQ(st->rows(), kRows + 10);
  std::vector<uint8_t> ab = a;
  ab.insert(ab.end(), b.begin(), b.end());
  EXPECT_EQ(st->read_all(), ab);
  EXPECT_EQ(read(*st, 38, 4), rows_of(ab, kRow, 38, 4));

  // Alternating halves from any first row, odd or even.
  const auto alt = alternating_rows(row_range(fa, 0, 20), row_range(fa, 20, 20));
  std::vector<uint8_t> woven;
  for (uint64_t i = 0; i < 20; ++i) {
    for (uint64_t h : {i, 20 + i}) woven.insert(woven.end(), a.begin() + h * kRow, a.begin() + (h + 1) * kRow);
  }
  EXPECT_EQ(alt->read_all(), woven);
  for (uint64_t first : {0, 1, 5, 38}) EXPECT_EQ(read(*alt, first, 2), rows_of(woven, kRow, first, 2)) << first;

  // Rewritten: each 12-byte row to its 6 even bytes.
  const auto halved = rewritten_rows(fa, 6, [](std::span<const uint8_t> in, uint64_t n, std::span<uint8_t> out) {
    for (uint64_t i = 0; i < n * 6; ++i) out[i] = in[2 * i];
  });
  std::vector<uint8_t> want;
  for (size_t i = 0; i < a.size(); i += 2) want.push_back(a[i]);
  EXPECT_EQ(halved->read_all(), want);
  EXPECT_EQ(read(*halved, 3, 2), rows_of(want, 6, 3, 2));

  EXPECT_THROW(read(*fa, 39, 2), Error);
  EXPECT_THROW(row_range(fa, 30, 11), Error);
  EXPECT_THROW(file_rows(memory_reader(a, "a"), 1, kRows, kRow), Error);  // one byte short
  EXPECT_THROW(stacked_rows({fa, owned_rows(pattern(10, 0), 1)}), Error);  // rows of another size
}

class ConstantUploadTest : public test::SplitDeviceTest {};

// A graph of one constant (a source) used by a copy, its memory planned
// with the given chunk: the constant's buffers read back whole.
std::vector<uint8_t> uploaded(gpu::Device& device, DType dtype, Dims dims, ConstantSourcePtr source,
                              uint64_t chunk) {
  GraphBuilder b;
  const ValueId c = b.add_constant_source(dtype, dims, std::move(source));
  Graph g = std::move(b).build();
  std::vector<uint64_t> progress;
  const MemoryPlan plan = MemoryPlan::create(
      device, g, {}, [&](uint64_t done, uint64_t total) { progress.push_back(total - done); }, chunk);
  EXPECT_FALSE(progress.empty());
  EXPECT_EQ(progress.back(), 0u);  // the last call says all of it
  std::vector<uint8_t> out;
  for (const TensorSegment& s : plan.segments(c, g.tensor(c))) {
    const auto part = s.buffer->read();
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

TEST_F(ConstantUploadTest, ChunksOfAnySizeAndRunsOfBuffersUploadEveryByte) {
  constexpr int64_t kRows = 1000, kRow = 48;  // 48,000 bytes: three runs on the split device
  const auto bytes = pattern(kRows * kRow, 5);
  for (gpu::Device* d : {&device(), test::split_device()}) {
    for (uint64_t chunk : {uint64_t{20}, uint64_t{48 * 7}, uint64_t{1} << 20}) {
      EXPECT_EQ(uploaded(*d, DType::U8, {kRows, kRow}, owned_rows(bytes, kRows), chunk), bytes)
          << "chunk " << chunk << (d == test::split_device() ? " (split device)" : "");
    }
  }
}

TEST_F(ConstantUploadTest, I64ConstantsNarrowChunkByChunk) {
  std::vector<int64_t> v(3000);
  std::iota(v.begin(), v.end(), -1500);
  std::vector<uint8_t> bytes(v.size() * 8);
  std::memcpy(bytes.data(), v.data(), bytes.size());
  const auto got = uploaded(*test::split_device(), DType::I64, {3000}, owned_rows(bytes, 3000), 64);
  ASSERT_EQ(got.size(), v.size() * 4);
  for (size_t i = 0; i < v.size(); ++i) {
    int32_t x;
    std::memcpy(&x, got.data() + 4 * i, 4);
    ASSERT_EQ(x, v[i]) << i;
  }
}

}  // namespace
}  // namespace wgrt
