// GgufFile against files written by the `gguf` PyPI package
// (tools/fixtures/make_gguf_fixtures.py) and against the SmolLM2 model file,
// whose expected values were read with gguf.GGUFReader.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "import/gguf/dequantize.h"
#include "import/gguf/gguf_file.h"
#include "llm/default_model.h"
#include "import/test_gguf_util.h"

namespace wgrt::gguf {
namespace {

using testing::fixture;

GgufFile open_all_types() { return GgufFile::open(fixture("all_types.gguf")); }

TEST(GgufReader, HeaderAndScalars) {
  const GgufFile f = open_all_types();
  EXPECT_EQ(f.version(), 3u);
  EXPECT_EQ(f.alignment(), 64u);
  EXPECT_EQ(f.get_string("general.architecture"), "wgrt_test");
  EXPECT_EQ(f.get_u8("test.u8"), 200);
  EXPECT_EQ(f.get_i8("test.i8"), -100);
  EXPECT_EQ(f.get_u16("test.u16"), 60000);
  EXPECT_EQ(f.get_i16("test.i16"), -30000);
  EXPECT_EQ(f.get_u32("test.u32"), 4000000000u);
  EXPECT_EQ(f.get_i32("test.i32"), -2000000000);
  EXPECT_EQ(f.get_u64("test.u64"), 18000000000000000000ull);
  EXPECT_EQ(f.get_i64("test.i64"), -9000000000000000000ll);
  EXPECT_EQ(f.get_f32("test.f32"), 1.5f);
  EXPECT_EQ(f.get_f64("test.f64"), -2.25e100);
  EXPECT_TRUE(f.get_bool("test.bool_true"));
  EXPECT_FALSE(f.get_bool("test.bool_false"));
  EXPECT_EQ(f.get_string("test.string"), "h\xC3\xA9llo, w\xC3\xB6rld \xF0\x9F\x99\x82");
  EXPECT_EQ(f.at("test.u16").type(), ValueType::U16);
}

TEST(GgufReader, Arrays) {
  const GgufFile f = open_all_types();
  EXPECT_EQ(f.get_array<uint8_t>("test.arr_u8"), (std::vector<uint8_t>{1, 2, 255}));
  EXPECT_EQ(f.get_array<int8_t>("test.arr_i8"), (std::vector<int8_t>{-1, 0, 127}));
  EXPECT_EQ(f.get_array<uint16_t>("test.arr_u16"), (std::vector<uint16_t>{1, 65535}));
  EXPECT_EQ(f.get_array<int16_t>("test.arr_i16"), (std::vector<int16_t>{-32768, 32767}));
  EXPECT_EQ(f.get_array<uint32_t>("test.arr_u32"), (std::vector<uint32_t>{7, 4294967295u}));
  EXPECT_EQ(f.get_array<int32_t>("test.arr_i32"), (std::vector<int32_t>{-7, 2147483647}));
  EXPECT_EQ(f.get_array<uint64_t>("test.arr_u64"),
            (std::vector<uint64_t>{0, 18446744073709551615ull}));
  EXPECT_EQ(f.get_array<int64_t>("test.arr_i64"),
            (std::vector<int64_t>{INT64_MIN, 5}));
  EXPECT_EQ(f.get_array<float>("test.arr_f32"), (std::vector<float>{0.5f, -1.25f, 3.0f}));
  EXPECT_EQ(f.get_array<double>("test.arr_f64"), (std::vector<double>{1e-300, 2.5}));
  EXPECT_EQ(f.get_array<bool>("test.arr_bool"), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(f.get_array<std::string>("test.arr_string"),
            (std::vector<std::string>{"a", "", "\xC3\xBCn\xC3\xAF", "<|im_start|>"}));
  EXPECT_EQ(f.at("test.arr_string").type_name(), "array<string>");
}

TEST(GgufReader, AccessorErrorsNameKeyAndTypes) {
  const GgufFile f = open_all_types();
  try {
    f.get_u32("test.u16");
    FAIL() << "expected a type mismatch";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
    const std::string m = e.what();
    EXPECT_NE(m.find("test.u16"), std::string::npos) << m;
    EXPECT_NE(m.find("expected u32"), std::string::npos) << m;
    EXPECT_NE(m.find("got u16"), std::string::npos) << m;
  }
  try {
    f.get_array<int32_t>("test.arr_string");
    FAIL() << "expected a type mismatch";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("expected array<i32>, got array<string>"), std::string::npos)
        << e.what();
  }
  try {
    f.get_string("no.such.key");
    FAIL() << "expected NotFound";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::NotFound);
    EXPECT_NE(std::string(e.what()).find("no.such.key"), std::string::npos);
  }
  EXPECT_FALSE(f.get_optional<uint32_t>("no.such.key").has_value());
  EXPECT_EQ(f.get_optional<uint8_t>("test.u8"), std::optional<uint8_t>(200));
}

TEST(GgufReader, IntegerAccessorsAcceptAnyWidth) {
  const GgufFile f = open_all_types();
  EXPECT_EQ(f.get_int("test.u8"), 200);
  EXPECT_EQ(f.get_int("test.i16"), -30000);
  EXPECT_EQ(f.get_int("test.u32"), 4000000000ll);
  EXPECT_EQ(f.get_count("test.u64"), 18000000000000000000ull);
  EXPECT_EQ(f.get_count("test.u16"), 60000u);
  // u64 above INT64_MAX does not fit get_int; negatives are not counts.
  EXPECT_THROW(f.get_int("test.u64"), Error);
  EXPECT_THROW(f.get_count("test.i8"), Error);
  EXPECT_THROW(f.get_count("test.f32"), Error);
  EXPECT_THROW(f.get_int("test.bool_true"), Error);
}

TEST(GgufReader, TensorInfosMatchGgufPackage) {
  const GgufFile f = open_all_types();
  std::ifstream manifest(fixture("all_types.tensors.txt"));
  std::string line;
  size_t n = 0;
  while (std::getline(manifest, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    std::string name, type, dims;
    uint64_t file_offset = 0, n_bytes = 0;
    in >> name >> type >> dims >> file_offset >> n_bytes;
    SCOPED_TRACE(name);
    const TensorInfo& t = f.tensor(name);
    EXPECT_EQ(to_string(t.type), type);
    std::string got_dims;
    for (uint64_t d : t.dims) got_dims += (got_dims.empty() ? "" : ",") + std::to_string(d);
    EXPECT_EQ(got_dims, dims);
    EXPECT_EQ(t.file_offset, file_offset);
    EXPECT_EQ(t.n_bytes, n_bytes);
    EXPECT_EQ(t.file_offset % 64, 0u);
    EXPECT_EQ(f.read_tensor(t).size(), n_bytes);
    ++n;
  }
  EXPECT_EQ(n, 16u);  // one tensor per type in make_gguf_fixtures.py
  EXPECT_EQ(f.tensors().size(), n);
  EXPECT_EQ(f.find_tensor("nope"), nullptr);
  EXPECT_THROW(f.tensor("nope"), Error);
}

TEST(GgufReader, ParseFromMemoryEqualsReadFromDisk) {
  const GgufFile a = open_all_types();
  const GgufFile b = GgufFile::parse(testing::read_bytes(fixture("all_types.gguf")), "in-memory");
  ASSERT_EQ(a.tensors().size(), b.tensors().size());
  const auto da = a.read_tensor(a.tensor("t_q6_k"));
  const auto db = b.read_tensor(b.tensor("t_q6_k"));
  EXPECT_TRUE(std::equal(da.begin(), da.end(), db.begin(), db.end()));
}

TEST(GgufReader, OpenMissingFileIsNotFound) {
  try {
    GgufFile::open("/nonexistent/model.gguf");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::NotFound);
  }
}

// --- the default model (SmolLM2-135M-Instruct Q4_1), values from gguf.GGUFReader ---

TEST(GgufSmolLM2, Metadata) {
  const GgufFile f = GgufFile::open(llm::default_model_path());
  EXPECT_EQ(f.alignment(), 32u);  // no general.alignment: the default
  EXPECT_EQ(f.metadata().size(), 33u);
  EXPECT_EQ(f.tensors().size(), 272u);
  EXPECT_EQ(f.get_string("general.architecture"), "llama");
  EXPECT_EQ(f.get_u32("llama.block_count"), 30u);
  EXPECT_EQ(f.get_u32("llama.context_length"), 8192u);
  EXPECT_EQ(f.get_u32("llama.embedding_length"), 576u);
  EXPECT_EQ(f.get_u32("llama.feed_forward_length"), 1536u);
  EXPECT_EQ(f.get_u32("llama.attention.head_count"), 9u);
  EXPECT_EQ(f.get_u32("llama.attention.head_count_kv"), 3u);
  EXPECT_EQ(f.get_u32("llama.rope.dimension_count"), 64u);
  EXPECT_EQ(f.get_u32("llama.vocab_size"), 49152u);
  EXPECT_EQ(f.get_f32("llama.rope.freq_base"), 100000.0f);
  EXPECT_EQ(f.get_f32("llama.attention.layer_norm_rms_epsilon"), 9.999999747378752e-06f);
  EXPECT_EQ(f.get_string("tokenizer.ggml.model"), "gpt2");
  EXPECT_EQ(f.get_string("tokenizer.ggml.pre"), "smollm");
  EXPECT_EQ(f.get_array<std::string>("tokenizer.ggml.tokens").size(), 49152u);
  EXPECT_EQ(f.get_array<int32_t>("tokenizer.ggml.token_type").size(), 49152u);
  EXPECT_EQ(f.get_array<std::string>("tokenizer.ggml.merges").size(), 48900u);
  EXPECT_EQ(f.get_array<std::string>("tokenizer.ggml.merges")[0], "\xC4\xA0 t");
  EXPECT_EQ(f.get_count("tokenizer.ggml.eos_token_id"), 2u);
  EXPECT_FALSE(f.get_bool("tokenizer.ggml.add_bos_token"));
  EXPECT_EQ(f.get_array<std::string>("general.languages"), std::vector<std::string>{"en"});
}

TEST(GgufSmolLM2, TensorsAndDequantization) {
  const GgufFile f = GgufFile::open(llm::default_model_path());
  const TensorInfo& emb = f.tensor("token_embd.weight");
  EXPECT_EQ(emb.type, GgmlType::Q8_0);
  EXPECT_EQ(emb.dims, (std::vector<uint64_t>{576, 49152}));
  EXPECT_EQ(emb.file_offset, 1785664u);
  EXPECT_EQ(emb.n_bytes, 30081024u);
  const TensorInfo& down = f.tensor("blk.0.ffn_down.weight");
  EXPECT_EQ(down.type, GgmlType::Q4_1);
  EXPECT_EQ(down.dims, (std::vector<uint64_t>{1536, 576}));
  EXPECT_EQ(down.file_offset, 31868992u);

  // Reference values: gguf.quants.dequantize on the same tensors (hex floats,
  // exact); the sums are float64 sums, compared to 1e-9 relative.
  const std::vector<float> q = dequantize_tensor(f, f.tensor("blk.0.attn_q.weight"));
  ASSERT_EQ(q.size(), 331776u);
  EXPECT_EQ(q[0], -0x1.8a8p-4f);
  EXPECT_EQ(q[1], 0x1.424p-3f);
  EXPECT_EQ(q[3], -0x1.76p-1f);
  double sum = 0;
  for (float v : q) sum += v;
  EXPECT_NEAR(sum, 0x1.d9c928p+5, 1e-9 * std::abs(0x1.d9c928p+5));

  const std::vector<float> e = dequantize_tensor(f, emb);
  EXPECT_EQ(e[0], -0x1.b468p-4f);
  EXPECT_EQ(e[3], -0x1.761p-6f);
  double esum = 0;
  for (float v : e) esum += v;
  EXPECT_NEAR(esum, -0x1.dfc85b1fc0000p+13, 1e-9 * 0x1.dfc85b1fc0000p+13);
}

}  // namespace
}  // namespace wgrt::gguf
