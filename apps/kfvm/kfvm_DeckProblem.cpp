#include "kfvm_DeckProblem.hpp"

#include "kfvm_DeckSetup.hpp"

#include <kfvm_CoupledStepper.hpp>

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
                  TimeScheme) override {  // backward Euler (readDeck)
    return stepper_.step(fields, Real(dt));
  }
  StepReport solveSteady() override { return stepper_.solveSteady(fields_); }

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
        initialValues(variable.initial, deck.dimension, centres));
  }
  return problem;
}

}  // namespace kfvm::app
