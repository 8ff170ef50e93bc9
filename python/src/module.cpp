// The extension module `wgrt._wgrt`: errors, the default Runtime, device
// tensors and the graph runner. LLM, .pte and test-only bindings live in
// their own files.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <exception>
#include <span>

#include "bindings.h"
#include "gpu/buffer_usage.h"
#include "graph/memory_plan.h"
#include "wgrt/error.h"
#include "wgrt/version.h"

namespace wgrt::py {

namespace {

PyObject* g_error_type = nullptr;  // wgrt.Error, a RuntimeError with .code

nb::tuple shape_tuple(const Dims& dims) {
  nb::list l;
  for (int64_t d : dims) l.append(d);
  return nb::tuple(l);
}

nb::dlpack::dtype dlpack_dtype(DType dtype) {
  using Code = nb::dlpack::dtype_code;
  auto make = [](Code code, uint8_t bits) { return nb::dlpack::dtype{uint8_t(code), bits, 1}; };
  switch (dtype) {
    case DType::F32: return make(Code::Float, 32);
    case DType::F16: return make(Code::Float, 16);
    case DType::I32: return make(Code::Int, 32);
    case DType::I64: return make(Code::Int, 64);
    case DType::U8: return make(Code::UInt, 8);
    case DType::I8: return make(Code::Int, 8);
    case DType::Bool: return make(Code::Bool, 8);
  }
  return make(Code::Float, 32);
}

nb::list specs(const Graph& g, const std::vector<ValueId>& ids) {
  nb::list out;
  for (ValueId id : ids) {
    if (std::holds_alternative<SymInt>(g.values[id])) {
      out.append(nb::make_tuple(nb::tuple(), "int64"));  // a symbolic int: one integer
    } else {
      const Tensor& t = g.tensor(id);
      out.append(nb::make_tuple(shape_tuple(t.max_dims), numpy_dtype_name(t.dtype)));
    }
  }
  return out;
}

}  // namespace

Runtime& default_runtime() { return Runtime::process_default(); }

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

DType dtype_from_dlpack(nb::dlpack::dtype dt) {
  using Code = nb::dlpack::dtype_code;
  const auto code = Code(dt.code);
  if (dt.lanes == 1) {
    if (code == Code::Float && dt.bits == 32) return DType::F32;
    if (code == Code::Float && dt.bits == 16) return DType::F16;
    if (code == Code::Int && dt.bits == 32) return DType::I32;
    if (code == Code::Int && dt.bits == 64) return DType::I64;
    if (code == Code::Int && dt.bits == 8) return DType::I8;
    if (code == Code::UInt && dt.bits == 8) return DType::U8;
    if (code == Code::Bool && dt.bits == 8) return DType::Bool;
  }
  throw Error(ErrorCode::InvalidArgument, "unsupported array dtype (DLPack code " + std::to_string(dt.code) +
                                              ", " + std::to_string(dt.bits) + " bits); wgrt takes float32, "
                                              "float16, int64, int32, int8, uint8 and bool");
}

nb::object numpy_from_bytes(DType dtype, const Dims& dims, std::vector<uint8_t> bytes) {
  auto* owned = new std::vector<uint8_t>(std::move(bytes));
  if (owned->empty()) owned->reserve(8);  // numpy wants a non-null pointer even for no elements
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<uint8_t>*>(p); });
  std::vector<size_t> shape(dims.begin(), dims.end());
  nb::ndarray<nb::numpy> array(owned->data(), shape.size(), shape.data(), owner, nullptr, dlpack_dtype(dtype));
  return nb::cast(array, nb::rv_policy::reference);
}

nb::object DeviceTensor::numpy() const {
  std::vector<uint8_t> device = memory ? memory.gpu_buffer().read(0, live_bytes()) : std::vector<uint8_t>{};
  return numpy_from_bytes(dtype, dims, to_host_layout(dtype, std::move(device)));
}

