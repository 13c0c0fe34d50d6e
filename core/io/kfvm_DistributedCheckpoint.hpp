#ifndef KFVM_DISTRIBUTED_CHECKPOINT_HPP
#define KFVM_DISTRIBUTED_CHECKPOINT_HPP

#include <kfvm_Field.hpp>
#include <kfvm_HaloExchange.hpp>

#include <map>
#include <string>
#include <vector>

namespace kfvm {

/// The "format" attribute of a distributed checkpoint: what the file is, and the version
/// of its layout.
inline constexpr const char* distributedCheckpointFormat =
    "kfvm distributed checkpoint 1";

/// What a distributed checkpoint holds besides the fields.
struct DistributedCheckpointInfo {
  long long step = 0;
  double time = 0;
  std::array<int, 3> cells{1, 1, 1};
  /// More attributes of the file, by name (not format, step, time or cells): numbers
  /// (one or more doubles) and texts. Written as given, which must be the same on every
  /// rank; read back, every attribute besides the four, numbers of any numeric type as
  /// doubles.
  std::map<std::string, std::vector<double>> numbers;
  std::map<std::string, std::string> texts;
};

/// Writes the owned cells of ghosted fields (the halo's GhostedBlock layout) into one
/// HDF5 file with parallel HDF5, collectively over the halo's communicator. There is one
/// double-precision dataset per field, named after it and shaped like the global grid
/// (nz, ny, nx). Each rank writes its block as a hyperslab, so the file does not depend
/// on the number of ranks. Attributes: format ("kfvm distributed checkpoint 1"), step,
/// time, cells (the decomposition's; info.cells is not used).
///
/// Nothing lost, nothing silently wrong: the file is made under path + ".tmp" with the
/// seal's user block (kfvm_DurableFile.hpp); every HDF5 call is checked, closes
/// included, and agreed on by every rank. Once it is closed, rank 0 seals it, every rank
/// reads its blocks back and compares them bit for bit, and rank 0 commits it (fsync,
/// rename over path, fsync of the folder). When anything fails on any rank (a bad step
/// or time, a field not on the block, a full disk), every rank throws kfvm::Error
/// naming the file (the failing rank its own reason, the others "another rank (r)
/// failed: " and that reason), the temporary is removed and a checkpoint already at path
/// is left as it was.
template <class ExecSpace>
void writeDistributedCheckpoint(const std::string& path,
                                const HaloExchange<ExecSpace>& halo,
                                const std::vector<const CellField<ExecSpace>*>& fields,
                                const DistributedCheckpointInfo& info);

/// Reads such a file on any number of ranks and any decomposition of the same grid:
/// each rank reads its block into the owned cells, then the ghosts are exchanged. Rank 0
/// first checks the seal (length and XXH64, before HDF5 reads anything); then the
/// format, step (>= 0), time (finite, >= 0), cells (positive, the decomposition's) and
/// each dataset's shape. Every rank throws kfvm::Error naming the file and what is wrong
/// (damaged, truncated, not sealed, a missing dataset, a grid that differs...).
template <class ExecSpace>
DistributedCheckpointInfo readDistributedCheckpoint(
    const std::string& path, HaloExchange<ExecSpace>& halo,
    const std::vector<CellField<ExecSpace>*>& fields);

}  // namespace kfvm

#endif
