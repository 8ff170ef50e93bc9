// `wgrt bench`: prompt-processing and generation throughput of a GGUF model,
// measured like llama-bench (ppN: N random tokens from position 0 in one
// forward pass; tgN: N single-token forward passes from an empty cache),
// with a warm-up run per test and the median and spread of several
// repetitions; --profile adds GPU time per kernel from timestamp queries.
// Uses only wgrt's public API.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/bench_report.h"
#include "cli/kernel_profile.h"
#include "wgrt/batch.h"
#include "wgrt/llm.h"
#include "wgrt/error.h"

namespace wgrt::cli {
namespace {

struct BenchArgs {
  std::string model, tokenizer, json;
  std::vector<int> devices;
  std::string p = "128,512", n = "128";  // comma-separated lists
  std::string parallel;                  // --parallel: comma-separated sequence counts
  int reps = 5;
  int64_t tg_prefill = 0;
  double max_seconds = 60;
  double warmup_seconds = 0.5;
  int64_t ctx = 0;  // 0: what the largest test needs
  uint64_t seed = 1234;
  int32_t in_flight = api::GenerateOptions{}.in_flight;
  int64_t top = 15;
  bool ab = false, cpu_sampling = false, profile = false, no_fuse = false, kv_f16 = false;
  bool devices_may_repeat = false;  // --test-devices-may-repeat
};

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::vector<int64_t> parse_list(const std::string& s, const char* what) {
  std::vector<int64_t> out;
  size_t i = 0;
  while (i < s.size()) {
    const size_t j = std::min(s.find(',', i), s.size());
    const std::string item = s.substr(i, j - i);
    try {
      size_t used = 0;
      const long long v = std::stoll(item, &used);
      if (used != item.size() || v < 0) throw 0;
      if (v > 0) out.push_back(v);
    } catch (...) {
      throw Error(ErrorCode::InvalidArgument, std::string(what) + ": '" + item + "' is not a non-negative integer");
    }
    i = j + 1;
  }
  return out;
}

// How tg tests generate: GPU sampling with `in_flight` steps queued, or the
// CPU sampler (logits read back each token).
struct TgMode {
  bool gpu_sampling = true;
  int32_t in_flight = api::GenerateOptions{}.in_flight;
  std::string suffix;  // appended to the test's name ("/wait", "/x8")
  int64_t parallel = 0;  // > 0: this many sequences at once through api::Batch
};

// A profile from one pass's dispatch timings.
Profile profile_of(const std::string& what, double wall_ms, const std::vector<api::DispatchTime>& timings) {
  Profile p;
  p.what = what;
  p.wall_ms = wall_ms;
  for (const auto& t : timings) p.gpu_ms += t.ms;
  p.dispatches = timings.size();
  p.kernels = group_by_label(timings);
  return p;
}

class Bench {
 public:
  Bench(api::Llm& model, uint64_t seed) : model_(model), rng_(seed) {}

  std::vector<int32_t> random_tokens(int64_t n) {
    std::uniform_int_distribution<int64_t> dist(0, int64_t(model_.vocab_size()) - 1);
    std::vector<int32_t> t(static_cast<size_t>(n));
    for (auto& x : t) x = int32_t(dist(rng_));
    return t;
  }

