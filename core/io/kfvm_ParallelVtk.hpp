#ifndef KFVM_PARALLEL_VTK_HPP
#define KFVM_PARALLEL_VTK_HPP

#include <kfvm_CartesianGrid.hpp>
#include <kfvm_Field.hpp>
#include <kfvm_HaloExchange.hpp>
#include <kfvm_MeshHaloExchange.hpp>

#include <mpi.h>

#include <string>
#include <vector>

namespace kfvm {

/// Writes distributed cell fields as a ParaView parallel rectilinear grid. Each rank
/// writes the owned cells of its block to `stem_<rank>.vtr`, with the block's global
/// extent and vertex coordinates. Rank 0 writes `stem.pvtr`, which lists every piece
/// with its extent and opens as one grid in ParaView. The fields are in the halo's
/// GhostedBlock layout, as on DistributedSystem::localMesh(); ghost cells are not
/// written. grid is the global grid.
///
/// Collective over the halo's communicator: it returns once every file is complete.
/// Every write is checked (kfvm_DurableFile.hpp). Each rank writes its piece to a
/// temporary; the pieces replace the old ones only once every rank has written its own,
/// and rank 0 then replaces the .pvtr. When any rank fails, every rank throws
/// kfvm::Error: the failing rank's message names the path and the reason, the others'
/// say that another rank failed and repeat its message; the files of an earlier output
/// under the same stem are left as they were, and no temporary is left.
template <class ExecSpace>
void writeParallelVtk(const std::string& stem, const CartesianGrid& grid,
                      const HaloExchange<ExecSpace>& halo,
                      const std::vector<const CellField<ExecSpace>*>& fields,
                      double time);

/// The same for a general mesh split across ranks (MeshParts): each rank
/// writes the owned cells of its part (localMesh's first halo.ownedCells() cells) to
/// `stem_<rank>.vtu`, and rank 0 writes `stem.pvtu`, which lists the pieces. Collective,
/// checked and replaced as above.
template <class ExecSpace>
void writeParallelVtu(const std::string& stem, const Mesh<ExecSpace>& localMesh,
                      const MeshHaloExchange<ExecSpace>& halo,
                      const std::vector<const CellField<ExecSpace>*>& fields,
                      double time);

}  // namespace kfvm

#endif
