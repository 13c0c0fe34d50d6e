#include "kfvm_DeckProblem.hpp"

#include "kfvm_DeckSetup.hpp"
#include "kfvm_InitialFile.hpp"

#include <kfvm_CoupledStepper.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ExplicitStepper.hpp>

#include <memory>
#include <utility>

namespace kfvm::app {

namespace {

/// The deck's equation with its ImplicitStepper, or its coupled system with its
/// CoupledStepper, on this process.
class OneProcessProblem : public DeckProblem {
 public:
  OneProcessProblem(const Deck& deck, const Mesh<DeckSpace>& mesh,
                    const std::vector<std::array<double, 3>>& centres) {
    auto solver = makeLinearSolver<DeckSpace>(deck.solver, deck.solverParameters);
    if (deck.isCoupled()) {
      CoupledSystem<DeckSpace> system(mesh, deck.numVariables());
      buildCoupledSystem(deck, system);
      coupled_ = std::make_unique<CoupledStepper<DeckSpace>>(system, std::move(solver));
      coupled_->setSweeps(deck.maxSweeps, Real(deck.sweepTolerance));
      return;
    }
    equation_ = std::make_unique<Equation<DeckSpace>>(mesh);
    buildEquation(deck, mesh, centres, *equation_);
    stepper_ =
        std::make_unique<ImplicitStepper<DeckSpace>>(*equation_, std::move(solver));
    stepper_->setSweeps(deck.maxSweeps, Real(deck.sweepTolerance), Real(deck.relaxation));
    stepper_->setMatrixFree(deck.matrixFree);
    if (deck.hasExplicitSteps())
      explicit_ = std::make_unique<ExplicitStepper<DeckSpace>>(*equation_);
  }

  StepReport stepExplicit(double dt, const std::string& scheme) override {
    require(explicit_ != nullptr,
            "deck: no explicit scheme in [time] (or a coupled deck)");
    return stepExplicitly(*explicit_, fields_[0], dt, scheme,
                          explicit_->stableTimeStep());
  }
  StepReport step(std::vector<CellField<DeckSpace>>& fields, double dt,
                  TimeScheme scheme) override {
    if (coupled_) return coupled_->step(fields, Real(dt), scheme);
    return stepper_->step(fields[0], Real(dt), scheme);
  }
  StepReport solveSteady() override {
    if (coupled_) return coupled_->solveSteady(fields_);
    return stepper_->solveSteady(fields_[0]);
  }

 private:
  std::unique_ptr<Equation<DeckSpace>> equation_;  // one [equation] ...
  std::unique_ptr<ImplicitStepper<DeckSpace>> stepper_;
  std::unique_ptr<ExplicitStepper<DeckSpace>> explicit_;  // when [time] names one
  std::unique_ptr<CoupledStepper<DeckSpace>> coupled_;    // ... or [[equation]] tables
};

}  // namespace

std::unique_ptr<DeckProblem> DeckProblem::create(
    const Deck& deck, const Mesh<DeckSpace>& mesh,
    const std::vector<std::array<double, 3>>& centres) {
  std::unique_ptr<DeckProblem> problem =
      std::make_unique<OneProcessProblem>(deck, mesh, centres);
  for (const auto& variable : deck.variables) {
    problem->fields_.emplace_back(mesh, variable.name);
    problem->fields_.back().fromHost(
        variable.initial.type == "file"
            ? readInitialFile(deck, variable)
            : initialValues(variable.initial, deck.dimension, centres));
  }
  return problem;
}

StepReport stepExplicitly(ExplicitStepper<DeckSpace>& stepper, CellField<DeckSpace>& phi,
                          double dt, const std::string& scheme, Real stable) {
  StepReport report;
  report.sweeps = 0;
  report.solver = scheme;
  if (Real(dt) > stable) {  // refused before the fields change
    report.converged = false;
    report.reason = Details::concatenate("explicit ", scheme, " step: dt = ", dt,
                                         " exceeds the stable time step ", stable);
    return report;
  }
  stepper.step(phi, Real(dt),
               explicitSchemeFromName(scheme == "ssp-rk2" ? std::string("rk2") : scheme),
               true);
  report.converged = true;
  report.reason = "explicit step";
  return report;
}

StepReport DeckProblem::step(double dt, const std::string& scheme) {
  if (isExplicitScheme(scheme)) return stepExplicit(dt, scheme);
  return step(dt, timeSchemeFromName(scheme));
}

}  // namespace kfvm::app
