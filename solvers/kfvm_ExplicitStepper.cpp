#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ExplicitStepper.hpp>
#include <kfvm_ForEach.hpp>

#include <cmath>

namespace kfvm {

ExplicitScheme explicitSchemeFromName(const std::string& name) {
  if (name == "forward-euler" || name == "fe") return ExplicitScheme::ForwardEuler;
  if (name == "rk2" || name == "runge-kutta-2") return ExplicitScheme::RungeKutta2;
  fail("unknown explicit scheme '", name, "' (known: forward-euler or fe, rk2)");
}

namespace Details {

template <class ExecSpace>
struct MassKernel {
  Coefficient<ExecSpace> rho;
  DeviceView<const Real*, ExecSpace> volumes;
  Vector<ExecSpace> mass;
  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    mass(cell) = rho(cell) * volumes(cell);
  }
};

/// stage = phi + dt (rhs - A phi) / mass
template <class ExecSpace>
struct EulerStageKernel {
  Vector<ExecSpace> phi, rhs, product, mass, stage;
  Real dt;
  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    stage(cell) = phi(cell) + dt * (rhs(cell) - product(cell)) / mass(cell);
  }
};

/// phi = (phi + stage) / 2, the last stage of Heun's method after stage = stage + dt R.
template <class ExecSpace>
struct AverageKernel {
  Vector<ExecSpace> phi, stage;
  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    phi(cell) = Real(0.5) * (phi(cell) + stage(cell));
  }
};

}  // namespace Details

template <class ExecSpace>
ExplicitStepper<ExecSpace>::ExplicitStepper(const Equation<ExecSpace>& equation)
    : assembler_(equation),
      mass_("kfvm::ExplicitStepper::mass", equation.mesh().numCells()),
      rhs_("kfvm::ExplicitStepper::rhs", equation.mesh().numCells()),
      operatorTimesPhi_("kfvm::ExplicitStepper::operatorTimesPhi",
                        equation.mesh().numCells()),
      stage_(equation.mesh(), "kfvm::ExplicitStepper::stage") {
  require(equation.hasTransient(), "explicit time stepping needs a TransientTerm");
  require(!equation.hasHigherOrder(),
          "explicit stepping does not take the higher-order diffusion term (its stable "
          "dt shrinks as h^4); step it implicitly");
  require(!equation.hasDiffusionCrossTerms(),
          "explicit stepping does not take the non-orthogonal diffusion correction or a "
          "diffusion tensor (their cross terms are deferred corrections, converged by "
          "sweeps); step it implicitly");
  const auto& mesh = equation.mesh();
  forEachCell("kfvm::ExplicitStepper::mass", mesh,
              Details::MassKernel<ExecSpace>{equation.transientCoefficient(),
                                             mesh.cellVolumes(), mass_});
}

template <class ExecSpace>
void ExplicitStepper<ExecSpace>::eulerStage(const CellField<ExecSpace>& phi, Real dt,
                                            const Vector<ExecSpace>& stage) {
  // Steady assembly at phi (nonlinear coefficients already evaluated at phi): matrix K,
  // rhs b (minus the TVD correction at phi).
  assembler_.assemble(Real(0), Real(1), phi, phi, rhs_);
  multiply(assembler_.matrix(), phi.values(), operatorTimesPhi_);
  forEachCell("kfvm::ExplicitStepper::eulerStage", assembler_.equation().mesh(),
              Details::EulerStageKernel<ExecSpace>{phi.values(), rhs_, operatorTimesPhi_,
                                                   mass_, stage, dt});
}

template <class ExecSpace>
void ExplicitStepper<ExecSpace>::step(CellField<ExecSpace>& phi, Real dt,
                                      ExplicitScheme scheme, bool force) {
  const auto& mesh = assembler_.equation().mesh();
  phi.requireOn(mesh, "solution");
  require(std::isfinite(dt) && dt > 0, "time step dt must be positive and finite, got ",
          dt);
  assembler_.equation().updateNonlinear(phi);  // the limit depends on D(phi)
  if (!force) {
    const Real limit = stableTimeStep();
    require(dt <= limit, "explicit time step dt = ", dt, " exceeds the stable limit ",
            limit, " (diffusion and convection); use a smaller dt, or force it");
  }
  if (scheme == ExplicitScheme::ForwardEuler) {
    eulerStage(phi, dt, phi.values());  // in place: each cell reads only its own value
  } else {
    // Heun / SSP-RK2: s = phi + dt R(phi); phi = (phi + s + dt R(s)) / 2.
    eulerStage(phi, dt, stage_.values());
    if (exchange_) exchange_(stage_.values());
    assembler_.equation().updateNonlinear(stage_);
    eulerStage(stage_, dt, stage_.values());
    forEachCell("kfvm::ExplicitStepper::average", mesh,
                Details::AverageKernel<ExecSpace>{phi.values(), stage_.values()});
  }
  if (exchange_) exchange_(phi.values());
}

#define KFVM_INSTANTIATE_EXPLICIT_STEPPER(Space) template class ExplicitStepper<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_EXPLICIT_STEPPER)

}  // namespace kfvm
