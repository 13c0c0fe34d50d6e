#include "kfvm_DeckProblem.hpp"

#include "kfvm_DeckSetup.hpp"
#include "kfvm_InitialFile.hpp"

#include <kfvm_CoupledStepper.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ExplicitStepper.hpp>

namespace kfvm::app {

namespace {

class ScalarProblem : public DeckProblem {
 public:
  ScalarProblem(const Deck& deck, const Mesh<DeckSpace>& mesh,
                const std::vector<std::array<double, 3>>& centres)
      : equation_(mesh),
        stepper_(buildEquation(deck, mesh, centres, equation_),
                 makeLinearSolver<DeckSpace>(deck.solver, deck.solverParameters)) {
    stepper_.setSweeps(deck.maxSweeps, Real(deck.sweepTolerance), Real(deck.relaxation));
    stepper_.setMatrixFree(deck.matrixFree);
    if (deck.hasExplicitSteps())
      explicit_ = std::make_unique<ExplicitStepper<DeckSpace>>(equation_);
  }

  StepReport stepExplicit(double dt, const std::string& scheme) override {
    require(explicit_ != nullptr, "deck: no explicit scheme in [time]");
    return stepExplicitly(*explicit_, fields_[0], dt, scheme,
                          explicit_->stableTimeStep());
  }

  StepReport step(std::vector<CellField<DeckSpace>>& fields, double dt,
                  TimeScheme scheme) override {
    return stepper_.step(fields[0], Real(dt), scheme);
  }
  StepReport solveSteady() override { return stepper_.solveSteady(fields_[0]); }

 private:
  static const Equation<DeckSpace>& buildEquation(
      const Deck& deck, const Mesh<DeckSpace>& mesh,
      const std::vector<std::array<double, 3>>& centres, Equation<DeckSpace>& equation) {
    app::buildEquation(deck, mesh, centres, equation);
    return equation;
  }

  Equation<DeckSpace> equation_;
  ImplicitStepper<DeckSpace> stepper_;
  std::unique_ptr<ExplicitStepper<DeckSpace>> explicit_;  // when [time] names one
};

class CoupledProblem : public DeckProblem {
 public:
  CoupledProblem(const Deck& deck, const Mesh<DeckSpace>& mesh)
      : system_(mesh, deck.numVariables()),
        stepper_(buildSystem(deck, system_),
                 makeLinearSolver<DeckSpace>(deck.solver, deck.solverParameters)) {
    stepper_.setSweeps(deck.maxSweeps, Real(deck.sweepTolerance));
  }

  StepReport step(std::vector<CellField<DeckSpace>>& fields, double dt,
                  TimeScheme scheme) override {
    return stepper_.step(fields, Real(dt), scheme);
  }
  StepReport solveSteady() override { return stepper_.solveSteady(fields_); }
  StepReport stepExplicit(double, const std::string& scheme) override {
    fail("deck: a coupled deck has no explicit scheme, got ",
         scheme);  // readDeck refuses it
  }

 private:
  static const CoupledSystem<DeckSpace>& buildSystem(const Deck& deck,
                                                     CoupledSystem<DeckSpace>& system) {
    buildCoupledSystem(deck, system);
    return system;
  }

  CoupledSystem<DeckSpace> system_;
  CoupledStepper<DeckSpace> stepper_;
};

}  // namespace

std::unique_ptr<DeckProblem> DeckProblem::create(
    const Deck& deck, const Mesh<DeckSpace>& mesh,
    const std::vector<std::array<double, 3>>& centres) {
  std::unique_ptr<DeckProblem> problem;
  if (deck.isCoupled())
    problem = std::make_unique<CoupledProblem>(deck, mesh);
  else
    problem = std::make_unique<ScalarProblem>(deck, mesh, centres);
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
