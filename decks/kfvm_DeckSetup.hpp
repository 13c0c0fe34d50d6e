#ifndef KFVM_APPS_DECK_SETUP_HPP
#define KFVM_APPS_DECK_SETUP_HPP

// From a Deck to kfvm objects: the grid, the initial values, the equation, and the
// memory the run will need.

#include "kfvm_Deck.hpp"
#include "kfvm_RunOutput.hpp"

#include <kfvm_CartesianGrid.hpp>
#include <kfvm_CoupledSystem.hpp>
#include <kfvm_Equation.hpp>

#include <array>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace kfvm::app {

/// A Cartesian deck's grid.
CartesianGrid gridOf(const Deck& deck);

/// Reads a deck's Gmsh mesh ([mesh] file, or geo meshed by Gmsh) into deck.topology and
/// sets its cells; checks its dimension, and every [[boundary]] patch against the mesh's
/// patches (an unknown one lists them). Nothing for a Cartesian deck. Errors name the
/// deck's file, line and key.
void loadDeckMesh(Deck& deck);

/// The run's mesh: the grid, or the Gmsh mesh loadDeckMesh read.
Mesh<DeckSpace> meshOf(const Deck& deck);

/// Cell centres on the host, x fastest (the mesh's cell order).
std::vector<std::array<double, 3>> cellCentres(const CartesianGrid& grid);
/// Cell centres of a deck's mesh on the host, in the mesh's cell order: the grid's as
/// above, a Gmsh mesh's centroids.
std::vector<std::array<double, 3>> cellCentres(const Deck& deck,
                                               const Mesh<DeckSpace>& mesh);

/// Every check `kfvm run` makes before its first step that needs no mesh on the device,
/// as `kfvm check` runs them too: the grid, the memory the run needs (reportMemory),
/// every expression coefficient at every cell centre (finite and in its key's range),
/// the boundary conditions, the solver and its preconditioner. Each refusal names the
/// deck's file, line and key. Returns reportMemory's line. A Gmsh mesh is built for the
/// checks (its patches, its cell centres), unless runMesh (the run's, from meshOf) is
/// given.
std::string validateDeck(const Deck& deck, const Mesh<DeckSpace>* runMesh = nullptr);

/// A variable's initial condition at the cell centres.
std::vector<double> initialValues(const InitialCondition& condition, int dimension,
                                  const std::vector<std::array<double, 3>>& centres);

/// Which sides of the mesh take the deck's boundary conditions: every side on one
/// process; a rank's physical sides only (not those facing another rank) when the mesh
/// is its part of a distributed one. Empty: every side.
using PhysicalSides = std::function<bool(Patch)>;

/// The [equation] terms and [[boundary]] conditions; expression coefficients become
/// per-cell fields.
void buildEquation(const Deck& deck, const Mesh<DeckSpace>& mesh,
                   const std::vector<std::array<double, 3>>& centres,
                   Equation<DeckSpace>& equation, const PhysicalSides& physical = {});

/// The [[equation]] terms of a coupled deck and the [[boundary]] conditions of its
/// variables.
void buildCoupledSystem(const Deck& deck, CoupledSystem<DeckSpace>& system,
                        const PhysicalSides& physical = {});

/// Bytes the run will hold on the device (see the definition for what is counted).
std::size_t estimateBytes(const Deck& deck);

/// The estimate and the free memory of the device the run uses, as one line; with
/// refuse, a kfvm::Error when the estimate exceeds 90% of it.
std::string reportMemory(const Deck& deck, bool refuse);

}  // namespace kfvm::app

#endif
