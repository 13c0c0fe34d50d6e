// A whole run of a TOML deck (kfvm_Deck.hpp), and its checks: what `kfvm run DECK` and
// `kfvm check DECK` do (apps/kfvm/kfvm_DeckCommands.cpp), and kfvm.run_deck in Python.
#include "kfvm_DeckRun.hpp"
#include <kfvm_Expression.hpp>
#include "kfvm_Deck.hpp"
#include "kfvm_DeckProblem.hpp"
#include "kfvm_DeckSetup.hpp"
#include "kfvm_ExitStatus.hpp"
#include "kfvm_Log.hpp"
#include "kfvm_RunLoop.hpp"

#ifdef KFVM_DECKS_WITH_MPI
#include "kfvm_AcrossRanks.hpp"
#include "kfvm_DistributedMeshRun.hpp"
#include "kfvm_DistributedRun.hpp"

#include <mpi.h>
#endif

#include <kfvm_MeshQuality.hpp>

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>

namespace kfvm::app {

using Space = DeckSpace;

int runDeck(const Deck& read, const RunOptions& options) {
#ifdef KFVM_DECKS_WITH_MPI
  if (mpiWorldSize() > 1) {
    Deck acrossRanks = read;
    acrossRanks.defaultSolverAcrossRanks();
    return acrossRanks.isCartesian() ? runGridDeckAcrossRanks(acrossRanks, options)
                                     : runMeshDeckAcrossRanks(acrossRanks, options);
  }
#endif
  Deck deck = read;
  loadDeckMesh(deck);
  log::setLevel(options.quiet     ? log::Level::Quiet
                : options.verbose ? log::Level::Verbose
                                  : log::Level::Normal);
  log::info("kfvm run %s: %dD, %lld cells, %d variable%s, backend %s", deck.path.c_str(),
            deck.dimension, deck.numCells(), deck.numVariables(),
            deck.numVariables() > 1 ? "s (coupled)" : "", Space::name());
  const Mesh<Space> mesh = meshOf(deck);
  log::info("%s", validateDeck(deck, &mesh).c_str());
  log::debug("solver            %s, preconditioner %s; sweeps at most %d to %g",
             deck.solver.c_str(),
             deck.solverParameters.getString("preconditioner", "jacobi").c_str(),
             deck.maxSweeps, deck.sweepTolerance);
  const auto centres = cellCentres(deck, mesh);
  const auto problem = DeckProblem::create(deck, mesh, centres);
  return runProblem(deck, options, RunParts{*problem, mesh, centres});
}

/// "crank-nicolson", or a schedule's stages: "crank-nicolson x 99, backward-euler x 1".
std::string schemeText(const Deck& deck) {
  if (deck.schedule.empty()) return deck.timeScheme;
  std::string text;
  for (const auto& stage : deck.schedule)
    text +=
        (text.empty() ? "" : ", ") + stage.scheme + " x " + std::to_string(stage.steps);
  return text;
}

/// A Gmsh mesh's patches with their face counts, and its quality (kfvm check).
void printGmshMesh(const Deck& deck, const Mesh<DeckSpace>& mesh) {
  std::printf("  mesh '%s': %lld faces, %lld on the boundary; patches:\n",
              deck.meshFile.c_str(), (long long)mesh.numFaces(),
              (long long)mesh.numBoundaryFaces());
  for (int p = 0; p < mesh.patchCount(); ++p)
    std::printf("    %-24s %10lld faces\n", mesh.patchNames()[std::size_t(p)].c_str(),
                (long long)mesh.patchSize(p));
  for (const auto& pair : deck.periodicPairs)
    std::printf("  periodic: '%s' joined to '%s' (faces inside the mesh now)\n",
                pair[0].c_str(), pair[1].c_str());
  const MeshQuality quality = meshQuality(mesh);
  std::printf(
      "  quality: non-orthogonality max %.2f, mean %.2f degrees (%lld faces over 70); "
      "skewness max %.3f; diffusion correction %s\n",
      quality.maxNonOrthogonality, quality.meanNonOrthogonality,
      (long long)quality.facesOver70Degrees, quality.maxSkewness,
      deck.diffusionCorrection.empty() ? "none" : deck.diffusionCorrection.c_str());
}

int checkDeck(const Deck& read) {
  Deck deck = read;
#ifdef KFVM_DECKS_WITH_MPI
  if (mpiWorldSize() > 1) deck.defaultSolverAcrossRanks();
#endif
  loadDeckMesh(deck);
  std::optional<Mesh<DeckSpace>> mesh;
  if (!deck.isCartesian()) mesh.emplace(meshOf(deck));
  const std::string memory = validateDeck(deck, mesh ? &*mesh : nullptr);
  bool printing = true;
#ifdef KFVM_DECKS_WITH_MPI
  if (mpiWorldSize() > 1) {  // every rank checks; rank 0 prints
    if (deck.isCartesian())
      checkGridAcrossRanks(deck);
    else
      checkMeshAcrossRanks(deck);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printing = rank == 0;
  }
#endif
  if (!printing) return exitOk;
  std::printf("%s: ok\n  mesh %dD, %lld cells; variables %s%s; %s; solver %s; %s\n",
              deck.path.c_str(), deck.dimension, deck.numCells(), deck.runName().c_str(),
              deck.isCoupled() ? " (coupled)" : "",
              deck.steady ? "steady" : ("time " + schemeText(deck)).c_str(),
              deck.solver.c_str(),
              !deck.hasCheck       ? "no check"
              : deck.exact.empty() ? "integral checked"
                                   : "checked against an exact solution");
  if (mesh) printGmshMesh(deck, *mesh);
  std::printf("%s\n", memory.c_str());
  return 0;
}

}  // namespace kfvm::app