nb::list GraphRunner::run(nb::list inputs, std::vector<bool> device_outputs) {
  using HostArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;
  std::vector<HostArray> arrays;  // keeps the host inputs alive through the call
  arrays.reserve(inputs.size());
  std::vector<InputView> views;
  for (size_t i = 0; i < inputs.size(); ++i) {
    nb::handle h = inputs[i];
    if (nb::isinstance<DeviceTensor>(h)) {
      const DeviceTensor& t = nb::cast<const DeviceTensor&>(h);
      if (!t.memory) {
        views.push_back(HostTensorView{t.dtype, t.dims, {}});  // no elements: nothing to bind
      } else {
        views.push_back(DeviceTensorView{t.dtype, t.dims, &t.memory.gpu_buffer()});
      }
      continue;
    }
    HostArray a;
    if (!nb::try_cast(h, a)) {
      throw Error(ErrorCode::InvalidArgument, "input " + std::to_string(i) +
                                                  ": expected a wgrt.Tensor or a C-contiguous CPU array, got " +
                                                  std::string(nb::str(nb::handle(h.type())).c_str()));
    }
    arrays.push_back(a);
    Dims dims(a.ndim());
    for (size_t d = 0; d < a.ndim(); ++d) dims[d] = int64_t(a.shape(d));
    const DType dtype = dtype_from_dlpack(a.dtype());
    const auto* data = static_cast<const uint8_t*>(a.data());
    views.push_back(HostTensorView{dtype, dims, std::span(data, a.size() * host_size(dtype))});
  }
  ExecuteOptions options;
  options.device_outputs = std::move(device_outputs);
  if (std::find(options.device_outputs.begin(), options.device_outputs.end(), true) != options.device_outputs.end()) {
    options.allocator = &default_runtime().allocators().get(DeviceType::WebGPU);
  }
  std::vector<OutputTensor> outs = graph_->run(views, options);
  nb::list result;
  for (OutputTensor& o : outs) {
    if (o.on_device) {
      result.append(nb::cast(DeviceTensor{o.dtype, std::move(o.dims), std::move(o.memory)}));
    } else {
      result.append(numpy_from_bytes(o.dtype, o.dims, std::move(o.data)));
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

}  // namespace wgrt::py

NB_MODULE(_wgrt, m) {
  using namespace wgrt;
  using namespace wgrt::py;
  nb::set_leak_warnings(false);  // the default Runtime is kept until exit on purpose
  m.attr("__version__") = WGRT_VERSION;

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

  m.def("adapter_info", [] {
    const auto& a = default_runtime().device().adapter_info();
    nb::dict d;
    d["name"] = a.name;
    d["backend"] = a.backend;
    d["device_type"] = a.device_type;
    d["driver"] = a.driver;
    return d;
  }, "The WebGPU adapter of the default runtime (created on first use).");

  nb::class_<DeviceTensor>(m, "Tensor", "A tensor in GPU memory, owned by this object.")
      .def_prop_ro("shape", [](const DeviceTensor& t) { return shape_tuple(t.dims); })
      .def_prop_ro("dtype", [](const DeviceTensor& t) { return numpy_dtype_name(t.dtype); })
      .def_prop_ro("device", [](const DeviceTensor& t) { return std::string(device_type_name(t.memory ? t.memory.device_type() : DeviceType::WebGPU)); })
      .def_prop_ro("nbytes", [](const DeviceTensor& t) { return t.live_bytes(); })
      .def("numpy", &DeviceTensor::numpy, "Copies the tensor to a new numpy array.")
      .def("_buffer_id", [](const DeviceTensor& t) -> uint64_t {
        return t.memory ? uint64_t(reinterpret_cast<uintptr_t>(t.memory.gpu_buffer().raw())) : 0;
      })
      .def("_buffer_usage", [](const DeviceTensor& t) { return gpu::buffer_usage_names(t.memory.usage()); })
      .def("_buffer_size", [](const DeviceTensor& t) { return t.memory.size(); })
      .def("__repr__", [](const DeviceTensor& t) {
        return "wgrt.Tensor(shape=" + dims_string(t.dims) + ", dtype=" + numpy_dtype_name(t.dtype) + ", device=webgpu)";
      });

  nb::class_<GraphRunner>(m, "Graph", "One loaded graph: a .pte method or a test graph.")
      .def("_run", &GraphRunner::run, nb::arg("inputs"), nb::arg("device_outputs"))
      .def_prop_ro("input_specs", [](GraphRunner& r) { return specs(r.graph().graph(), r.graph().graph().inputs); })
      .def_prop_ro("output_specs", [](GraphRunner& r) { return specs(r.graph().graph(), r.graph().graph().outputs); })
      .def("memory_stats", [](GraphRunner& r) { return memory_stats_dict(r.graph().memory_stats()); })
      .def("_last_traffic", [](GraphRunner& r) {
        const ExecuteTraffic& t = r.graph().last_traffic();
        nb::dict d;
        d["host_upload_bytes"] = t.host_upload_bytes;
        d["readback_bytes"] = t.readback_bytes;
        d["device_output_bytes"] = t.device_output_bytes;
        d["rebound_dispatches"] = t.rebound_dispatches;
        nb::list bound;
        for (const void* b : t.bound_input_buffers) bound.append(uint64_t(reinterpret_cast<uintptr_t>(b)));
        d["bound_input_buffers"] = bound;
        return d;
      })
      .def("_output_info", [](GraphRunner& r) {
        const Graph& g = r.graph().graph();
        nb::list out;
        for (ValueId id : g.outputs) {
          nb::dict d;
          d["storage"] = std::string(storage_name(g.tensor(id).storage));
          d["mem_obj_id"] = g.tensor(id).mem_obj_id;
          d["live_shape"] = shape_tuple(g.tensor(id).cur_dims);
          d["buffer_id"] = uint64_t(reinterpret_cast<uintptr_t>(r.graph().tensor_buffer(id).raw()));
          out.append(d);
        }
        return out;
      });

  bind_llm(m);
  bind_program(m);
  nb::module_ testing = m.def_submodule("_testing", "Test-only hooks; not a stable API.");
  bind_testing(testing);
}
