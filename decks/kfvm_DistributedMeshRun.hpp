#ifndef KFVM_APPS_DISTRIBUTED_MESH_RUN_HPP
#define KFVM_APPS_DISTRIBUTED_MESH_RUN_HPP

// A deck's run on a Gmsh mesh across MPI ranks (kfvm_DistributedMeshRun.cpp; built with
// MPI only).

#include "kfvm_Deck.hpp"
#include "kfvm_DeckRun.hpp"

namespace kfvm::app {

/// runDeck across the ranks of MPI_COMM_WORLD for a deck on a Gmsh mesh: the mesh
/// partitioned across the ranks (METIS, or recursive coordinate bisection), each rank
/// stepping its part with ghost layers; a .pvtu set per output step, probes on the rank
/// owning their cell, PNG snapshots and checkpoints of the fields gathered to rank 0 (a
/// one-process checkpoint: it restarts on any number of ranks). One [equation] or a
/// coupled deck's [[equation]] tables.
int runMeshDeckAcrossRanks(const Deck& deck, const RunOptions& options);

/// What a Gmsh mesh's deck cannot do across ranks, refused naming the deck's line:
/// [parallel] ranks, more ranks than cells.
void checkMeshAcrossRanks(const Deck& deck);

}  // namespace kfvm::app

#endif
