// Initial values from files (kfvm_InitialFile.hpp): NumPy arrays flat and shaped, C and
// Fortran order, each dtype; HDF5 datasets; kfvm checkpoints with their mesh checked;
// and the errors for what does not fit.
#include <kfvm_Checkpoint.hpp>
#include "kfvm_InitialFile.hpp"
#include "kfvm_TestWorkFolder.hpp"

#include <kfvm_Error.hpp>

#include <gtest/gtest.h>

#ifdef KFVM_HAVE_HDF5
#include <hdf5.h>
#endif

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace kfvm::app {
namespace {

using kfvm::Test::workPath;

/// A deck of a 2D mesh of 3 x 2 cells whose variable phi starts from file.
Deck deckFrom(const std::string& file, const std::string& dataset = "") {
  Deck deck;
  deck.path = workPath("deck.toml");
  deck.dimension = 2;
  deck.cells = {3, 2, 1};
  deck.variables[0].initial.type = "file";
  deck.variables[0].initial.file = file;
  deck.variables[0].initial.dataset = dataset;
  deck.variables[0].initial.at = {"variable.initial", "file", 7};
  return deck;
}

/// A version-1 .npy file: descr, fortran_order, shape and the raw little-endian values.
void writeNpy(const std::string& path, const std::string& descr, bool fortran,
              const std::string& shape, const void* data, std::size_t bytes) {
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': " + (fortran ? "True" : "False") +
                       ", 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const std::uint16_t length = std::uint16_t(header.size());
  out.put(char(length & 0xff)).put(char(length >> 8));
  out << header;
  out.write(static_cast<const char*>(data), std::streamsize(bytes));
}

std::string errorOf(const Deck& deck) {
  try {
    readInitialFile(deck, deck.variables[0]);
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
}

// Cell c = i + 3 j (x fastest) holds 10 i + j.
const std::vector<double> expected = {0, 10, 20, 1, 11, 21};

TEST(InitialFile, NumpyArraysFlatCOrderAndFortranOrderGiveTheCellOrder) {
  const std::string path = workPath("phi.npy");
  writeNpy(path, "<f8", false, "(6,)", expected.data(), 48);  // flat, x fastest
  EXPECT_EQ(readInitialFile(deckFrom(path), deckFrom(path).variables[0]), expected);
  // (ny, nx) in C order: row j holds x = 0, 1, 2
  writeNpy(path, "<f8", false, "(2, 3)", expected.data(), 48);
  EXPECT_EQ(readInitialFile(deckFrom(path), deckFrom(path).variables[0]), expected);
  // (nx, ny) in Fortran order: the same bytes
  writeNpy(path, "<f8", true, "(3, 2)", expected.data(), 48);
  EXPECT_EQ(readInitialFile(deckFrom(path), deckFrom(path).variables[0]), expected);
  const std::vector<float> f(expected.begin(), expected.end());
  writeNpy(path, "<f4", false, "(6,)", f.data(), 24);
  EXPECT_EQ(readInitialFile(deckFrom(path), deckFrom(path).variables[0]), expected);
  const std::vector<std::int64_t> i64(expected.begin(), expected.end());
  writeNpy(path, "<i8", false, "(2, 3)", i64.data(), 48);
  EXPECT_EQ(readInitialFile(deckFrom(path), deckFrom(path).variables[0]), expected);
  const std::vector<std::int32_t> i32(expected.begin(), expected.end());
  writeNpy(path, "<i4", false, "(6,)", i32.data(), 24);
  EXPECT_EQ(readInitialFile(deckFrom(path), deckFrom(path).variables[0]), expected);
  std::remove(path.c_str());
}

TEST(InitialFile, NumpyArraysThatDoNotFitAreErrorsNamingTheDeckLineAndFile) {
  const std::string path = workPath("bad.npy");
  const auto has = [](const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  };
  // the transposed C-order shape is not the mesh's
  writeNpy(path, "<f8", false, "(3, 2)", expected.data(), 48);
  std::string error = errorOf(deckFrom(path));
  EXPECT_TRUE(has(error, "deck.toml:7: [variable.initial] file: '" + path + "'"))
      << error;
  EXPECT_TRUE(has(error, "shape (3, 2) for the mesh of 3 x 2 cells")) << error;
  writeNpy(path, "<f8", false, "(5,)", expected.data(), 40);
  EXPECT_TRUE(has(errorOf(deckFrom(path)), "shape (5,)")) << errorOf(deckFrom(path));
  writeNpy(path, ">f8", false, "(6,)", expected.data(), 48);
  EXPECT_TRUE(has(errorOf(deckFrom(path)), "dtype '>f8'")) << errorOf(deckFrom(path));
  writeNpy(path, "<f8", false, "(6,)", expected.data(), 40);  // cut short
  EXPECT_TRUE(has(errorOf(deckFrom(path)), "fewer than the 6 values"))
      << errorOf(deckFrom(path));
  std::vector<double> nan = expected;
  nan[4] = std::nan("");
  writeNpy(path, "<f8", false, "(6,)", nan.data(), 48);
  EXPECT_TRUE(has(errorOf(deckFrom(path)), "at cell 4 is not finite"))
      << errorOf(deckFrom(path));
  {
    std::ofstream out(path, std::ios::binary);
    out << "not numpy at all";
  }
  EXPECT_TRUE(has(errorOf(deckFrom(path)), "not a NumPy .npy file"))
      << errorOf(deckFrom(path));
  std::remove(path.c_str());
  EXPECT_TRUE(has(errorOf(deckFrom(path)), "cannot open it")) << errorOf(deckFrom(path));
  EXPECT_TRUE(has(errorOf(deckFrom(workPath("phi.txt"))), "not a .npy, .h5 or .hdf5"));
}

#ifdef KFVM_HAVE_HDF5
TEST(InitialFile, Hdf5DatasetsAndCheckpointVariablesWithTheirMeshChecked) {
  const std::string path = workPath("fields.h5");
  {
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t dims[2] = {2, 3};  // (ny, nx)
    const hid_t space = H5Screate_simple(2, dims, nullptr);
    const hid_t data = H5Dcreate2(file, "c", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT,
                                  H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(
        H5Dwrite(data, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, expected.data()),
        0);
    H5Dclose(data);
    H5Sclose(space);
    H5Fclose(file);
  }
  EXPECT_EQ(readInitialFile(deckFrom(path, "c"), deckFrom(path, "c").variables[0]),
            expected);
  const std::string missing = errorOf(deckFrom(path));  // dataset phi, the variable's
  EXPECT_NE(missing.find("has no dataset 'phi'"), std::string::npos) << missing;
  std::remove(path.c_str());

  const std::string saved = workPath("checkpoint.h5");
  CheckpointState state;
  state.step = 4;
  state.time = 0.5;
  state.dt = 0.1;
  state.cells = {3, 2, 1};
  state.variables = {"mu", "phi"};
  state.values = {std::vector<double>(6, -1.0), expected};
  state.fingerprint = "test";
  writeCheckpoint(saved, state);
  EXPECT_EQ(readInitialFile(deckFrom(saved), deckFrom(saved).variables[0]), expected);
  const std::string unknown = errorOf(deckFrom(saved, "psi"));
  EXPECT_NE(unknown.find("no variable 'psi' (it has mu, phi)"), std::string::npos)
      << unknown;
  Deck other = deckFrom(saved);
  other.cells = {2, 3, 1};
  const std::string mesh = errorOf(other);
  EXPECT_NE(mesh.find("a checkpoint of a mesh of 3 x 2 x 1 cells, the deck's has 2 x 3 "
                      "x 1"),
            std::string::npos)
      << mesh;
  std::remove(saved.c_str());
}
#endif

}  // namespace
}  // namespace kfvm::app
