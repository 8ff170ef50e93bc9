// wgrt's VulkanBackend called the way ExecuTorch's Method calls it, with the
// inputs ExecuTorch's own checks would stop first (a wrong dtype, a shape
// beyond the bound): the backend must answer with an error code of its own,
// say why (wgrt_executorch_last_error), and work on the next call. The blob
// is the first delegate of tests/fixtures/executorch/two_blobs.pte (one
// aten.linear [2, 8] x [8, 8]^T + [8]); the reference is computed here from
// the weights in the program.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/platform/runtime.h>

#include "import/pte/file_bytes.h"
#include "import/pte/program.h"

extern "C" const char* wgrt_executorch_last_error();
extern "C" int wgrt_executorch_registration_status();

namespace {

namespace et = executorch::runtime;
using executorch::aten::ScalarType;
using executorch::aten::SizesType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::aten::DimOrderType;

// ExecuTorch's named-data interface over wgrt's own parse of the program.
class NamedData final : public et::NamedDataMap {
 public:
  explicit NamedData(const wgrt::pte::Program& p) : program_(p) {}
  et::Result<const et::TensorLayout> get_tensor_layout(std::string_view) const override {
    return et::Error::NotImplemented;
  }
  et::Result<et::FreeableBuffer> get_data(std::string_view key) const override {
    auto it = program_.named_data.find(key);
    if (it == program_.named_data.end()) return et::Error::NotFound;
    return et::FreeableBuffer(it->second.data(), it->second.size(), nullptr);
  }
  et::Error load_data_into(std::string_view, void*, size_t) const override { return et::Error::NotImplemented; }
  et::Result<uint32_t> get_num_keys() const override { return static_cast<uint32_t>(program_.named_data.size()); }
  et::Result<const char*> get_key(uint32_t) const override { return et::Error::NotImplemented; }

 private:
  const wgrt::pte::Program& program_;
};

// A CPU tensor of ExecuTorch's: sizes, dim order and data owned here.
template <typename T, size_t Rank>
struct HostTensor {
  HostTensor(ScalarType type, std::array<SizesType, Rank> dims, size_t capacity)
      : sizes(dims), data(capacity), impl(type, Rank, sizes.data(), data.data(), order.data(), nullptr,
                                          executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
    for (size_t i = 0; i < Rank; ++i) order[i] = static_cast<DimOrderType>(i);
  }
  std::array<SizesType, Rank> sizes;
  std::array<DimOrderType, Rank> order{};
  std::vector<T> data;
  TensorImpl impl;
  et::EValue value() { return et::EValue(Tensor(&impl)); }
};

class BackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    et::runtime_init();
    program_ = wgrt::pte::load_program(std::string(WGRT_FIXTURES_DIR) + "/executorch/two_blobs.pte");
    const wgrt::pte::Delegate& d = program_.method("forward").delegates.at(0);
    const auto file = program_.storage.at(0)->bytes();
    const auto header = file.subspan(d.blob_offset, 30);
    const uint64_t size = wgrt::pte::read_u32(header, 18) + wgrt::pte::read_u64(header, 22);
    blob_ = file.subspan(d.blob_offset, size);
    // Reference weights: the linear's constant arguments.
    const auto& vk = d.graph;
    const auto& op = vk.ops.at(0);
    ASSERT_EQ(op.name, "aten.linear.default");
    auto constant = [&](int32_t id) {
      const auto bytes = vk.constants.at(vk.get<wgrt::pte::VkTensor>(id).constant_id).bytes;
      std::vector<float> v(bytes.size() / 4);
      std::memcpy(v.data(), bytes.data(), bytes.size());
      return v;
    };
    weight_ = constant(op.args[1]);
    bias_ = constant(op.args[2]);
    backend_ = et::get_backend_class("VulkanBackend");
  }

  et::DelegateHandle* init() {
    NamedData named(program_);
    et::BackendInitContext context(nullptr, nullptr, "forward", &named);
    et::FreeableBuffer processed(blob_.data(), blob_.size(), nullptr);
    auto handle = backend_->init(context, &processed, {});
    EXPECT_TRUE(handle.ok()) << wgrt_executorch_last_error();
    return handle.ok() ? handle.get() : nullptr;
  }

  et::Error execute(et::DelegateHandle* handle, et::EValue& in, et::EValue& out) {
    std::array<et::EValue*, 2> args{&in, &out};
    et::BackendExecutionContext context;
    return backend_->execute(context, handle, {args.data(), args.size()});
  }

  std::vector<float> reference(const std::vector<float>& x, size_t rows) const {
    std::vector<float> y(rows * 8);
    for (size_t r = 0; r < rows; ++r) {
      for (size_t n = 0; n < 8; ++n) {
        float acc = bias_[n];
        for (size_t k = 0; k < 8; ++k) acc += x[r * 8 + k] * weight_[n * 8 + k];
        y[r * 8 + n] = acc;
      }
    }
    return y;
  }

  void expect_valid_call_works(et::DelegateHandle* handle) {
    HostTensor<float, 2> x(ScalarType::Float, {2, 8}, 16), y(ScalarType::Float, {2, 8}, 16);
    for (size_t i = 0; i < 16; ++i) x.data[i] = 0.25f * static_cast<float>(i) - 1.5f;
    et::EValue in = x.value(), out = y.value();
    ASSERT_EQ(execute(handle, in, out), et::Error::Ok) << wgrt_executorch_last_error();
    const auto want = reference(x.data, 2);
    for (size_t i = 0; i < 16; ++i) EXPECT_NEAR(y.data[i], want[i], 1e-5) << i;
  }

  wgrt::pte::Program program_;
  std::span<const uint8_t> blob_;
  std::vector<float> weight_, bias_;
  et::BackendInterface* backend_ = nullptr;
};

