// wgrt bench's results (src/cli/bench.cpp) and how they are reported: the
// per-test statistics, the kernel profile table and the JSON file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cli/kernel_profile.h"
#include "wgrt/llm.h"
#include "wgrt/runtime.h"

namespace wgrt::cli {

struct Stats {
  double median = 0, mean = 0, stddev = 0, min = 0, max = 0;
};


struct TestResult {
  std::string name;  // "pp128", "tg128"
  int64_t n_prompt = 0, n_gen = 0;
  std::vector<double> seconds;  // per repetition
  std::vector<double> tok_s;    // per repetition
  Stats tps;
  Stats ms_per_token;
  api::HostTimes host_ms;  // per forward pass, averaged over the timed repetitions
  double encode_us_per_dispatch = 0;  // all timed passes' encode time over the dispatches they issued
  double wait_ms = 0;  // tg: per token, the host blocked on the GPU
  std::string error;
};

struct Profile {
  std::string what;  // "decode" or "pp512"
  double wall_ms = 0;
  double gpu_ms = 0;
  size_t dispatches = 0;
  std::vector<KernelRow> kernels;  // by total time, descending
};

// Median, mean, sample standard deviation, min and max.
Stats stats_of(std::vector<double> v);
void print_profile(const Profile& p, size_t top);
void write_json(const std::string& path, const api::Llm& model, const api::Runtime& runtime,
                const std::vector<TestResult>& results, const std::vector<Profile>& profiles, double load_s,
                int reps);

}  // namespace wgrt::cli
