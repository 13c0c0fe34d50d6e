#include "kfvm_InitialFile.hpp"

#include <kfvm_Checkpoint.hpp>

#include <kfvm_Error.hpp>

#ifdef KFVM_HAVE_HDF5
#include <hdf5.h>

#include <detail/kfvm_Hdf5Handle.hpp>
#endif

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

namespace kfvm::app {

namespace {

/// "50 x 20" (x first) of the deck's cells.
std::string cellsText(const Deck& deck) {
  if (!deck.isCartesian()) return std::to_string(deck.numCells());
  std::string text = std::to_string(deck.cells[0]);
  for (int a = 1; a < deck.dimension; ++a) text += " x " + std::to_string(deck.cells[a]);
  return text;
}

std::string shapeText(const std::vector<long long>& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

/// True when shape is the deck's mesh: flat, (nz, ny, nx) in C order or (nx, ny, nz) in
/// Fortran order (one entry per dimension).
bool fitsMesh(const Deck& deck, const std::vector<long long>& shape, bool fortranOrder) {
  if (shape.size() == 1) return shape[0] == deck.numCells();
  if (int(shape.size()) != deck.dimension || !deck.isCartesian()) return false;
  for (int a = 0; a < deck.dimension; ++a) {
    const long long n = shape[std::size_t(fortranOrder ? a : deck.dimension - 1 - a)];
    if (n != deck.cells[std::size_t(a)]) return false;
  }
  return true;
}

template <class... Parts>
[[noreturn]] void initialError(const Deck& deck, const InitialCondition& initial,
                               const Parts&... parts) {
  deckError(deck, initial.at, "'", initialFilePath(deck, initial), "': ", parts...);
}

void requireFinite(const Deck& deck, const InitialCondition& initial,
                   const std::vector<double>& values) {
  for (std::size_t c = 0; c < values.size(); ++c)
    if (!std::isfinite(values[c]))
      initialError(deck, initial, "value ", values[c], " at cell ", c, " is not finite");
}

/// The value of key in a .npy header's dictionary text, as written ('<f8', False, (4,)).
std::string headerValue(const std::string& header, const std::string& key) {
  const std::size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) return "";
  std::size_t begin = header.find(':', at);
  if (begin == std::string::npos) return "";
  ++begin;
  while (begin < header.size() && header[begin] == ' ') ++begin;
  const std::size_t end = header[begin] == '(' ? header.find(')', begin) + 1
                                               : header.find_first_of(",}", begin);
  return header.substr(begin, end - begin);
}

std::vector<double> readNpy(const Deck& deck, const InitialCondition& initial,
                            const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) initialError(deck, initial, "cannot open it");
  char magic[8] = {};
  in.read(magic, 8);
  if (!in || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    initialError(deck, initial, "not a NumPy .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<unsigned char>(magic[6]);
  std::uint32_t headerLength = 0;
  unsigned char length[4] = {};
  in.read(reinterpret_cast<char*>(length), major == 1 ? 2 : 4);
  if (!in || major < 1 || major > 3)
    initialError(deck, initial, ".npy version ", major, " is not 1, 2 or 3");
  headerLength = length[0] | (length[1] << 8) | (major == 1 ? 0u : (length[2] << 16)) |
                 (major == 1 ? 0u : (std::uint32_t(length[3]) << 24));
  if (headerLength > 65536) initialError(deck, initial, "a .npy header too long");
  std::string header(headerLength, '\0');
  in.read(header.data(), std::streamsize(headerLength));
  if (!in) initialError(deck, initial, "the .npy header is cut short");
  const std::string descr = headerValue(header, "descr");
  const std::string order = headerValue(header, "fortran_order");
  const std::string shapeField = headerValue(header, "shape");
  if (descr.empty() || order.empty() || shapeField.size() < 2)
    initialError(deck, initial,
                 "a .npy header without descr, fortran_order and shape: ", header);
  std::vector<long long> shape;
  {
    std::string inside = shapeField.substr(1, shapeField.size() - 2);
    for (char& c : inside)
      if (c == ',') c = ' ';
    std::istringstream numbers(inside);
    for (long long n; numbers >> n;) shape.push_back(n);
  }
  const bool fortranOrder = order == "True";
  if (shape.empty() || !fitsMesh(deck, shape, fortranOrder))
    initialError(deck, initial, "an array of shape ", shapeText(shape),
                 fortranOrder ? " (Fortran order)" : "", " for the mesh of ",
                 cellsText(deck), " cells: give ", deck.numCells(),
                 " values in the cell order (x fastest, as FiPy's), or the mesh's shape, "
                 "z first in C order");
  std::size_t width = 0;
  if (descr == "'<f8'" || descr == "'<i8'") width = 8;
  if (descr == "'<f4'" || descr == "'<i4'") width = 4;
  if (width == 0)
    initialError(deck, initial, "dtype ", descr,
                 " is not float64, float32, int64 or int32 (little-endian)");
  const std::size_t n = std::size_t(deck.numCells());
  std::vector<char> raw(n * width);
  in.read(raw.data(), std::streamsize(raw.size()));
  if (!in)
    initialError(deck, initial, "holds fewer than the ", n, " values its header says");
  std::vector<double> flat(n);
  for (std::size_t i = 0; i < n; ++i) {
    const char* at = raw.data() + i * width;
    if (descr == "'<f8'") {
      double v;
      std::memcpy(&v, at, 8);
      flat[i] = v;
    } else if (descr == "'<f4'") {
      float v;
      std::memcpy(&v, at, 4);
      flat[i] = double(v);
    } else if (descr == "'<i8'") {
      std::int64_t v;
      std::memcpy(&v, at, 8);
      flat[i] = double(v);
    } else {
      std::int32_t v;
      std::memcpy(&v, at, 4);
      flat[i] = double(v);
    }
  }
  // A Fortran-order array of the mesh's shape is already x fastest; so is a C-order one
  // of shape (nz, ny, nx) and a flat one.
  return flat;
}

#ifdef KFVM_HAVE_HDF5
std::vector<double> readHdf5(const Deck& deck, const DeckVariable& variable,
                             const std::string& path) {
  const InitialCondition& initial = variable.initial;
  const std::string name = initial.dataset.empty() ? variable.name : initial.dataset;
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  bool checkpoint = false;
  {
    Details::Hdf5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT),
                             H5Fclose);
    if (!file.valid()) initialError(deck, initial, "cannot open it as an HDF5 file");
    checkpoint = H5Aexists(file.get(), "fingerprint") > 0;
    if (!checkpoint) {
      Details::Hdf5Handle data(H5Dopen2(file.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
      if (!data.valid()) initialError(deck, initial, "has no dataset '", name, "'");
      Details::Hdf5Handle space(H5Dget_space(data.get()), H5Sclose);
      const int rank = H5Sget_simple_extent_ndims(space.get());
      std::vector<hsize_t> dims(std::size_t(rank > 0 ? rank : 0));
      if (rank > 0) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
      const std::vector<long long> shape(dims.begin(), dims.end());
      if (shape.empty() || !fitsMesh(deck, shape, false))
        initialError(deck, initial, "dataset '", name, "' of shape ", shapeText(shape),
                     " for the mesh of ", cellsText(deck), " cells: give ",
                     deck.numCells(),
                     " values in the cell order (x fastest), or the "
                     "mesh's shape, z first");
      std::vector<double> values(std::size_t(deck.numCells()));
      if (H5Dread(data.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                  values.data()) < 0)
        initialError(deck, initial, "cannot read dataset '", name, "' as numbers");
      return values;
    }
  }
  CheckpointState state;
  try {
    state = readCheckpoint(path);
  } catch (const Error& error) {
    deckError(deck, initial.at, error.message());
  }
  for (int a = 0; a < 3; ++a)
    if (state.cells[std::size_t(a)] != deck.cells[std::size_t(a)])
      initialError(deck, initial, "a checkpoint of a mesh of ", state.cells[0], " x ",
                   state.cells[1], " x ", state.cells[2], " cells, the deck's has ",
                   deck.cells[0], " x ", deck.cells[1], " x ", deck.cells[2]);
  std::string known;
  for (std::size_t v = 0; v < state.variables.size(); ++v) {
    if (state.variables[v] == name) return state.values[v];
    known += (known.empty() ? "" : ", ") + state.variables[v];
  }
  initialError(deck, initial, "the checkpoint has no variable '", name, "' (it has ",
               known, ")");
}
#endif

}  // namespace

std::string initialFilePath(const Deck& deck, const InitialCondition& initial) {
  if (initial.file.empty() || initial.file.front() == '/') return initial.file;
  const std::size_t slash = deck.path.rfind('/');
  return slash == std::string::npos ? initial.file
                                    : deck.path.substr(0, slash + 1) + initial.file;
}

std::vector<double> readInitialFile(const Deck& deck, const DeckVariable& variable) {
  const InitialCondition& initial = variable.initial;
  const std::string path = initialFilePath(deck, initial);
  const auto endsWith = [&](const char* suffix) {
    const std::size_t n = std::strlen(suffix);
    return path.size() >= n && path.compare(path.size() - n, n, suffix) == 0;
  };
  std::vector<double> values;
  if (endsWith(".npy")) {
    if (!initial.dataset.empty())
      deckError(deck, initial.at, "dataset names an HDF5 dataset; '", path,
                "' is a .npy file");
    values = readNpy(deck, initial, path);
  } else if (endsWith(".h5") || endsWith(".hdf5")) {
#ifdef KFVM_HAVE_HDF5
    values = readHdf5(deck, variable, path);
#else
    initialError(deck, initial,
                 "this kfvm was built without HDF5 (Debian: libhdf5-openmpi-dev)");
#endif
  } else {
    initialError(deck, initial, "not a .npy, .h5 or .hdf5 file");
  }
  requireFinite(deck, initial, values);
  return values;
}

}  // namespace kfvm::app
