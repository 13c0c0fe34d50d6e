#include <kfvm_Backends.hpp>
#include <kfvm_DistributedCheckpoint.hpp>
#include <kfvm_Error.hpp>

#include <hdf5.h>

#include "detail/kfvm_Hdf5Handle.hpp"

#include <cstdio>

namespace kfvm {

namespace {

using Handle = Details::Hdf5Handle;

/// A file opened (or created) by every rank of comm with the MPI-IO driver.
hid_t openParallel(const std::string& path, MPI_Comm comm, bool create) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  H5Pset_fapl_mpio(access.get(), comm, MPI_INFO_NULL);
  return create ? H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get())
                : H5Fopen(path.c_str(), H5F_ACC_RDONLY, access.get());
}

/// The rank's block as a hyperslab of the (nz, ny, nx) file space, and its memory
/// space.
struct Slab {
  hsize_t start[3], count[3];
  explicit Slab(const Decomposition::Block& block) {
    for (int a = 0; a < 3; ++a) {
      start[2 - a] = hsize_t(block.first[a]);
      count[2 - a] = hsize_t(block.count[a]);
    }
  }
};

template <class T>
void attribute(hid_t file, const char* name, hid_t type, T* data, hsize_t n, bool write,
               const std::string& path) {
  Handle space(n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr),
               H5Sclose);
  Handle a(write ? H5Acreate2(file, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT)
                 : H5Aopen(file, name, H5P_DEFAULT),
           H5Aclose);
  require(a.valid() &&
              (write ? H5Awrite(a.get(), type, data) : H5Aread(a.get(), type, data)) >= 0,
          "checkpoint '", path, "': cannot ", write ? "write" : "read", " attribute ",
          name);
}

/// Owned cells of a ghosted field <-> the block's values, x fastest.
template <class ExecSpace>
std::vector<double> ownedValues(const GhostedBlock& layout,
                                const CellField<ExecSpace>& f) {
  const auto values =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.values());
  std::vector<double> owned;
  owned.reserve(std::size_t(layout.owned[0]) * layout.owned[1] * layout.owned[2]);
  for (int k = 0; k < layout.owned[2]; ++k)
    for (int j = 0; j < layout.owned[1]; ++j)
      for (int i = 0; i < layout.owned[0]; ++i)
        owned.push_back(double(values(layout.index(i, j, k))));
  return owned;
}

}  // namespace