TEST_F(BackendTest, RegisteredUnderTheVulkanName) {
  EXPECT_EQ(wgrt_executorch_registration_status(), 0);
  ASSERT_NE(backend_, nullptr);
  EXPECT_TRUE(backend_->is_available());
}

TEST_F(BackendTest, RunsTheBlobAgainstAHostReference) {
  et::DelegateHandle* handle = init();
  ASSERT_NE(handle, nullptr);
  expect_valid_call_works(handle);
  backend_->destroy(handle);
}

TEST_F(BackendTest, WrongDtypeFailsThenTheNextCallWorks) {
  et::DelegateHandle* handle = init();
  ASSERT_NE(handle, nullptr);
  HostTensor<int32_t, 2> x(ScalarType::Int, {2, 8}, 16);
  HostTensor<float, 2> y(ScalarType::Float, {2, 8}, 16);
  et::EValue in = x.value(), out = y.value();
  EXPECT_EQ(execute(handle, in, out), et::Error::InvalidArgument);
  EXPECT_NE(std::string(wgrt_executorch_last_error()).find("argument 0 is a tensor of Int, expected Float"),
            std::string::npos)
      << wgrt_executorch_last_error();
  expect_valid_call_works(handle);
  backend_->destroy(handle);
}

TEST_F(BackendTest, ShapeBeyondTheBoundFailsThenTheNextCallWorks) {
  et::DelegateHandle* handle = init();
  ASSERT_NE(handle, nullptr);
  HostTensor<float, 2> x(ScalarType::Float, {3, 8}, 24), y(ScalarType::Float, {3, 8}, 24);
  et::EValue in = x.value(), out = y.value();
  EXPECT_EQ(execute(handle, in, out), et::Error::InvalidArgument);
  EXPECT_NE(std::string(wgrt_executorch_last_error()).find("exceeds"), std::string::npos)
      << wgrt_executorch_last_error();
  expect_valid_call_works(handle);
  backend_->destroy(handle);
}

TEST_F(BackendTest, BadHeaderFailsInitWithTheOffset) {
  std::vector<uint8_t> bad(blob_.begin(), blob_.end());
  bad[5] = 'X';  // VH00 -> VX00
  NamedData named(program_);
  et::BackendInitContext context(nullptr, nullptr, "forward", &named);
  et::FreeableBuffer processed(bad.data(), bad.size(), nullptr);
  auto handle = backend_->init(context, &processed, {});
  EXPECT_EQ(handle.error(), et::Error::InvalidProgram);
  EXPECT_NE(std::string(wgrt_executorch_last_error()).find("at byte 4: magic 'VX00', expected 'VH00'"),
            std::string::npos)
      << wgrt_executorch_last_error();
}

}  // namespace
