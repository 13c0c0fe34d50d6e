#include "kfvm_Checkpoint.hpp"

#include <kfvm_Error.hpp>

#ifdef KFVM_HAVE_HDF5
#include <hdf5.h>

#include <detail/kfvm_Hdf5Handle.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace kfvm::app {

namespace {

using Handle = Details::Hdf5Handle;

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

int checkpointCalls = 0;

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
  {
    Handle file(H5Fcreate(temporary.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
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
        std::fprintf(stderr,
                     "kfvm: KFVM_KILL_DURING_CHECKPOINT: ending in checkpoint %d\n",
                     checkpointCalls);
        std::_Exit(137);
      }
      require(H5Dwrite(data.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                       values.data()) >= 0,
              "checkpoint '", temporary, "': cannot write ", name);
    }
    const long long step = state.step;
    writeAttribute(file.get(), "step", H5T_NATIVE_LLONG, &step, 1, temporary);
    writeAttribute(file.get(), "time", H5T_NATIVE_DOUBLE, &state.time, 1, temporary);
    writeAttribute(file.get(), "dt", H5T_NATIVE_DOUBLE, &state.dt, 1, temporary);
    writeAttribute(file.get(), "cells", H5T_NATIVE_INT, state.cells.data(), 3, temporary);
    Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(type.get(), names.size());
    writeAttribute(file.get(), "variables", type.get(), names.c_str(), 1, temporary);
    require(H5Fflush(file.get(), H5F_SCOPE_GLOBAL) >= 0, "checkpoint '", temporary,
            "': flush failed");
  }
  require(std::rename(temporary.c_str(), path.c_str()) == 0, "cannot rename '", temporary,
          "' to '", path, "'");
}

CheckpointState readCheckpoint(const std::string& path) {
  quietHdf5();
  Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  require(file.valid(), "cannot open checkpoint '", path, "' (missing or not HDF5)");
  CheckpointState state;
  long long step = 0;
  readAttribute(file.get(), "step", H5T_NATIVE_LLONG, &step, 1, path);
  state.step = int(step);
  readAttribute(file.get(), "time", H5T_NATIVE_DOUBLE, &state.time, 1, path);
  readAttribute(file.get(), "dt", H5T_NATIVE_DOUBLE, &state.dt, 1, path);
  readAttribute(file.get(), "cells", H5T_NATIVE_INT, state.cells.data(), 3, path);
  std::string names;
  {
    Handle attribute(H5Aopen(file.get(), "variables", H5P_DEFAULT), H5Aclose);
    require(attribute.valid(), "checkpoint '", path, "' has no attribute variables");
    Handle type(H5Aget_type(attribute.get()), H5Tclose);
    names.assign(H5Tget_size(type.get()), '\0');
    require(H5Aread(attribute.get(), type.get(), names.data()) >= 0, "checkpoint '", path,
            "': cannot read attribute variables");
  }
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
    state.values.emplace_back(std::size_t(n));
    require(H5Dread(data.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                    state.values.back().data()) >= 0,
            "checkpoint '", path, "': cannot read ", name);
  }
  return state;
}

}  // namespace kfvm::app

#else  // without HDF5: checkpoints are an error that says why

namespace kfvm::app {

void writeCheckpoint(const std::string& path, const CheckpointState&) {
  fail("cannot write checkpoint '", path,
       "': this kfvm was built without HDF5 (Debian: libhdf5-openmpi-dev)");
}

CheckpointState readCheckpoint(const std::string& path) {
  fail("cannot read checkpoint '", path,
       "': this kfvm was built without HDF5 (Debian: libhdf5-openmpi-dev)");
}

}  // namespace kfvm::app

#endif
