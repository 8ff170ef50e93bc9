#include "import/pte/ptd_file.h"

#include "flat_tensor_generated.h"

namespace wgrt::pte {
namespace {

// FH01 header, inserted after the flatbuffer's identifier at offset 8:
// magic, u32 length, u64 flatbuffer offset, u64 flatbuffer size, u64 segment
// base offset, u64 segment data size.
constexpr uint64_t kHeaderAt = 8;
constexpr uint32_t kHeaderMin = 40;

}  // namespace

void read_ptd(const FileBytes& file, NamedDataMap& named_data) {
  auto head = file.slice(0, kHeaderAt + kHeaderMin, ".ptd header");
  if (!flatbuffers::BufferHasIdentifier(head.data(), ftfb::FlatTensorIdentifier())) {
    file.fail(".ptd file identifier", 4, quote_magic(head, 4) + ", expected 'FT01'");
  }
  if (std::string_view(reinterpret_cast<const char*>(head.data()) + 8, 4) != "FH01") {
    file.fail(".ptd header", 8, "magic " + quote_magic(head, 8) + ", expected 'FH01'");
  }
  const uint32_t length = read_u32(head, 12);
  if (length < kHeaderMin) {
    file.fail(".ptd header", 12,
              "length " + std::to_string(length) + ", expected at least " +
                  std::to_string(kHeaderMin));
  }
  const uint64_t fb_offset = read_u64(head, 16);
  const uint64_t fb_size = read_u64(head, 24);
  const uint64_t segment_base = read_u64(head, 32);
  // The flatbuffer starts at byte 0 (the header sits inside it); it ends at
  // fb_offset + fb_size.
  if (!fits(fb_offset, fb_size, file.bytes().size())) {
    file.fail(".ptd header", 16,
              "flatbuffer ends at " + std::to_string(fb_offset) + " + " + std::to_string(fb_size) +
                  ", file has " + std::to_string(file.bytes().size()) + " bytes");
  }
  const uint64_t fb_end = fb_offset + fb_size;
  if (fb_end >= kMaxFlatbufferSize) {
    file.fail(".ptd header", 16,
              "flatbuffer ends at " + std::to_string(fb_end) + ", past the 2 GiB flatbuffer limit");
  }
  flatbuffers::Verifier verifier(file.bytes().data(), fb_end, 64, 1u << 24);
  if (!ftfb::VerifyFlatTensorBuffer(verifier)) {
    file.fail("FlatTensor flatbuffer", 0,
              std::to_string(fb_end) + " bytes fail flatbuffer verification");
  }
  const ftfb::FlatTensor* ft = ftfb::GetFlatTensor(file.bytes().data());
  const auto* segments = ft->segments();
  const size_t n_segments = segments ? segments->size() : 0;
  if (ft->named_data() == nullptr) return;
  for (const ftfb::NamedData* nd : *ft->named_data()) {
    const std::string key = nd->key() ? nd->key()->str() : std::string();
    if (nd->segment_index() >= n_segments) {
      file.fail("FlatTensor flatbuffer", 0,
                "named data '" + key + "' uses segment " + std::to_string(nd->segment_index()) +
                    ", file has " + std::to_string(n_segments));
    }
    const ftfb::DataSegment* seg = segments->Get(nd->segment_index());
    if (!fits(segment_base, seg->offset(), file.bytes().size())) {
      file.fail("named data '" + key + "'", segment_base,
                "segment offset " + std::to_string(seg->offset()) + " is past the end of the " +
                    std::to_string(file.bytes().size()) + "-byte file");
    }
    auto bytes = file.slice(segment_base + seg->offset(), seg->size(),
                            "named data '" + key + "'");
    named_data.emplace(key, bytes);
  }
}

}  // namespace wgrt::pte
