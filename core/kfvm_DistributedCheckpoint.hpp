#ifndef KFVM_DISTRIBUTED_CHECKPOINT_HPP
#define KFVM_DISTRIBUTED_CHECKPOINT_HPP

#include <kfvm_Field.hpp>
#include <kfvm_HaloExchange.hpp>

#include <string>
#include <vector>

namespace kfvm {

/// What a distributed checkpoint holds besides the fields.
struct DistributedCheckpointInfo {
  long long step = 0;
  double time = 0;
  std::array<int, 3> cells{1, 1, 1};
};

/// Writes the owned cells of ghosted fields (the halo's GhostedBlock layout) into one
/// HDF5 file with parallel HDF5, collectively over the halo's communicator. There is one
/// double-precision dataset per field, named after it and shaped like the global grid
/// (nz, ny, nx). Each rank writes its block as a hyperslab, so the file does not depend
/// on the number of ranks. Attributes: step, time, cells. The file is written under
/// path + ".tmp" and renamed by rank 0 once every rank has written. Throws kfvm::Error
/// naming the file when HDF5 fails.
template <class ExecSpace>
void writeDistributedCheckpoint(const std::string& path,
                                const HaloExchange<ExecSpace>& halo,
                                const std::vector<const CellField<ExecSpace>*>& fields,
                                const DistributedCheckpointInfo& info);

/// Reads such a file on any number of ranks and any decomposition of the same grid:
/// each rank reads its block into the owned cells, then the ghosts are exchanged.
/// Throws kfvm::Error naming the file, a missing dataset, or a grid that differs.
template <class ExecSpace>
DistributedCheckpointInfo readDistributedCheckpoint(
    const std::string& path, HaloExchange<ExecSpace>& halo,
    const std::vector<CellField<ExecSpace>*>& fields);

}  // namespace kfvm

#endif
