// _kfvm: the extension module under the kfvm package. One submodule per backend of this
// build (_kfvm.Serial, _kfvm.OpenMP, _kfvm.Cuda, ...), each with the same classes;
// the backend-free types at the top.
#include "kfvm_PyBindings.hpp"

#include <kfvm_Backends.hpp>
#include <kfvm_Config.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_SystemInfo.hpp>

#include <string>

namespace py = pybind11;
using namespace kfvm::python;

namespace {

template <class Space>
void bindBackend(py::module_& module) {
  py::module_ backend = module.def_submodule(Space::name(), "kfvm on this backend");
  bindMeshFields<Space>(backend);
  bindEquations<Space>(backend);
  bindBackendOutput<Space>(backend);
  bindLinearSystem<Space>(backend);
}

py::dict infoDict() {
  const auto running = session();
  const kfvm::SystemInfo info = kfvm::systemInfo();
  py::dict out;
  out["kfvm_version"] = info.kfvmVersion;
  out["kokkos_version"] = info.kokkosVersion;
  out["real_type"] = info.realType;
  out["kokkos_execution_spaces"] = info.kokkosExecutionSpaces;
  out["backends"] = info.kfvmBackends;
  out["default_backend"] = info.defaultExecutionSpace;
  out["host_concurrency"] = info.hostConcurrency;
  out["kokkos_kernels"] = info.kokkosKernels;
  out["trilinos"] = info.trilinos;
  out["mpi"] = info.mpi;
  py::list memories;
  for (const auto& m : info.memories) {
    py::dict memory;
    memory["where"] = m.where;
    memory["backend"] = m.backend;
    memory["total_bytes"] = m.totalBytes;
    memory["free_bytes"] = m.freeBytes;
    memories.append(memory);
  }
  out["memories"] = memories;
  return out;
}

}  // namespace

PYBIND11_MODULE(_kfvm, module) {
  module.doc() = "kfvm's C++ library (the kfvm package wraps it; use that)";
  // kfvm.Error is the package's own class (kfvm/_errors.py): it exists before either of
  // a build's modules is loaded (kfvm/_extension.py). One reference, kept for the
  // process: the translator may run until the interpreter ends.
  static const py::handle error =
      py::object(py::module_::import("kfvm._errors").attr("Error")).release();
  module.attr("Error") = error;
  py::register_exception_translator([](std::exception_ptr pointer) {
    try {
      if (pointer) std::rethrow_exception(pointer);
    } catch (const kfvm::Error& e) {
      PyErr_SetString(error.ptr(), e.message().c_str());
    }
  });

  module.attr("real_type") = sizeof(kfvm::Real) == 8 ? "float64" : "float32";
  module.attr("backends") = kfvm::enabledBackends();
  module.attr("default_backend") = Kokkos::DefaultExecutionSpace::name();
  module.attr("version") = KFVM_VERSION_STRING;
  module.attr("max_coupled_variables") = kfvm::maxCoupledVariables;
  module.def(
      "initialize",
      [](int numThreads, int deviceId) { initialize(numThreads, deviceId); },
      py::arg("num_threads") = -1, py::arg("device_id") = -1);
  module.def("release", &release);
  module.def("is_running", &isRunning);
  module.def("info", &infoDict);
  module.def("kokkos_configuration", [] {
    const auto running = session();
    return kfvm::kokkosConfigurationText();
  });
  module.def("fence", [] {
    const auto running = session();
    Kokkos::fence();
  });

  bindSharedEquationTypes(module);
  bindSharedOutput(module);
#define KFVM_PY_BIND_BACKEND(Space) bindBackend<Space>(module);
  KFVM_FOR_EACH_BACKEND(KFVM_PY_BIND_BACKEND)
#undef KFVM_PY_BIND_BACKEND
}
