// A matrix assembled elsewhere (FiPy's, in CSR form) solved by kfvm's solvers on the
// backend's device: kfvm.fipy's solver classes are built on it.
#include "kfvm_PyBindings.hpp"

#include <kfvm_Backends.hpp>
#include <kfvm_CrsMatrix.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_LinearSolver.hpp>

#include <algorithm>
#include <cmath>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kfvm::python {

namespace {

using IndexArray = py::array_t<long long, py::array::c_style | py::array::forcecast>;
using ValueArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

/// One solver and the matrix it was set up on. The matrix's structure stays on the
/// device while the next matrix has the same one: then only its values move there.
template <class Space>
class CsrSystem {
 public:
  CsrSystem(const std::string& solver,
            const std::map<std::string, std::string>& entries) {
    Parameters parameters;
    for (const auto& [key, value] : entries) parameters.set(key, value);
    solver_ = makeLinearSolver<Space>(solver, parameters);
  }

  /// Returns true when the structure changed (a new device matrix was built).
  bool setMatrix(Ordinal n, const IndexArray& indptr, const IndexArray& indices,
                 const ValueArray& data) {
    require(n >= 1, "set_matrix: the matrix needs at least one row, got ", n);
    require(indptr.ndim() == 1 && indptr.shape(0) == n + 1, "set_matrix: indptr has ",
            indptr.size(), " entries, a matrix of ", n, " rows needs ", n + 1);
    require(indices.ndim() == 1 && data.ndim() == 1 && indices.size() == data.size(),
            "set_matrix: indices (", indices.size(), ") and data (", data.size(),
            ") differ in length");
    const auto* p = indptr.data();
    const auto* c = indices.data();
    require(p[0] == 0 && p[n] == static_cast<long long>(indices.size()),
            "set_matrix: indptr runs from ", p[0], " to ", p[n], ", not from 0 to ",
            indices.size());
    for (Ordinal i = 0; i < n; ++i)
      require(p[i] <= p[i + 1], "set_matrix: indptr decreases at row ", i);
    for (py::ssize_t e = 0; e < indices.size(); ++e)
      require(c[e] >= 0 && c[e] < n, "set_matrix: column ", c[e], " of entry ", e,
              " is outside 0 .. ", n - 1);
    const bool same = n == matrix_.numRows() &&
                      Offset(indices.size()) == Offset(columns_.size()) &&
                      std::equal(offsets_.begin(), offsets_.end(), p,
                                 [](Offset a, long long b) { return a == Offset(b); }) &&
                      std::equal(columns_.begin(), columns_.end(), c,
                                 [](Ordinal a, long long b) { return a == Ordinal(b); });
    std::vector<Real> values(data.data(), data.data() + data.size());
    for (std::size_t e = 0; e < values.size(); ++e)
      require(std::isfinite(values[e]), "set_matrix: entry ", e, " is ", data.data()[e]);
    if (same) {
      Kokkos::View<const Real*, Kokkos::HostSpace,
                   Kokkos::MemoryTraits<Kokkos::Unmanaged>>
          host(values.data(), values.size());
      Kokkos::deep_copy(matrix_.values(), host);
    } else {
      offsets_.assign(p, p + n + 1);
      columns_.assign(c, c + indices.size());
      matrix_ = CrsMatrix<Space>::fromHost(n, n, offsets_, columns_, values);
      b_ = Vector<Space>("kfvm::python::CsrSystem::b", n);
      x_ = Vector<Space>("kfvm::python::CsrSystem::x", n);
    }
    solver_->setMatrix(matrix_);
    return !same;
  }

  /// Solves with x as the initial guess; x (a float64 array) holds the answer on return.
  StepReport solve(const ValueArray& b, py::array_t<double> x) {
    const Ordinal n = matrix_.numRows();
    require(n > 0, "solve: set_matrix first");
    require(b.ndim() == 1 && b.shape(0) == n, "solve: b has ", b.size(), " entries, the ",
            "matrix ", n, " rows");
    require(x.ndim() == 1 && x.shape(0) == n && x.writeable() &&
                (x.flags() & py::array::c_style),
            "solve: x must be a writeable contiguous float64 array of ", n, " entries");
    auto hostB = Kokkos::create_mirror_view(b_);
    auto hostX = Kokkos::create_mirror_view(x_);
    double* xs = x.mutable_data();
    for (Ordinal i = 0; i < n; ++i) {
      require(std::isfinite(b.data()[i]) && std::isfinite(xs[i]), "solve: b or x is ",
              "not finite at row ", i);
      hostB(i) = Real(b.data()[i]);
      hostX(i) = Real(xs[i]);
    }
    Kokkos::deep_copy(b_, hostB);
    Kokkos::deep_copy(x_, hostX);
    StepReport report;
    static_cast<SolverReport&>(report) = solver_->solve(b_, x_);
    report.totalIterations = report.iterations;
    Kokkos::deep_copy(hostX, x_);
    for (Ordinal i = 0; i < n; ++i) xs[i] = double(hostX(i));
    return report;
  }

  std::string name() const { return solver_->name(); }
  std::string preconditioner() const { return solver_->preconditionerName(); }

 private:
  std::unique_ptr<LinearSolver<Space>> solver_;
  CrsMatrix<Space> matrix_;
  std::vector<Offset> offsets_;
  std::vector<Ordinal> columns_;
  Vector<Space> b_, x_;
};

}  // namespace

template <class Space>
void bindLinearSystem(py::module_& backend) {
  using PySystem = Held<CsrSystem<Space>>;
  py::class_<PySystem>(backend, "CsrSystem",
                       "A CSR matrix assembled elsewhere, solved by a kfvm solver here")
      .def(py::init([](const std::string& solver,
                       const std::map<std::string, std::string>& parameters) {
             return new PySystem(solver, parameters);
           }),
           py::arg("solver"), py::arg("parameters"))
      .def(
          "set_matrix",
          [](PySystem& s, Ordinal n, const IndexArray& indptr, const IndexArray& indices,
             const ValueArray& data) {
            return s.value.setMatrix(n, indptr, indices, data);
          },
          py::arg("n"), py::arg("indptr"), py::arg("indices"), py::arg("data"))
      .def(
          "solve",
          [](PySystem& s, const ValueArray& b, py::array_t<double> x) {
            return s.value.solve(b, x);
          },
          py::arg("b"), py::arg("x"))
      .def_property_readonly("solver", [](const PySystem& s) { return s.value.name(); })
      .def_property_readonly("preconditioner",
                             [](const PySystem& s) { return s.value.preconditioner(); });
}

#define KFVM_PY_INSTANTIATE(Space) template void bindLinearSystem<Space>(py::module_&);
KFVM_FOR_EACH_BACKEND(KFVM_PY_INSTANTIATE)
#undef KFVM_PY_INSTANTIATE

}  // namespace kfvm::python
