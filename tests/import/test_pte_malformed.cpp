// Malformed .pte and .ptd input: each corruption of a valid fixture must end
// in Error(InvalidProgram) whose message names the byte offset of the problem,
// and never in a crash or a silent success.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>

#include "import/pte/file_bytes.h"
#include "import/pte/program.h"
#include "import/pte/to_graph.h"
#include "import/test_pte_util.h"
#include "wgrt/error.h"

namespace wgrt::pte {
namespace {

using testing::fixture;
using testing::read_bytes;

std::vector<uint8_t> add_chain() { return read_bytes(fixture("add_chain.pte")); }

size_t find(const std::vector<uint8_t>& b, std::string_view needle, size_t from = 0) {
  auto it = std::search(b.begin() + from, b.end(), needle.begin(), needle.end());
  EXPECT_NE(it, b.end()) << "'" << needle << "' not in fixture";
  return static_cast<size_t>(it - b.begin());
}

size_t find_next(const std::vector<uint8_t>& b, std::string_view needle, size_t from) {
  auto it = std::search(b.begin() + static_cast<std::ptrdiff_t>(from), b.end(), needle.begin(), needle.end());
  return static_cast<size_t>(it - b.begin());
}

template <class T>
void poke(std::vector<uint8_t>& b, size_t at, T value) {
  std::memcpy(b.data() + at, &value, sizeof(T));
}

template <class T>
T peek(const std::vector<uint8_t>& b, size_t at) {
  T v;
  std::memcpy(&v, b.data() + at, sizeof(T));
  return v;
}

// Parses pte (with optional ptd), expecting InvalidProgram with
// "at byte <offset>:" and `also` in the message.
void expect_invalid(std::vector<uint8_t> pte, uint64_t offset, const std::string& also = "",
                    std::vector<NamedBytes> ptd = {}) {
  try {
    parse_program({"bad.pte", std::move(pte)}, std::move(ptd));
    ADD_FAILURE() << "parsed without error; expected one at byte " << offset;
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(e.code(), ErrorCode::InvalidProgram) << m;
    EXPECT_NE(m.find("at byte " + std::to_string(offset) + ":"), std::string::npos) << m;
    EXPECT_NE(m.find(also), std::string::npos) << m;
  }
}

TEST(PteMalformed, ValidFixtureParses) {
  const Program p = parse_program({"ok.pte", add_chain()});
  EXPECT_EQ(p.method("forward").graph().ops.size(), 5u);
}

// Tensor dims are uint32 in the file; two of 2^32 - 1 multiply past int64.
// Every [2, 3] dims vector of the fixture gets them: whichever is read first
// must be refused with a clear error, not wrap into a small size.
TEST(PteMalformed, DimsWhoseElementCountOverflows) {
  auto b = add_chain();
  const uint32_t dims23[] = {2, 2, 3};  // a vector of length 2 holding 2, 3
  const std::string_view needle(reinterpret_cast<const char*>(dims23), sizeof(dims23));
  size_t poked = 0;
  for (size_t at = find(b, needle); at < b.size(); at = find_next(b, needle, at + 1)) {
    poke<uint32_t>(b, at + 4, 0xffffffffu);
    poke<uint32_t>(b, at + 8, 0xffffffffu);
    ++poked;
  }
  ASSERT_GT(poked, 0u);
  try {
    const Program p = parse_program({"huge.pte", std::move(b)});
    for (const Method& m : p.methods) to_graph(m, "huge.pte");
    ADD_FAILURE() << "built a graph with dims of 2^64 elements";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidProgram) << e.what();
    EXPECT_NE(std::string(e.what()).find("overflows 64 bits"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[4294967295, 4294967295]"), std::string::npos) << e.what();
  }
}

TEST(PteMalformed, TruncatedAnywhere) {
  const auto full = add_chain();
  for (size_t n = 0; n < full.size(); ++n) {
    std::vector<uint8_t> b(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
    try {
      parse_program({"cut.pte", std::move(b)});
      ADD_FAILURE() << "parsed a file cut to " << n << " bytes";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidProgram) << e.what();
      EXPECT_NE(std::string(e.what()).find(" at byte "), std::string::npos) << e.what();
    }
  }
}

TEST(PteMalformed, TruncatedMessages) {
  const auto full = add_chain();
  expect_invalid({full.begin(), full.begin() + 5}, 0, "needs 8 bytes, file has 5");
  // The extended header promises a program longer than the file.
  expect_invalid({full.begin(), full.begin() + 600}, 16, "file has 600 bytes");
  // The delegate's segment runs past the end.
  const uint64_t base = peek<uint64_t>(full, 24);
  std::vector<uint8_t> cut(full.begin(), full.end() - 16);
  expect_invalid(cut, base, "delegate 0 blob");
}

TEST(PteMalformed, FileIdentifier) {
  auto b = add_chain();
  std::memcpy(b.data() + 4, "ET99", 4);
  expect_invalid(b, 4, "'ET99', expected 'ET12'");
}

TEST(PteMalformed, ExtendedHeaderMagic) {
  auto b = add_chain();
  std::memcpy(b.data() + 8, "eh01", 4);
  // Without the header the delegate's segment cannot be located.
  expect_invalid(b, 8, "no 'eh00' extended header (got 'eh01')");
}

TEST(PteMalformed, ExtendedHeaderFields) {
  auto b = add_chain();
  poke<uint32_t>(b, 12, 16);
  expect_invalid(b, 12, "length 16, expected at least 24");
  b = add_chain();
  poke<uint64_t>(b, 16, b.size() + 1);
  expect_invalid(b, 16, "program_size");
  b = add_chain();
  poke<uint64_t>(b, 24, uint64_t{1} << 40);
  expect_invalid(b, 24, "segment_base_offset");
}

TEST(PteMalformed, DelegateSegmentOutOfRange) {
  auto b = add_chain();
  const uint64_t base = peek<uint64_t>(b, 24);
  const uint64_t program_size = peek<uint64_t>(b, 16);
  const uint64_t blob_size = b.size() - base;  // the only segment runs to the end
  // The DataSegment's size field: the one u64 of that value in the flatbuffer.
  std::vector<size_t> hits;
  for (size_t at = 40; at + 8 <= program_size; at += 4) {
    if (peek<uint64_t>(b, at) == blob_size) hits.push_back(at);
  }
  ASSERT_EQ(hits.size(), 1u);
  poke<uint64_t>(b, hits[0], uint64_t{1} << 40);
  expect_invalid(b, base, "delegate 0 blob at byte " + std::to_string(base) + ": needs 1099511627776");
}

TEST(PteMalformed, DelegateMagic) {
  auto b = add_chain();
  const size_t at = find(b, "VH00");
  b[at + 3] = '1';
  expect_invalid(b, at, "magic 'VH01', expected 'VH00'");
}

TEST(PteMalformed, DelegateHeaderFields) {
  const auto good = add_chain();
  const size_t blob = find(good, "VH00") - 4;
  auto b = good;
  poke<uint16_t>(b, blob + 8, 12);
  expect_invalid(b, blob + 8, "header size 12");
  b = good;
  poke<uint32_t>(b, blob + 10, 0xFFFFFF00u);
  expect_invalid(b, blob + 10, "graph flatbuffer");
  b = good;
  poke<uint32_t>(b, blob + 14, 0x7FFFFFFFu);
  expect_invalid(b, blob + 10, "graph flatbuffer");
  b = good;
  poke<uint32_t>(b, blob + 18, 0xFFFFFFF0u);
  expect_invalid(b, blob + 18, "constant bytes");
  b = good;
  poke<uint64_t>(b, blob + 22, uint64_t{1} << 50);
  expect_invalid(b, blob + 18, "constant bytes");
}

TEST(PteMalformed, GraphIdentifier) {
  auto b = add_chain();
  const size_t at = find(b, "VK00");
  b[at] = 'X';
  expect_invalid(b, at, "'XK00', expected 'VK00'");
}

TEST(PteMalformed, GraphFlatbufferGarbage) {
  auto b = add_chain();
  const size_t blob = find(b, "VH00") - 4;
  const size_t fb_at = blob + peek<uint32_t>(b, blob + 10);
  const size_t fb_size = peek<uint32_t>(b, blob + 14);
  std::fill(b.begin() + static_cast<std::ptrdiff_t>(fb_at + 8),
            b.begin() + static_cast<std::ptrdiff_t>(fb_at + fb_size), 0xA5);
  expect_invalid(b, fb_at, "fail flatbuffer verification");
}

TEST(PteMalformed, ProgramFlatbufferGarbage) {
  auto b = add_chain();
  const uint64_t program_size = peek<uint64_t>(b, 16);
  std::fill(b.begin() + 40, b.begin() + static_cast<std::ptrdiff_t>(program_size), 0xA5);
  expect_invalid(b, 0, "fail flatbuffer verification");
}

TEST(PteMalformed, MissingNamedConstant) {
  auto b = read_bytes(fixture("mlp.pte"));
  // Change the first constant's key inside the Vulkan graph only.
  const size_t blob = find(b, "VH00") - 4;
  const size_t fb_at = blob + peek<uint32_t>(b, blob + 10);
  const std::string key = testing::read_json(fixture("mlp.json"))["methods"]["forward"]
                              ["delegates"][0]["constants"][0]["named_key"].string;
  ASSERT_EQ(key.size(), 64u);  // sha256 hex
  const size_t at = find(b, key, blob);
  b[at] = 'x';
  expect_invalid(b, fb_at, "named data 'x" + key.substr(1) + "'");
}

// 1.5.1 stores every non-empty constant as named data (offset UINT64_MAX);
// turned into an offset into the blob's (empty) constant bytes, it is out of range.
TEST(PteMalformed, BlobConstantOutOfRange) {
  auto b = read_bytes(fixture("mlp.pte"));
  const size_t blob = find(b, "VH00") - 4;
  const size_t fb_at = blob + peek<uint32_t>(b, blob + 10);
  const size_t bytes_offset = peek<uint32_t>(b, blob + 18);
  ASSERT_EQ(peek<uint64_t>(b, blob + 22), 0u);  // no constant bytes in the blob
  // A VkBytes table: offset UINT64_MAX next to a constant's length (int32 -1
  // pairs elsewhere, such as constant_id and mem_obj_id, look the same alone).
  std::set<uint64_t> lengths;
  const testing::Json manifest = testing::read_json(fixture("mlp.json"));
  for (const auto& c : manifest["methods"]["forward"]["delegates"][0]["constants"].array) {
    lengths.insert(static_cast<uint64_t>(c["length"].integer()));
  }
  size_t at = 0;
  for (size_t p = fb_at + 8; p + 16 <= b.size() && at == 0; p += 8) {
    if (peek<uint64_t>(b, p) == ~uint64_t{0} &&
        (lengths.contains(peek<uint64_t>(b, p + 8)) || lengths.contains(peek<uint64_t>(b, p - 8)))) {
      at = p;
    }
  }
  ASSERT_NE(at, 0u);
  poke<uint64_t>(b, at, 0);
  expect_invalid(b, blob + bytes_offset, "constant bytes end before");
}

TEST(PteMalformed, PtdHeader) {
  const auto pte = read_bytes(fixture("external_weights.pte"));
  const auto good = read_bytes(fixture("external_weights.ptd"));
  auto with = [&](std::vector<uint8_t> ptd) {
    return std::vector<NamedBytes>{{"bad.ptd", std::move(ptd)}};
  };
  auto ptd = good;
  std::memcpy(ptd.data() + 8, "FH02", 4);
  expect_invalid(pte, 8, "magic 'FH02', expected 'FH01'", with(ptd));
  ptd = good;
  std::memcpy(ptd.data() + 4, "FT99", 4);
  expect_invalid(pte, 4, "expected 'FT01'", with(ptd));
  ptd = good;
  poke<uint64_t>(ptd, 24, uint64_t{1} << 40);  // flatbuffer size
  expect_invalid(pte, 16, "flatbuffer ends", with(ptd));
  ptd = good;
  poke<uint64_t>(ptd, 32, ptd.size() + 100);  // segment base past the end
  expect_invalid(pte, ptd.size() + 100, "past the end", with(ptd));
}

TEST(PteMalformed, PtdTruncated) {
  const auto pte = read_bytes(fixture("external_weights.pte"));
  const auto full = read_bytes(fixture("external_weights.ptd"));
  for (size_t n = 0; n < full.size(); n += 7) {
    std::vector<NamedBytes> ptd{{"cut.ptd", {full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n)}}};
    try {
      parse_program({"ok.pte", pte}, std::move(ptd));
      ADD_FAILURE() << "parsed a .ptd cut to " << n << " bytes";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidProgram) << e.what();
      EXPECT_NE(std::string(e.what()).find(" at byte "), std::string::npos) << e.what();
    }
  }
}

// Random corruption: any outcome but a crash or a non-wgrt exception is fine,
// and an InvalidProgram always names an offset.
TEST(PteMalformed, RandomCorruptionNeverCrashes) {
  for (const char* name : {"mlp.pte", "transformer_block.pte", "dynamic_batch.pte"}) {
    const auto good = read_bytes(fixture(name));
    std::mt19937 rng(1234);
    for (int trial = 0; trial < 300; ++trial) {
      auto b = good;
      const int flips = 1 + static_cast<int>(rng() % 8);
      for (int f = 0; f < flips; ++f) b[rng() % b.size()] = static_cast<uint8_t>(rng());
      try {
        parse_program({name, std::move(b)});
      } catch (const Error& e) {
        if (e.code() == ErrorCode::InvalidProgram) {
          EXPECT_NE(std::string(e.what()).find(" at byte "), std::string::npos) << e.what();
        } else {
          EXPECT_EQ(e.code(), ErrorCode::NotSupported) << e.what();
        }
      }
    }
  }
}

}  // namespace
}  // namespace wgrt::pte
