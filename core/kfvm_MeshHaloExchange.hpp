#ifndef KFVM_MESH_HALO_EXCHANGE_HPP
#define KFVM_MESH_HALO_EXCHANGE_HPP

#include <kfvm_HaloExchange.hpp>
#include <kfvm_MeshPartition.hpp>
#include <kfvm_Types.hpp>

#include <mpi.h>

#include <vector>

namespace kfvm {

/// Halo exchange of cell fields on the parts of a partitioned general mesh (MeshPart:
/// owned cells first, then the ghost layers). exchange() fills every ghost cell with
/// its owner's value. The lists are made once, on construction (each rank tells each
/// owner which of its cells it needs: one MPI_Alltoall and one MPI_Alltoallv); each
/// exchange packs the cells every neighbour needs on the device into one buffer, posts
/// non-blocking messages, and unpacks into the ghosts, through host mirrors made once
/// when MPI cannot take device memory. A field may hold `components` values per cell,
/// interleaved (a coupled system's block vectors): all of them travel at once.
template <class ExecSpace>
class MeshHaloExchange {
 public:
  /// part: this rank's part (rank = comm's rank). Collective over comm. Throws
  /// kfvm::Error when a ghost's owner is not a rank of comm, an MPI call fails, or
  /// components is below 1.
  MeshHaloExchange(const MeshPart& part, MPI_Comm comm,
                   GpuAwareMpi mode = GpuAwareMpi::Auto, int components = 1);

  /// field has components values per local cell; throws kfvm::Error otherwise, or when
  /// MPI fails.
  void exchange(const Vector<ExecSpace>& field);
  int components() const { return components_; }

  int rank() const { return rank_; }
  MPI_Comm communicator() const { return comm_; }
  Ordinal ownedCells() const { return owned_; }
  Ordinal localCells() const { return local_; }
  /// The ranks this one exchanges with, and how many cells it sends to and receives
  /// from all of them together (components values each).
  const std::vector<int>& neighbours() const { return neighbours_; }
  Ordinal sentCells() const { return Ordinal(sendCells_.extent(0)); }
  Ordinal receivedCells() const { return Ordinal(receiveCells_.extent(0)); }
  bool direct() const { return direct_; }

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  int components_ = 1;
  Ordinal owned_ = 0, local_ = 0;
  bool direct_ = true;
  std::vector<int> neighbours_;
  // Per neighbour: where its cells start in the send and receive buffers (one more
  // entry at the end, the totals).
  std::vector<Ordinal> sendOffsets_, receiveOffsets_;
  std::vector<MPI_Request> requests_;
  // The local cells packed (owned, neighbour by neighbour) and unpacked (ghosts).
  DeviceView<Ordinal*, ExecSpace> sendCells_, receiveCells_;
  Vector<ExecSpace> send_, receive_;
  Kokkos::View<Real*, Kokkos::HostSpace> sendHost_, receiveHost_;
};

}  // namespace kfvm

#endif
