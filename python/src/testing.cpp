// `wgrt._testing`: hooks for the package's tests only (allocation failure
// injection, live device bytes, a small graph built in C++, a fresh allocator
// registry), from wgrt/testing.h. Not a stable API.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "wgrt/testing.h"

namespace wgrt::py {

void bind_testing(nb::module_& t) {
  namespace testing = api::testing;
  t.def("fail_nth_allocation", [](uint32_t n) { testing::fail_nth_allocation(default_runtime(), n); },
        nb::arg("n"), "The nth GPU buffer allocation from now fails with OutOfMemory (0 disarms).");
  t.def("live_device_bytes", [] { return default_runtime().live_buffer_bytes(); });
  t.def("add_graph", [](int64_t n, int64_t rows, int64_t cols) {
    return GraphRunner(testing::add_chain(default_runtime(), n, rows, cols).method("add_chain"));
  }, nb::arg("n"), nb::arg("rows") = 8, nb::arg("cols") = 4);
  t.def("register_allocator", [](const std::string& type) { testing::register_allocator(default_runtime(), type); },
        "Registers another allocator on the default runtime (for the double-registration test).");
  t.def("registered", [](const std::string& type) { return testing::allocator_registered(default_runtime(), type); });

  // A registry of its own, so tests do not change the default runtime's.
  nb::class_<testing::AllocatorRegistry>(t, "AllocatorRegistry")
      .def("__init__", [](testing::AllocatorRegistry* r) { new (r) testing::AllocatorRegistry(default_runtime()); })
      .def("register", &testing::AllocatorRegistry::add)
      .def("has", &testing::AllocatorRegistry::has)
      .def("allocate", [](const testing::AllocatorRegistry& r, const std::string& type, uint64_t bytes) {
        const testing::Allocation a = r.allocate(type, bytes);
        nb::dict d;
        d["device"] = a.device;
        d["size"] = a.size;
        d["usage"] = a.usage;
        return d;  // the allocation is freed already
      });
}

}  // namespace wgrt::py
