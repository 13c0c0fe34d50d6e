// Equations, coupled systems and their steppers, for each backend; the backend-free
// types (BoundaryCondition, Polynomial, the reports).
#include "kfvm_PyBindings.hpp"

#include <kfvm_Backends.hpp>
#include <kfvm_CoupledStepper.hpp>
#include <kfvm_CoupledSystem.hpp>
#include <kfvm_DirectSolver.hpp>
#include <kfvm_Equation.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ExplicitStepper.hpp>
#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_LinearSolver.hpp>
#include <kfvm_Preconditioner.hpp>

#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kfvm::python {

namespace {

Parameters parametersOf(const std::map<std::string, std::string>& entries) {
  Parameters parameters;
  for (const auto& [key, value] : entries) parameters.set(key, value);
  return parameters;
}

Real finite(double value, const char* what) {
  require(std::isfinite(value), what, " must be finite, got ", value);
  return Real(value);
}

DiffusionSign diffusionSignFromName(const std::string& name) {
  if (name == "non-negative") return DiffusionSign::NonNegative;
  if (name == "either") return DiffusionSign::Either;
  fail("unknown diffusion sign '", name, "' (use 'non-negative' or 'either')");
}

ImplicitSourceForm implicitSourceFormFromName(const std::string& name) {
  if (name == "matrix") return ImplicitSourceForm::Matrix;
  if (name == "diagonal-only") return ImplicitSourceForm::DiagonalOnly;
  fail("unknown implicit source form '", name, "' (use 'matrix' or 'diagonal-only')");
}

ExplicitDiffusionBoundary explicitBoundaryFromName(const std::string& name) {
  if (name == "conditions") return ExplicitDiffusionBoundary::EquationConditions;
  if (name == "zero-flux") return ExplicitDiffusionBoundary::ZeroFlux;
  fail("unknown explicit diffusion boundary '", name,
       "' (use 'conditions' or 'zero-flux')");
}

std::vector<Real> realsOf(const std::vector<double>& values) {
  return std::vector<Real>(values.begin(), values.end());
}

template <class Space>
std::vector<CellField<Space>> fieldsOf(const std::vector<PyCellField<Space>*>& fields) {
  std::vector<CellField<Space>> out;
  for (const auto* field : fields) {
    require(field != nullptr, "a field of the coupled system is None");
    out.push_back(field->value);
  }
  return out;
}

}  // namespace

