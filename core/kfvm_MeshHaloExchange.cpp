#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_MeshHaloExchange.hpp>

#include "detail/kfvm_MpiSupport.hpp"

#include <algorithm>
#include <map>
#include <type_traits>

namespace kfvm {

namespace Details {

/// Entry m = c k + v of the buffer is value v of cell cells(k) (c values per cell):
/// buffer(m) = field(c cells(k) + v) when packing, the other way when unpacking.
template <class ExecSpace>
struct MeshHaloCopy {
  DeviceView<const Ordinal*, ExecSpace> cells;
  Vector<ExecSpace> field, buffer;
  bool pack;
  int components;
  KOKKOS_FUNCTION void operator()(Ordinal m) const {
    const Ordinal at = cells(m / components) * components + m % components;
    if (pack)
      buffer(m) = field(at);
    else
      field(at) = buffer(m);
  }
};

}  // namespace Details

template <class ExecSpace>
MeshHaloExchange<ExecSpace>::MeshHaloExchange(const MeshPart& part, MPI_Comm comm,
                                              GpuAwareMpi mode, int components)
    : comm_(comm),
      components_(components),
      owned_(part.ownedCells),
      local_(Ordinal(part.globalCells.size())) {
  require(components >= 1, "mesh halo exchange: components must be 1 or more, got ",
          components);
  int size = 0;
  Details::check(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank", -1);
  Details::check(MPI_Comm_size(comm, &size), "MPI_Comm_size", rank_);
  require(Ordinal(part.ghostOwners.size()) == local_ - owned_,
          "mesh halo exchange: the part has ", local_ - owned_, " ghosts and ",
          part.ghostOwners.size(), " ghost owners");
  // The ghosts by owner, in local order (the order of the messages).
  std::map<int, std::vector<Ordinal>> ghostsOf;
  for (Ordinal g = 0; g < local_ - owned_; ++g) {
    const int owner = part.ghostOwners[std::size_t(g)];
    require(owner >= 0 && owner < size && owner != rank_, "mesh halo exchange: ghost ", g,
            " of rank ", rank_, " is owned by rank ", owner, " (", size, " ranks)");
    ghostsOf[owner].push_back(owned_ + g);
  }
  // Tell every owner which of its cells (global ids) this rank needs.
  std::vector<int> wanted(std::size_t(size), 0), asked(std::size_t(size), 0);
  for (const auto& [owner, cells] : ghostsOf)
    wanted[std::size_t(owner)] = int(cells.size());
  Details::check(MPI_Alltoall(wanted.data(), 1, MPI_INT, asked.data(), 1, MPI_INT, comm),
                 "MPI_Alltoall", rank_);
  std::vector<int> wantedOffsets(std::size_t(size) + 1, 0),
      askedOffsets(std::size_t(size) + 1, 0);
  for (int r = 0; r < size; ++r) {
    wantedOffsets[std::size_t(r) + 1] =
        wantedOffsets[std::size_t(r)] + wanted[std::size_t(r)];
    askedOffsets[std::size_t(r) + 1] =
        askedOffsets[std::size_t(r)] + asked[std::size_t(r)];
  }
  std::vector<long long> wantedIds, askedIds(std::size_t(askedOffsets.back()));
  for (const auto& [owner, cells] : ghostsOf)
    for (const Ordinal cell : cells)
      wantedIds.push_back(part.globalCells[std::size_t(cell)]);
  Details::check(MPI_Alltoallv(wantedIds.data(), wanted.data(), wantedOffsets.data(),
                               MPI_LONG_LONG, askedIds.data(), asked.data(),
                               askedOffsets.data(), MPI_LONG_LONG, comm),
                 "MPI_Alltoallv", rank_);
  // Owned cells are in global order: a global id's local cell by binary search.
  const auto ownedBegin = part.globalCells.begin(), ownedEnd = ownedBegin + owned_;
  std::vector<Ordinal> sendCells, receiveCells;
  std::vector<int> ranks;
  for (int r = 0; r < size; ++r) {
    if (asked[std::size_t(r)] == 0 && wanted[std::size_t(r)] == 0) continue;
    ranks.push_back(r);
  }
  sendOffsets_.push_back(0);
  receiveOffsets_.push_back(0);
  for (const int r : ranks) {
    for (int k = askedOffsets[std::size_t(r)]; k < askedOffsets[std::size_t(r) + 1];
         ++k) {
      const long long id = askedIds[std::size_t(k)];
      const auto found = std::lower_bound(ownedBegin, ownedEnd, id);
      require(found != ownedEnd && *found == id, "mesh halo exchange: rank ", r,
              " asks rank ", rank_, " for global cell ", id, ", which it does not own");
      sendCells.push_back(Ordinal(found - ownedBegin));
    }
    const auto ghosts = ghostsOf.find(r);
    if (ghosts != ghostsOf.end())
      receiveCells.insert(receiveCells.end(), ghosts->second.begin(),
                          ghosts->second.end());
    sendOffsets_.push_back(Ordinal(sendCells.size()));
    receiveOffsets_.push_back(Ordinal(receiveCells.size()));
  }
  neighbours_ = ranks;
  requests_.resize(2 * ranks.size());
  sendCells_ =
      copyToDevice<Ordinal, ExecSpace>(sendCells, "kfvm::MeshHaloExchange::sendCells");
  receiveCells_ = copyToDevice<Ordinal, ExecSpace>(
      receiveCells, "kfvm::MeshHaloExchange::receiveCells");
  const std::size_t c = std::size_t(components);
  send_ = Vector<ExecSpace>("kfvm::MeshHaloExchange::send", sendCells.size() * c);
  receive_ =
      Vector<ExecSpace>("kfvm::MeshHaloExchange::receive", receiveCells.size() * c);
  constexpr bool hostMemory =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                 typename ExecSpace::memory_space>::accessible;
  direct_ = hostMemory || mode == GpuAwareMpi::On ||
            (mode == GpuAwareMpi::Auto && Details::gpuAwareMpiAvailable());
  if (!direct_) {
    sendHost_ = Kokkos::View<Real*, Kokkos::HostSpace>("kfvm::MeshHaloExchange::sendHost",
                                                       sendCells.size() * c);
    receiveHost_ = Kokkos::View<Real*, Kokkos::HostSpace>(
        "kfvm::MeshHaloExchange::receiveHost", receiveCells.size() * c);
  }
}

template <class ExecSpace>
void MeshHaloExchange<ExecSpace>::exchange(const Vector<ExecSpace>& field) {
  require(field.extent(0) == std::size_t(local_) * std::size_t(components_),
          "mesh halo exchange: the field has ", field.extent(0), " entries, the part ",
          local_, " cells of ", components_, " values");
  const Ordinal c = components_;
  if (neighbours_.empty()) return;
  const MPI_Datatype type = std::is_same<Real, double>::value ? MPI_DOUBLE : MPI_FLOAT;
  const ExecSpace space;
  int n = 0;
  Real* receiveData = direct_ ? receive_.data() : receiveHost_.data();
  for (std::size_t k = 0; k < neighbours_.size(); ++k) {
    const Ordinal count = c * (receiveOffsets_[k + 1] - receiveOffsets_[k]);
    if (count == 0) continue;
    Details::check(MPI_Irecv(receiveData + c * receiveOffsets_[k], int(count), type,
                             neighbours_[k], 31, comm_, &requests_[std::size_t(n++)]),
                   "MPI_Irecv", rank_);
  }
  forEachIndex(
      "kfvm::MeshHaloExchange::pack", space, c * sentCells(),
      Details::MeshHaloCopy<ExecSpace>{sendCells_, field, send_, true, components_});
  if (!direct_) Kokkos::deep_copy(space, sendHost_, send_);
  space.fence();
  const Real* sendData = direct_ ? send_.data() : sendHost_.data();
  for (std::size_t k = 0; k < neighbours_.size(); ++k) {
    const Ordinal count = c * (sendOffsets_[k + 1] - sendOffsets_[k]);
    if (count == 0) continue;
    Details::check(MPI_Isend(sendData + c * sendOffsets_[k], int(count), type,
                             neighbours_[k], 31, comm_, &requests_[std::size_t(n++)]),
                   "MPI_Isend", rank_);
  }
  Details::check(MPI_Waitall(n, requests_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall",
                 rank_);
  if (!direct_) Kokkos::deep_copy(space, receive_, receiveHost_);
  forEachIndex("kfvm::MeshHaloExchange::unpack", space, c * receivedCells(),
               Details::MeshHaloCopy<ExecSpace>{receiveCells_, field, receive_, false,
                                                components_});
  space.fence();
}

#define KFVM_INSTANTIATE_MESH_HALO_EXCHANGE(Space) template class MeshHaloExchange<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_MESH_HALO_EXCHANGE)

}  // namespace kfvm
