// Every scalar argument as the partitioner may pass it (issue 31, item 1).
// torch's schema says which value kinds an argument may hold: a Scalar may be
// an int, a float, a bool or a symbolic int; a SymInt an int or a symbolic
// int; a float may arrive as an int; a SymInt[] may hold symbolic ints. The
// exporter picks one per program, so a fixture shows only one of them.
//
// For every op of every exported fixture, every argument whose schema
// (tests/fixtures/op_schemas.json, written from torch by
// tools/export/op_schemas.py) allows other kinds than the one exported gets
// each of them, holding the same value: the op's check must accept it or
// refuse it as NotSupported with a reason, never call it malformed. For each
// (op, kind) accepted, one program runs on the GPU with the substituted
// argument and must still match torch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <set>

#include "core/npy.h"
#include "gpu_test_env.h"
#include "graph/op_registry.h"
#include "host_tensors.h"
#include "import/pte/to_graph.h"
#include "import/test_pte_util.h"
#include "ops/passes/widen_f16.h"
#include "wgrt/dtype.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

using pte::testing::Json;
using pte::testing::read_json;

enum class Kind { Int, Double, Bool, SymInt, SymIntList };

std::string kind_name(Kind k) {
  switch (k) {
    case Kind::Int: return "int";
    case Kind::Double: return "float";
    case Kind::Bool: return "bool";
    case Kind::SymInt: return "symint";
    case Kind::SymIntList: return "symint list";
  }
  return "?";
}

// The value kinds torch's schema type admits for an argument ("Scalar?" as
// "Scalar": a missing optional is a Null, which the exporter chooses, not the
// value's kind). Tensors, dtypes, strings and fixed int lists have one kind.
std::vector<Kind> kinds_for(std::string type) {
  if (!type.empty() && type.back() == '?') type.pop_back();
  if (type == "Scalar") return {Kind::Int, Kind::Double, Kind::Bool, Kind::SymInt};
  if (type == "SymInt") return {Kind::Int, Kind::SymInt};
  if (type == "float") return {Kind::Double, Kind::Int};
  if (type == "SymInt[]") return {Kind::SymIntList};
  return {};
}

using Schemas = std::map<std::string, std::vector<std::string>>;  // op -> argument types

const Schemas& schemas() {
  static const Schemas table = [] {
    Schemas s;
    const Json j = read_json(std::string(WGRT_FIXTURES_DIR) + "/op_schemas.json");
    for (const auto& [op, args] : j["ops"].object) {
      for (const std::string& a : args.strings()) s[op].push_back(a.substr(0, a.rfind(' ')));
    }
    return s;
  }();
  return table;
}

// The original value as a number, when it is one.
std::optional<double> number_of(const Value& v) {
  if (const auto* x = std::get_if<int64_t>(&v)) return double(*x);
  if (const auto* x = std::get_if<double>(&v)) return *x;
  if (const auto* x = std::get_if<bool>(&v)) return *x ? 1.0 : 0.0;
  if (const auto* x = std::get_if<SymInt>(&v)) return double(x->value);
  return std::nullopt;
}

bool is_kind(const Value& v, Kind k) {
  switch (k) {
    case Kind::Int: return std::holds_alternative<int64_t>(v);
    case Kind::Double: return std::holds_alternative<double>(v);
    case Kind::Bool: return std::holds_alternative<bool>(v);
    case Kind::SymInt: return std::holds_alternative<SymInt>(v);
    case Kind::SymIntList: return std::holds_alternative<ValueList>(v);
  }
  return false;
}

