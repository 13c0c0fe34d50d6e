#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_HaloExchange.hpp>

#include "detail/kfvm_MpiSupport.hpp"

#if defined(OPEN_MPI) && OPEN_MPI && __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <chrono>
#include <cstdlib>
#include <string>
#include <type_traits>

namespace kfvm {

GhostedBlock::GhostedBlock(const Decomposition& decomposition, int rank, int width) {
  require(width >= 1, "ghost layers: the width must be 1 or more, got ", width);
  // Checked for every rank's block, so that every rank throws the same error.
  for (int r = 0; r < decomposition.numRanks(); ++r)
    for (int a = 0; a < 3; ++a) {
      const int cells = decomposition.block(r).count[a];
      require((decomposition.processGrid()[a] == 1 && !decomposition.isPeriodic(a)) ||
                  cells >= width,
              "ghost layers: rank ", r, "'s block has ", cells, " cells along axis ", a,
              ", fewer than the ", width,
              " ghost layers (use fewer ranks along that axis)");
    }
  for (int a = 0; a < 3; ++a) {
    owned[a] = decomposition.block(rank).count[a];
    lower[a] = decomposition.neighbour(rank, a, 0) >= 0 ? width : 0;
    upper[a] = decomposition.neighbour(rank, a, 1) >= 0 ? width : 0;
    extent[a] = lower[a] + owned[a] + upper[a];
  }
}

namespace Details {

/// The slab of phase `axis` on one side: the ghost width's layers along axis (the
/// owned layers next to the side when packing, the ghost layers beyond it when
/// unpacking), and along the other axes the owned cells plus the ghosts of the axes
/// exchanged before (b < axis).
struct HaloSlab {
  int axis;
  Kokkos::Array<int, 3> begin, count;  // read in kernels: not std::array (GhostedBlock)

  HaloSlab(const GhostedBlock& block, int axis, int side, bool ghostLayer,
           bool faceOnly = false)
      : axis(axis) {
    const int n = block.owned[axis];
    const int width = side == 0 ? block.lower[axis] : block.upper[axis];
    const int first = ghostLayer ? (side == 0 ? -width : n) : (side == 0 ? 0 : n - width);
    for (int b = 0; b < 3; ++b) {
      const bool withGhosts = b < axis && !faceOnly;
      begin[b] = b == axis ? first : (withGhosts ? -block.lower[b] : 0);
      count[b] =
          b == axis ? width
                    : block.owned[b] + (withGhosts ? block.lower[b] + block.upper[b] : 0);
    }
  }
  Ordinal size() const { return Ordinal(count[0]) * count[1] * count[2]; }
  /// Local (i, j, k) of the slab's m-th cell, x fastest.
  KOKKOS_INLINE_FUNCTION void cell(Ordinal m, int& i, int& j, int& k) const {
    i = begin[0] + int(m % count[0]);
    j = begin[1] + int((m / count[0]) % count[1]);
    k = begin[2] + int(m / (Ordinal(count[0]) * count[1]));
  }
};

/// Copies a slab's cells between a field (components values per cell, interleaved)
/// and a buffer (the same, in slab order).
template <class ExecSpace>
struct HaloCopy {
  GhostedBlock block;
  HaloSlab slab;
  Vector<ExecSpace> field, buffer;
  bool pack;
  int components = 1;

