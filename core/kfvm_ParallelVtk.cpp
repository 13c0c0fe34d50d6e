#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ParallelVtk.hpp>
#include <kfvm_VtkWriter.hpp>

#include <sstream>

namespace kfvm {

namespace {

std::string baseName(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string pieceName(const std::string& stem, int rank) {
  return stem + "_" + std::to_string(rank) + ".vtr";
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
void writeParallelVtk(const std::string& stem, const CartesianGrid& grid,
                      const HaloExchange<ExecSpace>& halo,
                      const std::vector<const CellField<ExecSpace>*>& fields,
                      double time) {
  const Decomposition& decomposition = halo.decomposition();
  const GhostedBlock& layout = halo.layout();
  const int rank = halo.rank();
  const auto block = decomposition.block(rank);
  std::string failure;
  try {
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
    writeFileAtomically(
        pieceName(stem, rank),
        Details::rectilinearPieceText(grid.cellCounts(), extent, vertices, arrays, time));
    if (rank == 0) {
      std::vector<std::string> names;
      for (const auto& array : arrays) names.push_back(array.name);
      writeFileAtomically(stem + ".pvtr",
                          collectionText(stem, grid, decomposition, names));
    }
  } catch (const Error& error) {
    failure = error.what();
  }
  int ok = failure.empty() ? 1 : 0, allOk = 0;
  MPI_Allreduce(&ok, &allOk, 1, MPI_INT, MPI_MIN, halo.communicator());
  if (!failure.empty()) throw Error(failure.substr(6));  // without the "kfvm: " prefix
  require(allOk == 1, "writeParallelVtk: another rank failed to write its piece of '",
          stem, "'");
}

#define KFVM_INSTANTIATE_PARALLEL_VTK(Space)                                \
  template void writeParallelVtk<Space>(                                    \
      const std::string&, const CartesianGrid&, const HaloExchange<Space>&, \
      const std::vector<const CellField<Space>*>&, double);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_PARALLEL_VTK)

}  // namespace kfvm
