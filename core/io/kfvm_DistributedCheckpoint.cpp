#include <kfvm_Backends.hpp>
#include <kfvm_CollectiveFailure.hpp>
#include <kfvm_DistributedCheckpoint.hpp>
#include <kfvm_DurableFile.hpp>
#include <kfvm_Error.hpp>

#include <hdf5.h>

#include "detail/kfvm_Hdf5Handle.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

namespace kfvm {

namespace {

using Handle = Details::Hdf5Handle;

/// The ranks of a checkpoint's write or read, agreeing on every step. A rank that fails
/// does not go on to the next collective HDF5 call while the others wait in it: every
/// rank throws at the same point (Details::agreeOnFailure), and so closes its open
/// handles, while unwinding, in the same order as the others.
class Collective {
 public:
  Collective(MPI_Comm comm, const std::string& path)
      : comm_(comm), what_("checkpoint '" + path + "'") {
    MPI_Comm_rank(comm, &rank_);
  }
  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }

  /// Every rank: throws on every rank unless ok on every rank; the message of a rank
  /// where it does not hold is "checkpoint 'path': " and the parts.
  template <class... Parts>
  void check(bool ok, Parts&&... parts) const {
    Details::agreeOnFailure(
        comm_,
        ok ? std::string()
           : Details::concatenate(what_, ": ", std::forward<Parts>(parts)...),
        what_);
  }
  /// Every rank runs body; then as check().
  template <class Body>
  void step(Body&& body) const {
    Details::agreeOnFailure(comm_, Details::failureOf(std::forward<Body>(body)), what_);
  }
  /// Rank 0 runs body; then as check().
  template <class Body>
  void onRank0(Body&& body) const {
    step([&] {
      if (rank_ == 0) body();
    });
  }
  /// Rank 0 runs body; when it fails, every rank throws its message (a property of the
  /// file that every rank reads, not of rank 0).
  template <class Body>
  void sameOnEveryRank(Body&& body) const {
    std::string failure = rank_ == 0 ? Details::failureOf(std::forward<Body>(body)) : "";
    int size = int(failure.size());
    MPI_Bcast(&size, 1, MPI_INT, 0, comm_);
    failure.resize(std::size_t(size));
    MPI_Bcast(failure.data(), size, MPI_CHAR, 0, comm_);
    if (size > 0) throw Error(failure);
  }
  /// The checked close of an HDF5 handle, on every rank (closes of files, datasets and
  /// attributes are collective in parallel HDF5).
  template <class... Parts>
  void close(Handle& handle, Parts&&... parts) const {
    step([&] { handle.close(what_, ": cannot close ", parts..., " (HDF5)"); });
  }

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  std::string what_;
};

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

/// Owned cells of a ghosted field, x fastest.
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

/// Every field is there and on the halo's ghosted block.
template <class Field>
void checkFields(const std::vector<Field*>& fields, const GhostedBlock& layout, int rank,
                 const std::string& path) {
  for (const auto* field : fields)
    require(field != nullptr && field->values().extent(0) == std::size_t(layout.size()),
            "checkpoint '", path, "': every field needs the ", layout.size(),
            " cells of rank ", rank, "'s ghosted block");
}

/// The attributes every checkpoint has; DistributedCheckpointInfo's others are extras.
bool isStandardAttribute(const std::string& name) {
  return name == "format" || name == "step" || name == "time" || name == "cells";
}

void checkInfo(const DistributedCheckpointInfo& info, const std::string& path) {
  require(info.step >= 0, "checkpoint '", path, "': step must be >= 0, got ", info.step);
  require(std::isfinite(info.time) && info.time >= 0, "checkpoint '", path,
          "': time must be finite and >= 0, got ", info.time);
  for (const auto& [name, values] : info.numbers)
    require(!isStandardAttribute(name) && !name.empty() && !values.empty() &&
                !info.texts.count(name),
            "checkpoint '", path, "': attribute '", name,
            "' is empty, one of format, step, time and cells, or given twice");
  for (const auto& [name, text] : info.texts)
    require(!isStandardAttribute(name) && !name.empty(), "checkpoint '", path,
            "': attribute '", name, "' is one of format, step, time and cells");
}

/// A file access list for every rank of the communicator: the MPI-IO driver.
hid_t parallelAccess(MPI_Comm comm) {
  const hid_t access = H5Pcreate(H5P_FILE_ACCESS);
  if (access >= 0 && H5Pset_fapl_mpio(access, comm, MPI_INFO_NULL) < 0) {
    H5Pclose(access);
    return -1;
  }
  return access;
}

/// The transfer property of every rank's part of a dataset: collective MPI-IO.
Handle collectiveTransfer(const Collective& all) {
  Handle transfer(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
  all.check(
      transfer.valid() && H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_COLLECTIVE) >= 0,
      "cannot set up collective transfers (HDF5)");
  return transfer;
}

/// Attribute name of the file: n values (n == 1: a scalar), stored as fileType.
void writeCollectiveAttribute(hid_t file, const char* name, hid_t fileType,
                              hid_t memoryType, const void* data, hsize_t n,
                              const Collective& all) {
  Handle space(n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr),
               H5Sclose);
  all.check(space.valid(), "cannot make the space of attribute ", name, " (HDF5)");
  Handle attribute(
      H5Acreate2(file, name, fileType, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  all.check(attribute.valid(), "cannot create attribute ", name, " (HDF5)");
  all.check(H5Awrite(attribute.get(), memoryType, data) >= 0, "cannot write attribute ",
            name, " (HDF5)");
  all.close(attribute, "attribute ", name);
  all.close(space, "the space of attribute ", name);
}

/// Reads attribute name: n values of typeClass (a string: one of the memory type's
/// size), converted to memoryType.
void readCollectiveAttribute(hid_t file, const char* name, H5T_class_t typeClass,
                             hid_t memoryType, void* data, hssize_t n,
                             const char* expected, const Collective& all) {
  Handle attribute(H5Aopen(file, name, H5P_DEFAULT), H5Aclose);
  all.check(attribute.valid(), "it has no attribute ", name);
  Handle space(H5Aget_space(attribute.get()), H5Sclose);
  Handle type(H5Aget_type(attribute.get()), H5Tclose);
  bool ok = space.valid() && type.valid() &&
            H5Sget_simple_extent_npoints(space.get()) == n &&
            H5Tget_class(type.get()) == typeClass;
  if (ok && typeClass == H5T_STRING)
    ok = H5Tis_variable_str(type.get()) == 0 &&
         H5Tget_size(type.get()) == H5Tget_size(memoryType);
  all.check(ok, "attribute ", name, " is not ", expected);
  all.check(H5Aread(attribute.get(), memoryType, data) >= 0, "cannot read attribute ",
            name, " (HDF5)");
  all.close(type, "the type of attribute ", name);
  all.close(space, "the space of attribute ", name);
  all.close(attribute, "attribute ", name);
}

/// A fixed-length C string type of length characters and the terminating zero.
hid_t textType(std::size_t length) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  if (type >= 0 && H5Tset_size(type, length + 1) < 0) {
    H5Tclose(type);
    return -1;
  }
  return type;
}

/// The format's string type, its terminating zero included.
hid_t formatType() {
  return textType(std::strlen(distributedCheckpointFormat));
}

/// The names of a file's attributes, in HDF5's order.
herr_t collectName(hid_t, const char* name, const H5A_info_t*, void* names) {
  static_cast<std::vector<std::string>*>(names)->push_back(name);
  return 0;
}

/// Every attribute besides format, step, time and cells into info's numbers (numeric
/// attributes, as doubles) and texts (strings).
void readExtras(hid_t file, DistributedCheckpointInfo& info, const Collective& all) {
  std::vector<std::string> names;
  all.check(
      H5Aiterate2(file, H5_INDEX_NAME, H5_ITER_INC, nullptr, collectName, &names) >= 0,
      "cannot list its attributes (HDF5)");
  for (const std::string& name : names) {
    if (isStandardAttribute(name)) continue;
    Handle attribute(H5Aopen(file, name.c_str(), H5P_DEFAULT), H5Aclose);
    all.check(attribute.valid(), "cannot open attribute ", name, " (HDF5)");
    Handle space(H5Aget_space(attribute.get()), H5Sclose);
    Handle type(H5Aget_type(attribute.get()), H5Tclose);
    const hssize_t n = space.valid() ? H5Sget_simple_extent_npoints(space.get()) : -1;
    const H5T_class_t kind = type.valid() ? H5Tget_class(type.get()) : H5T_NO_CLASS;
    const bool text = kind == H5T_STRING && H5Tis_variable_str(type.get()) == 0 && n == 1;
    all.check(text || ((kind == H5T_FLOAT || kind == H5T_INTEGER) && n >= 1),
              "attribute ", name, " is neither numbers nor a text");
    if (text) {
      std::string value(H5Tget_size(type.get()), '\0');
      all.check(H5Aread(attribute.get(), type.get(), value.data()) >= 0,
                "cannot read attribute ", name, " (HDF5)");
      info.texts[name] = value.substr(0, value.find('\0'));
    } else {
      std::vector<double> values(static_cast<std::size_t>(n));
      all.check(H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, values.data()) >= 0,
                "cannot read attribute ", name, " (HDF5)");
      info.numbers[name] = values;
    }
    all.close(type, "the type of attribute ", name);
    all.close(space, "the space of attribute ", name);
    all.close(attribute, "attribute ", name);
  }
}

