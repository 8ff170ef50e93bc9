// `wgrt.Program`: a .pte program on the GPU; each method is a Graph runner
// that keeps the program alive.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "runtime/program.h"

namespace wgrt::py {
namespace {

struct PyProgram {
  std::unique_ptr<Program> program;
};

}  // namespace

void bind_program(nb::module_& m) {
  nb::class_<PyProgram>(m, "Program", "A .pte program loaded on the GPU.")
      .def_static("_load", [](const std::string& path, const std::string& ptd) {
        return PyProgram{Program::load(default_runtime().device(), path, ptd)};
      }, nb::arg("path"), nb::arg("ptd") = "")
      .def_prop_ro("path", [](const PyProgram& p) { return p.program->path(); })
      .def_prop_ro("methods", [](const PyProgram& p) { return p.program->method_names(); })
      .def("_method", [](nb::handle self, const std::string& name) {
        PyProgram& p = nb::cast<PyProgram&>(self);
        Method& method = p.program->method(name);
        return GraphRunner(&method.graph(), nb::borrow(self));
      })
      .def("memory_stats", [](const PyProgram& p) { return memory_stats_dict(p.program->memory_stats()); });
}

}  // namespace wgrt::py
