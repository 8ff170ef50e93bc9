// Runs one method of a .pte program on inputs of ones at their largest
// shapes, and prints each output's shape and first values.
//   run_pte model.pte [method] [model.ptd]
#include <cstdio>
#include <cstring>
#include <vector>

#include <wgrt/wgrt.h>

namespace {

// A tensor of ones (in the dtype's own representation) at `shape`.
wgrt::api::Tensor ones(wgrt::DType dtype, const std::vector<int64_t>& shape) {
  wgrt::api::Tensor t(dtype, shape);
  auto bytes = t.bytes();
  for (int64_t i = 0; i < t.numel(); ++i) {
    uint8_t* p = bytes.data() + i * wgrt::host_size(dtype);
    switch (dtype) {
      case wgrt::DType::F32: { const float one = 1.0f; std::memcpy(p, &one, 4); break; }
      case wgrt::DType::F16: { const uint16_t one = 0x3c00; std::memcpy(p, &one, 2); break; }
      default: p[0] = 1; break;  // integers and bool, little-endian
    }
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s model.pte [method] [model.ptd]\n", argv[0]);
    return 2;
  }
  try {
    wgrt::api::Runtime runtime = wgrt::api::Runtime::create();
    std::printf("wgrt %s on %s\n", WGRT_VERSION, runtime.adapter_name().c_str());
    wgrt::api::Program program = wgrt::api::Program::load(runtime, argv[1], argc > 3 ? argv[3] : "");
    wgrt::api::Method method = program.method(argc > 2 ? argv[2] : "forward");

    std::vector<wgrt::api::Tensor> inputs;
    for (const wgrt::api::TensorInfo& in : method.inputs()) inputs.push_back(ones(in.dtype, in.max_shape));
    const std::vector<wgrt::api::Tensor> outputs = method.run(inputs);
    for (size_t o = 0; o < outputs.size(); ++o) {
      const wgrt::api::Tensor& t = outputs[o];
      std::printf("output %zu: %s [", o, std::string(wgrt::dtype_name(t.dtype())).c_str());
      for (size_t d = 0; d < t.shape().size(); ++d) std::printf("%s%lld", d ? ", " : "", (long long)t.shape()[d]);
      std::printf("]");
      if (t.dtype() == wgrt::DType::F32) {
        const auto v = t.values<float>();
        for (size_t i = 0; i < v.size() && i < 4; ++i) std::printf(" %g", v[i]);
      }
      std::printf("\n");
    }
    std::printf("%s", program.memory_stats().to_string().c_str());
    return 0;
  } catch (const wgrt::Error& e) {
    std::fprintf(stderr, "error (%s): %s\n", std::string(wgrt::to_string(e.code())).c_str(), e.what());
    return 1;
  }
}
