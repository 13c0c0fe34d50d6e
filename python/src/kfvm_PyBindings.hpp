#ifndef KFVM_PY_BINDINGS_HPP
#define KFVM_PY_BINDINGS_HPP

// What the binding files share: Held<T> (a kfvm object with the Kokkos session it needs)
// and the bind functions, one per area, each a template over the backend.

#include "kfvm_PySession.hpp"

#include <kfvm_Field.hpp>
#include <kfvm_Mesh.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <utility>

namespace kfvm::python {

namespace py = pybind11;

/// A kfvm object as Python holds it. The session comes first: it is constructed before
/// the object (Kokkos runs) and destroyed after it (Kokkos still runs).
template <class T>
struct Held {
  template <class... Arguments>
  explicit Held(Arguments&&... arguments)
      : session(python::session()), value(std::forward<Arguments>(arguments)...) {}
  SessionRef session;
  T value;
};

template <class Space>
using PyMesh = Held<Mesh<Space>>;
template <class Space>
using PyCellField = Held<CellField<Space>>;
template <class Space>
using PyFaceField = Held<FaceField<Space>>;

/// A 1D View as a new NumPy array (a copy on the host).
template <class View>
py::array_t<Real> copyToNumpy(const View& view) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  py::array_t<Real> array(py::ssize_t(host.extent(0)));
  auto out = array.template mutable_unchecked<1>();
  for (py::ssize_t i = 0; i < py::ssize_t(host.extent(0)); ++i) out(i) = host(i);
  return array;
}

/// An (n, k) View as a new (n, k) NumPy array.
template <class View>
py::array_t<Real> copyRowsToNumpy(const View& view) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  py::array_t<Real> array({py::ssize_t(host.extent(0)), py::ssize_t(host.extent(1))});
  auto out = array.template mutable_unchecked<2>();
  for (py::ssize_t i = 0; i < py::ssize_t(host.extent(0)); ++i)
    for (py::ssize_t j = 0; j < py::ssize_t(host.extent(1)); ++j) out(i, j) = host(i, j);
  return array;
}

template <class Space>
void bindMeshFields(py::module_& backend);
template <class Space>
void bindEquations(py::module_& backend);
template <class Space>
void bindBackendOutput(py::module_& backend);
/// CsrSystem: a matrix assembled elsewhere (CSR arrays) solved by a kfvm solver.
template <class Space>
void bindLinearSystem(py::module_& backend);

/// Backend-independent types: BoundaryCondition, Polynomial, the reports.
void bindSharedEquationTypes(py::module_& module);
/// Decks, expressions, PNG snapshots, checkpoints, the .pvd series, ResourceWatch.
void bindSharedOutput(py::module_& module);

}  // namespace kfvm::python

#endif
