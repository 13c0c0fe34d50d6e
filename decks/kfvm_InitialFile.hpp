#ifndef KFVM_APPS_INITIAL_FILE_HPP
#define KFVM_APPS_INITIAL_FILE_HPP

// A variable's initial values from a file ([variable] initial = { type = "file", ... }):
// a NumPy .npy array, an HDF5 dataset, or a variable of a kfvm checkpoint. Host-only (no
// Kokkos), as the deck reader.

#include "kfvm_Deck.hpp"

#include <string>
#include <vector>

namespace kfvm::app {

/// The file's path as the deck names it: relative paths from the deck's folder.
std::string initialFilePath(const Deck& deck, const InitialCondition& initial);

/// The cell values (x fastest, the mesh's and FiPy's cell order) of variable's initial
/// condition of type "file", for the deck's mesh. By the file's extension:
/// - .npy: float64, float32, int32 or int64, little-endian; either a flat array of one
///   value per cell, or an array of the mesh's shape, (nz, ny, nx) in C order or
///   (nx, ny, nz) in Fortran order (2D: (ny, nx) or (nx, ny));
/// - .h5 / .hdf5: a kfvm checkpoint (verified as a restart does; its mesh must have the
///   deck's cells) and its variable `dataset` (default: this variable's name), or in any
///   other HDF5 file the dataset `dataset` (default: the variable's name), flat or of
///   shape (nz, ny, nx).
/// Every value must be finite. Throws kfvm::Error naming the deck's line, the file and
/// what does not fit.
std::vector<double> readInitialFile(const Deck& deck, const DeckVariable& variable);

}  // namespace kfvm::app

#endif
