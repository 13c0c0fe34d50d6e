#include <kfvm_Checkpoint.hpp>

#include <kfvm_Error.hpp>

#ifdef KFVM_HAVE_HDF5
#include <hdf5.h>

#include <detail/kfvm_Hdf5Handle.hpp>
#include <kfvm_DurableFile.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace kfvm {

namespace {

using Handle = Details::Hdf5Handle;

// 2: sealed, with fingerprint and CSV sizes; 3: with the adaptive controller's history
constexpr long long checkpointFormat = 3;
/// The format of a run's checkpoint written by its ranks together
/// (writeDistributedCheckpoint in kfvm_DistributedCheckpoint.hpp, whose format attribute
/// is this text): the same attributes, the CSV sizes as doubles, and each variable shaped
/// like the grid.
constexpr const char* acrossRanksFormat = "kfvm distributed checkpoint 1";

void quietHdf5() {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

template <class T>
void writeAttribute(hid_t file, const char* name, hid_t type, const T* data,
                    hsize_t count, const std::string& path) {
  Handle space(count == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr),
               H5Sclose);
  Handle attribute(H5Acreate2(file, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                   H5Aclose);
  require(attribute.valid() && H5Awrite(attribute.get(), type, data) >= 0, "checkpoint '",
          path, "': cannot write attribute ", name);
  attribute.close("checkpoint '", path, "': cannot close attribute ", name);
  space.close("checkpoint '", path, "': cannot close the space of attribute ", name);
}

void writeText(hid_t file, const char* name, const std::string& text,
               const std::string& path) {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  require(
      type.valid() && H5Tset_size(type.get(), std::max<std::size_t>(1, text.size())) >= 0,
      "checkpoint '", path, "': cannot make the type of attribute ", name);
  const std::string value = text.empty() ? std::string(1, '\0') : text;
  writeAttribute(file, name, type.get(), value.c_str(), 1, path);
  type.close("checkpoint '", path, "': cannot close the type of attribute ", name);
}

template <class T>
void readAttribute(hid_t file, const char* name, hid_t type, T* data, hsize_t count,
                   const std::string& path) {
  Handle attribute(H5Aopen(file, name, H5P_DEFAULT), H5Aclose);
  require(attribute.valid(), "checkpoint '", path, "' has no attribute ", name);
  Handle space(H5Aget_space(attribute.get()), H5Sclose);
  const hssize_t size = H5Sget_simple_extent_npoints(space.get());
  require(size == hssize_t(count), "checkpoint '", path, "': attribute ", name, " has ",
          size, " values, expected ", count);
  require(H5Aread(attribute.get(), type, data) >= 0, "checkpoint '", path,
          "': cannot read attribute ", name);
}

std::string readText(hid_t file, const char* name, const std::string& path) {
  Handle attribute(H5Aopen(file, name, H5P_DEFAULT), H5Aclose);
  require(attribute.valid(), "checkpoint '", path, "' has no attribute ", name);
  Handle type(H5Aget_type(attribute.get()), H5Tclose);
  const std::size_t size = H5Tget_size(type.get());
  require(type.valid() && H5Tget_class(type.get()) == H5T_STRING && size > 0 &&
              size < (std::size_t(1) << 20),
          "checkpoint '", path, "': attribute ", name, " is not a string");
  std::string text(size, '\0');
  require(H5Aread(attribute.get(), type.get(), text.data()) >= 0, "checkpoint '", path,
          "': cannot read attribute ", name);
  return text.substr(0, text.find('\0'));
}

/// True when the format attribute is a text (a checkpoint written across ranks), false
/// when it is a number (one process).
bool formatIsText(hid_t file, const std::string& path) {
  Handle attribute(H5Aopen(file, "format", H5P_DEFAULT), H5Aclose);
  require(attribute.valid(), "checkpoint '", path, "' has no attribute format");
  Handle type(H5Aget_type(attribute.get()), H5Tclose);
  require(type.valid(), "checkpoint '", path, "': cannot read the type of its format");
  return H5Tget_class(type.get()) == H5T_STRING;
}

/// The same checkpoint, bit for bit (the read back of a written one).
bool sameState(const CheckpointState& a, const CheckpointState& b) {
  if (a.step != b.step || a.cells != b.cells || a.variables != b.variables ||
      a.fingerprint != b.fingerprint || a.seriesBytes != b.seriesBytes ||
      a.probesBytes != b.probesBytes || a.values.size() != b.values.size() ||
      std::memcmp(&a.time, &b.time, sizeof(double)) != 0 ||
      std::memcmp(&a.dt, &b.dt, sizeof(double)) != 0 ||
      std::memcmp(a.errorHistory.data(), b.errorHistory.data(), 2 * sizeof(double)) != 0)
    return false;
  for (std::size_t v = 0; v < a.values.size(); ++v)
    if (a.values[v].size() != b.values[v].size() ||
        std::memcmp(a.values[v].data(), b.values[v].data(),
                    a.values[v].size() * sizeof(double)) != 0)
      return false;
  return true;
}

int checkpointCalls = 0;

/// The HDF5 part of writeCheckpoint: the file at temporary, closed and checked.
void writeHdf5(const std::string& temporary, const CheckpointState& state, bool killNow) {
  Handle creation(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
  require(creation.valid() && H5Pset_userblock(creation.get(), sealBlockBytes) >= 0,
          "checkpoint '", temporary, "': cannot reserve its seal");
  Handle file(H5Fcreate(temporary.c_str(), H5F_ACC_TRUNC, creation.get(), H5P_DEFAULT),
              H5Fclose);
  require(file.valid(), "cannot create checkpoint '", temporary, "'");
  std::string names;
  for (std::size_t v = 0; v < state.variables.size(); ++v) {
    const std::string& name = state.variables[v];
    const std::vector<double>& values = state.values[v];
    names += (names.empty() ? "" : ",") + name;
    const hsize_t n = values.size();
    Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose);
    Handle data(H5Dcreate2(file.get(), name.c_str(), H5T_IEEE_F64LE, space.get(),
                           H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                H5Dclose);
    require(data.valid(), "checkpoint '", temporary, "': cannot create dataset ", name);
    if (killNow) {  // half the values, flushed, then gone: a kill in mid-write
      const hsize_t half = n / 2, start = 0;
      Handle memory(H5Screate_simple(1, &half, nullptr), H5Sclose);
      H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, &start, nullptr, &half, nullptr);
      H5Dwrite(data.get(), H5T_NATIVE_DOUBLE, memory.get(), space.get(), H5P_DEFAULT,
               values.data());
      H5Fflush(file.get(), H5F_SCOPE_GLOBAL);
      std::fprintf(stderr, "kfvm: KFVM_KILL_DURING_CHECKPOINT: ending in checkpoint %d\n",
                   checkpointCalls);
      std::_Exit(137);
    }
    require(H5Dwrite(data.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                     values.data()) >= 0,
            "checkpoint '", temporary, "': cannot write ", name, Details::hdf5Reason());
    data.close("checkpoint '", temporary, "': cannot write ", name,
               " (closing it failed)");
    space.close("checkpoint '", temporary, "': cannot close the space of ", name);
  }
  const long long step = state.step;
  writeAttribute(file.get(), "format", H5T_NATIVE_LLONG, &checkpointFormat, 1, temporary);
  writeAttribute(file.get(), "step", H5T_NATIVE_LLONG, &step, 1, temporary);
  writeAttribute(file.get(), "time", H5T_NATIVE_DOUBLE, &state.time, 1, temporary);
  writeAttribute(file.get(), "dt", H5T_NATIVE_DOUBLE, &state.dt, 1, temporary);
  writeAttribute(file.get(), "error_history", H5T_NATIVE_DOUBLE,
                 state.errorHistory.data(), 2, temporary);
  writeAttribute(file.get(), "cells", H5T_NATIVE_INT, state.cells.data(), 3, temporary);
  writeAttribute(file.get(), "series_bytes", H5T_NATIVE_LLONG, &state.seriesBytes, 1,
                 temporary);
  writeAttribute(file.get(), "probes_bytes", H5T_NATIVE_LLONG, &state.probesBytes, 1,
                 temporary);
  writeText(file.get(), "variables", names, temporary);
  writeText(file.get(), "fingerprint", state.fingerprint, temporary);
  file.close("checkpoint '", temporary, "': writing it failed (closing the file)");
  creation.close("checkpoint '", temporary, "': cannot close its creation properties");
}

}  // namespace

void writeCheckpoint(const std::string& path, const CheckpointState& state) {
  quietHdf5();
  ++checkpointCalls;
  require(!state.variables.empty() && state.values.size() == state.variables.size(),
          "checkpoint '", path, "': ", state.values.size(), " value arrays for ",
          state.variables.size(), " variables");
  const char* kill = std::getenv("KFVM_KILL_DURING_CHECKPOINT");
  const bool killNow = kill && std::atoi(kill) == checkpointCalls;
  const std::string temporary = path + ".tmp";
  try {
    writeHdf5(temporary, state, killNow);
    sealFile(temporary);
    require(sameState(readCheckpoint(temporary), state), "checkpoint '", temporary,
            "' does not read back as written");
  } catch (const Error& error) {
    std::remove(temporary.c_str());
    std::FILE* previous = std::fopen(path.c_str(), "rb");
    if (previous) std::fclose(previous);
    if (previous) fail(error.message(), "; the previous checkpoint '", path, "' is kept");
    fail(error.message(), "; no checkpoint was written");
  }
  commitFile(temporary, path);
}

bool writtenAcrossRanks(const std::string& path) {
  quietHdf5();
  verifySealedFile(path);
  Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  require(file.valid(), "cannot open checkpoint '", path, "' (missing or not HDF5)");
  return formatIsText(file.get(), path);
}

CheckpointState readCheckpoint(const std::string& path,
                               const std::vector<long long>* cells) {
  quietHdf5();
  verifySealedFile(path);
  Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  require(file.valid(), "cannot open checkpoint '", path, "' (missing or not HDF5)");
  CheckpointState state;
  long long step = 0;
  if (!formatIsText(file.get(), path)) {
    long long format = 0;
    readAttribute(file.get(), "format", H5T_NATIVE_LLONG, &format, 1, path);
    require(format == checkpointFormat, "checkpoint '", path, "' has format ", format,
            ", this kfvm reads format ", checkpointFormat);
  } else {
    const std::string format = readText(file.get(), "format", path);
    require(format == acrossRanksFormat, "checkpoint '", path, "' has format '", format,
            "', this kfvm reads format ", checkpointFormat, " and '", acrossRanksFormat,
            "'");
  }
  readAttribute(file.get(), "step", H5T_NATIVE_LLONG, &step, 1, path);
  require(step >= 0 && step <= 2147483647LL, "checkpoint '", path, "': step ", step,
          " is out of range");
  state.step = int(step);
  readAttribute(file.get(), "time", H5T_NATIVE_DOUBLE, &state.time, 1, path);
  require(std::isfinite(state.time) && state.time >= 0, "checkpoint '", path, "': time ",
          state.time, " is not a finite time >= 0");
  readAttribute(file.get(), "dt", H5T_NATIVE_DOUBLE, &state.dt, 1, path);
  require(std::isfinite(state.dt) && state.dt > 0, "checkpoint '", path, "': dt ",
          state.dt, " is not a finite dt > 0");
  readAttribute(file.get(), "error_history", H5T_NATIVE_DOUBLE, state.errorHistory.data(),
                2, path);
  for (double e : state.errorHistory)
    require(std::isfinite(e) && e > 0, "checkpoint '", path, "': error history ",
            state.errorHistory[0], ", ", state.errorHistory[1],
            " is not two finite numbers > 0");
  readAttribute(file.get(), "cells", H5T_NATIVE_INT, state.cells.data(), 3, path);
  for (int a = 0; a < 3; ++a)
    require(state.cells[a] >= 1, "checkpoint '", path, "': cells ", state.cells[0], " x ",
            state.cells[1], " x ", state.cells[2], " is not a mesh");
  // Integers in a one-process checkpoint, doubles in one written across ranks.
  double sizes[2] = {0, 0};
  readAttribute(file.get(), "series_bytes", H5T_NATIVE_DOUBLE, &sizes[0], 1, path);
  readAttribute(file.get(), "probes_bytes", H5T_NATIVE_DOUBLE, &sizes[1], 1, path);
  require(sizes[0] >= -1 && sizes[1] >= -1 && sizes[0] < 9e15 && sizes[1] < 9e15 &&
              sizes[0] == std::floor(sizes[0]) && sizes[1] == std::floor(sizes[1]),
          "checkpoint '", path, "': CSV sizes ", sizes[0], " and ", sizes[1],
          " are out of range");
  state.seriesBytes = (long long)sizes[0];
  state.probesBytes = (long long)sizes[1];
  state.fingerprint = readText(file.get(), "fingerprint", path);
  const std::string names = readText(file.get(), "variables", path);
  for (std::size_t begin = 0; begin <= names.size();) {
    const std::size_t end = std::min(names.find(',', begin), names.size());
    state.variables.push_back(names.substr(begin, end - begin));
    begin = end + 1;
  }
  const long long expected = 1LL * state.cells[0] * state.cells[1] * state.cells[2];
  for (const std::string& name : state.variables) {
    Handle data(H5Dopen2(file.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
    require(data.valid(), "checkpoint '", path, "' has no dataset ", name);
    Handle space(H5Dget_space(data.get()), H5Sclose);
    const hssize_t n = H5Sget_simple_extent_npoints(space.get());
    require(n == expected, "checkpoint '", path, "': ", n, " values of ", name, " for ",
            expected, " cells");
    if (!cells) {
      state.values.emplace_back(std::size_t(n));
      require(H5Dread(data.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                      state.values.back().data()) >= 0,
              "checkpoint '", path, "': cannot read ", name);
      continue;
    }
    // The listed cells only: their coordinates in the dataset's shape (C order, the
    // cell order), one point each.
    const int rank = H5Sget_simple_extent_ndims(space.get());
    require(rank >= 1 && rank <= 3, "checkpoint '", path, "': ", name, " has ", rank,
            " dimensions");
    hsize_t dims[3] = {1, 1, 1};
    H5Sget_simple_extent_dims(space.get(), dims, nullptr);
    std::vector<hsize_t> points(cells->size() * std::size_t(rank));
    for (std::size_t m = 0; m < cells->size(); ++m) {
      long long cell = (*cells)[m];
      require(cell >= 0 && cell < expected, "checkpoint '", path, "': cell ", cell,
              " is outside its ", expected, " cells");
      for (int d = rank - 1; d >= 0; --d) {
        points[m * std::size_t(rank) + std::size_t(d)] = hsize_t(cell) % dims[d];
        cell /= (long long)dims[d];
      }
    }
    const hsize_t count = cells->size();
    Handle memory(H5Screate_simple(1, &count, nullptr), H5Sclose);
    require(
        memory.valid() && (count == 0 ? H5Sselect_none(space.get())
                                      : H5Sselect_elements(space.get(), H5S_SELECT_SET,
                                                           count, points.data())) >= 0,
        "checkpoint '", path, "': cannot select ", count, " cells of ", name);
    state.values.emplace_back(cells->size());
    require(H5Dread(data.get(), H5T_NATIVE_DOUBLE, memory.get(), space.get(), H5P_DEFAULT,
                    state.values.back().data()) >= 0,
            "checkpoint '", path, "': cannot read ", name);
  }
  return state;
}

}  // namespace kfvm

#else  // without HDF5: checkpoints are an error that says why

namespace kfvm {

void writeCheckpoint(const std::string& path, const CheckpointState&) {
  fail("cannot write checkpoint '", path,
       "': this kfvm was built without HDF5 (Debian: libhdf5-openmpi-dev)");
}

bool writtenAcrossRanks(const std::string& path) {
  fail("cannot read checkpoint '", path,
       "': this kfvm was built without HDF5 (Debian: libhdf5-openmpi-dev)");
}

CheckpointState readCheckpoint(const std::string& path, const std::vector<long long>*) {
  fail("cannot read checkpoint '", path,
       "': this kfvm was built without HDF5 (Debian: libhdf5-openmpi-dev)");
}

}  // namespace kfvm

#endif
