#ifndef KFVM_APPS_ACROSS_RANKS_HPP
#define KFVM_APPS_ACROSS_RANKS_HPP

// What a deck's run across MPI ranks needs whatever its mesh (kfvm_AcrossRanks.cpp;
// built with MPI only): the deck's problem on this rank's cells, the number of ranks,
// reductions over them.

#include "kfvm_DeckProblem.hpp"
#include "kfvm_DeckRun.hpp"

#include <kfvm_Checkpoint.hpp>
#include <kfvm_DistributedSystem.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kfvm::app {

/// The number of MPI ranks of this run: 1 when MPI is not initialized (one process,
/// the Python module), else the size of MPI_COMM_WORLD.
int mpiWorldSize();

/// This process' rank and the number of ranks of MPI_COMM_WORLD, with the run's log
/// level set: rank 0 alone prints (only warnings with -q, debug lines with -v).
std::pair<int, int> startRunAcrossRanks(const RunOptions& options);

/// Reads a one-process checkpoint (of the whole mesh) into this rank's fields, every
/// local cell by its global id; returns its state, the values taken out. Throws
/// kfvm::Error for a checkpoint of another number of variables.
CheckpointState readWholeCheckpoint(const std::string& path,
                                    const std::vector<long long>& globalIds,
                                    std::vector<CellField<DeckSpace>>& fields);

/// Sums (or maxima, max = true) over the ranks of MPI_COMM_WORLD, in place.
void reduceOverRanks(double* values, int count, bool max);

/// The ghost layers a deck's terms need across ranks: two for those that read cells two
/// faces away (TVD convection, implicit or FiPy's explicit Van Leer term, the
/// fourth-order term, and on a general mesh the non-orthogonal correction); one for a
/// coupled deck.
int ghostLayersOf(const Deck& deck);

/// A deck's [equation], or its [[equation]] tables, on this rank's cells of a
/// DistributedSystem (a grid's blocks or a mesh's parts): conditions on the physical
/// patches only, steps across the ranks, explicit steps within the smallest stable limit
/// over the ranks (a part's cells next to its ghosts have no face beyond them, which can
/// only raise their own limit). The caller fills the fields.
class DistributedDeckProblem : public DeckProblem {
 public:
  /// system: made with the ghost layers the deck's terms need.
  DistributedDeckProblem(const Deck& deck,
                         std::unique_ptr<DistributedSystem<DeckSpace>> system);
  StepReport step(std::vector<CellField<DeckSpace>>& fields, double dt,
                  TimeScheme scheme) override;
  StepReport solveSteady() override;
  StepReport stepExplicit(double dt, const std::string& scheme) override;
  DistributedSystem<DeckSpace>& system() { return *system_; }

 private:
  std::unique_ptr<DistributedSystem<DeckSpace>> system_;
  std::unique_ptr<Equation<DeckSpace>> equation_;         // none for a coupled deck
  std::unique_ptr<ExplicitStepper<DeckSpace>> explicit_;  // when [time] names one
};

}  // namespace kfvm::app

#endif