void bindSharedEquationTypes(py::module_& module) {
  py::class_<BoundaryCondition>(module, "BoundaryCondition",
                                "a phi + b dphi/dn = g on a patch (n the outward normal)")
      .def_static(
          "dirichlet", [](double v) { return BoundaryCondition::dirichlet(Real(v)); },
          py::arg("value"))
      .def_static(
          "dirichlet",
          [](const std::vector<double>& v) {
            return BoundaryCondition::dirichlet(realsOf(v));
          },
          py::arg("face_values"))
      .def_static(
          "neumann", [](double q) { return BoundaryCondition::neumann(Real(q)); },
          py::arg("gradient"))
      .def_static(
          "neumann",
          [](const std::vector<double>& q) {
            return BoundaryCondition::neumann(realsOf(q));
          },
          py::arg("face_gradients"))
      .def_static(
          "robin",
          [](double a, double b, double g) {
            return BoundaryCondition::robin(Real(a), Real(b), Real(g));
          },
          py::arg("a"), py::arg("b"), py::arg("g"))
      .def_static(
          "robin",
          [](double a, double b, const std::vector<double>& g) {
            return BoundaryCondition::robin(Real(a), Real(b), realsOf(g));
          },
          py::arg("a"), py::arg("b"), py::arg("face_values"))
      .def_property_readonly("a", &BoundaryCondition::a)
      .def_property_readonly("b", &BoundaryCondition::b)
      .def("__repr__", &BoundaryCondition::describe);

  py::class_<Polynomial>(module, "Polynomial",
                         "p(phi) = c0 + c1 phi + ... + c7 phi^7, a coefficient or source "
                         "that depends on the solution, evaluated on the device at every "
                         "sweep. Polynomial([1, 0, 1]) is 1 + phi**2.")
      .def(py::init([](const std::vector<double>& coefficients) {
             require(coefficients.size() >= 1 &&
                         coefficients.size() <= std::size_t(Polynomial::maxTerms),
                     "a Polynomial takes 1 to ", Polynomial::maxTerms,
                     " coefficients, got ", coefficients.size());
             Polynomial p;
             for (double c : coefficients) {
               require(std::isfinite(c), "Polynomial coefficient ", p.terms,
                       " must be finite, got ", c);
               p.coefficients[p.terms++] = Real(c);
             }
             return p;
           }),
           py::arg("coefficients"))
      .def_property_readonly("coefficients",
                             [](const Polynomial& p) {
                               return std::vector<double>(p.coefficients,
                                                          p.coefficients + p.terms);
                             })
      .def("__call__",
           [](const Polynomial& p, double phi) { return double(p(Real(phi))); })
      .def("derivative", [](const Polynomial& p, double phi) {
        return double(p.derivative(Real(phi)));
      });

  py::class_<StepReport>(module, "StepReport",
                         "What a solve, a sweep or a time step did (kfvm::StepReport).")
      .def(py::init<>())
      .def_readwrite("solver", &StepReport::solver)
      .def_readwrite("converged", &StepReport::converged)
      .def_readwrite("iterations", &StepReport::iterations,
                     "linear iterations of the last solve")
      .def_readwrite("initial_residual", &StepReport::initialResidual)
      .def_readwrite("final_residual", &StepReport::finalResidual)
      .def_readwrite("reason", &StepReport::reason)
      .def_readwrite("sweeps", &StepReport::sweeps)
      .def_readwrite("total_iterations", &StepReport::totalIterations)
      .def_readwrite("sweep_residuals", &StepReport::sweepResiduals)
      .def("__bool__", [](const StepReport& r) { return r.converged; })
      .def("__repr__", [](const StepReport& r) {
        return Details::concatenate("StepReport(solver='", r.solver,
                                    "', converged=", r.converged ? "True" : "False",
                                    ", iterations=", r.iterations, ", sweeps=", r.sweeps,
                                    ", final_residual=", r.finalResidual, ", reason='",
                                    r.reason, "')");
      });

  module.def("linear_solver_names", &linearSolverNames);
  module.def("direct_solver_by_default", &directSolverByDefault, py::arg("dimension"),
             py::arg("cells"));
  module.def("preconditioner_names", &preconditionerNames);
  module.def("convection_scheme_names", &convectionSchemeNames);
}