  // One run of a test: wall seconds of the timed part; adds the graph's host
  // times of each timed forward pass to `host` (one pass per chunk, or per
  // generated token).
  double run_once(int64_t n_prompt, int64_t n_gen, int64_t tg_prefill, api::HostTimes* host = nullptr,
                  size_t* passes = nullptr, double* wait_s = nullptr) {
    auto note = [&] {
      if (!host) return;
      const api::HostTimes h = model_.last_host_times();
      host->prepare_ms += h.prepare_ms;
      host->encode_ms += h.encode_ms;
      host->wait_ms += h.wait_ms;
      host->readback_ms += h.readback_ms;
      host->dispatches += h.dispatches;
      host->submit_ms += h.submit_ms;
      ++*passes;
    };
    model_.reset();
    if (tg_.parallel > 0) return run_parallel_once(n_gen, tg_prefill);
    if (n_prompt > 0) {
      const auto tokens = random_tokens(n_prompt);
      const auto t0 = Clock::now();
      model_.forward(tokens);
      const double s = seconds_since(t0);
      note();
      return s;
    }
    // tgN: N decode steps after the prompt (the tg-prefill tokens, or one
    // token), each producing the next token greedily; the prompt's own draw
    // is not timed. Steps in flight are encoded while earlier ones run.
    api::GenerateOptions gen;
    gen.max_tokens = int32_t(n_gen + 1);
    gen.temperature = 0;
    gen.ignore_eos = true;
    gen.gpu_sampling = tg_.gpu_sampling;
    gen.in_flight = tg_.in_flight;
    const std::vector<int32_t> prompt = random_tokens(std::max<int64_t>(1, tg_prefill));
    api::Generation g(model_, prompt, gen);
    if (!g.next()) throw Error(ErrorCode::Internal, "bench: the prompt produced no token");
    for (int64_t i = 0; i < n_gen; ++i) {
      if (!g.next()) throw Error(ErrorCode::Internal, "bench: generation ended early");
      note();
    }
    if (wait_s) *wait_s += g.stats().wait_seconds;
    return g.stats().generate_seconds;
  }

  // tgN/xP: P sequences, each a tg-prefill (or one-token) prompt and N
  // greedy tokens, in one api::Batch. Timed like llama-batched-bench's S_TG
  // (generation only), over a window of steady decoding: from the moment
  // every sequence has its first token to the moment the tokens read back
  // since then reach all that remain less P x (1 + in_flight) (sequences
  // join a step apart, so the first have tokens before the last starts);
  // returned as the seconds P x N tokens take at that rate. The window ends before the last steps in
  // flight are read back: where submit runs the work itself (lavapipe) their
  // work is already done, and counting their tokens would overstate the rate.
  double run_parallel_once(int64_t n_gen, int64_t tg_prefill) {
    api::GenerateOptions gen;
    gen.max_tokens = int32_t(n_gen);
    gen.temperature = 0;
    gen.ignore_eos = true;
    gen.in_flight = tg_.in_flight;
    api::Batch batch(model_, tg_.in_flight);
    const auto rows = size_t(tg_.parallel);
    std::vector<int64_t> got(rows, 0);
    size_t started = 0, short_of = 0;
    const int64_t tail = int64_t(rows) * (1 + tg_.in_flight);
    int64_t window = 0, before = 0, after = 0;
    Clock::time_point all_started, window_end;
    for (size_t i = 0; i < rows; ++i) {
      api::BatchCallbacks callbacks;
      callbacks.on_token = [&, i](int32_t token, std::string_view) {
        if (token < 0) return true;
        if (started == rows) {
          if (++after == window) window_end = Clock::now();
        } else if (got[i] == 0 && ++started == rows) {
          all_started = Clock::now();
          window = int64_t(rows) * n_gen - (before + 1) - tail;
        }
        ++before;
        ++got[i];
        return true;
      };
      callbacks.on_done = [&short_of, n_gen](const api::GenerateResult& r, const std::string& error) {
        if (!error.empty() || int64_t(r.generated_tokens) != n_gen) ++short_of;
      };
      // Prompts that share nothing, so that no slot reuses another's cache.
      batch.add(random_tokens(std::max<int64_t>(1, tg_prefill)), gen, std::move(callbacks), false);
    }
    batch.run();
    if (short_of > 0) throw Error(ErrorCode::Internal, "bench: a sequence of the batch ended early");
    if (window <= 0 || after < window) {
      throw Error(ErrorCode::InvalidArgument,
                  "bench: --parallel " + std::to_string(rows) + ": -n " + std::to_string(n_gen) +
                      " leaves no steady window (all sequences decoding at once) to time: raise -n");
    }
    const double s = std::chrono::duration<double>(window_end - all_started).count();
    return s * double(int64_t(rows) * n_gen) / double(window);
  }

  void set_tg_mode(const TgMode& mode) { tg_ = mode; }
  const TgMode& tg_mode() const { return tg_; }