template <class ExecSpace>
void writeDistributedCheckpoint(const std::string& path,
                                const HaloExchange<ExecSpace>& halo,
                                const std::vector<const CellField<ExecSpace>*>& fields,
                                const DistributedCheckpointInfo& info) {
  const auto& decomposition = halo.decomposition();
  const MPI_Comm comm = halo.communicator();
  const std::string temporary = path + ".tmp";
  {
    Handle file(openParallel(temporary, comm, true), H5Fclose);
    require(file.valid(), "cannot create checkpoint '", temporary, "'");
    const auto& n = decomposition.cells();
    const hsize_t dims[3] = {hsize_t(n[2]), hsize_t(n[1]), hsize_t(n[0])};
    const Slab slab(decomposition.block(halo.rank()));
    Handle transfer(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
    H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_COLLECTIVE);
    for (const auto* field : fields) {
      require(field != nullptr &&
                  field->values().extent(0) == std::size_t(halo.layout().size()),
              "checkpoint '", path, "': every field needs the ", halo.layout().size(),
              " cells of rank ", halo.rank(), "'s ghosted block");
      const auto values = ownedValues(halo.layout(), *field);
      Handle fileSpace(H5Screate_simple(3, dims, nullptr), H5Sclose);
      Handle data(H5Dcreate2(file.get(), field->name().c_str(), H5T_IEEE_F64LE,
                             fileSpace.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                  H5Dclose);
      require(data.valid(), "checkpoint '", temporary, "': cannot create dataset ",
              field->name());
      H5Sselect_hyperslab(fileSpace.get(), H5S_SELECT_SET, slab.start, nullptr,
                          slab.count, nullptr);
      Handle memory(H5Screate_simple(3, slab.count, nullptr), H5Sclose);
      require(H5Dwrite(data.get(), H5T_NATIVE_DOUBLE, memory.get(), fileSpace.get(),
                       transfer.get(), values.data()) >= 0,
              "checkpoint '", temporary, "': cannot write ", field->name());
    }
    long long step = info.step;
    double time = info.time;
    std::array<int, 3> cells = n;
    attribute(file.get(), "step", H5T_NATIVE_LLONG, &step, 1, true, temporary);
    attribute(file.get(), "time", H5T_NATIVE_DOUBLE, &time, 1, true, temporary);
    attribute(file.get(), "cells", H5T_NATIVE_INT, cells.data(), 3, true, temporary);
  }
  MPI_Barrier(comm);  // every rank's part is in the file
  int renamed = 1;
  if (halo.rank() == 0) renamed = std::rename(temporary.c_str(), path.c_str()) == 0;
  MPI_Bcast(&renamed, 1, MPI_INT, 0, comm);
  require(renamed == 1, "cannot rename '", temporary, "' to '", path, "'");
}

template <class ExecSpace>
DistributedCheckpointInfo readDistributedCheckpoint(
    const std::string& path, HaloExchange<ExecSpace>& halo,
    const std::vector<CellField<ExecSpace>*>& fields) {
  const auto& decomposition = halo.decomposition();
  const GhostedBlock& layout = halo.layout();
  DistributedCheckpointInfo info;
  {
    Handle file(openParallel(path, halo.communicator(), false), H5Fclose);
    require(file.valid(), "cannot open checkpoint '", path, "' (missing or not HDF5)");
    attribute(file.get(), "step", H5T_NATIVE_LLONG, &info.step, 1, false, path);
    attribute(file.get(), "time", H5T_NATIVE_DOUBLE, &info.time, 1, false, path);
    attribute(file.get(), "cells", H5T_NATIVE_INT, info.cells.data(), 3, false, path);
    require(info.cells == decomposition.cells(), "checkpoint '", path, "' holds ",
            info.cells[0], " x ", info.cells[1], " x ", info.cells[2],
            " cells, the decomposition ", decomposition.cells()[0], " x ",
            decomposition.cells()[1], " x ", decomposition.cells()[2]);
    const Slab slab(decomposition.block(halo.rank()));
    Handle transfer(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
    H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_COLLECTIVE);
    for (auto* field : fields) {
      require(field != nullptr && field->values().extent(0) == std::size_t(layout.size()),
              "checkpoint '", path, "': every field needs the ", layout.size(),
              " cells of rank ", halo.rank(), "'s ghosted block");
      Handle data(H5Dopen2(file.get(), field->name().c_str(), H5P_DEFAULT), H5Dclose);
      require(data.valid(), "checkpoint '", path, "' has no dataset ", field->name());
      Handle fileSpace(H5Dget_space(data.get()), H5Sclose);
      H5Sselect_hyperslab(fileSpace.get(), H5S_SELECT_SET, slab.start, nullptr,
                          slab.count, nullptr);
      Handle memory(H5Screate_simple(3, slab.count, nullptr), H5Sclose);
      std::vector<double> owned(
          std::size_t(slab.count[0] * slab.count[1] * slab.count[2]));
      require(H5Dread(data.get(), H5T_NATIVE_DOUBLE, memory.get(), fileSpace.get(),
                      transfer.get(), owned.data()) >= 0,
              "checkpoint '", path, "': cannot read ", field->name());
      auto host =
          Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field->values());
      std::size_t m = 0;
      for (int k = 0; k < layout.owned[2]; ++k)
        for (int j = 0; j < layout.owned[1]; ++j)
          for (int i = 0; i < layout.owned[0]; ++i)
            host(layout.index(i, j, k)) = Real(owned[m++]);
      Kokkos::deep_copy(field->values(), host);
    }
  }
  for (auto* field : fields) halo.exchange(field->values());
  return info;
}

#define KFVM_INSTANTIATE_DISTRIBUTED_CHECKPOINT(Space)                                \
  template void writeDistributedCheckpoint<Space>(                                    \
      const std::string&, const HaloExchange<Space>&,                                 \
      const std::vector<const CellField<Space>*>&, const DistributedCheckpointInfo&); \
  template DistributedCheckpointInfo readDistributedCheckpoint<Space>(                \
      const std::string&, HaloExchange<Space>&, const std::vector<CellField<Space>*>&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_DISTRIBUTED_CHECKPOINT)

}  // namespace kfvm
