#include "cli/bench_report.h"

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "wgrt/error.h"

namespace wgrt::cli {

Stats stats_of(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  for (double x : v) s.mean += x;
  s.mean /= double(n);
  for (double x : v) s.stddev += (x - s.mean) * (x - s.mean);
  s.stddev = n > 1 ? std::sqrt(s.stddev / double(n - 1)) : 0;
  s.min = v.front();
  s.max = v.back();
  return s;
}

void print_profile(const Profile& p, size_t top) {
  std::printf("\nprofile: %s, one forward pass: %zu timed dispatches, GPU %.3f ms, wall %.3f ms "
              "(wall - GPU = %.3f ms: encoding, submitting, readback and gaps; timing splits each "
              "dispatch into its own pass, so the wall time is above an untimed run's)\n",
              p.what.c_str(), p.dispatches, p.gpu_ms, p.wall_ms, p.wall_ms - p.gpu_ms);
  if (p.dispatches == 0) {
    std::printf("  (no timestamps: the device lacks timestamp-query)\n");
    return;
  }
  print_kernel_table(p.kernels, top);
}

void write_json(const std::string& path, const api::Llm& model, const api::Runtime& runtime,
                const std::vector<TestResult>& results, const std::vector<Profile>& profiles, double load_s,
                int reps) {
  using nlohmann::json;
  const MemoryStats mem = model.memory_stats();
  const api::AdapterInfo info = runtime.adapter_info();
  auto stats_json = [](const Stats& s) {
    return json{{"median", s.median}, {"mean", s.mean}, {"stddev", s.stddev}, {"min", s.min}, {"max", s.max}};
  };
  json tests = json::array();
  for (const TestResult& r : results) {
    json t = {{"name", r.name},
              {"n_prompt", r.n_prompt},
              {"n_gen", r.n_gen},
              {"runs", r.seconds.size()},
              {"tok_s", stats_json(r.tps)},
              {"ms_per_token", stats_json(r.ms_per_token)},
              {"host_ms_per_pass",
               {{"prepare", r.host_ms.prepare_ms}, {"encode", r.host_ms.encode_ms}, {"wait", r.host_ms.wait_ms},
                {"readback", r.host_ms.readback_ms}, {"submit", r.host_ms.submit_ms}}},
              {"samples_s", r.seconds}};
    if (!r.error.empty()) t["error"] = r.error;
    tests.push_back(std::move(t));
  }
  json profs = json::array();
  for (const Profile& p : profiles) {
    json kernels = json::array();
    for (const KernelRow& k : p.kernels) {
      kernels.push_back({{"label", k.label}, {"count", k.count}, {"gpu_us", k.gpu_ns * 1e-3}});
    }
    profs.push_back({{"what", p.what}, {"dispatches", p.dispatches}, {"gpu_ms", p.gpu_ms}, {"wall_ms", p.wall_ms},
                     {"kernels", std::move(kernels)}});
  }
  const json doc = {
      {"tool", "wgrt bench"},
      {"model", model.path()},
      {"model_summary", model.description()},
      {"adapter", info.name},
      {"backend", info.backend},
      {"driver", info.driver},
      {"runtime", info.implementation},
      {"shader_f16", runtime.features().shader_f16},
      {"subgroups", runtime.features().subgroups},
      {"timestamp_query", runtime.features().timestamp_query},
      {"weight_bytes", model.weight_bytes()},
      {"context", model.context()},
      {"chunk", model.chunk()},
      {"repetitions", reps},
      {"load_seconds", load_s},
      {"memory",
       {{"model_total_bytes", mem.total_bytes}, {"weight_bytes", mem.constant_bytes}, {"tensor_bytes", mem.tensor_bytes},
        {"scratch_bytes", mem.scratch_bytes}, {"device_peak_bytes", runtime.peak_buffer_bytes()}}},
      {"tests", std::move(tests)},
      {"profiles", std::move(profs)},
  };
  std::ofstream out(path);
  if (!out) throw Error(ErrorCode::NotFound, "cannot write " + path + ": " + std::strerror(errno));
  // Invalid UTF-8 in a name (a model path) is replaced rather than thrown on.
  out << doc.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  if (!out) throw Error(ErrorCode::Internal, "writing " + path + " failed");
}

}  // namespace wgrt::cli