  TestResult run_test(int64_t n_prompt, int64_t n_gen, int64_t tg_prefill, int reps, double max_seconds,
                      double warmup_seconds) {
    TestResult r;
    r.n_prompt = n_prompt;
    r.n_gen = n_gen;
    r.name = n_prompt > 0 ? "pp" + std::to_string(n_prompt) : "tg" + std::to_string(n_gen) + tg_.suffix;
    const int64_t tokens = n_prompt > 0 ? n_prompt : n_gen * std::max<int64_t>(1, tg_.parallel);
    try {
      // Warm-up: at least one run, and runs until warmup_seconds have passed,
      // so that an idle GPU has raised its clock before the timed runs (the
      // H200 idles at 345 MHz; a SmolLM2 pp512 test, ~50 ms of work, could
      // finish before the clock rose and read 3-4x slow, bench/RESULTS.md).
      const auto start = Clock::now();
      do {
        run_once(n_prompt, n_gen, tg_prefill);
      } while (seconds_since(start) < warmup_seconds);
      size_t passes = 0;
      for (int i = 0; i < reps; ++i) {
        const double s = run_once(n_prompt, n_gen, tg_prefill, &r.host_ms, &passes, &r.wait_ms);
        r.seconds.push_back(s);
        r.tok_s.push_back(double(tokens) / s);
        if (seconds_since(start) > max_seconds && i + 1 < reps) {
          std::fprintf(stderr, "  %s: stopping after %d of %d repetitions (--max-seconds %.0f)\n", r.name.c_str(),
                       i + 1, reps, max_seconds);
          break;
        }
      }
      if (r.host_ms.dispatches > 0) r.encode_us_per_dispatch = 1e3 * r.host_ms.encode_ms / double(r.host_ms.dispatches);
      if (passes > 0) {
        r.host_ms.dispatches /= passes;
        r.host_ms.prepare_ms /= double(passes);
        r.host_ms.encode_ms /= double(passes);
        r.host_ms.wait_ms /= double(passes);
        r.host_ms.readback_ms /= double(passes);
        r.host_ms.submit_ms /= double(passes);
      }
      if (n_gen > 0 && !r.seconds.empty()) r.wait_ms = 1e3 * r.wait_ms / double(r.seconds.size() * n_gen);
    } catch (const Error& e) {
      r.error = e.what();
    }
    r.tps = stats_of(r.tok_s);
    std::vector<double> ms;
    for (double s : r.seconds) ms.push_back(1e3 * s / double(tokens));
    r.ms_per_token = stats_of(ms);
    return r;
  }

  // One timed forward pass of `tokens` after `prefill` cached tokens.
  Profile profile(const std::string& what, int64_t prefill, int64_t n) {
    model_.reset();
    if (prefill > 0) model_.forward(random_tokens(prefill));
    const auto tokens = random_tokens(n);
    api::RunOptions opt;
    opt.time_dispatches = true;
    const auto t0 = Clock::now();
    model_.forward(tokens, opt);
    return profile_of(what, 1e3 * seconds_since(t0), model_.last_dispatch_times());
  }

  // One timed batched decode step of `rows` sequences (one-token prompts,
  // each prefilled in its own round before the step).
  Profile profile_parallel(int64_t rows) {
    api::GenerateOptions gen;
    gen.max_tokens = int32_t(rows + 16);
    gen.temperature = 0;
    gen.ignore_eos = true;
    api::Batch batch(model_, tg_.in_flight);
    for (int64_t i = 0; i < rows; ++i) batch.add(random_tokens(1), gen, {}, false);
    for (int64_t i = 0; i < rows; ++i) batch.step();
    batch.time_next_step();
    const auto t0 = Clock::now();
    batch.step();
    const double wall_ms = 1e3 * seconds_since(t0);
    const std::vector<api::DispatchTime> timings = batch.last_timed_step();
    if (timings.empty()) throw Error(ErrorCode::Internal, "bench: the timed batched step did not run");
    batch.run();
    return profile_of("decode step of " + std::to_string(rows) + " sequences at once", wall_ms, timings);
  }

