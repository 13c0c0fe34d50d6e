#ifndef KFVM_HALO_EXCHANGE_HPP
#define KFVM_HALO_EXCHANGE_HPP

#include <kfvm_Decomposition.hpp>
#include <kfvm_Types.hpp>

#include <mpi.h>

#include <array>
#include <cstddef>

namespace kfvm {

/// One rank's block of a Decomposition with `width` layers of ghost cells on each side
/// that has a neighbouring rank (none at the physical boundary: boundary conditions work
/// through boundary faces). Local storage runs x fastest over extent = lower + owned +
/// upper cells per axis. Owned cells have local indices 0 .. owned - 1, ghosts -lower ..
/// -1 and owned .. owned + upper - 1. A 7-point stencil needs one layer; the fourth-order
/// term and TVD convection reach two cells away and need two.
///
/// Its arrays are Kokkos::Array, not std::array: kernels read them (isOwned(), index()),
/// and std::array's operator[] is a host function: a Cuda kernel built by nvcc read
/// every such entry as 0 (the MPI tests on Cuda failed with it).
struct GhostedBlock {
  Kokkos::Array<int, 3> owned{1, 1, 1}, lower{0, 0, 0}, upper{0, 0, 0}, extent{1, 1, 1};

  GhostedBlock() = default;
  /// Throws kfvm::Error when width is not 1 or more, or when a block has fewer cells
  /// than width along an axis split between ranks (its ghosts would span two ranks).
  GhostedBlock(const Decomposition& decomposition, int rank, int width = 1);
  Ordinal size() const { return Ordinal(extent[0]) * extent[1] * extent[2]; }
  KOKKOS_INLINE_FUNCTION Ordinal index(int i, int j, int k) const {
    return (i + lower[0]) +
           Ordinal(extent[0]) * ((j + lower[1]) + Ordinal(extent[1]) * (k + lower[2]));
  }
  KOKKOS_INLINE_FUNCTION bool isOwned(Ordinal local) const {
    const int i = int(local % extent[0]) - lower[0];
    const int j = int((local / extent[0]) % extent[1]) - lower[1];
    const int k = int(local / (Ordinal(extent[0]) * extent[1])) - lower[2];
    return i >= 0 && i < owned[0] && j >= 0 && j < owned[1] && k >= 0 && k < owned[2];
  }
};

/// Whether MPI may be handed device memory: Auto asks the MPI library (Open MPI's
/// MPIX_Query_cuda_support) unless the environment variable KFVM_GPU_AWARE_MPI is 0 or
/// 1; Off stages every message through host buffers.
enum class GpuAwareMpi { Auto, On, Off };

/// Halo exchange of ghosted cell fields (GhostedBlock layout) between the ranks of a
/// Decomposition. exchange() fills every ghost cell with the owning rank's value: faces,
/// edges and corners. It runs one phase per axis, and each phase sends the slab with the
/// ghosts the earlier phases filled, so edges and corners arrive without diagonal
/// messages. Messages are non-blocking and packed on the device into buffers made once,
/// on construction; without GPU-aware MPI they go through host mirrors, also made once.
template <class ExecSpace>
class HaloExchange {
 public:
  /// decomposition.numRanks() must be the size of comm; throws kfvm::Error naming both
  /// otherwise. components: values per cell, interleaved (entry cell * components + v:
  /// the block vectors of a coupled system); 1 for a cell field.
  HaloExchange(const Decomposition& decomposition, MPI_Comm comm,
               GpuAwareMpi mode = GpuAwareMpi::Auto, int ghostLayers = 1,
               int components = 1);

  /// field has layout().size() * components() entries; throws kfvm::Error otherwise, or
  /// when MPI fails.
  void exchange(const Vector<ExecSpace>& field);

  /// Face ghosts only, without edges or corners (all that a 7-point stencil reads), in
  /// one phase that overlaps computation. startFaces() packs the faces and posts every
  /// message; finishFaces() waits and unpacks. In between, the field's owned cells may
  /// be read but not written, and its ghosts are not yet valid.
  void startFaces(const Vector<ExecSpace>& field);
  void finishFaces(const Vector<ExecSpace>& field);

  const GhostedBlock& layout() const { return layout_; }
  const Decomposition& decomposition() const { return decomposition_; }
  int rank() const { return rank_; }
  int components() const { return components_; }
  MPI_Comm communicator() const { return comm_; }
  /// Wall seconds spent in exchange(), startFaces() and finishFaces() so far (packing,
  /// messages, waiting, unpacking, fenced), and the number of exchanges: what the
  /// exchange costs, apart from the computation. Kernels launched before a call (the
  /// field's producer, or the interior product overlapping the messages) are waited for
  /// outside the timer; finishFaces() waits for the messages first, while the device
  /// computes, and counts that wait. A block with no neighbouring rank exchanges nothing
  /// and does not fence.
  double seconds() const { return seconds_; }
  long long calls() const { return calls_; }
  /// True when messages go to MPI from ExecSpace's memory directly (host memory, or
  /// GPU-aware MPI).
  bool direct() const { return direct_; }
  /// Bytes this rank sends in one startFaces() (its face slabs to every neighbour).
  std::size_t faceBytes() const { return faceBytes_; }

 private:
  Decomposition decomposition_;
  MPI_Comm comm_;
  int rank_ = 0;
  int components_ = 1;
  bool direct_ = true;
  std::size_t faceBytes_ = 0;
  double seconds_ = 0;
  long long calls_ = 0;
  MPI_Request requests_[12];
  bool hasNeighbours_ = false;
  int pendingRequests_ = -1;  // -1: no startFaces() waiting for its finishFaces()
  GhostedBlock layout_;
  // Per axis and side (0 lower, 1 upper): the packed slab sent and the one received.
  std::array<std::array<DeviceView<Real*, ExecSpace>, 2>, 3> send_, receive_;
  std::array<std::array<Kokkos::View<Real*, Kokkos::HostSpace>, 2>, 3> sendHost_,
      receiveHost_;
};

}  // namespace kfvm

#endif
