// `wgrt._testing`: hooks for the package's tests only (allocation failure
// injection, live device bytes, a small graph built in C++, a fresh allocator
// registry). Not a stable API.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "gpu/buffer_usage.h"
#include "graph/graph.h"
#include "wgrt/error.h"

namespace wgrt::py {
namespace {

// inputs x, y: f32 [<= rows, cols]; output k (k = 1..n) is x + k * y, each the
// previous output plus y. Every output is a graph output with its own buffer.
std::unique_ptr<ExecutableGraph> add_chain(int64_t n, int64_t rows, int64_t cols) {
  if (n < 1) throw Error(ErrorCode::InvalidArgument, "add_graph: need at least one add");
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {rows, cols});
  const ValueId y = b.add_tensor(DType::F32, {rows, cols});
  b.mark_input(x);
  b.mark_input(y);
  ValueId prev = x;
  for (int64_t k = 0; k < n; ++k) {
    const ValueId out = b.add_tensor(DType::F32, {rows, cols});
    b.add_op("aten.add.Tensor", {prev, y, b.add_int(1), out});
    b.mark_output(out);
    prev = out;
  }
  return ExecutableGraph::load(default_runtime().device(), std::move(b).build());
}

}  // namespace

void bind_testing(nb::module_& t) {
  t.def("fail_nth_allocation", [](uint32_t n) { default_runtime().device().fail_nth_allocation_for_test(n); },
        nb::arg("n"), "The nth GPU buffer allocation from now fails with OutOfMemory (0 disarms).");
  t.def("live_device_bytes", [] { return default_runtime().device().live_buffer_bytes(); });
  t.def("add_graph", [](int64_t n, int64_t rows, int64_t cols) { return GraphRunner(add_chain(n, rows, cols)); },
        nb::arg("n"), nb::arg("rows") = 8, nb::arg("cols") = 4);
  t.def("register_allocator", [](const std::string& type) {
    const DeviceType dt = parse_device_type(type);
    Runtime& rt = default_runtime();
    if (dt == DeviceType::WebGPU) {
      rt.allocators().add(std::make_unique<WebGpuAllocator>(rt.device()));
    } else {
      rt.allocators().add(std::make_unique<CpuAllocator>());
    }
  }, "Registers another allocator on the default runtime (for the double-registration test).");
  t.def("registered", [](const std::string& type) { return default_runtime().allocators().has(parse_device_type(type)); });

  // A registry of its own, so tests do not change the default runtime's.
  nb::class_<DeviceAllocatorRegistry>(t, "AllocatorRegistry")
      .def(nb::init<>())
      .def("register", [](DeviceAllocatorRegistry& r, const std::string& type) {
        const DeviceType dt = parse_device_type(type);
        if (dt == DeviceType::WebGPU) {
          r.add(std::make_unique<WebGpuAllocator>(default_runtime().device()));
        } else {
          r.add(std::make_unique<CpuAllocator>());
        }
      })
      .def("has", [](const DeviceAllocatorRegistry& r, const std::string& type) { return r.has(parse_device_type(type)); })
      .def("allocate", [](const DeviceAllocatorRegistry& r, const std::string& type, uint64_t bytes) {
        DeviceMemoryBuffer m = r.get(parse_device_type(type)).allocate(bytes, "test allocation");
        nb::dict d;
        d["device"] = std::string(device_type_name(m.device_type()));
        d["size"] = m.size();
        d["usage"] = gpu::buffer_usage_names(m.usage());
        return d;  // the allocation is freed here
      });
}

}  // namespace wgrt::py