 private:
  api::Llm& model_;
  std::mt19937_64 rng_;
  TgMode tg_;
};


// The tests' sizes, and the context and chunk they need of the model.
struct Plan {
  std::vector<int64_t> pps, tgs;
  std::vector<int64_t> parallel;  // --parallel's sequence counts
  int64_t max_pp = 0;
  int64_t need = 0;  // context
};

Plan plan_of(const BenchArgs& args) {
  Plan plan;
  plan.pps = parse_list(args.p, "-p");
  plan.tgs = parse_list(args.n, "-n");
  plan.parallel = parse_list(args.parallel, "--parallel");
  for (int64_t p : plan.parallel) {
    if (p > 32) throw Error(ErrorCode::InvalidArgument, "--parallel: " + std::to_string(p) + " sequences; at most 32");
  }
  plan.max_pp = plan.pps.empty() ? 0 : *std::max_element(plan.pps.begin(), plan.pps.end());
  const int64_t max_tg = plan.tgs.empty() ? 0 : *std::max_element(plan.tgs.begin(), plan.tgs.end());
  // The profiled decode step runs at position 16 (after a 16-token prefill).
  plan.need = std::max({plan.max_pp, std::max<int64_t>(1, args.tg_prefill) + max_tg + 1,
                        args.profile ? int64_t(17) : int64_t(1)});
  return plan;
}

// The model, with a context and chunk that hold every test (or an error saying which does not fit).
api::Llm load_model(const api::Runtime& runtime, const BenchArgs& args, const Plan& plan, double* load_s) {
  api::LlmOptions load = llm_options(args.model, args.no_fuse);
  load.tokenizer_path = args.tokenizer;
  load.context = args.ctx > 0 ? args.ctx : plan.need;
  load.chunk = std::max<int64_t>({plan.max_pp, args.tg_prefill, 16});
  load.kv_f16 = args.kv_f16;
  load.devices = args.devices;
  load.devices_may_repeat_for_test = args.devices_may_repeat;
  for (int64_t p : plan.parallel) load.parallel = std::max(load.parallel, p);
  load.chunk = std::max(load.chunk, load.parallel);
  const auto t_load = Clock::now();
  api::Llm model = api::Llm::load(runtime, load);
  *load_s = seconds_since(t_load);
  if (model.context() < plan.need) {
    throw Error(ErrorCode::InvalidArgument, "the tests need a context of " + std::to_string(plan.need) +
                                                " tokens; the model allows " + std::to_string(model.context()));
  }
  if (model.chunk() < plan.max_pp) {
    throw Error(ErrorCode::InvalidArgument, "chunk " + std::to_string(model.chunk()) + " < largest prompt " +
                                                std::to_string(plan.max_pp));
  }
  return model;
}

void print_setup(const api::Llm& model, const api::Runtime& runtime, double load_s, const BenchArgs& args) {
  const api::AdapterInfo info = runtime.adapter_info();
  const api::AdapterFeatures features = runtime.features();
  std::printf("model:   %s\n         %s\n", model.path().c_str(), model.description().c_str());
  std::printf("weights: %.1f MiB on the GPU; loaded in %.2f s\n", model.weight_bytes() / 1048576.0, load_s);
  if (model.adapters().size() > 1) std::printf("devices: %s\n", adapter_names(model).c_str());
  std::printf("device:  %s (%s, %s), %s; shader-f16 %s, subgroups %s, timestamp-query %s\n", info.name.c_str(),
              info.backend.c_str(), info.device_type.c_str(), info.implementation.c_str(),
              features.shader_f16 ? "yes" : "no", features.subgroups ? "yes" : "no",
              features.timestamp_query ? "yes" : "no");
  std::printf("context %lld, chunk %lld, %d repetitions after warm-up runs (at least %.2f s)\n\n",
              static_cast<long long>(model.context()), static_cast<long long>(model.chunk()), args.reps,
              args.warmup_seconds);
  std::fflush(stdout);
}

// One row of the results table.
void print_result(const TestResult& r, const api::Llm& model) {
  if (!r.error.empty()) {
    std::printf("%-10s failed: %s\n", r.name.c_str(), r.error.c_str());
  } else {
    // Weight bytes read per second for decode (each step reads every weight once).
    const double gbs = r.n_gen > 0 ? double(model.weight_bytes()) * r.tps.median * 1e-9 : 0;
    char mean_std[64];
    std::snprintf(mean_std, sizeof mean_std, "%.1f +- %.1f", r.tps.mean, r.tps.stddev);
    std::printf("%-10s %5zu %14.2f %14s %12.3f", r.name.c_str(), r.seconds.size(), r.tps.median, mean_std,
                r.ms_per_token.median);
    if (r.n_gen > 0) std::printf(" %6.1f", gbs);
    std::printf("\n");
  }
  std::fflush(stdout);
}

// The pp tests, then the tg tests (each also as tgN/wait under --ab), printed as they finish.
std::vector<TestResult> run_tests(Bench& bench, const api::Llm& model, const BenchArgs& args, const Plan& plan,
                                  const TgMode& tg_mode) {
  std::vector<TestResult> results;
  std::printf("%-10s %5s %14s %14s %12s %6s\n", "test", "runs", "tok/s median", "mean +- std", "ms/token", "GB/s");
  auto run = [&](int64_t n_prompt, int64_t n_gen, int64_t tg_prefill) {
    results.push_back(bench.run_test(n_prompt, n_gen, tg_prefill, args.reps, args.max_seconds, args.warmup_seconds));
    print_result(results.back(), model);
  };
  for (int64_t n : plan.pps) run(n, 0, 0);
  for (int64_t n : plan.tgs) {
    bench.set_tg_mode(tg_mode);
    run(0, n, args.tg_prefill);
    if (args.ab && tg_mode.gpu_sampling) {
      TgMode wait = tg_mode;
      wait.in_flight = 1;
      wait.suffix = "/wait";
      bench.set_tg_mode(wait);
      run(0, n, args.tg_prefill);
      const TestResult& a = results[results.size() - 2];
      const TestResult& b = results.back();
      if (a.error.empty() && b.error.empty() && b.tps.median > 0) {
        std::printf("  A/B: %d steps in flight / one host wait per token = %.3fx\n", tg_mode.in_flight,
                    a.tps.median / b.tps.median);
      }
    }
    // --parallel: aggregate tokens/s of P sequences at once, beside P = 1.
    double one = 0;  // P = 1's median tokens/s
    for (int64_t p : plan.parallel) {
      TgMode batched = tg_mode;
      batched.parallel = p;
      batched.suffix = "/x" + std::to_string(p);
      bench.set_tg_mode(batched);
      run(0, n, args.tg_prefill);
      const TestResult& r = results.back();
      if (p == 1 && r.error.empty()) one = r.tps.median;
      if (p > 1 && one > 0 && r.error.empty()) {
        std::printf("  %d sequences at once: %.2fx the tokens/s of one\n", int(p), r.tps.median / one);
      }
    }
  }
  return results;
}

// How tg ran, the host's time per forward pass, and the GPU memory used.
void print_host_and_memory(const std::vector<TestResult>& results, const TgMode& tg_mode, const api::Llm& model,
                           const api::Runtime& runtime, bool kv_f16) {
  std::printf("\ntg: %s\n", !tg_mode.gpu_sampling ? "logits read back and sampled on the CPU each token"
                                : ("greedy sampling on the GPU, the token fed back on the GPU, " +
                                   std::to_string(tg_mode.in_flight) + " steps in flight").c_str());
  std::printf("host time per forward pass (ms, mean): prepare / encode+submit (of it submit) / wait for GPU / "
              "readback; encode per dispatch (us); tg: host blocked per token (ms)\n");
  for (const auto& r : results) {
    if (!r.error.empty()) continue;
    std::printf("  %-10s %8.3f %8.3f (%.3f) %8.3f %8.3f   %6.2f us", r.name.c_str(), r.host_ms.prepare_ms,
                r.host_ms.encode_ms, r.host_ms.submit_ms, r.host_ms.wait_ms, r.host_ms.readback_ms,
                r.encode_us_per_dispatch);
    if (r.n_gen > 0) std::printf("   %8.3f", r.wait_ms);
    std::printf("\n");
  }
  const MemoryStats mem = model.memory_stats();
  // A model split across devices: the runtime's device holds the first part only.
  const bool split = model.adapters().size() > 1;
  std::printf("\nGPU memory: %.1f MiB for this model%s (weights %.1f MiB, tensors %.1f MiB of which KV cache %.1f MiB "
              "(%s), scratch %.1f MiB); peak on the %sdevice %.1f MiB\n",
              mem.total_bytes / 1048576.0, split ? " on all its devices" : "", mem.constant_bytes / 1048576.0,
              mem.tensor_bytes / 1048576.0, mem.state_bytes / 1048576.0, kv_f16 ? "f16" : "f32",
              mem.scratch_bytes / 1048576.0, split ? "first part's " : "", runtime.peak_buffer_bytes() / 1048576.0);
}

// --profile: one decode step (compared with the first tg test's untimed
// step), the largest prompt pass and the largest --parallel step, kernel by kernel.
std::vector<Profile> run_profiles(Bench& bench, const api::Runtime& runtime, const std::vector<TestResult>& results,
                                  const Plan& plan, size_t top) {
  const int64_t max_pp = plan.max_pp;
  std::vector<Profile> profiles;
  if (!runtime.features().timestamp_query) {
    std::printf("\n--profile: %s\n", runtime.limits_mode() == api::LimitsMode::Default
                                          ? "cannot profile with --limits default (no timestamp-query requested); "
                                            "use --limits adapter"
                                          : "the device has no timestamp-query");
  }
  try {
    bench.profile("decode", 16, 1);  // warm the timed path once
    profiles.push_back(bench.profile("decode (1 token at position 16)", 16, 1));
    print_profile(profiles.back(), top);
    for (const auto& r : results) {
      if (r.n_gen == 0 || r.seconds.empty() || profiles.back().gpu_ms <= 0) continue;
      const double wall = r.ms_per_token.median, gpu = profiles.back().gpu_ms;
      std::printf("  %s untimed: %.3f ms/token wall vs %.3f ms of kernels: the GPU computes %.0f%% of the step; "
                  "the rest is CPU encoding/submission/readback and idle GPU\n",
                  r.name.c_str(), wall, gpu, 100.0 * std::min(1.0, gpu / wall));
      break;
    }
    if (max_pp > 0) {
      profiles.push_back(bench.profile("pp" + std::to_string(max_pp), 0, max_pp));
      print_profile(profiles.back(), top);
    }
    const int64_t most = plan.parallel.empty() ? 0 : *std::max_element(plan.parallel.begin(), plan.parallel.end());
    if (most > 1) {
      bench.profile_parallel(most);  // warm the timed path once
      profiles.push_back(bench.profile_parallel(most));
      print_profile(profiles.back(), top);
    }
  } catch (const Error& e) {
    std::printf("--profile failed: %s\n", e.what());
  }
  return profiles;
}

int bench(const BenchArgs& args) {
  const Plan plan = plan_of(args);
  TgMode tg_mode;
  tg_mode.in_flight = args.in_flight;
  tg_mode.gpu_sampling = !args.cpu_sampling;

  const api::Runtime runtime = api::Runtime::create(runtime_options(args.devices));
  double load_s = 0;
  api::Llm model = load_model(runtime, args, plan, &load_s);
  print_setup(model, runtime, load_s, args);

  Bench bench(model, args.seed);
  const std::vector<TestResult> results = run_tests(bench, model, args, plan, tg_mode);
  print_host_and_memory(results, tg_mode, model, runtime, args.kv_f16);
  std::vector<Profile> profiles;
  if (args.profile) profiles = run_profiles(bench, runtime, results, plan, size_t(args.top));
  if (!args.json.empty()) write_json(args.json, model, runtime, results, profiles, load_s, args.reps);
  bool failed = false;
  for (const auto& r : results) failed |= !r.error.empty();
  return failed ? 1 : 0;
}

}  // namespace

Command add_bench(CLI::App& app) {
  CLI::App* cmd = add_command(
      app, "bench", "tokens/s of a GGUF model: prompt processing and generation, like llama-bench",
      "Measures tokens/s of a Llama-family GGUF model the way llama-bench does: ppN runs N\n"
      "random tokens from position 0 in one forward pass; tgN runs N single-token forward\n"
      "passes from an empty cache (after --tg-prefill tokens, default none). Each test has\n"
      "warm-up runs (--warmup-seconds), then -r repetitions; the median, mean and standard\n"
      "deviation are printed.");
  auto a = std::make_shared<BenchArgs>();
  cmd->add_option("--model", a->model,
                  "GGUF file, or a .pte from ExecuTorch's Llama export with the Vulkan backend (needs --tokenizer); "
                  "default: the built-in SmolLM2-135M-Instruct Q4_1")
      ->type_name("PATH");
  cmd->add_option("--tokenizer", a->tokenizer, "for a .pte model: a GGUF file whose tokenizer it uses")->type_name("PATH");
  cmd->add_option("-p", a->p, "prompt sizes, comma-separated; 0 or '' for none (default 128,512)")->type_name("LIST");
  cmd->add_option("-n", a->n, "generation lengths, comma-separated; 0 for none (default 128)")->type_name("LIST");
  cmd->add_option("-r", a->reps, "repetitions per test (default 5)")->type_name("N")->check(in_range(1, 1000000));
  cmd->add_option("--tg-prefill", a->tg_prefill, "tokens in the cache before a tg test starts (default 0)")
      ->type_name("N")
      ->check(in_range(0, INT32_MAX));
  cmd->add_option("--max-seconds", a->max_seconds,
                  "stop repeating a test after S seconds, keeping at least one run\n(default 60)")
      ->type_name("S");
  cmd->add_option("--warmup-seconds", a->warmup_seconds,
                  "warm-up runs of each test until S seconds have passed (at least one), so\n"
                  "that an idle GPU raises its clocks before the timed runs (default 0.5)")
      ->type_name("S")
      ->check(CLI::Range(0.0, 3600.0));
  cmd->add_option("--ctx", a->ctx, "KV cache length (default: what the largest test needs)")->type_name("N");
  add_devices_option(cmd, a->devices);
  cmd->add_flag("--test-devices-may-repeat", a->devices_may_repeat,
                "test only: --devices may name one adapter more than once (a device each),\n"
                "to measure what crossing between devices costs on one GPU");
  cmd->add_option("--seed", a->seed, "seed of the random tokens (default 1234)")->type_name("S");
  cmd->add_option("--in-flight", a->in_flight,
                  "tg: decode steps queued ahead of the host, each sampling its token\n"
                  "(greedy) on the GPU and feeding it to the next (default " +
                      std::to_string(api::GenerateOptions{}.in_flight) + ")")
      ->type_name("K")
      ->check(in_range(1, 1024));
  cmd->add_option("--parallel", a->parallel,
                  "tg: also run each tg test as P sequences at once (continuous batching),\n"
                  "for each P of this comma-separated list (1 to 32), as tgN/xP, and print\n"
                  "their aggregate tokens/s beside P = 1 (llama-bench's -b is another thing)")
      ->type_name("LIST");
  cmd->add_flag("--ab", a->ab,
                "tg: also run each tg test with one host wait per token (K = 1),\nas tgN/wait, and print the ratio");
  cmd->add_flag("--cpu-sampling", a->cpu_sampling,
                "tg: read the logits back and sample on the CPU each token (the loop\nwithout GPU sampling)");
  cmd->add_flag("--profile", a->profile,
                "GPU time per kernel and dispatches for one decode step and one prompt pass");
  cmd->add_flag("--no-fuse", a->no_fuse, "load without the fusion passes (A/B against the fused graph)");
  cmd->add_flag("--kv-f16", a->kv_f16, "the f16 KV cache (half its memory)");
  cmd->add_option("--top", a->top, "kernels listed per profile (default 15)")->type_name("K")->check(in_range(1, 1 << 20));
  cmd->add_option("--json", a->json, "write the results as JSON")->type_name("PATH");
  return {cmd, [a] { return bench(*a); }};
}

}  // namespace wgrt::cli