// Gives op `op`'s argument `arg` a new value of kind `k` holding the same
// value, appended to the graph (the exporter shares scalar values between
// ops: the original stays for the others). False when `k` cannot hold it.
bool substitute(Graph& g, size_t op, size_t arg, Kind k) {
  const Value original = g.values.at(g.ops[op].args[arg]);
  // A SymInt's value is set at run time (its stored one is a placeholder):
  // it has no load-time value to carry over.
  if (is_kind(original, k) || std::holds_alternative<SymInt>(original)) return false;
  auto add = [&](Value v) {
    g.values.push_back(std::move(v));
    return ValueId(g.values.size() - 1);
  };
  if (k == Kind::SymIntList) {
    const auto* list = std::get_if<IntList>(&original);
    if (list == nullptr) return false;
    ValueList symbolic;
    for (int64_t x : *list) symbolic.items.push_back(add(SymInt{x}));
    g.ops[op].args[arg] = add(symbolic);
    return true;
  }
  const auto n = number_of(original);
  if (!n) return false;
  const bool integral = std::isfinite(*n) && *n == std::floor(*n) && std::abs(*n) < 9.0e15;
  switch (k) {
    case Kind::Int:
      if (!integral) return false;
      g.ops[op].args[arg] = add(int64_t(*n));
      return true;
    case Kind::Double: g.ops[op].args[arg] = add(*n); return true;
    case Kind::Bool:
      if (*n != 0.0 && *n != 1.0) return false;
      g.ops[op].args[arg] = add(*n != 0.0);
      return true;
    case Kind::SymInt:
      if (!integral) return false;
      g.ops[op].args[arg] = add(SymInt{int64_t(*n)});
      return true;
    case Kind::SymIntList: break;
  }
  return false;
}

enum class Verdict { Accepted, NotSupported, Malformed };

// The op's check on the substituted argument. A refusal other than
// NotSupported (the argument called malformed) fails the test.
Verdict check(const Graph& g, size_t op, const std::string& where, std::string* reason) {
  const OpDef* def = OpRegistry::builtin().find(g.ops[op].name);
  try {
    def->check(OpArgs(g, g.ops[op], op));
    return Verdict::Accepted;
  } catch (const Error& e) {
    if (e.code() == ErrorCode::NotSupported && std::string(e.what()).size() > 0) {
      *reason = e.what();
      return Verdict::NotSupported;
    }
    ADD_FAILURE() << where << ": refused as " << to_string(e.code()) << ": " << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << where << ": threw " << e.what();
  }
  return Verdict::Malformed;
}

// Substitutes, checks and puts the argument back; nullopt when kind `k`
// cannot hold the argument's value.
std::optional<Verdict> try_kind(Graph& g, size_t op, size_t arg, Kind k, const std::string& where,
                                std::string* reason) {
  const ValueId saved = g.ops[op].args[arg];
  const size_t saved_values = g.values.size();
  if (!substitute(g, op, arg, k)) return std::nullopt;
  const Verdict v = check(g, op, where, reason);
  g.ops[op].args[arg] = saved;
  g.values.resize(saved_values);
  return v;
}

struct Fixture {
  std::string name;     // path under pte/ without ".json"
  std::string folder;   // "ops/" for "ops/conv2d"
  Json manifest;
};

std::vector<Fixture> fixtures() {
  std::vector<Fixture> out;
  for (const std::string& name : pte::testing::fixture_names()) {
    const std::string folder = pte::testing::folder_of(name);
    out.push_back({name, folder, read_json(pte::testing::fixture(name + ".json"))});
  }
  // One-op programs first: the GPU run of each (op, kind) uses the smallest program that has it.
  std::stable_partition(out.begin(), out.end(), [](const Fixture& f) { return f.folder == "ops/"; });
  return out;
}

std::string path_of(const Fixture& f, const std::string& file) { return pte::testing::fixture(f.folder + file); }

pte::Program load(const Fixture& f) {
  std::vector<std::filesystem::path> ptd;
  for (const auto& p : f.manifest["ptd"].strings()) ptd.emplace_back(path_of(f, p));
  return pte::load_program(path_of(f, f.manifest["pte"].string), ptd);
}