  KOKKOS_FUNCTION void operator()(Ordinal m) const {
    int i, j, k;
    slab.cell(m, i, j, k);
    const Ordinal c = block.index(i, j, k) * components, b = m * components;
    for (int v = 0; v < components; ++v) {
      if (pack)
        buffer(b + v) = field(c + v);
      else
        field(c + v) = buffer(b + v);
    }
  }
};

bool gpuAwareMpiAvailable() {
  if (const char* forced = std::getenv("KFVM_GPU_AWARE_MPI")) {
    const std::string value = forced;
    require(value == "0" || value == "1", "KFVM_GPU_AWARE_MPI must be 0 or 1, got '",
            value, "'");
    return value == "1";
  }
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

void check(int status, const char* what, int rank) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(status, text, &length);
  fail("halo exchange: ", what, " failed on rank ", rank, ": ",
       std::string(text, std::size_t(length)));
}

}  // namespace Details

template <class ExecSpace>
HaloExchange<ExecSpace>::HaloExchange(const Decomposition& decomposition, MPI_Comm comm,
                                      GpuAwareMpi mode, int ghostLayers, int components)
    : decomposition_(decomposition), comm_(comm), components_(components) {
  require(components >= 1, "halo exchange: components must be 1 or more, got ",
          components);
  int size = 0;
  Details::check(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank", -1);
  Details::check(MPI_Comm_size(comm, &size), "MPI_Comm_size", rank_);
  require(size == decomposition.numRanks(), "halo exchange: the decomposition has ",
          decomposition.numRanks(), " ranks, the communicator ", size);
  layout_ = GhostedBlock(decomposition, rank_, ghostLayers);
  constexpr bool hostMemory =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                 typename ExecSpace::memory_space>::accessible;
  direct_ = hostMemory || mode == GpuAwareMpi::On ||
            (mode == GpuAwareMpi::Auto && Details::gpuAwareMpiAvailable());
  for (int a = 0; a < decomposition.dimension(); ++a)
    for (int side = 0; side < 2; ++side) {
      if (decomposition.neighbour(rank_, a, side) < 0) continue;
      hasNeighbours_ = true;
      const Ordinal n = Details::HaloSlab(layout_, a, side, false).size() * components;
      faceBytes_ += std::size_t(Details::HaloSlab(layout_, a, side, false, true).size()) *
                    sizeof(Real) * std::size_t(components);
      const std::string where = std::to_string(a) + (side == 0 ? "lower" : "upper");
      send_[a][side] = Vector<ExecSpace>("kfvm::HaloExchange::send" + where, n);
      receive_[a][side] = Vector<ExecSpace>("kfvm::HaloExchange::receive" + where, n);
      if (!direct_) {
        sendHost_[a][side] = Kokkos::View<Real*, Kokkos::HostSpace>(
            "kfvm::HaloExchange::sendHost" + where, n);
        receiveHost_[a][side] = Kokkos::View<Real*, Kokkos::HostSpace>(
            "kfvm::HaloExchange::receiveHost" + where, n);
      }
    }
}

template <class ExecSpace>
void HaloExchange<ExecSpace>::exchange(const Vector<ExecSpace>& field) {
  require(field.extent(0) == std::size_t(layout_.size()) * std::size_t(components_),
          "halo exchange: the field has ", field.extent(0),
          " entries, the ghosted block ", layout_.size(), " cells of ", components_);
  ++calls_;
  if (!hasNeighbours_) return;
  const MPI_Datatype type = std::is_same<Real, double>::value ? MPI_DOUBLE : MPI_FLOAT;
  const ExecSpace space;
  space.fence();  // the field's producer is not part of the exchange
  const auto start = std::chrono::steady_clock::now();
  for (int a = 0; a < decomposition_.dimension(); ++a) {
    MPI_Request requests[4];
    int numRequests = 0;
    for (int side = 0; side < 2; ++side) {  // post the receives first
      const int other = decomposition_.neighbour(rank_, a, side);
      if (other < 0) continue;
      Real* data = direct_ ? receive_[a][side].data() : receiveHost_[a][side].data();
      // The lower neighbour sends its upper slab (tag 2a + 1), the upper one its lower.
      Details::check(MPI_Irecv(data, int(receive_[a][side].extent(0)), type, other,
                               2 * a + (1 - side), comm_, &requests[numRequests++]),
                     "MPI_Irecv", rank_);
    }
    for (int side = 0; side < 2; ++side) {
      if (decomposition_.neighbour(rank_, a, side) < 0) continue;
      const Details::HaloSlab slab(layout_, a, side, false);
      forEachIndex("kfvm::HaloExchange::pack", space, slab.size(),
                   Details::HaloCopy<ExecSpace>{layout_, slab, field, send_[a][side],
                                                true, components_});
    }
    space.fence();
    for (int side = 0; side < 2; ++side) {
      const int other = decomposition_.neighbour(rank_, a, side);
      if (other < 0) continue;
      if (!direct_) Kokkos::deep_copy(sendHost_[a][side], send_[a][side]);
      const Real* data = direct_ ? send_[a][side].data() : sendHost_[a][side].data();
      Details::check(MPI_Isend(data, int(send_[a][side].extent(0)), type, other,
                               2 * a + side, comm_, &requests[numRequests++]),
                     "MPI_Isend", rank_);
    }
    Details::check(MPI_Waitall(numRequests, requests, MPI_STATUSES_IGNORE), "MPI_Waitall",
                   rank_);
    for (int side = 0; side < 2; ++side) {
      if (decomposition_.neighbour(rank_, a, side) < 0) continue;
      if (!direct_) Kokkos::deep_copy(receive_[a][side], receiveHost_[a][side]);
      const Details::HaloSlab slab(layout_, a, side, true);
      forEachIndex("kfvm::HaloExchange::unpack", space, slab.size(),
                   Details::HaloCopy<ExecSpace>{layout_, slab, field, receive_[a][side],
                                                false, components_});
    }
  }
  space.fence();
  seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

template <class ExecSpace>
void HaloExchange<ExecSpace>::startFaces(const Vector<ExecSpace>& field) {
  require(field.extent(0) == std::size_t(layout_.size()) * std::size_t(components_),
          "halo exchange: the field has ", field.extent(0),
          " entries, the ghosted block ", layout_.size(), " cells of ", components_);
  require(pendingRequests_ < 0,
          "halo exchange: startFaces() twice without finishFaces()");
  if (!hasNeighbours_) {
    pendingRequests_ = 0;
    return;
  }
  const MPI_Datatype type = std::is_same<Real, double>::value ? MPI_DOUBLE : MPI_FLOAT;
  const ExecSpace space;
  space.fence();  // the field's producer is not part of the exchange
  const auto start = std::chrono::steady_clock::now();
  int n = 0;
  for (int a = 0; a < decomposition_.dimension(); ++a)
    for (int side = 0; side < 2; ++side) {
      const int other = decomposition_.neighbour(rank_, a, side);
      if (other < 0) continue;
      const Details::HaloSlab slab(layout_, a, side, true, true);
      Real* data = direct_ ? receive_[a][side].data() : receiveHost_[a][side].data();
      Details::check(MPI_Irecv(data, int(slab.size() * components_), type, other,
                               6 + 2 * a + (1 - side), comm_, &requests_[n++]),
                     "MPI_Irecv", rank_);
      forEachIndex("kfvm::HaloExchange::packFace", space, slab.size(),
                   Details::HaloCopy<ExecSpace>{
                       layout_, Details::HaloSlab(layout_, a, side, false, true), field,
                       send_[a][side], true, components_});
    }
  space.fence();
  for (int a = 0; a < decomposition_.dimension(); ++a)
    for (int side = 0; side < 2; ++side) {
      const int other = decomposition_.neighbour(rank_, a, side);
      if (other < 0) continue;
      const Ordinal count =
          Details::HaloSlab(layout_, a, side, false, true).size() * components_;
      if (!direct_)
        Kokkos::deep_copy(
            Kokkos::subview(sendHost_[a][side], std::make_pair(Ordinal(0), count)),
            Kokkos::subview(send_[a][side], std::make_pair(Ordinal(0), count)));
      const Real* data = direct_ ? send_[a][side].data() : sendHost_[a][side].data();
      Details::check(MPI_Isend(data, int(count), type, other, 6 + 2 * a + side, comm_,
                               &requests_[n++]),
                     "MPI_Isend", rank_);
    }
  pendingRequests_ = n;
  seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

template <class ExecSpace>
void HaloExchange<ExecSpace>::finishFaces(const Vector<ExecSpace>& field) {
  require(pendingRequests_ >= 0, "halo exchange: finishFaces() without startFaces()");
  ++calls_;
  if (!hasNeighbours_) {
    pendingRequests_ = -1;
    return;
  }
  const ExecSpace space;
  // The wait comes first: MPI moves large messages while the host waits in it, and the
  // device still computes the interior meanwhile. Then the fence for that interior work,
  // which is not the exchange's, outside the timer.
  auto start = std::chrono::steady_clock::now();
  Details::check(MPI_Waitall(pendingRequests_, requests_, MPI_STATUSES_IGNORE),
                 "MPI_Waitall", rank_);
  pendingRequests_ = -1;
  seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  space.fence();
  start = std::chrono::steady_clock::now();
  for (int a = 0; a < decomposition_.dimension(); ++a)
    for (int side = 0; side < 2; ++side) {
      if (decomposition_.neighbour(rank_, a, side) < 0) continue;
      const Details::HaloSlab slab(layout_, a, side, true, true);
      const Ordinal count = slab.size() * components_;
      if (!direct_)
        Kokkos::deep_copy(
            Kokkos::subview(receive_[a][side], std::make_pair(Ordinal(0), count)),
            Kokkos::subview(receiveHost_[a][side], std::make_pair(Ordinal(0), count)));
      forEachIndex("kfvm::HaloExchange::unpackFace", space, slab.size(),
                   Details::HaloCopy<ExecSpace>{layout_, slab, field, receive_[a][side],
                                                false, components_});
    }
  space.fence();
  seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

#define KFVM_INSTANTIATE_HALO(Space) template class HaloExchange<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_HALO)

}  // namespace kfvm
