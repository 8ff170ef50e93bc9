// Inputs the fuzzers (tests/fuzz) once crashed on, kept in
// tests/fuzz/regressions/<target>/: each must now end in a clear
// Error(InvalidProgram) naming the problem, never a crash (run under the
// sanitizer build, the null dereference they caused would be reported).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/pte_up_to_gpu.h"
#include "import/pte/file_bytes.h"
#include "import/pte/program.h"
#include "import/pte/vk_blob.h"
#include "import/test_pte_util.h"
#include "wgrt/error.h"

namespace wgrt::pte {
namespace {

std::vector<std::filesystem::path> regressions(const std::string& target) {
  const std::filesystem::path dir =
      std::filesystem::path(WGRT_FIXTURES_DIR).parent_path() / "fuzz" / "regressions" / target;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files.push_back(e.path());
  return files;
}

// Each input in tests/fuzz/regressions/fuzz_pte/, replayed through the path
// fuzz_pte drives, must end in Error(InvalidProgram) naming its problem.
TEST(FuzzRegressions, PteInputsAreClearErrors) {
  const std::map<std::string, std::string> expected = {
      // A Program flatbuffer whose instruction union names KernelCall but holds
      // no table: a null dereference in pte_file.cpp until checked.
      {"crash-a03981bce08f91cebbde8da911f8d4767761f8e4", "without its arguments"},
      // VK00 values whose union names VkTensor or IntList but holds no table:
      // null dereferences in vk_blob.cpp's read_value until checked.
      {"crash-67528cd21b8912042e3406d6b2f28e66d8bb30fd", "without its"},
      {"crash-865b4a35d855a38fdbc6d8bd6ecc47c429bf0dee", "without its"},
      {"crash-dff2be86499187bf0b674832e4cfc9346830940c", "without its"},
      // A VK00 IntList whose 8-byte items sit at 4 mod 8 inside an aligned
      // buffer (the Verifier checks only the length word's alignment): a
      // misaligned load in vk_blob.cpp's to_vector until read byte-wise. The
      // input may load or fail; what the sanitizer build checks is that
      // reading it is defined (an empty string: no expected error).
      {"crash-8cc50089f6501fe231a517509bbb395425b59157", ""},
      // choose_qparams whose [scale, zero_point] list names a non-tensor:
      // std::bad_variant_access (process abort) in its check until checked.
      {"choose_qparams_outputs_not_tensors", "expected [scale, zero_point] tensors"},
  };
  const auto files = regressions("fuzz_pte");
  ASSERT_EQ(files.size(), expected.size()) << "every input in regressions/fuzz_pte needs its expected error here";
  for (const auto& f : files) {
    SCOPED_TRACE(f.filename().string());
    const auto it = expected.find(f.filename().string());
    ASSERT_NE(it, expected.end()) << "no expected error listed";
    const std::vector<uint8_t> bytes = testing::read_bytes(f.string());
    std::vector<std::string> errors;
    fuzz::pte_up_to_gpu(bytes, [&](const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidProgram) << e.what();
      errors.push_back(e.what());
    });
    if (it->second.empty()) continue;
    ASSERT_FALSE(errors.empty()) << "loaded without error";
    EXPECT_NE(errors.front().find(it->second), std::string::npos) << errors.front();
  }
}

// A VK00 graph at an address that is 4 mod 8 (an inline delegate blob sits
// wherever the Program flatbuffer's byte vector puts it). flatbuffers' Verifier
// checks alignment relative to the buffer start, so such a graph verified yet
// read its 8-byte scalars misaligned (UBSan, found by fuzz_pte). It must parse
// to the same graph as an aligned copy.
TEST(FuzzRegressions, VkGraphAtMisalignedAddressParses) {
  const auto bytes = testing::read_bytes(testing::fixture("transformer_block.pte"));
  const std::string magic = "VH00";
  const auto at = std::search(bytes.begin(), bytes.end(), magic.begin(), magic.end());
  ASSERT_NE(at, bytes.end());
  const size_t start = static_cast<size_t>(at - bytes.begin()) - 4;
  const std::vector<uint8_t> blob(bytes.begin() + static_cast<std::ptrdiff_t>(start), bytes.end());
  const NamedDataLookup none = [](std::string_view) { return std::nullopt; };

  std::vector<uint8_t> padded(4, 0);
  padded.insert(padded.end(), blob.begin(), blob.end());
  const auto file = FileBytes::own(padded, "misaligned.bin");
  ASSERT_EQ(reinterpret_cast<uintptr_t>(file->bytes().data() + 4) % 8, 4u);
  // The weights are named data in the program; left missing, they do not matter here.
  std::vector<std::string> missing;
  const VkGraph misaligned = parse_vk_blob(*file, 4, file->bytes().subspan(4), none, &missing);

  const auto aligned_file = FileBytes::own(blob, "aligned.bin");
  const VkGraph aligned = parse_vk_blob(*aligned_file, 0, aligned_file->bytes(), none, &missing);
  EXPECT_EQ(misaligned.values.size(), aligned.values.size());
  EXPECT_EQ(misaligned.ops.size(), aligned.ops.size());
  EXPECT_GT(aligned.ops.size(), 0u);
}

}  // namespace
}  // namespace wgrt::pte