bool fully_delegated(const Json& method) { return method["cpu_kernels"].size() == 0; }

Graph method_graph(const pte::Program& p, const pte::Method& m, const std::string& name) {
  Graph g = pte::to_graph(m, name);
  widen_f16(g, OpRegistry::builtin());
  return g;
}

// A substitution to run on the GPU: the first accepted one of each (op, kind).
struct GpuRun {
  const Fixture* fixture;
  std::string method;
  size_t op, arg;
  Kind kind;
};

class ArgumentTypes : public test::GpuTest {};

TEST_F(ArgumentTypes, EverySchemaKindIsAcceptedOrRefusedAsNotSupported) {
  const std::vector<Fixture> all = fixtures();
  ASSERT_GT(all.size(), 100u);
  std::map<std::pair<std::string, Kind>, GpuRun> first_accepted;
  std::set<std::string> ops_seen, ops_without_schema;
  size_t tried = 0, accepted = 0;
  std::map<std::string, std::string> refusals;  // "op arg kind" -> reason
  for (const Fixture& f : all) {
    const pte::Program p = load(f);
    for (const pte::Method& m : p.methods) {
      if (m.constant() || !fully_delegated(f.manifest["methods"][m.name])) continue;
      Graph g = method_graph(p, m, f.name);
      for (size_t op = 0; op < g.ops.size(); ++op) {
        const std::string& name = g.ops[op].name;
        const auto schema = schemas().find(name);
        if (schema == schemas().end()) {
          ops_without_schema.insert(name);  // wgrt's own ops and symbolic-int helpers
          continue;
        }
        ops_seen.insert(name);
        for (size_t arg = 0; arg < schema->second.size() && arg < g.ops[op].args.size(); ++arg) {
          for (Kind k : kinds_for(schema->second[arg])) {
            const std::string where = f.name + " op " + std::to_string(op) + " (" + name + ") argument " +
                                      std::to_string(arg) + " (" + schema->second[arg] + ") as " + kind_name(k);
            std::string reason;
            const auto verdict = try_kind(g, op, arg, k, where, &reason);
            if (!verdict) continue;
            ++tried;
            if (*verdict == Verdict::Accepted) {
              ++accepted;
              first_accepted.try_emplace({name, k}, GpuRun{&f, m.name, op, arg, k});
            } else if (*verdict == Verdict::NotSupported) {
              refusals.try_emplace(name + " argument " + std::to_string(arg) + " as " + kind_name(k), reason);
            }
          }
        }
      }
    }
  }
  std::cout << "[ argument types ] " << ops_seen.size() << " partitioner ops in fixtures, " << tried
            << " substitutions, " << accepted << " accepted, " << refusals.size()
            << " (op, argument, kind) refused as NotSupported\n";
  for (const auto& [what, reason] : refusals) std::cout << "  refused: " << what << ": " << reason << "\n";
  // Ops no exported fixture delivers (tests/coverage/hand_built.txt): their
  // scalar arguments are not enumerated here.
  std::string unseen;
  for (const auto& [name, types] : schemas()) {
    bool has_scalars = false;
    for (const auto& t : types) has_scalars |= kinds_for(t).size() > 1 || kinds_for(t) == std::vector{Kind::SymIntList};
    if (has_scalars && !ops_seen.count(name)) unseen += " " + name;
  }
  std::cout << "[ argument types ] not in any exported fixture:" << unseen << "\n";
  EXPECT_GT(ops_seen.size(), 80u);
  EXPECT_GT(tried, 100u);

  // One GPU run per accepted (op, kind): the substituted program still matches torch.
  for (const auto& [key, run] : first_accepted) {
    const Fixture& f = *run.fixture;
    const std::string where = f.name + " " + key.first + " argument " + std::to_string(run.arg) + " as " +
                              kind_name(run.kind);
    SCOPED_TRACE(where);
    const pte::Program p = load(f);
    const pte::Method* method = nullptr;
    for (const pte::Method& m : p.methods) method = m.name == run.method ? &m : method;
    Graph g = method_graph(p, *method, f.name);
    ASSERT_TRUE(substitute(g, run.op, run.arg, run.kind));
    auto exe = ExecutableGraph::load(device(), std::move(g), test::load_options());
    const Json& cs = f.manifest["methods"][run.method]["cases"][0];
    std::vector<HostTensor> inputs;
    for (const Json& in : cs["inputs"].array) inputs.push_back(read_npy(path_of(f, in["file"].string)));
    std::vector<HostTensorView> views;
    for (const auto& t : inputs) views.push_back({t.dtype, t.dims, t.data});
    const auto outputs = exe->execute(views);
    ASSERT_EQ(outputs.size(), cs["outputs"].size());
    const double atol = f.manifest["tolerance"]["atol"].number, rtol = f.manifest["tolerance"]["rtol"].number;
    for (size_t o = 0; o < outputs.size(); ++o) {
      const HostTensor want = read_npy(path_of(f, cs["outputs"][o]["file"].string));
      test::expect_matches_golden(outputs[o], want, atol, rtol, "output " + std::to_string(o));
    }
  }
  std::cout << "[ argument types ] " << first_accepted.size() << " (op, kind) pairs run on the GPU\n";
}

