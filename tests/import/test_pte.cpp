// Every .pte fixture parsed by wgrt agrees with its manifest, which the
// exporter wrote from executorch's own deserializers: method I/O, CPU kernels,
// each Vulkan graph's ops, I/O ids, values, constants and memory objects.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>

#include "core/npy.h"
#include "import/pte/program.h"
#include "import/test_pte_util.h"
#include "wgrt/error.h"

namespace wgrt::pte {
namespace {

using testing::fixture;
using testing::Json;
using testing::read_json;

const std::vector<std::string> kFixtures = {
    "add_chain", "mlp", "softmax_layer_norm", "shape_ops", "dynamic_batch", "external_weights",
    "transformer_block", "elementwise", "embedding", "bmm", "inline_delegate", "partial_cpu",
    "two_methods", "returns_input", "same_output_twice", "dynamic_positions", "fp16_cnn", "fp16_transformer_block", "zero_dim_output"};

Program load_fixture(const std::string& name) {
  const Json manifest = read_json(fixture(name + ".json"));
  std::vector<std::filesystem::path> ptd;
  for (const auto& p : manifest["ptd"].strings()) ptd.emplace_back(fixture(p));
  return load_program(fixture(manifest["pte"].string), ptd);
}

std::vector<int64_t> widen(const auto& v) { return {v.begin(), v.end()}; }

void expect_io(const IoValue& io, const Json& want, const std::string& where) {
  SCOPED_TRACE(where);
  EXPECT_EQ(io.kind, want["kind"].string);
  if (want["kind"].string != "Tensor") return;
  EXPECT_EQ(widen(io.sizes), want["shape"].integers());
  EXPECT_EQ(to_string(io.dtype), want["dtype"].string);
  EXPECT_EQ(io.dynamic, want["dynamic"].boolean);
}

void expect_graph(const Delegate& d, const Json& want) {
  const VkGraph& g = d.graph;
  EXPECT_EQ(d.backend_id, want["backend"].string);
  EXPECT_EQ(widen(d.call_args), want["call_args"].integers());
  std::vector<std::string> ops;
  for (const OpCall& op : g.ops) ops.push_back(op.name);
  EXPECT_EQ(ops, want["ops"].strings());
  // Every argument's kind, as executorch's deserializer saw it.
  ASSERT_EQ(g.ops.size(), want["op_arg_kinds"].size());
  for (size_t i = 0; i < g.ops.size(); ++i) {
    std::vector<std::string> kinds;
    for (int32_t a : g.ops[i].args) kinds.emplace_back(kind_name(g.values.at(a)));
    EXPECT_EQ(kinds, want["op_arg_kinds"][i].strings()) << "op " << i << " " << g.ops[i].name;
  }
  EXPECT_EQ(g.values.size(), static_cast<size_t>(want["num_values"].integer()));
  EXPECT_EQ(widen(g.input_ids), want["input_ids"].integers());
  EXPECT_EQ(widen(g.output_ids), want["output_ids"].integers());

  // Memory objects: how many tensors share each id.
  std::map<std::string, int64_t> shared;
  for (const Value& v : g.values) {
    if (auto* t = std::get_if<VkTensor>(&v); t && t->mem_obj_id >= 0) {
      ++shared[std::to_string(t->mem_obj_id)];
    }
  }
  std::map<std::string, int64_t> want_shared;
  for (const auto& [k, n] : want["mem_obj_ids"].object) want_shared[k] = n.integer();
  EXPECT_EQ(shared, want_shared);

  // Constants: length and key as serialized, and the bytes resolvable.
  ASSERT_EQ(g.constants.size(), want["constants"].size());
  for (size_t i = 0; i < g.constants.size(); ++i) {
    EXPECT_EQ(g.constants[i].bytes.size(),
              static_cast<size_t>(want["constants"][i]["length"].integer()));
    EXPECT_EQ(g.constants[i].named_key, want["constants"][i]["named_key"].string);
  }
  // Every constant tensor's bytes are exactly numel * element size.
  size_t constant_tensors = 0;
  for (const Value& v : g.values) {
    auto* t = std::get_if<VkTensor>(&v);
    if (t == nullptr || t->constant_id < 0) continue;
    ++constant_tensors;
    EXPECT_EQ(g.constants.at(t->constant_id).bytes.size(), t->numel() * element_size(t->dtype))
        << "constant " << t->constant_id;
  }
  EXPECT_EQ(constant_tensors, want["constant_tensors"].size());
  // Graph I/O dtypes as the delegate sees them.
  std::vector<std::string> io_dtypes;
  for (uint32_t id : g.input_ids) io_dtypes.emplace_back(to_string(g.get<VkTensor>(id).dtype));
  for (uint32_t id : g.output_ids) io_dtypes.emplace_back(to_string(g.get<VkTensor>(id).dtype));
  EXPECT_EQ(io_dtypes, want["io_dtypes"].strings());
}

class PteFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(PteFixture, MatchesManifest) {
  const Json manifest = read_json(fixture(GetParam() + ".json"));
  const Program program = load_fixture(GetParam());
  ASSERT_EQ(program.methods.size(), manifest["methods"].size());
  for (const auto& [name, want] : manifest["methods"].object) {
    SCOPED_TRACE("method " + name);
    const Method& m = program.method(name);
    ASSERT_EQ(m.inputs.size(), want["program_inputs"].size());
    for (size_t i = 0; i < m.inputs.size(); ++i) {
      expect_io(m.inputs[i], want["program_inputs"][i], "input " + std::to_string(i));
    }
    ASSERT_EQ(m.outputs.size(), want["program_outputs"].size());
    for (size_t i = 0; i < m.outputs.size(); ++i) {
      expect_io(m.outputs[i], want["program_outputs"][i], "output " + std::to_string(i));
    }
    EXPECT_EQ(m.cpu_kernels, want["cpu_kernels"].strings());
    ASSERT_EQ(m.delegates.size(), want["delegates"].size());
    for (size_t i = 0; i < m.delegates.size(); ++i) {
      SCOPED_TRACE("delegate " + std::to_string(i));
      expect_graph(m.delegates[i], want["delegates"][i]);
    }
    // Golden cases fit the program's inputs: same rank and dtype, sizes
    // within the bound (equal unless dynamic).
    for (const Json& c : want["cases"].array) {
      ASSERT_EQ(c["inputs"].size(), m.inputs.size());
      for (size_t i = 0; i < m.inputs.size(); ++i) {
        const auto shape = c["inputs"][i]["shape"].integers();
        const auto bound = widen(m.inputs[i].sizes);
        ASSERT_EQ(shape.size(), bound.size());
        for (size_t d = 0; d < shape.size(); ++d) {
          if (m.inputs[i].dynamic) EXPECT_LE(shape[d], bound[d]);
          else EXPECT_EQ(shape[d], bound[d]);
        }
        EXPECT_EQ(c["inputs"][i]["dtype"].string, to_string(m.inputs[i].dtype));
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Pte, PteFixture, ::testing::ValuesIn(kFixtures));

TEST(PteFixtures, ListCoversFolder) {
  std::set<std::string> on_disk;
  for (const auto& e : std::filesystem::directory_iterator(fixture(""))) {
    if (e.path().extension() == ".json") on_disk.insert(e.path().stem().string());
  }
  EXPECT_EQ(on_disk, std::set<std::string>(kFixtures.begin(), kFixtures.end()));
}

TEST(PteProgram, AddChainSharesMemoryObjects) {
  const Program p = load_fixture("add_chain");
  const VkGraph& g = p.method("forward").graph();
  ASSERT_EQ(g.ops.size(), 5u);
  // The five outputs alternate between objects: a chain needs two live at once.
  std::vector<int32_t> out_ids;
  for (const OpCall& op : g.ops) {
    EXPECT_EQ(op.name, "aten.add.Tensor");
    ASSERT_EQ(op.args.size(), 4u);  // self, other, alpha, out
    EXPECT_EQ(g.get<Int>(op.args[2]).value, 1);
    out_ids.push_back(g.get<VkTensor>(op.args[3]).mem_obj_id);
  }
  std::map<int32_t, int> uses;
  for (int32_t id : out_ids) ++uses[id];
  EXPECT_LT(uses.size(), out_ids.size()) << "no two add outputs share a memory object";
  for (size_t i = 1; i < out_ids.size(); ++i) EXPECT_NE(out_ids[i], out_ids[i - 1]);
}

TEST(PteProgram, ExternalWeightsMergeThePtd) {
  const Program p = load_fixture("external_weights");
  ASSERT_EQ(p.storage.size(), 2u);
  const auto ptd = std::filesystem::file_size(fixture("external_weights.ptd"));
  const VkGraph& g = p.method("forward").graph();
  ASSERT_EQ(g.constants.size(), 4u);
  for (const Constant& c : g.constants) {
    EXPECT_FALSE(c.named_key.empty());
    EXPECT_TRUE(p.named_data.contains(c.named_key));
    EXPECT_GT(c.bytes.size(), 0u);
    EXPECT_LE(c.bytes.size(), ptd);
  }
  // Without its .ptd the program's weights cannot be found.
  try {
    load_program(fixture("external_weights.pte"));
    ADD_FAILURE() << "loaded without its .ptd";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
    EXPECT_NE(std::string(e.what()).find(g.constants[0].named_key), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(".ptd"), std::string::npos) << e.what();
  }
}

// `wgrt inspect` describes a program whose .ptd is not at hand: the parse
// keeps going and lists each missing key once.
TEST(PteProgram, DescribedWithoutItsPtdListsTheMissingNamedData) {
  const Program full = load_fixture("external_weights");
  std::set<std::string> want;
  for (const Constant& c : full.method("forward").graph().constants) want.insert(c.named_key);

  std::vector<std::string> missing;
  const Program p = describe_program(fixture("external_weights.pte"), {}, missing);
  EXPECT_EQ(std::set<std::string>(missing.begin(), missing.end()), want);
  EXPECT_EQ(missing.size(), want.size()) << "a key is listed twice";
  const VkGraph& g = p.method("forward").graph();
  EXPECT_EQ(g.constants.size(), 4u);
  for (const Constant& c : g.constants) EXPECT_TRUE(c.bytes.empty()) << c.named_key;

  missing.clear();
  describe_program(fixture("external_weights.pte"), {fixture("external_weights.ptd")}, missing);
  EXPECT_TRUE(missing.empty());
}

TEST(PteProgram, EmbeddingConstantIsTheTable) {
  const Program p = load_fixture("embedding");
  const Method& m = p.method("forward");
  EXPECT_EQ(m.inputs.at(0).dtype, DType::Int64);
  const VkGraph& g = m.graph();
  ASSERT_EQ(g.ops.size(), 1u);
  const OpCall& op = g.ops[0];
  ASSERT_EQ(op.name, "aten.embedding.default");
  const VkTensor& table = g.get<VkTensor>(op.args[0]);
  EXPECT_EQ(g.get<VkTensor>(op.args[1]).dtype, DType::Int32);  // ids downcast from int64
  ASSERT_GE(table.constant_id, 0);
  ASSERT_EQ(table.dims, (std::vector<uint32_t>{20, 8}));
  const auto bytes = g.constants[table.constant_id].bytes;
  // Each output row is the table row of its id: the constant holds the table.
  const HostTensor ids = wgrt::read_npy(fixture("embedding.in0.npy"));
  const HostTensor out = wgrt::read_npy(fixture("embedding.out0.npy"));
  ASSERT_EQ(ids.dtype, wgrt::DType::I64);
  ASSERT_EQ(out.dtype, wgrt::DType::F32);
  const size_t row = 8 * sizeof(float);
  for (size_t i = 0; i < ids.data.size() / 8; ++i) {
    int64_t id;
    std::memcpy(&id, ids.data.data() + 8 * i, 8);
    EXPECT_EQ(std::memcmp(bytes.data() + id * row, out.data.data() + i * row, row), 0) << "id " << id;
  }
}

TEST(PteProgram, PartialProgramListsCpuKernels) {
  const Program p = load_fixture("partial_cpu");
  const Method& m = p.method("forward");
  EXPECT_EQ(m.cpu_kernels, std::vector<std::string>{"aten::cumsum.out"});
  EXPECT_EQ(m.delegates.size(), 2u);
  try {
    m.graph();
    ADD_FAILURE() << "graph() of a partly delegated method";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::NotSupported);
    EXPECT_NE(std::string(e.what()).find("aten::cumsum.out"), std::string::npos) << e.what();
  }
  for (const std::string& name : kFixtures) {
    if (name == "partial_cpu") continue;
    const Program other_program = load_fixture(name);
    for (const Method& other : other_program.methods) {
      EXPECT_TRUE(other.cpu_kernels.empty()) << name << "." << other.name;
      EXPECT_NO_THROW(other.graph()) << name << "." << other.name;
    }
  }
}

TEST(PteProgram, InlineDelegateBlob) {
  const auto bytes = testing::read_bytes(fixture("inline_delegate.pte"));
  ASSERT_GT(bytes.size(), 12u);
  EXPECT_NE(std::string(bytes.begin() + 8, bytes.begin() + 12), "eh00");  // no segments
  const Program p = load_fixture("inline_delegate");
  const Delegate& d = p.method("forward").delegates.at(0);
  // The blob lies inside the Program flatbuffer, where its VH00 magic is.
  ASSERT_LT(d.blob_offset + 8, bytes.size());
  EXPECT_EQ(std::string(bytes.begin() + static_cast<std::ptrdiff_t>(d.blob_offset) + 4,
                        bytes.begin() + static_cast<std::ptrdiff_t>(d.blob_offset) + 8),
            "VH00");
  EXPECT_EQ(d.graph.ops.at(0).name, "aten.bmm.default");
}

TEST(PteProgram, MethodsByName) {
  const Program p = load_fixture("two_methods");
  EXPECT_EQ(p.method_names(), (std::vector<std::string>{"forward", "triple"}));
  EXPECT_EQ(p.method("triple").inputs.at(0).sizes, (std::vector<int32_t>{2, 2}));
  EXPECT_EQ(p.method("forward").inputs.at(0).sizes, (std::vector<int32_t>{4}));
  try {
    p.method("backward");
    ADD_FAILURE() << "found a method that does not exist";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::NotFound);
    EXPECT_NE(std::string(e.what()).find("'triple'"), std::string::npos) << e.what();
  }
}

TEST(PteProgram, DynamicShapesUseSymInts) {
  const Program p = load_fixture("dynamic_batch");
  const Method& m = p.method("forward");
  for (const IoValue& io : m.inputs) EXPECT_TRUE(io.dynamic);
  EXPECT_EQ(m.inputs.at(0).sizes, (std::vector<int32_t>{8, 12}));  // the bound
  const VkGraph& g = m.graph();
  const OpCall& sym = g.ops.at(0);
  ASSERT_EQ(sym.name, "sym_size.int");  // [tensor, dim, out SymInt]
  g.get<VkTensor>(sym.args[0]);
  EXPECT_EQ(g.get<Int>(sym.args[1]).value, 0);
  g.get<SymInt>(sym.args[2]);
  // view_copy's size is a ValueList holding that SymInt.
  bool found = false;
  for (const OpCall& op : g.ops) {
    if (op.name != "aten.view_copy.default") continue;
    const ValueList& size = g.get<ValueList>(op.args[1]);
    ASSERT_EQ(size.items.size(), 3u);
    EXPECT_EQ(size.items[0], sym.args[2]);
    EXPECT_EQ(g.get<Int>(size.items[1]).value, 2);
    found = true;
  }
  EXPECT_TRUE(found);
  // A value of the wrong kind is an error, not a crash.
  EXPECT_THROW(g.get<Double>(sym.args[2]), Error);
  EXPECT_THROW(g.get<VkTensor>(-1), Error);
  EXPECT_THROW(g.get<VkTensor>(static_cast<int64_t>(g.values.size())), Error);
}

TEST(PteProgram, OpArgLayouts) {
  const Program p = load_fixture("softmax_layer_norm");
  const VkGraph& g = p.method("forward").graph();
  ASSERT_EQ(g.ops.size(), 2u);
  // _softmax: self, dim, half_to_float, out
  EXPECT_EQ(g.get<Int>(g.ops[0].args[1]).value, -1);
  EXPECT_FALSE(g.get<Bool>(g.ops[0].args[2]).value);
  // native_layer_norm: input, normalized_shape, weight, bias, eps, [out, mean, rstd]
  const OpCall& ln = g.ops[1];
  ASSERT_EQ(ln.args.size(), 6u);
  EXPECT_EQ(g.get<IntList>(ln.args[1]).items, (std::vector<int64_t>{16}));
  EXPECT_GE(g.get<VkTensor>(ln.args[2]).constant_id, 0);
  EXPECT_NEAR(g.get<Double>(ln.args[4]).value, 1e-5, 1e-12);
  EXPECT_EQ(g.get<ValueList>(ln.args[5]).items.size(), 3u);
}

}  // namespace
}  // namespace wgrt::pte
