#ifndef KFVM_APPS_DISTRIBUTED_RUN_HPP
#define KFVM_APPS_DISTRIBUTED_RUN_HPP

// A deck's run across MPI ranks (kfvm_DistributedRun.cpp; built with MPI only).

#include "kfvm_Deck.hpp"
#include "kfvm_DeckProblem.hpp"
#include "kfvm_DeckRun.hpp"

#include <string>

namespace kfvm::app {

/// The number of MPI ranks of this run: 1 when MPI is not initialized (one process,
/// the Python module), else the size of MPI_COMM_WORLD.
int mpiWorldSize();

/// runDeck across the ranks of MPI_COMM_WORLD: every rank steps its block
/// ([parallel] ranks = [px, py, pz], or a balanced split) in the one-process run's loop
/// (kfvm_RunLoop.hpp: schedules, explicit and adaptive steps, restarts); rank 0 prints
/// and writes the CSV files and the PNG snapshots of the gathered fields, every rank its
/// VTK piece and its block of the checkpoints (parallel HDF5). Random and file initial
/// values are the whole grid's, taken at each rank's cells: the same start as one
/// process.
int runDeckAcrossRanks(const Deck& deck, const RunOptions& options);

/// `kfvm check` across ranks: the same checks as on one process, plus the process grid
/// against the number of ranks.
void checkAcrossRanks(const Deck& deck);

/// runDeckAcrossRanks for a deck on a Gmsh mesh (kfvm_DistributedMeshRun.cpp): the mesh
/// partitioned across the ranks (METIS, or recursive coordinate bisection), each rank
/// stepping its part with ghost layers; a .pvtu set per output step, probes on the rank
/// owning their cell, PNG snapshots and checkpoints of the fields gathered to rank 0 (a
/// one-process checkpoint: it restarts on any number of ranks). One [equation] or a
/// coupled deck's [[equation]] tables.
int runMeshDeckAcrossRanks(const Deck& deck, const RunOptions& options);

/// What a Gmsh mesh's deck cannot do across ranks, refused naming the deck's line:
/// [parallel] ranks, more ranks than cells.
void checkMeshAcrossRanks(const Deck& deck);

/// An explicit step of phi on one rank's part by scheme, within the smallest stable limit
/// over the ranks (a part's cells next to its ghosts have no face beyond them, which can
/// only raise their own limit); stepper null: the deck names no explicit scheme.
StepReport stepExplicitAcrossRanks(ExplicitStepper<DeckSpace>* stepper,
                                   CellField<DeckSpace>& phi, double dt,
                                   const std::string& scheme);

/// Sums (or maxima, max = true) over the ranks of MPI_COMM_WORLD, in place.
void reduceOverRanks(double* values, int count, bool max);

}  // namespace kfvm::app

#endif
