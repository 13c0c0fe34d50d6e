#ifndef KFVM_PARALLEL_VTK_HPP
#define KFVM_PARALLEL_VTK_HPP

#include <kfvm_CartesianGrid.hpp>
#include <kfvm_Field.hpp>
#include <kfvm_HaloExchange.hpp>

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
/// Each file is written to a temporary name and renamed. When any rank fails to write,
/// every rank throws kfvm::Error; the failing rank's message names the path.
template <class ExecSpace>
void writeParallelVtk(const std::string& stem, const CartesianGrid& grid,
                      const HaloExchange<ExecSpace>& halo,
                      const std::vector<const CellField<ExecSpace>*>& fields,
                      double time);

}  // namespace kfvm

#endif
