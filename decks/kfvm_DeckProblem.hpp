#ifndef KFVM_APPS_DECK_PROBLEM_HPP
#define KFVM_APPS_DECK_PROBLEM_HPP

// What a deck solves, behind one stepping interface: one Equation with its
// ImplicitStepper, or a CoupledSystem of several variables with its CoupledStepper.

#include "kfvm_Deck.hpp"
#include "kfvm_RunOutput.hpp"

#include <kfvm_ExplicitStepper.hpp>
#include <kfvm_ImplicitStepper.hpp>

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace kfvm::app {

class DeckProblem {
 public:
  /// The fields start at the variables' initial conditions.
  static std::unique_ptr<DeckProblem> create(
      const Deck& deck, const Mesh<DeckSpace>& mesh,
      const std::vector<std::array<double, 3>>& centres);
  virtual ~DeckProblem() = default;

  /// A step of the deck's own fields.
  StepReport step(double dt, TimeScheme scheme) { return step(fields_, dt, scheme); }
  /// A step of fields (one per variable, on the deck's mesh): the adaptive stepper's
  /// trial steps.
  virtual StepReport step(std::vector<CellField<DeckSpace>>& fields, double dt,
                          TimeScheme scheme) = 0;
  virtual StepReport solveSteady() = 0;
  /// A step of the deck's own fields by an explicit scheme ("forward-euler",
  /// "ssp-rk2"; one-variable decks). A dt over the stable limit is a report that did not
  /// converge, naming both, with the fields unchanged.
  virtual StepReport stepExplicit(double dt, const std::string& scheme) = 0;
  /// A step of the deck's fields by the scheme named (implicit or explicit).
  StepReport step(double dt, const std::string& scheme);

  /// One field per variable, in the deck's order.
  std::vector<CellField<DeckSpace>>& fields() { return fields_; }

 protected:
  std::vector<CellField<DeckSpace>> fields_;
};

/// A step of phi by the explicit scheme named ("forward-euler", "ssp-rk2") when dt is
/// within stable (the stepper's limit; across ranks, its minimum over them); otherwise a
/// report that did not converge, naming both, with phi unchanged.
StepReport stepExplicitly(ExplicitStepper<DeckSpace>& stepper, CellField<DeckSpace>& phi,
                          double dt, const std::string& scheme, Real stable);

}  // namespace kfvm::app

#endif
