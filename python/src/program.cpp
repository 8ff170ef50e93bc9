// `wgrt.Program`: a .pte program on the GPU; each method is a Graph runner
// that keeps the program alive.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "cli/environment.h"

namespace wgrt::py {

void bind_program(nb::module_& m) {
  nb::class_<api::Program>(m, "Program", "A .pte program loaded on the GPU.")
      .def_static("_load", [](const std::string& path, const std::string& ptd) {
        return api::Program::load(default_runtime(), path, ptd, api::load_options_from_environment());
      }, nb::arg("path"), nb::arg("ptd") = "")
      .def_prop_ro("path", &api::Program::path)
      .def_prop_ro("methods", &api::Program::method_names)
      .def("_method", [](const api::Program& p, const std::string& name) { return GraphRunner(p.method(name)); })
      .def("memory_stats", [](const api::Program& p) { return memory_stats_dict(p.memory_stats()); });
}

}  // namespace wgrt::py
