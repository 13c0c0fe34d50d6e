#ifndef KFVM_APPS_DISTRIBUTED_RUN_HPP
#define KFVM_APPS_DISTRIBUTED_RUN_HPP

// A deck's run on a Cartesian grid across MPI ranks (kfvm_DistributedRun.cpp; built with
// MPI only). kfvm_DistributedMeshRun.hpp has the Gmsh mesh's.

#include "kfvm_Deck.hpp"
#include "kfvm_DeckRun.hpp"

namespace kfvm::app {

/// runDeck across the ranks of MPI_COMM_WORLD for a deck on a Cartesian grid: every rank
/// steps its block ([parallel] ranks = [px, py, pz], or a balanced split) in the
/// one-process run's loop (kfvm_RunLoop.hpp: schedules, explicit and adaptive steps,
/// restarts); rank 0 prints and writes the CSV files and the PNG snapshots of the
/// gathered fields, every rank its VTK piece and its block of the checkpoints (parallel
/// HDF5). Random and file initial values are the whole grid's, taken at each rank's
/// cells: the same start as one process.
int runGridDeckAcrossRanks(const Deck& deck, const RunOptions& options);

/// `kfvm check` across ranks on a Cartesian grid: the same checks as on one process,
/// plus the process grid against the number of ranks.
void checkGridAcrossRanks(const Deck& deck);

}  // namespace kfvm::app

#endif
