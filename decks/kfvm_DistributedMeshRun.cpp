// `mpirun -np N kfvm run DECK` for a deck on a Gmsh mesh: the mesh partitioned across
// the ranks (DistributedSystem on MeshParts, for one [equation] or [[equation]] tables:
// METIS, or recursive coordinate bisection), each rank stepping its part in the
// one-process run's loop (kfvm_RunLoop.cpp). What differs
// from one process comes from here: reductions over the ranks, a .pvtu file set, probes
// found on the rank that owns their cell, PNG snapshots and checkpoints of the fields
// gathered to rank 0 (a one-process checkpoint, which restarts on any number of ranks).
#include "kfvm_DistributedMeshRun.hpp"
#include <kfvm_Checkpoint.hpp>
#include "kfvm_AcrossRanks.hpp"
#include "kfvm_DeckProblem.hpp"
#include "kfvm_DeckRun.hpp"
#include "kfvm_DeckSetup.hpp"
#include "kfvm_InitialFile.hpp"
#include "kfvm_Log.hpp"
#include "kfvm_RunLoop.hpp"
#include "kfvm_RunOutput.hpp"

#include <kfvm_CellPolygons.hpp>
#include <kfvm_CollectiveFailure.hpp>
#include <kfvm_DistributedSystem.hpp>
#include <kfvm_ParallelVtk.hpp>
#include <kfvm_PointLocation.hpp>

#include <algorithm>
#include <climits>
#include <memory>
#include <optional>

namespace kfvm::app {

namespace {

using Space = DeckSpace;

/// Per probe, the local cell holding it on the rank that owns that cell, else -1. A
/// point on a face between parts is given to the lowest global cell any rank finds.
std::vector<Ordinal> probeCellsOf(const Deck& deck, DistributedSystem<Space>& system) {
  const auto& ids = system.localGlobalIds();
  std::vector<Ordinal> cells;
  for (const auto& point : deck.probes) {
    const Ordinal local = cellContaining(system.localMesh(), point);
    long long global = local >= 0 ? ids[std::size_t(local)] : LLONG_MAX;
    require(MPI_Allreduce(MPI_IN_PLACE, &global, 1, MPI_LONG_LONG, MPI_MIN,
                          MPI_COMM_WORLD) == MPI_SUCCESS,
            "kfvm run: MPI_Allreduce failed");
    if (global == LLONG_MAX)
      deckError(deck, deck.meshFileAt, "[[output.probe]] point (", point[0], ", ",
                point[1], ", ", point[2], ") is in no cell of the mesh '", deck.meshFile,
                "'");
    const auto owned = ids.begin() + system.meshParts().part().ownedCells;
    const auto found = std::lower_bound(ids.begin(), owned, global);
    cells.push_back(found != owned && *found == global ? Ordinal(found - ids.begin())
                                                       : Ordinal(-1));
  }
  return cells;
}

}  // namespace

int runMeshDeckAcrossRanks(const Deck& read, const RunOptions& options) {
  Deck deck = read;
  loadDeckMesh(deck);
  const std::pair<int, int> started = startRunAcrossRanks(options);
  const int rank = started.first, size = started.second;
  checkMeshAcrossRanks(deck);
  log::info("kfvm run %s: %dD Gmsh mesh '%s', %lld cells, backend %s, %d MPI ranks (%s)",
            deck.path.c_str(), deck.dimension, deck.meshFile.c_str(), deck.numCells(),
            Space::name(), size, haveMetis() ? "METIS" : "recursive bisection");
  DistributedDeckProblem problem(
      deck, std::make_unique<DistributedSystem<Space>>(*deck.topology, MPI_COMM_WORLD,
                                                       ghostLayersOf(deck)));
  auto& system = problem.system();
  const Mesh<Space>& mesh = system.localMesh();
  log::info("%s", validateDeck(deck, &mesh).c_str());
  const auto centres = cellCentres(deck, mesh);
  const auto& globalIds = system.localGlobalIds();
  // Random and file values are the whole mesh's (random ones drawn in its cell order):
  // the same start as one process. The whole mesh is built for them only.
  std::optional<Mesh<Space>> whole;
  auto& fields = problem.fields();
  for (const auto& variable : deck.variables) {
    fields.emplace_back(mesh, variable.name);
    const std::string& type = variable.initial.type;
    if (type != "random" && type != "file") {
      fields.back().fromHost(initialValues(variable.initial, deck.dimension, centres));
      continue;
    }
    if (type == "random" && !whole) whole.emplace(*deck.topology);
    const std::vector<double> all =
        type == "file"
            ? readInitialFile(deck, variable)
            : initialValues(variable.initial, deck.dimension, cellCentres(deck, *whole));
    std::vector<double> local(globalIds.size());
    for (std::size_t c = 0; c < local.size(); ++c)
      local[c] = all[std::size_t(globalIds[c])];
    fields.back().fromHost(local);
  }
  RunRanks ranks;
  ranks.rank = rank;
  ranks.reduce = reduceOverRanks;
  std::vector<Real> owned(globalIds.size(), Real(0));
  std::fill(owned.begin(), owned.begin() + system.meshParts().part().ownedCells, Real(1));
  ranks.owned = copyToDevice<Real, Space>(owned, "kfvm::deck::owned");
  ranks.probeCells = probeCellsOf(deck, system);
  ranks.collectionExtension = ".pvtu";
  std::vector<std::vector<std::array<double, 2>>> polygons;  // rank 0: PNGs of 2D meshes
  if (deck.png && rank == 0) polygons = cellPolygons(Mesh<Space>(*deck.topology));
  ranks.polygons = &polygons;
  std::vector<const CellField<Space>*> pointers;
  for (auto& field : fields) pointers.push_back(&field);
  ranks.writeVtk = [&](const std::string& stem, double time) {
    writeParallelVtu<Space>(stem, mesh, system.meshParts().halo(), pointers, time);
  };
  ranks.gather = [&](const CellField<Space>& field) {
    const auto values = system.gather(field);
    return std::vector<double>(values.begin(), values.end());
  };
  ranks.agree = [&deck](const std::string& failure) {
    Details::agreeOnFailure(MPI_COMM_WORLD, failure, deck.path);
  };
  // Checkpoints: the fields gathered to rank 0, which writes a one-process checkpoint.
  ranks.writeCheckpoint = [&](const std::string& path, const CheckpointState& state) {
    CheckpointState whole = state;
    for (const auto& field : fields) whole.values.push_back(ranks.gather(field));
    Details::agreeOnFailure(MPI_COMM_WORLD, Details::failureOf([&] {
                              if (rank == 0) writeCheckpoint(path, whole);
                            }),
                            "checkpoint '" + path + "'");
  };
  ranks.readCheckpoint = [&](const std::string& path) {
    return readWholeCheckpoint(path, globalIds, fields);
  };
  return runProblem(deck, options, RunParts{problem, mesh, centres, &ranks});
}

void checkMeshAcrossRanks(const Deck& deck) {
  if (deck.ranks[0] != 0)
    deckError(deck, deck.ranksAt,
              "a process grid is for Cartesian grids; a Gmsh "
              "mesh is partitioned by METIS or recursive bisection");
  if (deck.numCells() < mpiWorldSize())
    deckError(deck, deck.meshFileAt, "the mesh has ", deck.numCells(),
              " cells, fewer than the ", mpiWorldSize(), " ranks");
}

}  // namespace kfvm::app
