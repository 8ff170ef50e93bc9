// `wgrt run`: runs one method of a .pte program on the GPU, with inputs from
// .npy files or random ones of the right shape, and writes the outputs.
// Uses only wgrt's public API.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/kernel_profile.h"
#include "wgrt/error.h"
#include "wgrt/program.h"

namespace wgrt::cli {
namespace {

struct RunArgs {
  std::string path, ptd, method = "forward", output_dir;
  std::vector<std::string> inputs;
  int64_t repeat = 1;
  uint32_t seed = 0;
  bool profile = false;
  bool profile_each = false;  // also list every dispatch's time in order
  bool no_fuse = false;
};

api::Tensor random_input(const api::TensorInfo& info, std::mt19937& rng) {
  api::Tensor t(info.dtype, info.max_shape);
  const size_t n = size_t(t.numel());
  auto bytes = t.bytes();
  switch (info.dtype) {
    case DType::F32: {
      std::uniform_real_distribution<float> d(-1.0f, 1.0f);
      auto* p = reinterpret_cast<float*>(bytes.data());
      for (size_t i = 0; i < n; ++i) p[i] = d(rng);
      break;
    }
    case DType::F16: {
      std::uniform_real_distribution<float> d(-1.0f, 1.0f);
      for (size_t i = 0; i < n; ++i) {
        const uint16_t h = f32_to_f16(d(rng));
        std::memcpy(bytes.data() + 2 * i, &h, 2);
      }
      break;
    }
    case DType::I32:
    case DType::I64: {
      // Small non-negative values: valid as indices into any table of 8 or more rows.
      std::uniform_int_distribution<int32_t> d(0, 7);
      const size_t size = host_size(info.dtype);
      for (size_t i = 0; i < n; ++i) {
        const int64_t v = d(rng);
        std::memcpy(bytes.data() + i * size, &v, size);
      }
      break;
    }
    default:
      for (auto& b : bytes) b = uint8_t(rng() & 1);
  }
  return t;
}

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

int run(const RunArgs& args) {
  const std::string& path = args.path;
  const api::Runtime runtime = api::Runtime::create(runtime_options());
  const auto t_load = std::chrono::steady_clock::now();
  const api::LoadOptions load = load_options(args.no_fuse);
  const api::Program program = api::Program::load(runtime, path, ptd_or_beside("run", path, args.ptd), load);
  const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_load).count();
  api::Method method = program.method(args.method);

  std::vector<api::Tensor> inputs;
  const auto& files = args.inputs;
  if (!files.empty()) {
    if (files.size() != method.inputs().size()) {
      throw Error(ErrorCode::InvalidArgument, "method '" + method.name() + "' takes " +
                                                  std::to_string(method.inputs().size()) + " inputs, got " +
                                                  std::to_string(files.size()) + " --input files");
    }
    for (const auto& f : files) inputs.push_back(api::read_npy(f));
  } else {
    std::mt19937 rng(args.seed);
    for (const auto& info : method.inputs()) inputs.push_back(random_input(info, rng));
  }

  api::RunOptions opts;
  opts.time_dispatches = args.profile || args.profile_each;
  std::vector<double> times;
  std::vector<api::Tensor> outputs;
  for (int64_t r = 0; r < args.repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    outputs = method.run(inputs, opts);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());

  const api::AdapterInfo adapter = runtime.adapter_info();
  std::printf("program:  %s (loaded in %.1f ms)\n", path.c_str(), load_s * 1e3);
  std::printf("device:   %s (%s)\n", adapter.name.c_str(), adapter.backend.c_str());
  std::printf("method:   %s, %zu dispatches\n", method.name().c_str(), method.dispatch_count());
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::printf("  input %zu:  %s%s%s\n", i, std::string(dtype_name(inputs[i].dtype())).c_str(),
                shape_string(inputs[i].shape()).c_str(), files.empty() ? " (random)" : ("  " + files[i]).c_str());
  }
  const std::string& out_dir = args.output_dir;
  if (!out_dir.empty()) std::filesystem::create_directories(out_dir);
  for (size_t o = 0; o < outputs.size(); ++o) {
    std::string where;
    if (!out_dir.empty()) {
      where = out_dir + "/output_" + std::to_string(o) + ".npy";
      api::write_npy(where, outputs[o]);
    }
    std::printf("  output %zu: %s%s  %s\n", o, std::string(dtype_name(outputs[o].dtype())).c_str(),
                shape_string(outputs[o].shape()).c_str(), where.c_str());
  }
  std::printf("time:     %.3f ms median of %lld runs (min %.3f ms), wall clock including upload and readback\n",
              times[times.size() / 2], static_cast<long long>(args.repeat), times.front());
  if (opts.time_dispatches) {
    const std::vector<api::DispatchTime> timings = method.last_dispatch_times();
    if (timings.empty()) {
      std::printf("profile:  unavailable (%s)\n", runtime.limits_mode() == api::LimitsMode::Default
                                                          ? "--limits default requests no timestamp-query: profile with --limits adapter"
                                                          : "the adapter has no timestamp-query");
    } else {
      double total_ms = 0;
      for (const auto& t : timings) total_ms += t.ms;
      std::printf("profile:  %.3f ms of GPU time in %zu dispatches\n", total_ms, timings.size());
      print_kernel_table(group_by_label(timings), timings.size());
      if (args.profile_each) {
        for (size_t i = 0; i < timings.size(); ++i) {
          std::printf("  #%-4zu %-40.40s %10.2f us\n", i, timings[i].label.c_str(), timings[i].ms * 1e3);
        }
      }
    }
  }
  std::printf("memory:\n%s", method.memory_stats().to_string().c_str());
  return 0;
}

}  // namespace

Command add_run(CLI::App& app) {
  CLI::App* cmd = add_command(app, "run", "run a method of a .pte program (ExecuTorch, VulkanPartitioner)",
                              "Runs a method of an ExecuTorch program lowered with VulkanPartitioner.");
  auto a = std::make_shared<RunArgs>();
  cmd->add_option("model", a->path, "the .pte program")->type_name("MODEL.pte")->required();
  cmd->add_option("--ptd", a->ptd, "the .ptd file holding the program's external weights")->type_name("PATH");
  cmd->add_option("--method", a->method, "the method to run (default: forward)")->type_name("NAME");
  repeatable(cmd->add_option("--input", a->inputs,
                             "a .npy input, once per input in order (default: random inputs at the maximum shape)"))
      ->type_name("PATH");
  cmd->add_option("--output-dir", a->output_dir, "write each output as DIR/output_N.npy")->type_name("DIR");
  cmd->add_option("--repeat", a->repeat, "run N times and report the median time (default 1)")
      ->type_name("N")
      ->check(in_range(1, 1000000));
  cmd->add_flag("--profile", a->profile, "GPU time per dispatch (needs timestamp-query)");
  cmd->add_flag("--profile-each", a->profile_each, "as --profile, then every dispatch's GPU time in run order");
  cmd->add_flag("--no-fuse", a->no_fuse, "load without the fusion passes");
  cmd->add_option("--seed", a->seed, "seed for random inputs (default 0)")->type_name("S");
  return {cmd, [a] { return run(*a); }};
}

}  // namespace wgrt::cli
