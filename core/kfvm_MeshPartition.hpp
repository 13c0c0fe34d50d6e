#ifndef KFVM_MESH_PARTITION_HPP
#define KFVM_MESH_PARTITION_HPP

// How the cells of a general mesh are split between ranks, and one rank's part of it:
// its cells with ghost layers around them (host only, no MPI: every rank computes the
// same partition from the same mesh).

#include <kfvm_MeshTopology.hpp>

#include <string>
#include <vector>

namespace kfvm {

/// How partitionCells() splits cells.
enum class PartitionMethod {
  /// METIS's k-way partition of the cells' face graph (fewest cut faces), when kfvm was
  /// built with METIS; otherwise RecursiveBisection.
  Default,
  /// METIS's k-way partition; kfvm::Error when kfvm was built without METIS.
  Metis,
  /// Recursive coordinate bisection of the cell centres (node means): at each level
  /// the cells split across their longest extent, in proportion to the parts each side
  /// gets. Needs nothing beyond kfvm.
  RecursiveBisection
};

/// True when kfvm was built with METIS.
bool haveMetis();

/// The part (0 .. parts - 1) of every cell; every part gets cells (kfvm::Error when
/// there are fewer cells than parts). Deterministic: the same mesh and parts give the
/// same answer on every rank. connectivity is topology.connect()'s.
std::vector<int> partitionCells(const MeshTopology& topology,
                                const MeshTopology::Connectivity& connectivity, int parts,
                                PartitionMethod method = PartitionMethod::Default);

/// One rank's part of a partitioned mesh: its cells (in global order), then ghostLayers
/// layers of the cells around them (layer by layer, each in global order); the faces
/// between the last layer and the cells beyond go on the patch MeshPart::cutPatch.
struct MeshPart {
  static constexpr const char* cutPatch = "kfvm:ranks";
  MeshTopology topology;
  std::vector<long long> globalCells;  ///< the global cell of each local cell
  Ordinal ownedCells = 0;              ///< local cells 0 .. ownedCells - 1 are owned
  std::vector<int> ghostOwners;        ///< the rank owning local cell ownedCells + g
};

/// The part of rank (owners: partitionCells()'s answer) with ghostLayers (1 or 2) layers
/// of ghost cells. Throws kfvm::Error naming a bad rank or layer count, or a rank that
/// owns no cell.
MeshPart meshPart(const MeshTopology& topology,
                  const MeshTopology::Connectivity& connectivity,
                  const std::vector<int>& owners, int rank, int ghostLayers);

}  // namespace kfvm

#endif
