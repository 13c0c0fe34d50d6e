#ifndef KFVM_EXPLICIT_STEPPER_HPP
#define KFVM_EXPLICIT_STEPPER_HPP

#include <kfvm_Assembler.hpp>

#include <functional>
#include <string>

namespace kfvm {

/// Explicit time schemes: forward Euler (1st order) and Heun's SSP Runge-Kutta 2.
enum class ExplicitScheme { ForwardEuler, RungeKutta2 };

/// "forward-euler" / "fe", "rk2"; throws kfvm::Error naming the text.
ExplicitScheme explicitSchemeFromName(const std::string& name);

/// Explicit time steps of one Equation (which needs a TransientTerm):
///   rho V dphi/dt = R(phi) = b - K(phi) phi,
/// R from the same assembly as the implicit steppers (TVD convection evaluates its full
/// limited flux explicitly; upwind convection is FiPy's ExplicitUpwindConvectionTerm).
/// Each step checks dt against stableTimeStep() and refuses a larger one unless forced.
/// Work vectors are allocated on construction; step() allocates nothing.
template <class ExecSpace>
class ExplicitStepper {
 public:
  explicit ExplicitStepper(const Equation<ExecSpace>& equation);

  /// The largest stable dt for the equation's current coefficients (one reduction).
  Real stableTimeStep() const { return assembler_.explicitStableTimeStep(); }

  /// Advances phi by dt. Throws kfvm::Error when dt exceeds stableTimeStep(), naming
  /// both, unless force is true.
  void step(CellField<ExecSpace>& phi, Real dt,
            ExplicitScheme scheme = ExplicitScheme::ForwardEuler, bool force = false);

  /// For an equation on a rank's block with ghost cells (DistributedSystem::localMesh):
  /// exchange(values) fills the ghosts of values from their owners. step() then
  /// exchanges the second stage's input and phi at the end, so that every owned row sees
  /// its neighbours' values of the same stage. phi's ghosts must hold the owners' values
  /// when step() starts. The stable limit stays this block's (take its minimum over the
  /// ranks before stepping, and step with force).
  void setGhostExchange(std::function<void(const Vector<ExecSpace>&)> exchange) {
    exchange_ = std::move(exchange);
  }

 private:
  /// stage = phi + dt R(phi) / (rho V); the nonlinear coefficients must already be
  /// evaluated at phi. stage may be phi itself.
  void eulerStage(const CellField<ExecSpace>& phi, Real dt,
                  const Vector<ExecSpace>& stage);

  Assembler<ExecSpace> assembler_;
  Vector<ExecSpace> mass_, rhs_, operatorTimesPhi_;
  CellField<ExecSpace> stage_;
  std::function<void(const Vector<ExecSpace>&)> exchange_;  // empty: one process
};

}  // namespace kfvm

#endif
