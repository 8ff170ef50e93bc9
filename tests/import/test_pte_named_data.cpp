// Named data (a .ptd's constants) that does not fit the tensor naming it:
// most often a .ptd written for another program. The error names the key.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "import/pte/to_graph.h"
#include "wgrt/error.h"

namespace wgrt::pte {
namespace {

TEST(PteNamedData, WrongSizeNamesTheKey) {
  std::vector<uint8_t> bytes(8);  // two floats where the tensor holds four
  VkGraph vk;
  VkTensor w;
  w.dtype = DType::Float32;
  w.dims = {4};
  w.constant_id = 0;
  VkTensor x = w, y = w;
  x.constant_id = y.constant_id = -1;
  vk.values = {x, w, y};
  vk.constants.push_back({bytes, "layer.weight"});
  vk.ops.push_back({0, "aten.add.Tensor", {0, 1, 2}});
  vk.input_ids = {0};
  vk.output_ids = {2};
  try {
    vk_to_graph(vk, vk.input_ids, vk.output_ids, {}, "model.pte");
    FAIL() << "a constant of the wrong size must be refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
    const std::string what = e.what();
    EXPECT_NE(what.find("named data 'layer.weight'"), std::string::npos) << what;
    EXPECT_NE(what.find("has 8 bytes"), std::string::npos) << what;
    EXPECT_NE(what.find("needs 16"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace wgrt::pte
