// Load-time refusals of ExecuTorch's training ops (src/ops/training) on graphs
// built here: a group size that does not divide K, non-finite or zero
// scales (zero is legal for q4gsw_requant, whose reference defines it), a zero
// n_valid, mismatched rows. Their numerics are tested by the exported
// programs of tests/fixtures/pte/quant/ (linear_dw, fused_ce,
// linear_q4gsw_backward, q4gsw_requant, train_step_q4gsw).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "gpu_test_env.h"
#include "load_error_test.h"
#include "host_tensors.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

class TrainingOpsTest : public test::LoadErrorTest {};

std::vector<uint8_t> floats(std::vector<float> v) {
  std::vector<uint8_t> out(v.size() * 4);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

// q4gsw_backward (d_out [2, 4], weights [4, K/2]) or q4gsw_requant (latent [4, K]),
// K = 16, scales [groups, 4].
GraphBuilder q4gsw_graph(bool requant, int64_t group_size, int64_t groups, float bad_scale) {
  GraphBuilder b;
  std::vector<float> s(size_t(groups) * 4, 0.125f);
  s[1] = bad_scale;
  const ValueId scales = b.add_constant(DType::F32, {groups, 4}, floats(s));
  if (requant) {
    const ValueId latent = b.add_tensor(DType::F32, {4, 16});
    b.mark_input(latent);
    const ValueId out = b.add_tensor(DType::U8, {4, 8});
    b.add_op("et_vk.q4gsw_requant.default", {latent, scales, b.add_int(group_size), out});
    b.mark_output(out);
  } else {
    const ValueId d = b.add_tensor(DType::F32, {2, 4});
    b.mark_input(d);
    const ValueId w = b.add_constant(DType::U8, {4, 8}, std::vector<uint8_t>(32, 0x5a));
    const ValueId out = b.add_tensor(DType::F32, {2, 16});
    b.add_op("et_vk.linear_q4gsw_backward.default", {d, w, scales, b.add_int(group_size), out});
    b.mark_output(out);
  }
  return b;
}

TEST_F(TrainingOpsTest, Q4gswBackwardRefusesBadGroupSizeAndScales) {
  EXPECT_EQ(load_error(q4gsw_graph(false, 8, 2, 0.5f)), "");
  std::string msg = load_error(q4gsw_graph(false, 6, 2, 0.5f));
  EXPECT_NE(msg.find("et_vk.linear_q4gsw_backward.default"), std::string::npos) << msg;
  EXPECT_NE(msg.find("argument 3: group size 6 must be positive and divide K = 16"), std::string::npos) << msg;
  msg = load_error(q4gsw_graph(false, 8, 2, 0.0f));
  EXPECT_NE(msg.find("argument 2: scale[0, 1] is 0: must be finite and non-zero"), std::string::npos) << msg;
  msg = load_error(q4gsw_graph(false, 8, 2, std::nanf("")));
  EXPECT_NE(msg.find("argument 2: scale[0, 1] is nan"), std::string::npos) << msg;
  msg = load_error(q4gsw_graph(false, 8, 3, 0.5f));
  EXPECT_NE(msg.find("argument 2: expected scales [2, >= 4]"), std::string::npos) << msg;
}

TEST_F(TrainingOpsTest, Q4gswRequantAllowsZeroScalesButNotNonFiniteOnes) {
  EXPECT_EQ(load_error(q4gsw_graph(true, 8, 2, 0.0f)), "");  // the reference maps it to code 8
  std::string msg = load_error(q4gsw_graph(true, 8, 2, INFINITY));
  EXPECT_NE(msg.find("et_vk.q4gsw_requant.default"), std::string::npos) << msg;
  EXPECT_NE(msg.find("argument 1: scale[0, 1] is inf: must be finite"), std::string::npos) << msg;
  msg = load_error(q4gsw_graph(true, 5, 3, 0.5f));
  EXPECT_NE(msg.find("argument 2: group size 5 must be positive and divide K = 16"), std::string::npos) << msg;
}

TEST_F(TrainingOpsTest, FusedCeRefusesZeroNValidAndMisshapenLabels) {
  auto graph = [](double n_valid, int64_t label_rows) {
    GraphBuilder b;
    const ValueId logits = b.add_tensor(DType::F32, {3, 5});
    const ValueId labels = b.add_tensor(DType::I64, {label_rows});
    b.mark_input(logits);
    b.mark_input(labels);
    const ValueId loss = b.add_tensor(DType::F32, {});
    const ValueId dlogits = b.add_tensor(DType::F32, {3, 5});
    b.add_op("et_vk.fused_ce.default", {logits, labels, b.add_double(n_valid), b.add_value_list({loss, dlogits})});
    b.mark_output(loss);
    b.mark_output(dlogits);
    return b;
  };
  EXPECT_EQ(load_error(graph(2.0, 3)), "");
  std::string msg = load_error(graph(0.0, 3));
  EXPECT_NE(msg.find("et_vk.fused_ce.default"), std::string::npos) << msg;
  EXPECT_NE(msg.find("argument 2: n_valid 0.000000 must be finite and non-zero"), std::string::npos) << msg;
  msg = load_error(graph(2.0, 4));
  EXPECT_NE(msg.find("argument 1: expected labels [3], got [4]"), std::string::npos) << msg;
}

TEST_F(TrainingOpsTest, LinearDwRefusesRowsThatDiffer) {
  GraphBuilder b;
  const ValueId d = b.add_tensor(DType::F32, {5, 6});
  const ValueId x = b.add_tensor(DType::F32, {4, 7});
  b.mark_input(d);
  b.mark_input(x);
  const ValueId out = b.add_tensor(DType::F32, {6, 7});
  b.add_op("et_vk.linear_dW.default", {d, x, out});
  b.mark_output(out);
  const std::string msg = load_error(std::move(b));
  EXPECT_NE(msg.find("et_vk.linear_dW.default"), std::string::npos) << msg;
  EXPECT_NE(msg.find("argument 1: x [4, 7] must have as many rows as d_out [5, 6]"), std::string::npos) << msg;
}

}  // namespace
}  // namespace wgrt
