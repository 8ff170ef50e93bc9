// The extension module `wgrt._wgrt`: errors, the default Runtime, device
// tensors and the graph runner. LLM, .pte and test-only bindings live in
// their own files.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <span>

#include "bindings.h"
#include "wgrt/dlpack.h"
#include "cli/environment.h"
#include "wgrt/error.h"
#include "wgrt/program.h"
#include "wgrt/testing.h"
#include "wgrt/version.h"

namespace wgrt::py {

namespace {

PyObject* g_error_type = nullptr;  // wgrt.Error, a RuntimeError with .code

nb::tuple shape_tuple(const std::vector<int64_t>& dims) {
  nb::list l;
  for (int64_t d : dims) l.append(d);
  return nb::tuple(l);
}

std::string shape_string(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

nb::dlpack::dtype nb_dtype(DType dtype) {
  const api::dlpack::DataType t = api::dlpack::data_type(dtype);
  return nb::dlpack::dtype{t.code, t.bits, t.lanes};
}

nb::list specs(const std::vector<api::TensorInfo>& infos) {
  nb::list out;
  for (const api::TensorInfo& t : infos) {
    if (t.symbolic_int) {
      out.append(nb::make_tuple(nb::tuple(), "int64"));  // a symbolic int: one integer
    } else {
      out.append(nb::make_tuple(shape_tuple(t.max_shape), numpy_dtype_name(t.dtype)));
    }
  }
  return out;
}

uint64_t buffer_id(const void* buffer) { return uint64_t(reinterpret_cast<uintptr_t>(buffer)); }

}  // namespace

// The process runtime, with the limits mode WGRT_LIMITS names (adapter when
// unset; wgrt.configure(limits=...) before first use sets the variable).
api::Runtime default_runtime() {
  return api::Runtime::process_default(api::runtime_options_from_environment());
}

const char* numpy_dtype_name(DType dtype) {
  switch (dtype) {
    case DType::F32: return "float32";
    case DType::F16: return "float16";
    case DType::I32: return "int32";
    case DType::I64: return "int64";
    case DType::U8: return "uint8";
    case DType::I8: return "int8";
    case DType::Bool: return "bool";
  }
  return "?";
}

nb::object numpy_from_tensor(api::Tensor&& tensor) {
  auto* owned = new api::Tensor(std::move(tensor));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<api::Tensor*>(p); });
  static uint8_t no_bytes[8];  // numpy wants a non-null pointer even for no elements
  void* data = owned->bytes().empty() ? no_bytes : owned->bytes().data();
  std::vector<size_t> shape(owned->shape().begin(), owned->shape().end());
  nb::ndarray<nb::numpy> array(data, shape.size(), shape.data(), owner, nullptr, nb_dtype(owned->dtype()));
  return nb::cast(array, nb::rv_policy::reference);
}

nb::list GraphRunner::run(nb::list inputs, std::vector<bool> device_outputs) {
  using HostArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;
  std::vector<HostArray> arrays;  // keeps the host inputs alive through the call
  arrays.reserve(inputs.size());
  std::vector<api::Input> views;
  for (size_t i = 0; i < inputs.size(); ++i) {
    nb::handle h = inputs[i];
    if (nb::isinstance<api::DeviceTensor>(h)) {
      views.emplace_back(nb::cast<const api::DeviceTensor&>(h));
      continue;
    }
    HostArray a;
    if (!nb::try_cast(h, a)) {
      throw Error(ErrorCode::InvalidArgument, "input " + std::to_string(i) +
                                                  ": expected a wgrt.Tensor or a C-contiguous CPU array, got " +
                                                  std::string(nb::str(nb::handle(h.type())).c_str()));
    }
    arrays.push_back(a);
    std::vector<int64_t> dims(a.ndim());
    for (size_t d = 0; d < a.ndim(); ++d) dims[d] = int64_t(a.shape(d));
    const nb::dlpack::dtype dt = a.dtype();
    const DType dtype = api::dlpack::dtype({dt.code, dt.bits, dt.lanes});
    const auto* data = static_cast<const uint8_t*>(a.data());
    views.emplace_back(dtype, std::move(dims), std::span(data, a.size() * host_size(dtype)));
  }
  api::RunOptions options;
  options.device_outputs = std::move(device_outputs);
  std::vector<api::Output> outs = method_.execute(views, options);
  nb::list result;
  for (api::Output& o : outs) {
    if (o.on_device) {
      result.append(nb::cast(std::move(o.device)));
    } else {
      result.append(numpy_from_tensor(std::move(o.host)));
    }
  }
  return result;
}

nb::dict memory_stats_dict(const MemoryStats& s) {
  nb::dict d;
  d["tensor_bytes"] = s.tensor_bytes;
  d["shared_bytes"] = s.shared_bytes;
  d["unshared_bytes"] = s.unshared_bytes;
  d["state_bytes"] = s.state_bytes;
  d["constant_bytes"] = s.constant_bytes;
  d["staging_bytes"] = s.staging_bytes;
  d["uniform_bytes"] = s.uniform_bytes;
  d["scratch_bytes"] = s.scratch_bytes;
  d["num_shared_objects"] = s.num_shared_objects;
  d["total_bytes"] = s.total_bytes;
  d["unaliased_bytes"] = s.unaliased_bytes;
  return d;
}

