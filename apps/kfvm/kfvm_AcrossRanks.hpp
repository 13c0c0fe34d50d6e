#ifndef KFVM_APPS_ACROSS_RANKS_HPP
#define KFVM_APPS_ACROSS_RANKS_HPP

// What a deck's run across MPI ranks needs whatever its mesh (kfvm_AcrossRanks.cpp;
// built with MPI only): the number of ranks, reductions over them, explicit steps within
// the smallest stable limit of every rank.

#include "kfvm_DeckProblem.hpp"

#include <string>

namespace kfvm::app {

/// The number of MPI ranks of this run: 1 when MPI is not initialized (one process,
/// the Python module), else the size of MPI_COMM_WORLD.
int mpiWorldSize();

/// Sums (or maxima, max = true) over the ranks of MPI_COMM_WORLD, in place.
void reduceOverRanks(double* values, int count, bool max);

/// An explicit step of phi on one rank's part by scheme, within the smallest stable limit
/// over the ranks (a part's cells next to its ghosts have no face beyond them, which can
/// only raise their own limit); stepper null: the deck names no explicit scheme.
StepReport stepExplicitAcrossRanks(ExplicitStepper<DeckSpace>* stepper,
                                   CellField<DeckSpace>& phi, double dt,
                                   const std::string& scheme);

}  // namespace kfvm::app

#endif
