#include <kfvm_Backends.hpp>
#include <kfvm_DurableFile.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_VtkWriter.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace kfvm {

namespace Details {

std::string rectilinearPieceText(const std::array<int, 3>& wholeCells,
                                 const std::array<std::array<int, 2>, 3>& extent,
                                 const std::array<std::vector<double>, 3>& vertices,
                                 const std::vector<HostCellArray>& arrays, double time) {
  std::ostringstream out;
  out.precision(17);
  const auto extentText = [&] {
    std::ostringstream text;
    for (int a = 0; a < 3; ++a)
      text << (a ? " " : "") << extent[a][0] << ' ' << extent[a][1];
    return text.str();
  };
  out << "<?xml version=\"1.0\"?>\n"
      << "<VTKFile type=\"RectilinearGrid\" version=\"1.0\" "
         "byte_order=\"LittleEndian\">\n"
      << "  <RectilinearGrid WholeExtent=\"0 " << wholeCells[0] << " 0 " << wholeCells[1]
      << " 0 " << wholeCells[2] << "\">\n"
      << "    <FieldData>\n"
      << "      <DataArray type=\"Float64\" Name=\"TIME\" NumberOfTuples=\"1\" "
         "format=\"ascii\">"
      << time << "</DataArray>\n"
      << "    </FieldData>\n"
      << "    <Piece Extent=\"" << extentText() << "\">\n"
      << "      <CellData>\n";
  for (const auto& array : arrays) {
    out << "        <DataArray type=\"Float64\" Name=\"" << array.name
        << "\" format=\"ascii\">\n";
    const auto& values = array.values;
    for (std::size_t c = 0; c < values.size(); ++c)
      out << (c % 6 == 0 ? "          " : " ") << values[c]
          << (c % 6 == 5 || c + 1 == values.size() ? "\n" : "");
    out << "        </DataArray>\n";
  }
  out << "      </CellData>\n      <Coordinates>\n";
  const char* axes[3] = {"x", "y", "z"};
  for (int axis = 0; axis < 3; ++axis) {
    out << "        <DataArray type=\"Float64\" Name=\"" << axes[axis]
        << "\" format=\"ascii\">\n          ";
    if (vertices[axis].empty()) out << "0 ";
    for (double v : vertices[axis]) out << v << ' ';
    out << "\n        </DataArray>\n";
  }
  out << "      </Coordinates>\n    </Piece>\n  </RectilinearGrid>\n</VTKFile>\n";
  return out.str();
}

}  // namespace Details

template <class ExecSpace>
void writeVtkRectilinear(const std::string& path, const Mesh<ExecSpace>& mesh,
                         const std::vector<const CellField<ExecSpace>*>& fields,
                         double time) {
  const CartesianGrid& grid = mesh.gridLayout();
  const auto counts = grid.cellCounts();
  std::array<std::array<int, 2>, 3> extent{};
  std::array<std::vector<double>, 3> vertices;
  for (int a = 0; a < 3; ++a) {
    extent[a] = {0, counts[a]};
    if (a < grid.dimension()) vertices[a] = grid.vertices(a);
  }
  std::vector<Details::HostCellArray> arrays;
  for (const auto* field : fields) {
    require(field != nullptr, "writeVtkRectilinear: a null field for '", path, "'");
    field->requireOn(mesh, "output");
    const auto values =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field->values());
    arrays.push_back({field->name(), std::vector<double>(values.extent(0))});
    for (std::size_t c = 0; c < values.extent(0); ++c)
      arrays.back().values[c] = double(values(c));
  }
  writeFileAtomically(
      path, Details::rectilinearPieceText(counts, extent, vertices, arrays, time));
}

void VtkTimeSeries::add(double time, const std::string& file) {
  entries_.emplace_back(time, file);
  std::ostringstream out;
  out.precision(17);
  out << "<?xml version=\"1.0\"?>\n"
      << "<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"LittleEndian\">\n"
      << "  <Collection>\n";
  for (const auto& [t, name] : entries_)
    out << "    <DataSet timestep=\"" << t << "\" part=\"0\" file=\"" << name << "\"/>\n";
  out << "  </Collection>\n</VTKFile>\n";
  writeFileAtomically(path_, out.str());
}

void VtkTimeSeries::resumeUpTo(double time) {
  entries_.clear();
  std::ifstream in(path_);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const auto t = line.find("timestep=\""), f = line.find("file=\"");
    if (t == std::string::npos || f == std::string::npos) continue;
    const auto end = line.find('"', f + 6);
    char* after = nullptr;
    const std::string stampText = line.substr(t + 10, line.find('"', t + 10) - t - 10);
    const double stamp = std::strtod(stampText.c_str(), &after);
    require(!stampText.empty() && after && *after == '\0' && std::isfinite(stamp) &&
                end != std::string::npos,
            "cannot resume the collection '", path_, "': line ", number,
            " is damaged: ", line);
    if (stamp <= time) entries_.emplace_back(stamp, line.substr(f + 6, end - f - 6));
  }
}

#define KFVM_INSTANTIATE_VTK(Space)                                                     \
  template void writeVtkRectilinear<Space>(const std::string&, const Mesh<Space>&,      \
                                           const std::vector<const CellField<Space>*>&, \
                                           double);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_VTK)

}  // namespace kfvm