/// Opens the checkpoint file on every rank, reads and checks its attributes, and gives
/// each dataset's block of this rank (owned cells, x fastest) to use(index, values).
template <class ExecSpace, class Use>
DistributedCheckpointInfo readCheckpointFile(const std::string& file,
                                             const HaloExchange<ExecSpace>& halo,
                                             const std::vector<std::string>& names,
                                             const Collective& all, Use&& use) {
  const auto& decomposition = halo.decomposition();
  DistributedCheckpointInfo info;
  Handle access(parallelAccess(all.comm()), H5Pclose);
  all.check(access.valid(), "cannot set up parallel HDF5 (MPI-IO)");
  Handle h5(H5Fopen(file.c_str(), H5F_ACC_RDONLY, access.get()), H5Fclose);
  all.check(h5.valid(), "cannot open '", file, "' (HDF5)");
  {
    char format[64] = {};
    Handle type(formatType(), H5Tclose);
    all.check(type.valid(), "cannot make a string type (HDF5)");
    readCollectiveAttribute(
        h5.get(), "format", H5T_STRING, type.get(), format, 1,
        (std::string("'") + distributedCheckpointFormat + "'").c_str(), all);
    all.check(std::strcmp(format, distributedCheckpointFormat) == 0, "its format is '",
              format, "', not '", distributedCheckpointFormat, "'");
    all.close(type, "a string type");
  }
  readCollectiveAttribute(h5.get(), "step", H5T_INTEGER, H5T_NATIVE_LLONG, &info.step, 1,
                          "one integer", all);
  readCollectiveAttribute(h5.get(), "time", H5T_FLOAT, H5T_NATIVE_DOUBLE, &info.time, 1,
                          "one number", all);
  readCollectiveAttribute(h5.get(), "cells", H5T_INTEGER, H5T_NATIVE_INT,
                          info.cells.data(), 3, "three integers", all);
  all.check(info.step >= 0, "attribute step is ", info.step, ", not >= 0");
  all.check(std::isfinite(info.time) && info.time >= 0, "attribute time is ", info.time,
            ", not finite and >= 0");
  const auto& c = info.cells;
  all.check(c[0] > 0 && c[1] > 0 && c[2] > 0, "attribute cells is ", c[0], " x ", c[1],
            " x ", c[2], ", not positive");
  const auto& n = decomposition.cells();
  all.check(c == n, "it holds ", c[0], " x ", c[1], " x ", c[2],
            " cells, the decomposition ", n[0], " x ", n[1], " x ", n[2]);
  readExtras(h5.get(), info, all);
  const hsize_t dims[3] = {hsize_t(n[2]), hsize_t(n[1]), hsize_t(n[0])};
  const Slab slab(decomposition.block(halo.rank()));
  Handle transfer = collectiveTransfer(all);
  for (std::size_t f = 0; f < names.size(); ++f) {
    const std::string& name = names[f];
    Handle data(H5Dopen2(h5.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
    all.check(data.valid(), "it has no dataset '", name, "'");
    Handle type(H5Dget_type(data.get()), H5Tclose);
    Handle space(H5Dget_space(data.get()), H5Sclose);
    hsize_t shape[3] = {0, 0, 0};
    const bool readable = type.valid() && space.valid() &&
                          H5Tget_class(type.get()) == H5T_FLOAT &&
                          H5Sget_simple_extent_ndims(space.get()) == 3;
    all.check(readable, "dataset ", name, " is not a 3D array of numbers");
    H5Sget_simple_extent_dims(space.get(), shape, nullptr);
    all.check(shape[0] == dims[0] && shape[1] == dims[1] && shape[2] == dims[2],
              "dataset '", name, "' is ", shape[2], " x ", shape[1], " x ", shape[0],
              " (x, y, z), the grid ", n[0], " x ", n[1], " x ", n[2]);
    Handle memory(H5Screate_simple(3, slab.count, nullptr), H5Sclose);
    all.check(
        memory.valid() && H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, slab.start,
                                              nullptr, slab.count, nullptr) >= 0,
        "cannot select rank ", halo.rank(), "'s block of ", name, " (HDF5)");
    std::vector<double> owned(std::size_t(slab.count[0] * slab.count[1] * slab.count[2]));
    all.check(H5Dread(data.get(), H5T_NATIVE_DOUBLE, memory.get(), space.get(),
                      transfer.get(), owned.data()) >= 0,
              "cannot read dataset ", name, " (HDF5)");
    all.step([&] { use(f, owned); });
    all.close(memory, "a memory space");
    all.close(space, "the space of dataset ", name);
    all.close(type, "the type of dataset ", name);
    all.close(data, "dataset ", name);
  }
  all.close(transfer, "a transfer property list");
  all.close(h5, "'", file, "'");
  all.close(access, "a file access property list");
  return info;
}

/// The fields and attributes into a new file at temporary, created with the seal's
/// user block; every HDF5 call checked and agreed on, closes included.
template <class ExecSpace>
void writeCheckpointFile(const std::string& temporary,
                         const HaloExchange<ExecSpace>& halo,
                         const std::vector<const CellField<ExecSpace>*>& fields,
                         const DistributedCheckpointInfo& info, const Collective& all) {
  const auto& decomposition = halo.decomposition();
  Handle access(parallelAccess(all.comm()), H5Pclose);
  all.check(access.valid(), "cannot set up parallel HDF5 (MPI-IO)");
  Handle creation(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
  all.check(creation.valid() && H5Pset_userblock(creation.get(), sealBlockBytes) >= 0,
            "cannot reserve the seal's block (HDF5)");
  Handle h5(H5Fcreate(temporary.c_str(), H5F_ACC_TRUNC, creation.get(), access.get()),
            H5Fclose);
  all.check(h5.valid(), "cannot create '", temporary, "' (HDF5)");
  const auto& n = decomposition.cells();
  const hsize_t dims[3] = {hsize_t(n[2]), hsize_t(n[1]), hsize_t(n[0])};
  const Slab slab(decomposition.block(halo.rank()));
  Handle transfer = collectiveTransfer(all);
  for (const auto* field : fields) {
    const std::string& name = field->name();
    std::vector<double> values;
    all.step([&] { values = ownedValues(halo.layout(), *field); });
    Handle space(H5Screate_simple(3, dims, nullptr), H5Sclose);
    Handle memory(H5Screate_simple(3, slab.count, nullptr), H5Sclose);
    all.check(space.valid() && memory.valid() &&
                  H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, slab.start, nullptr,
                                      slab.count, nullptr) >= 0,
              "cannot select rank ", halo.rank(), "'s block of ", name, " (HDF5)");
    Handle data(H5Dcreate2(h5.get(), name.c_str(), H5T_IEEE_F64LE, space.get(),
                           H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                H5Dclose);
    all.check(data.valid(), "cannot create dataset ", name,
              " (HDF5; a name used twice?)");
    all.check(H5Dwrite(data.get(), H5T_NATIVE_DOUBLE, memory.get(), space.get(),
                       transfer.get(), values.data()) >= 0,
              "cannot write dataset ", name, " (HDF5)");
    all.close(data, "dataset ", name);
    all.close(memory, "a memory space");
    all.close(space, "the space of dataset ", name);
  }
  all.close(transfer, "a transfer property list");
  {
    Handle type(formatType(), H5Tclose);
    all.check(type.valid(), "cannot make a string type (HDF5)");
    writeCollectiveAttribute(h5.get(), "format", type.get(), type.get(),
                             distributedCheckpointFormat, 1, all);
    all.close(type, "a string type");
  }
  const long long step = info.step;
  const double time = info.time;
  const std::array<int, 3> cells = n;
  writeCollectiveAttribute(h5.get(), "step", H5T_STD_I64LE, H5T_NATIVE_LLONG, &step, 1,
                           all);
  writeCollectiveAttribute(h5.get(), "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &time, 1,
                           all);
  writeCollectiveAttribute(h5.get(), "cells", H5T_STD_I32LE, H5T_NATIVE_INT, cells.data(),
                           3, all);
  for (const auto& [name, values] : info.numbers)
    writeCollectiveAttribute(h5.get(), name.c_str(), H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                             values.data(), hsize_t(values.size()), all);
  for (const auto& [name, text] : info.texts) {
    Handle type(textType(text.size()), H5Tclose);
    all.check(type.valid(), "cannot make a string type (HDF5)");
    writeCollectiveAttribute(h5.get(), name.c_str(), type.get(), type.get(), text.c_str(),
                             1, all);
    all.close(type, "a string type");
  }
  // HDF5 writes what it still holds when the file is closed: this close is a write.
  all.close(h5, "'", temporary, "' (its last writes)");
  all.close(creation, "a file creation property list");
  all.close(access, "a file access property list");
}

}  // namespace

template <class ExecSpace>
void writeDistributedCheckpoint(const std::string& path,
                                const HaloExchange<ExecSpace>& halo,
                                const std::vector<const CellField<ExecSpace>*>& fields,
                                const DistributedCheckpointInfo& info) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors are reported as kfvm::Error
  const std::string temporary = path + ".tmp";
  const Collective all(halo.communicator(), path);
  try {
    all.step([&] {
      checkInfo(info, path);
      checkFields(fields, halo.layout(), halo.rank(), path);
    });
    writeCheckpointFile(temporary, halo, fields, info, all);
    all.onRank0([&] { sealFile(temporary); });
    // Read back as a restart would, and compared bit for bit with what was written.
    std::vector<std::string> names;
    for (const auto* field : fields) names.push_back(field->name());
    const auto stored = readCheckpointFile(
        temporary, halo, names, all, [&](std::size_t f, const std::vector<double>& read) {
          const auto written = ownedValues(halo.layout(), *fields[f]);
          require(read.size() == written.size() &&
                      std::memcmp(read.data(), written.data(),
                                  read.size() * sizeof(double)) == 0,
                  "checkpoint '", path, "': dataset ", names[f], " of '", temporary,
                  "' reads back other values than were written");
        });
    all.check(stored.step == info.step && stored.time == info.time &&
                  stored.numbers == info.numbers && stored.texts == info.texts,
              "'", temporary,
              "' reads back another step, time or attribute than was written");
    all.onRank0([&] { commitFile(temporary, path); });
  } catch (const Error&) {
    // Every rank is here, its handles closed: the previous checkpoint at path is as it
    // was, and the temporary goes.
    if (all.rank() == 0) std::remove(temporary.c_str());
    throw;
  }
}

template <class ExecSpace>
DistributedCheckpointInfo readDistributedCheckpoint(
    const std::string& path, HaloExchange<ExecSpace>& halo,
    const std::vector<CellField<ExecSpace>*>& fields) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors are reported as kfvm::Error
  const GhostedBlock& layout = halo.layout();
  const Collective all(halo.communicator(), path);
  all.step([&] { checkFields(fields, layout, halo.rank(), path); });
  // The seal's length and checksum, before HDF5's parser reads anything.
  all.sameOnEveryRank([&] { verifySealedFile(path); });
  std::vector<std::string> names;
  for (const auto* field : fields) names.push_back(field->name());
  const auto info = readCheckpointFile(
      path, halo, names, all, [&](std::size_t f, const std::vector<double>& owned) {
        const auto values = fields[f]->values();
        auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), values);
        std::size_t m = 0;
        for (int k = 0; k < layout.owned[2]; ++k)
          for (int j = 0; j < layout.owned[1]; ++j)
            for (int i = 0; i < layout.owned[0]; ++i)
              host(layout.index(i, j, k)) = Real(owned[m++]);
        Kokkos::deep_copy(values, host);
      });
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