namespace {

// wgrt.Error, with .code, for every wgrt::Error that reaches Python.
void bind_errors(nb::module_& m) {
  g_error_type = PyErr_NewExceptionWithDoc("wgrt.Error", "An error from wgrt; .code names its kind.",
                                           PyExc_RuntimeError, nullptr);
  m.attr("Error") = nb::handle(g_error_type);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      nb::object err = nb::handle(g_error_type)(e.what());
      err.attr("code") = std::string(to_string(e.code()));
      PyErr_SetObject(g_error_type, err.ptr());
    }
  });
}

// wgrt.Tensor: a tensor in GPU memory.
void bind_device_tensor(nb::module_& m) {
  using api::DeviceTensor;
  nb::class_<DeviceTensor>(m, "Tensor", "A tensor in GPU memory, owned by this object.")
      .def_prop_ro("shape", [](const DeviceTensor& t) { return shape_tuple(t.shape()); })
      .def_prop_ro("dtype", [](const DeviceTensor& t) { return numpy_dtype_name(t.dtype()); })
      .def_prop_ro("device", &DeviceTensor::device)
      .def_prop_ro("nbytes", &DeviceTensor::nbytes)
      .def("numpy", [](const DeviceTensor& t) { return numpy_from_tensor(t.to_host()); },
           "Copies the tensor to a new numpy array.")
      .def("_buffer_id", [](const DeviceTensor& t) { return buffer_id(t.webgpu_buffer()); })
      .def("_buffer_usage", &DeviceTensor::buffer_usage)
      .def("_buffer_size", &DeviceTensor::buffer_bytes)
      .def("__repr__", [](const DeviceTensor& t) {
        return "wgrt.Tensor(shape=" + shape_string(t.shape()) + ", dtype=" + numpy_dtype_name(t.dtype()) +
               ", device=webgpu)";
      });
}

// wgrt.Graph: one loaded graph and its test hooks.
void bind_graph(nb::module_& m) {
  nb::class_<GraphRunner>(m, "Graph", "One loaded graph: a .pte method or a test graph.")
      .def("_run", &GraphRunner::run, nb::arg("inputs"), nb::arg("device_outputs"))
      .def_prop_ro("input_specs", [](GraphRunner& r) { return specs(r.method().inputs()); })
      .def_prop_ro("output_specs", [](GraphRunner& r) { return specs(r.method().outputs()); })
      .def("memory_stats", [](GraphRunner& r) { return memory_stats_dict(r.method().memory_stats()); })
      .def("_last_traffic", [](GraphRunner& r) {
        const api::testing::Traffic t = api::testing::last_traffic(r.method());
        nb::dict d;
        d["host_upload_bytes"] = t.host_upload_bytes;
        d["readback_bytes"] = t.readback_bytes;
        d["device_output_bytes"] = t.device_output_bytes;
        d["rebound_dispatches"] = t.rebound_dispatches;
        nb::list bound;
        for (const void* b : t.bound_input_buffers) bound.append(buffer_id(b));
        d["bound_input_buffers"] = bound;
        return d;
      })
      .def("_output_info", [](GraphRunner& r) {
        nb::list out;
        for (const api::testing::OutputStorage& o : api::testing::output_storage(r.method())) {
          nb::dict d;
          d["storage"] = o.storage;
          d["mem_obj_id"] = o.mem_obj_id;
          d["live_shape"] = shape_tuple(o.live_shape);
          d["buffer_id"] = buffer_id(o.buffer);
          out.append(d);
        }
        return out;
      });
}

}  // namespace
}  // namespace wgrt::py

NB_MODULE(_wgrt, m) {
  using namespace wgrt;
  using namespace wgrt::py;
  nb::set_leak_warnings(false);  // the default Runtime is kept until exit on purpose
  m.attr("__version__") = WGRT_VERSION;
  bind_errors(m);
  m.def("_ptd_beside", &api::ptd_beside, nb::arg("pte_path"),
        "The .ptd beside a .pte (model.pte -> model.ptd), or '' when there is none.");

  m.def("adapter_info", [] {
    const api::AdapterInfo a = default_runtime().adapter_info();
    nb::dict d;
    d["name"] = a.name;
    d["backend"] = a.backend;
    d["device_type"] = a.device_type;
    d["driver"] = a.driver;
    d["limits"] = api::limits_mode_name(default_runtime().limits_mode());
    return d;
  }, "The WebGPU adapter of the default runtime (created on first use).");

  m.def("adapters", [] {
    nb::list out;
    for (const api::AdapterInfo& a : api::list_adapters()) {
      nb::dict d;
      d["name"] = a.name;
      d["backend"] = a.backend;
      d["device_type"] = a.device_type;
      out.append(d);
    }
    return out;
  }, "Every WebGPU adapter of this machine, in the order load(devices=...) numbers them.");

  bind_device_tensor(m);
  bind_graph(m);
  bind_llm(m);
  bind_program(m);
  nb::module_ testing = m.def_submodule("_testing", "Test-only hooks; not a stable API.");
  bind_testing(testing);
}
