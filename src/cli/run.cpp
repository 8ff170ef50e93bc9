// `wgrt run`: runs one method of a .pte program on the GPU, with inputs from
// .npy files or random ones of the right shape, and writes the outputs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/kernel_profile.h"
#include "core/npy.h"
#include "gpu/device.h"
#include "runtime/program.h"
#include "wgrt/error.h"

namespace wgrt::cli {
namespace {

constexpr const char* kUsage =
    "usage: wgrt run MODEL.pte [options]\n"
    "\n"
    "Runs a method of an ExecuTorch program lowered with VulkanPartitioner.\n"
    "\n"
    "options:\n"
    "  --ptd PATH         the .ptd file holding the program's external weights\n"
    "  --method NAME      the method to run (default: forward)\n"
    "  --input PATH       a .npy input, once per input in order (default: random inputs at the maximum shape)\n"
    "  --output-dir DIR   write each output as DIR/output_N.npy\n"
    "  --repeat N         run N times and report the median time (default 1)\n"
    "  --profile          GPU time per dispatch (needs timestamp-query)\n"
    "  --no-fuse          load without the fusion passes\n"
    "  --seed S           seed for random inputs (default 0)\n";

HostTensor random_input(const TensorSpec& spec, std::mt19937& rng) {
  HostTensor t{spec.dtype, spec.max_dims, std::vector<uint8_t>(numel(spec.max_dims) * host_size(spec.dtype))};
  const size_t n = size_t(numel(spec.max_dims));
  switch (spec.dtype) {
    case DType::F32: {
      std::uniform_real_distribution<float> d(-1.0f, 1.0f);
      auto* p = reinterpret_cast<float*>(t.data.data());
      for (size_t i = 0; i < n; ++i) p[i] = d(rng);
      break;
    }
    case DType::I32:
    case DType::I64: {
      // Small non-negative values: valid as indices into any table of 8 or more rows.
      std::uniform_int_distribution<int32_t> d(0, 7);
      for (size_t i = 0; i < n; ++i) {
        const int64_t v = d(rng);
        std::memcpy(t.data.data() + i * host_size(spec.dtype), &v, host_size(spec.dtype));
      }
      break;
    }
    default:
      for (auto& b : t.data) b = uint8_t(rng() & 1);
  }
  return t;
}

}  // namespace

int run_run(int argc, char** argv) {
  if (asks_for_help(argc, argv)) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  const Args args(argc, argv, {"--ptd", "--method", "--input", "--output-dir", "--repeat", "--seed"}, {"--profile", "--no-fuse"});
  if (args.positionals().size() != 1) throw Error(ErrorCode::InvalidArgument, "expected one MODEL.pte (see --help)");
  const std::string path = args.positionals()[0];

  auto device = gpu::Device::create();
  const auto t_load = std::chrono::steady_clock::now();
  LoadOptions load;
  if (args.flag("--no-fuse")) load.fuse = false;
  auto program = Program::load(*device, path, args.get_or("--ptd", ""), load);
  const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_load).count();
  Method& method = program->method(args.get_or("--method", "forward"));

  std::vector<HostTensor> inputs;
  const auto files = args.get_all("--input");
  if (!files.empty()) {
    if (files.size() != method.input_specs().size()) {
      throw Error(ErrorCode::InvalidArgument, "method '" + method.name() + "' takes " +
                                                  std::to_string(method.input_specs().size()) + " inputs, got " +
                                                  std::to_string(files.size()) + " --input files");
    }
    for (const auto& f : files) inputs.push_back(read_npy(f));
  } else {
    std::mt19937 rng(uint32_t(args.get_int("--seed", 0)));
    for (const auto& spec : method.input_specs()) inputs.push_back(random_input(spec, rng));
  }
  std::vector<HostTensorView> views;
  for (const auto& t : inputs) views.push_back({t.dtype, t.dims, t.data});

  const int64_t repeat = std::max<int64_t>(1, args.get_int("--repeat", 1));
  ExecuteOptions opts;
  opts.time_dispatches = args.flag("--profile");
  std::vector<double> times;
  std::vector<HostTensor> outputs;
  for (int64_t r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    outputs = method.graph().execute(views, opts);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());

  std::printf("program:  %s (loaded in %.1f ms)\n", path.c_str(), load_s * 1e3);
  std::printf("device:   %s (%s)\n", device->adapter_info().name.c_str(), device->adapter_info().backend.c_str());
  std::printf("method:   %s, %zu dispatches\n", method.name().c_str(), method.graph().dispatch_count());
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::printf("  input %zu:  %s%s%s\n", i, std::string(dtype_name(inputs[i].dtype)).c_str(),
                dims_string(inputs[i].dims).c_str(), files.empty() ? " (random)" : ("  " + files[i]).c_str());
  }
  const std::string out_dir = args.get_or("--output-dir", "");
  if (!out_dir.empty()) std::filesystem::create_directories(out_dir);
  for (size_t o = 0; o < outputs.size(); ++o) {
    std::string where;
    if (!out_dir.empty()) {
      where = out_dir + "/output_" + std::to_string(o) + ".npy";
      write_npy(where, outputs[o].dtype, outputs[o].dims, outputs[o].data);
    }
    std::printf("  output %zu: %s%s  %s\n", o, std::string(dtype_name(outputs[o].dtype)).c_str(),
                dims_string(outputs[o].dims).c_str(), where.c_str());
  }
  std::printf("time:     %.3f ms median of %lld runs (min %.3f ms), wall clock including upload and readback\n",
              times[times.size() / 2], static_cast<long long>(repeat), times.front());
  if (opts.time_dispatches) {
    const auto& timings = method.graph().last_timings();
    if (timings.empty()) {
      std::printf("profile:  unavailable (the adapter has no timestamp-query)\n");
    } else {
      double total_ns = 0;
      for (const auto& t : timings) total_ns += t.gpu_ns;
      std::printf("profile:  %.3f ms of GPU time in %zu dispatches\n", total_ns / 1e6, timings.size());
      print_kernel_table(group_by_label(timings), timings.size());
    }
  }
  std::printf("memory:\n%s", method.graph().memory_stats().to_string().c_str());
  return 0;
}

}  // namespace wgrt::cli