// The two ops no exported program delivers (tests/coverage/hand_built.txt)
// on hand-built graphs: hardshrink's lambd and scalar_tensor's value, each
// kind of Scalar, checked and run against the host.
TEST_F(ArgumentTypes, HandBuiltScalarOpsTakeEveryScalarKind) {
  const std::vector<float> xs = {-2.0f, -1.0f, -0.5f, 0.25f, 1.0f, 3.0f};
  struct Case {
    std::string op;
    size_t arg;
    std::function<Graph()> build;
    std::vector<float> want;
  };
  const std::vector<Case> cases = {
      {"aten.hardshrink.default", 1, [] {
         GraphBuilder b;
         const ValueId x = b.add_tensor(DType::F32, {6});
         b.mark_input(x);
         const ValueId out = b.add_tensor(DType::F32, {6});
         b.mark_output(out);
         b.add_op("aten.hardshrink.default", {x, b.add_double(1.0), out});  // lambd 1: |x| <= 1 -> 0
         return std::move(b).build();
       }, {-2.0f, 0.0f, 0.0f, 0.0f, 0.0f, 3.0f}},
      {"aten.scalar_tensor.default", 0, [] {
         GraphBuilder b;
         const ValueId x = b.add_tensor(DType::F32, {6});  // a graph needs an input
         b.mark_input(x);
         const ValueId out = b.add_tensor(DType::F32, {});
         b.mark_output(out);
         b.add_op("aten.scalar_tensor.default", {b.add_double(1.0), b.add_int(6), b.add_null(), b.add_null(),
                                                 b.add_null(), out});
         return std::move(b).build();
       }, {1.0f}},
  };
  for (const Case& c : cases) {
    ASSERT_EQ(schemas().at(c.op).at(c.arg), "Scalar") << c.op;
    for (Kind k : kinds_for("Scalar")) {
      const std::string where = c.op + " argument " + std::to_string(c.arg) + " as " + kind_name(k);
      SCOPED_TRACE(where);
      Graph g = c.build();
      std::string reason;
      const auto verdict = try_kind(g, 0, c.arg, k, where, &reason);
      if (!verdict || *verdict != Verdict::Accepted) continue;
      ASSERT_TRUE(substitute(g, 0, c.arg, k));
      auto exe = ExecutableGraph::load(device(), std::move(g), test::load_options());
      const HostTensorView in[] = {test::f32_view(xs, {6})};
      EXPECT_EQ(test::floats(exe->execute(in).at(0)), c.want);
    }
  }
}

}  // namespace
}  // namespace wgrt
