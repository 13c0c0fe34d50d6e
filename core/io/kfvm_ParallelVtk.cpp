#include <kfvm_Backends.hpp>
#include <kfvm_CollectiveFailure.hpp>
#include <kfvm_DurableFile.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ParallelVtk.hpp>
#include <kfvm_VtkUnstructured.hpp>
#include <kfvm_VtkWriter.hpp>

#include <climits>
#include <cstdio>
#include <sstream>

namespace kfvm {

namespace {

std::string baseName(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string pieceName(const std::string& stem, int rank, const char* extension = ".vtr") {
  return stem + "_" + std::to_string(rank) + extension;
}

/// Writes each rank's piece (pieceText() on every rank, a temporary, then the piece once
/// every rank has written its own), then rank 0's collection (collection()).
template <class PieceText, class CollectionText>
void writePieces(const std::string& stem, const char* extension, const char* collection,
                 MPI_Comm comm, int rank, const PieceText& pieceText,
                 const CollectionText& collectionText) {
  const std::string what = "parallel VTK '" + stem + "'";
  const std::string piece = pieceName(stem, rank, extension), temporary = piece + ".tmp";
  const std::string failure = Details::failureOf([&] {
    const std::string text = pieceText();
    try {
      AppendFile file;
      file.open(temporary);
      file.write(text);
      file.close();
    } catch (const Error&) {
      std::remove(temporary.c_str());
      throw;
    }
  });
  try {
    Details::agreeOnFailure(comm, failure, what);
  } catch (const Error&) {
    std::remove(temporary.c_str());
    throw;
  }
  Details::agreeOnFailure(comm, Details::failureOf([&] { commitFile(temporary, piece); }),
                          what);
  Details::agreeOnFailure(comm, Details::failureOf([&] {
                            if (rank == 0)
                              writeFileAtomically(stem + collection, collectionText());
                          }),
                          what);
}

std::string extentText(const Decomposition::Block& block) {
  std::ostringstream text;
  for (int a = 0; a < 3; ++a)
    text << (a ? " " : "") << block.first[a] << ' ' << block.first[a] + block.count[a];
  return text.str();
}

std::string collectionText(const std::string& stem, const CartesianGrid& grid,
                           const Decomposition& decomposition,
                           const std::vector<std::string>& names) {
  const auto n = grid.cellCounts();
  std::ostringstream out;
  out << "<?xml version=\"1.0\"?>\n"
      << "<VTKFile type=\"PRectilinearGrid\" version=\"1.0\" "
         "byte_order=\"LittleEndian\">\n"
      << "  <PRectilinearGrid WholeExtent=\"0 " << n[0] << " 0 " << n[1] << " 0 " << n[2]
      << "\" GhostLevel=\"0\">\n"
      << "    <PCellData>\n";
  for (const auto& name : names)
    out << "      <PDataArray type=\"Float64\" Name=\"" << name << "\"/>\n";
  out << "    </PCellData>\n    <PCoordinates>\n";
  for (const char* axis : {"x", "y", "z"})
    out << "      <PDataArray type=\"Float64\" Name=\"" << axis << "\"/>\n";
  out << "    </PCoordinates>\n";
  for (int r = 0; r < decomposition.numRanks(); ++r)
    out << "    <Piece Extent=\"" << extentText(decomposition.block(r)) << "\" Source=\""
        << baseName(pieceName(stem, r)) << "\"/>\n";
  out << "  </PRectilinearGrid>\n</VTKFile>\n";
  return out.str();
}

}  // namespace

template <class ExecSpace>
void writeParallelVtu(const std::string& stem, const Mesh<ExecSpace>& localMesh,
                      const MeshHaloExchange<ExecSpace>& halo,
                      const std::vector<const CellField<ExecSpace>*>& fields,
                      double time) {
  int size = 0;
  MPI_Comm_size(halo.communicator(), &size);
  const auto piece = [&] {
    require(localMesh.numCells() == halo.localCells(), "writeParallelVtu: the mesh has ",
            localMesh.numCells(), " cells, the halo's part ", halo.localCells());
    return Details::unstructuredPieceText(pieceName(stem, halo.rank(), ".vtu"), localMesh,
                                          fields, time, halo.ownedCells());
  };
  const auto collection = [&] {
    std::ostringstream out;
    out << "<?xml version=\"1.0\"?>\n"
        << "<VTKFile type=\"PUnstructuredGrid\" version=\"1.0\" "
           "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
        << "  <PUnstructuredGrid GhostLevel=\"0\">\n    <PCellData>\n";
    for (const auto* field : fields)
      out << "      <PDataArray type=\"Float64\" Name=\"" << field->name() << "\"/>\n";
    out << "    </PCellData>\n    <PPoints>\n"
        << "      <PDataArray type=\"Float64\" NumberOfComponents=\"3\"/>\n"
        << "    </PPoints>\n";
    for (int r = 0; r < size; ++r)
      out << "    <Piece Source=\"" << baseName(pieceName(stem, r, ".vtu")) << "\"/>\n";
    out << "  </PUnstructuredGrid>\n</VTKFile>\n";
    return out.str();
  };
  writePieces(stem, ".vtu", ".pvtu", halo.communicator(), halo.rank(), piece, collection);
}

template <class ExecSpace>
void writeParallelVtk(const std::string& stem, const CartesianGrid& grid,
                      const HaloExchange<ExecSpace>& halo,
                      const std::vector<const CellField<ExecSpace>*>& fields,
                      double time) {
  const Decomposition& decomposition = halo.decomposition();
  const GhostedBlock& layout = halo.layout();
  const int rank = halo.rank();
  const auto block = decomposition.block(rank);
  std::vector<std::string> names;
  for (const auto* field : fields)
    if (field != nullptr) names.push_back(field->name());
  const auto piece = [&] {
    require(grid.cellCounts() == decomposition.cells(), "writeParallelVtk: the grid has ",
            grid.cells(0), " x ", grid.cells(1), " x ", grid.cells(2),
            " cells, the decomposition ", decomposition.cells()[0], " x ",
            decomposition.cells()[1], " x ", decomposition.cells()[2]);
    std::array<std::array<int, 2>, 3> extent{};
    std::array<std::vector<double>, 3> vertices;
    for (int a = 0; a < 3; ++a) {
      extent[a] = {block.first[a], block.first[a] + block.count[a]};
      if (a < grid.dimension())
        vertices[a].assign(
            grid.vertices(a).begin() + block.first[a],
            grid.vertices(a).begin() + block.first[a] + block.count[a] + 1);
    }
    std::vector<Details::HostCellArray> arrays;
    for (const auto* field : fields) {
      require(field != nullptr && field->values().extent(0) == std::size_t(layout.size()),
              "writeParallelVtk: every field needs the ", layout.size(),
              " cells of rank ", rank, "'s ghosted block");
      const auto values =
          Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field->values());
      arrays.push_back({field->name(), {}});
      arrays.back().values.reserve(std::size_t(block.numCells()));
      for (int k = 0; k < layout.owned[2]; ++k)
        for (int j = 0; j < layout.owned[1]; ++j)
          for (int i = 0; i < layout.owned[0]; ++i)
            arrays.back().values.push_back(double(values(layout.index(i, j, k))));
    }
    return Details::rectilinearPieceText(grid.cellCounts(), extent, vertices, arrays,
                                         time);
  };
  writePieces(stem, ".vtr", ".pvtr", halo.communicator(), rank, piece,
              [&] { return collectionText(stem, grid, decomposition, names); });
}

#define KFVM_INSTANTIATE_PARALLEL_VTK(Space)                                  \
  template void writeParallelVtk<Space>(                                      \
      const std::string&, const CartesianGrid&, const HaloExchange<Space>&,   \
      const std::vector<const CellField<Space>*>&, double);                   \
  template void writeParallelVtu<Space>(                                      \
      const std::string&, const Mesh<Space>&, const MeshHaloExchange<Space>&, \
      const std::vector<const CellField<Space>*>&, double);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_PARALLEL_VTK)

}  // namespace kfvm