template <class Space>
void bindEquations(py::module_& backend) {
  using PyEquation = Held<Equation<Space>>;
  using Cell = PyCellField<Space>;
  using Face = PyFaceField<Space>;
  py::class_<PyEquation>(backend, "Equation")
      .def(py::init([](const PyMesh<Space>& mesh) { return new PyEquation(mesh.value); }),
           py::arg("mesh"))
      .def("transient",
           [](PyEquation& e, double rho) { e.value.transient(finite(rho, "rho")); })
      .def("transient",
           [](PyEquation& e, const Cell& rho) { e.value.transient(rho.value); })
      .def(
          "diffusion",
          [](PyEquation& e, double D, const std::string& sign) {
            e.value.diffusion(finite(D, "D"), diffusionSignFromName(sign));
          },
          py::arg("D"), py::arg("sign") = "non-negative")
      .def("diffusion", [](PyEquation& e, const Cell& D) { e.value.diffusion(D.value); })
      .def(
          "diffusion",
          [](PyEquation& e, const Face& D, const std::string& sign) {
            e.value.diffusion(D.value, diffusionSignFromName(sign));
          },
          py::arg("D"), py::arg("sign") = "non-negative")
      .def(
          "explicit_diffusion",
          [](PyEquation& e, double D, const std::string& boundary) {
            e.value.explicitDiffusion(finite(D, "D"), explicitBoundaryFromName(boundary));
          },
          py::arg("D"), py::arg("boundary") = "conditions")
      .def(
          "explicit_diffusion",
          [](PyEquation& e, const Face& D, const std::string& boundary) {
            e.value.explicitDiffusion(D.value, explicitBoundaryFromName(boundary));
          },
          py::arg("D"), py::arg("boundary") = "conditions")
      .def("diffusion", [](PyEquation& e, const Polynomial& D) { e.value.diffusion(D); })
      .def(
          "implicit_source",
          [](PyEquation& e, double c, const std::string& form) {
            e.value.implicitSource(finite(c, "c"), implicitSourceFormFromName(form));
          },
          py::arg("c"), py::arg("form") = "matrix")
      .def(
          "implicit_source",
          [](PyEquation& e, const Cell& c, const std::string& form) {
            e.value.implicitSource(c.value, implicitSourceFormFromName(form));
          },
          py::arg("c"), py::arg("form") = "matrix")
      .def("source", [](PyEquation& e, double s) { e.value.source(finite(s, "s")); })
      .def("source", [](PyEquation& e, const Cell& s) { e.value.source(s.value); })
      .def("source", [](PyEquation& e, const Polynomial& S) { e.value.source(S); })
      .def("convection",
           [](PyEquation& e, double ux, double uy, double uz, const std::string& scheme) {
             e.value.convection(finite(ux, "velocity x"), finite(uy, "velocity y"),
                                finite(uz, "velocity z"),
                                convectionSchemeFromName(scheme));
           })
      .def("convection",
           [](PyEquation& e, const Face& u, const std::string& scheme) {
             e.value.convection(u.value, convectionSchemeFromName(scheme));
           })
      .def(
          "explicit_convection",
          [](PyEquation& e, double ux, double uy, double uz, const std::string& scheme,
             const std::string& gradientBoundary) {
            e.value.explicitConvection(
                finite(ux, "velocity x"), finite(uy, "velocity y"),
                finite(uz, "velocity z"), explicitConvectionSchemeFromName(scheme),
                explicitGradientBoundaryFromName(gradientBoundary));
          },
          py::arg("ux"), py::arg("uy"), py::arg("uz"), py::arg("scheme") = "upwind",
          py::arg("gradient_boundary") = "cell-values")
      .def(
          "explicit_convection",
          [](PyEquation& e, const Face& u, const std::string& scheme,
             const std::string& gradientBoundary) {
            e.value.explicitConvection(
                u.value, explicitConvectionSchemeFromName(scheme),
                explicitGradientBoundaryFromName(gradientBoundary));
          },
          py::arg("u"), py::arg("scheme") = "upwind",
          py::arg("gradient_boundary") = "cell-values")
      .def("higher_order_diffusion",
           [](PyEquation& e, double D, double kappa, const Polynomial& g) {
             e.value.higherOrderDiffusion(finite(D, "D"), finite(kappa, "kappa"), g);
           })
      .def("higher_order_diffusion",
           [](PyEquation& e, const Cell& D, const Cell& kappa, const Polynomial& g) {
             e.value.higherOrderDiffusion(D.value, kappa.value, g);
           })
      .def("higher_order_diffusion",
           [](PyEquation& e, const Face& D, const Face& kappa, const Polynomial& g) {
             e.value.higherOrderDiffusion(D.value, kappa.value, g);
           })
      .def(
          "diffusion_tensor",
          [](PyEquation& e, const std::vector<std::vector<double>>& tensor) {
            const std::size_t n = tensor.size();
            require(n >= 1 && n <= 3, "a diffusion tensor is 1x1 to 3x3, got ", n,
                    " rows");
            std::array<std::array<Real, 3>, 3> gamma{};
            for (std::size_t a = 0; a < n; ++a) {
              require(tensor[a].size() == n, "diffusion tensor row ", a, " has ",
                      tensor[a].size(), " entries, not ", n);
              for (std::size_t b = 0; b < n; ++b) gamma[a][b] = Real(tensor[a][b]);
            }
            e.value.diffusion(gamma);
          },
          py::arg("tensor"))
      .def(
          "diffusion_tensor_field",
          [](PyEquation& e,
             const py::array_t<double, py::array::c_style | py::array::forcecast>&
                 tensors,
             const std::string& where) {
            const auto& mesh = e.value.mesh();
            require(where == "cell" || where == "face", "unknown tensor centring '",
                    where, "' (expected cell or face)");
            const bool cells = where == "cell";
            const int dim = mesh.dimension();
            const Ordinal n = cells ? mesh.numCells() : mesh.numFaces();
            require(tensors.ndim() == 3 && tensors.shape(0) == dim &&
                        tensors.shape(1) == dim && tensors.shape(2) == n,
                    "diffusion tensors per ", where, " on this mesh have shape (", dim,
                    ", ", dim, ", ", n, "), got ", tensors.ndim(), " dimensions");
            const auto values = tensors.unchecked<3>();
            std::vector<Tensor3> host(std::size_t(n), Tensor3{});
            for (Ordinal i = 0; i < n; ++i) {
              for (int a = 0; a < dim; ++a) {
                for (int b = 0; b < dim; ++b)
                  host[std::size_t(i)][std::size_t(a)][std::size_t(b)] =
                      Real(values(a, b, i));
              }
            }
            if (cells) {
              CellTensorField<Space> field(mesh, "diffusionTensor");
              field.fromHost(host);
              e.value.diffusion(field);
            } else {
              FaceTensorField<Space> field(mesh, "diffusionTensor");
              field.fromHost(host);
              e.value.diffusion(field);
            }
          },
          py::arg("tensors"), py::arg("where"),
          "Anisotropic diffusion with one symmetric tensor per cell or face: an array of "
          "shape (dim, dim, n), FiPy's layout of a rank-2 variable")
      .def(
          "diffusion_correction",
          [](PyEquation& e, const std::string& scheme, const std::string& gradient) {
            require(scheme == "none" || scheme == "over-relaxed",
                    "unknown diffusion correction '", scheme,
                    "' (expected none or over-relaxed)");
            require(gradient == "least-squares" || gradient == "gauss",
                    "unknown cell gradient '", gradient,
                    "' (expected least-squares or gauss)");
            e.value.diffusionCorrection(
                scheme == "none" ? DiffusionCorrection::None
                                 : DiffusionCorrection::OverRelaxed,
                gradient == "gauss" ? CellGradient::Gauss : CellGradient::LeastSquares);
          },
          py::arg("scheme"), py::arg("gradient") = "least-squares")
      .def("boundary", [](PyEquation& e, const std::string& patch,
                          const BoundaryCondition& c) { e.value.boundary(patch, c); })
      .def("boundary_slots",
           [](PyEquation& e, const std::vector<Ordinal>& slots,
              const std::vector<double>& a, const std::vector<double>& b,
              const std::vector<double>& g) {
             e.value.boundarySlots(slots, realsOf(a), realsOf(b), realsOf(g));
           })
      .def("higher_order_boundary_slots",
           [](PyEquation& e, const std::vector<Ordinal>& slots,
              const std::vector<double>& a, const std::vector<double>& b,
              const std::vector<double>& g) {
             e.value.higherOrderBoundarySlots(slots, realsOf(a), realsOf(b), realsOf(g));
           })
      .def(
          "convection_through_slots",
          [](PyEquation& e, const std::vector<Ordinal>& slots) {
            e.value.convectionThroughSlots(slots);
          },
          py::arg("slots"))
      .def("validate", [](const PyEquation& e) { e.value.validate(); })
      .def_property_readonly("has_transient",
                             [](const PyEquation& e) { return e.value.hasTransient(); })
      .def_property_readonly("needs_sweeps",
                             [](const PyEquation& e) { return e.value.needsSweeps(); });

  using PyImplicit = Held<ImplicitStepper<Space>>;
  py::class_<PyImplicit>(backend, "ImplicitStepper")
      .def(py::init([](const PyEquation& e, const std::string& solver,
                       const std::map<std::string, std::string>& parameters) {
             return new PyImplicit(
                 e.value, makeLinearSolver<Space>(solver, parametersOf(parameters)));
           }),
           py::arg("equation"), py::arg("solver"), py::arg("parameters"))
      .def("solve_steady",
           [](PyImplicit& s, Cell& phi) { return s.value.solveSteady(phi.value); })
      .def("step",
           [](PyImplicit& s, Cell& phi, double dt, const std::string& scheme) {
             return s.value.step(phi.value, Real(dt), timeSchemeFromName(scheme));
           })
      .def("step_from",
           [](PyImplicit& s, Cell& phi, const Cell& old, double dt,
              const std::string& scheme) {
             return s.value.step(phi.value, old.value, Real(dt),
                                 timeSchemeFromName(scheme));
           })
      .def("sweep",
           [](PyImplicit& s, Cell& phi, const Cell& old, double dt,
              const std::string& scheme) {
             return s.value.sweep(phi.value, old.value, Real(dt),
                                  timeSchemeFromName(scheme));
           })
      .def("set_sweeps",
           [](PyImplicit& s, int maxSweeps, double tolerance, double relaxation) {
             s.value.setSweeps(maxSweeps, Real(tolerance), Real(relaxation));
           })
      .def_property(
          "matrix_free", [](const PyImplicit& s) { return s.value.matrixFree(); },
          [](PyImplicit& s, bool on) { s.value.setMatrixFree(on); })
      .def_property_readonly("solver_name",
                             [](PyImplicit& s) { return s.value.solver().name(); })
      .def_property_readonly("preconditioner_name", [](PyImplicit& s) {
        return s.value.solver().preconditionerName();
      });

  using PyExplicit = Held<ExplicitStepper<Space>>;
  py::class_<PyExplicit>(backend, "ExplicitStepper")
      .def(py::init([](const PyEquation& e) { return new PyExplicit(e.value); }))
      .def("stable_time_step",
           [](const PyExplicit& s) { return double(s.value.stableTimeStep()); })
      .def("step", [](PyExplicit& s, Cell& phi, double dt, const std::string& scheme,
                      bool force) {
        s.value.step(phi.value, Real(dt), explicitSchemeFromName(scheme), force);
      });

  using PySystem = Held<CoupledSystem<Space>>;
  py::class_<PySystem>(backend, "CoupledSystem")
      .def(py::init(
          [](const PyMesh<Space>& mesh, int n) { return new PySystem(mesh.value, n); }))
      .def("transient", [](PySystem& s, int e, int v,
                           double rho) { s.value.transient(e, v, finite(rho, "rho")); })
      .def("transient", [](PySystem& s, int e, int v,
                           const Cell& rho) { s.value.transient(e, v, rho.value); })
      .def("diffusion", [](PySystem& s, int e, int v,
                           double D) { s.value.diffusion(e, v, finite(D, "D")); })
      .def("diffusion", [](PySystem& s, int e, int v,
                           const Face& D) { s.value.diffusion(e, v, D.value); })
      .def(
          "implicit_source",
          [](PySystem& s, int e, int v, double c, const std::string& form) {
            s.value.implicitSource(e, v, finite(c, "c"),
                                   implicitSourceFormFromName(form));
          },
          py::arg("equation"), py::arg("variable"), py::arg("c"),
          py::arg("form") = "matrix")
      .def(
          "implicit_source",
          [](PySystem& s, int e, int v, const Cell& c, const std::string& form) {
            s.value.implicitSource(e, v, c.value, implicitSourceFormFromName(form));
          },
          py::arg("equation"), py::arg("variable"), py::arg("c"),
          py::arg("form") = "matrix")
      .def("source", [](PySystem& s, int e, int v,
                        const Polynomial& S) { s.value.source(e, v, S); })
      .def("source",
           [](PySystem& s, int e, double c) { s.value.source(e, finite(c, "s")); })
      .def("source",
           [](PySystem& s, int e, const Cell& c) { s.value.source(e, c.value); })
      .def("boundary", [](PySystem& s, int v, const std::string& patch,
                          const BoundaryCondition& c) { s.value.boundary(v, patch, c); })
      .def("boundary_slots",
           [](PySystem& s, int v, const std::vector<Ordinal>& slots,
              const std::vector<double>& a, const std::vector<double>& b,
              const std::vector<double>& g) {
             s.value.boundarySlots(v, slots, realsOf(a), realsOf(b), realsOf(g));
           })
      .def("validate", [](const PySystem& s) { s.value.validate(); });

  using PyCoupled = Held<CoupledStepper<Space>>;
  py::class_<PyCoupled>(backend, "CoupledStepper")
      .def(py::init([](const PySystem& system, const std::string& solver,
                       const std::map<std::string, std::string>& parameters) {
        return new PyCoupled(system.value,
                             makeLinearSolver<Space>(solver, parametersOf(parameters)));
      }))
      .def(
          "step",
          [](PyCoupled& s, const std::vector<Cell*>& fields, double dt,
             const std::string& scheme) {
            auto values = fieldsOf<Space>(fields);
            return s.value.step(values, Real(dt), timeSchemeFromName(scheme));
          },
          py::arg("fields"), py::arg("dt"), py::arg("scheme") = "backward-euler")
      .def(
          "step_from",
          [](PyCoupled& s, const std::vector<Cell*>& fields,
             const std::vector<Cell*>& previous, double dt, const std::string& scheme) {
            auto values = fieldsOf<Space>(fields);
            return s.value.step(values, fieldsOf<Space>(previous), Real(dt),
                                timeSchemeFromName(scheme));
          },
          py::arg("fields"), py::arg("previous"), py::arg("dt"),
          py::arg("scheme") = "backward-euler")
      .def("solve_steady",
           [](PyCoupled& s, const std::vector<Cell*>& fields) {
             auto values = fieldsOf<Space>(fields);
             return s.value.solveSteady(values);
           })
      .def("set_sweeps", [](PyCoupled& s, int maxSweeps, double tolerance) {
        s.value.setSweeps(maxSweeps, Real(tolerance));
      });
}

#define KFVM_PY_BIND_EQUATIONS(Space) template void bindEquations<Space>(py::module_&);
KFVM_FOR_EACH_BACKEND(KFVM_PY_BIND_EQUATIONS)

}  // namespace kfvm::python
