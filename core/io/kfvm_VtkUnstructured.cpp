#include <kfvm_Backends.hpp>
#include <kfvm_DurableFile.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_VtkUnstructured.hpp>

#include <algorithm>
#include <sstream>

namespace kfvm {

namespace {

constexpr int vtkPolygon = 7, vtkPolyhedron = 42;

template <class Values>
void writeArray(std::ostringstream& out, const char* type, const char* name,
                const Values& values, int components = 1) {
  out << "        <DataArray type=\"" << type << "\" Name=\"" << name << "\"";
  if (components > 1) out << " NumberOfComponents=\"" << components << "\"";
  out << " format=\"ascii\">\n";
  for (std::size_t i = 0; i < values.size(); ++i)
    out << (i % 9 == 0 ? "          " : " ") << values[i]
        << (i % 9 == 8 || i + 1 == values.size() ? "\n" : "");
  out << "        </DataArray>\n";
}

}  // namespace

namespace Details {

template <class ExecSpace>
std::string unstructuredPieceText(const std::string& path, const Mesh<ExecSpace>& mesh,
                                  const std::vector<const CellField<ExecSpace>*>& fields,
                                  double time, Ordinal cellCount) {
  require(!mesh.hasGridLayout(), "writeVtkUnstructured: '", path,
          "' is for a general mesh; a Cartesian grid is written by writeVtkRectilinear");
  const Ordinal numCells = cellCount < 0 ? mesh.numCells() : cellCount;
  require(numCells <= mesh.numCells(), "writeVtkUnstructured: '", path, "' asks for ",
          numCells, " of the mesh's ", mesh.numCells(), " cells");
  const auto host = [](const auto& view) {
    return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  };
  const auto nodes = host(mesh.nodes());
  const auto faceNodeOffsets = host(mesh.faceNodeOffsets());
  const auto faceNodes = host(mesh.faceNodes());
  const auto cellFaceOffsets = host(mesh.cellFaceOffsets());
  const auto cellFaces = host(mesh.cellFaces());
  const auto faceCells = host(mesh.faceCells());
  // A face joining periodic patches: its second cell has the image side's nodes.
  const auto imageNodes = host(mesh.faceImageNodes());
  const auto nodeOf = [&](Ordinal f, Offset k, Ordinal c) {
    return imageNodes.extent(0) > 0 && faceCells(f, 1) == c ? imageNodes(k)
                                                            : faceNodes(k);
  };
  std::vector<long long> connectivity, offsets, faces, faceOffsets;
  std::vector<int> types;
  for (Ordinal c = 0; c < numCells; ++c) {
    const Offset first = cellFaceOffsets(c), last = cellFaceOffsets(c + 1);
    const std::size_t start = connectivity.size();
    if (mesh.dimension() == 2) {  // the polygon: its edges chained, from the first
      std::vector<std::array<Ordinal, 2>> edges;
      for (Offset s = first; s < last; ++s) {
        const Ordinal f = cellFaces(s);
        const Offset k = faceNodeOffsets(f);
        edges.push_back({nodeOf(f, k, c), nodeOf(f, k + 1, c)});
      }
      Ordinal next = edges[0][1];
      connectivity.push_back(edges[0][0]);
      std::vector<bool> used(edges.size(), false);
      used[0] = true;
      for (std::size_t n = 1; n < edges.size(); ++n) {
        connectivity.push_back(next);
        for (std::size_t e = 0; e < edges.size(); ++e) {
          if (used[e] || (edges[e][0] != next && edges[e][1] != next)) continue;
          used[e] = true;
          next = edges[e][0] == next ? edges[e][1] : edges[e][0];
          break;
        }
      }
      types.push_back(vtkPolygon);
      faceOffsets.push_back(-1);
    } else {  // the polyhedron: its nodes, then its faces as node lists
      faces.push_back(last - first);
      for (Offset s = first; s < last; ++s) {
        const Ordinal f = cellFaces(s);
        const Offset k0 = faceNodeOffsets(f), k1 = faceNodeOffsets(f + 1);
        faces.push_back(k1 - k0);
        for (Offset k = k0; k < k1; ++k) {
          // Outward from this cell: the owner's order, reversed for the neighbour.
          const Offset at = faceCells(f, 0) == c ? k : k1 - 1 - (k - k0);
          faces.push_back(nodeOf(f, at, c));
          connectivity.push_back(nodeOf(f, at, c));
        }
      }
      std::sort(connectivity.begin() + std::ptrdiff_t(start), connectivity.end());
      connectivity.erase(
          std::unique(connectivity.begin() + std::ptrdiff_t(start), connectivity.end()),
          connectivity.end());
      types.push_back(vtkPolyhedron);
      faceOffsets.push_back((long long)faces.size());
    }
    offsets.push_back((long long)connectivity.size());
  }
  std::vector<double> points;
  for (std::size_t n = 0; n < nodes.extent(0); ++n) {
    for (int a = 0; a < 3; ++a) points.push_back(double(nodes(n, a)));
  }

  std::ostringstream out;
  out.precision(17);
  out << "<?xml version=\"1.0\"?>\n"
      << "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" "
         "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
      << "  <UnstructuredGrid>\n    <FieldData>\n"
      << "      <DataArray type=\"Float64\" Name=\"TIME\" NumberOfTuples=\"1\" "
         "format=\"ascii\">"
      << time << "</DataArray>\n    </FieldData>\n"
      << "    <Piece NumberOfPoints=\"" << nodes.extent(0) << "\" NumberOfCells=\""
      << numCells << "\">\n      <CellData>\n";
  for (const auto* field : fields) {
    require(field != nullptr, "writeVtkUnstructured: a null field for '", path, "'");
    field->requireOn(mesh, "output");
    const auto values = host(field->values());
    std::vector<double> data(static_cast<std::size_t>(numCells));
    for (std::size_t c = 0; c < data.size(); ++c) data[c] = double(values(c));
    writeArray(out, "Float64", field->name().c_str(), data);
  }
  out << "      </CellData>\n      <Points>\n";
  writeArray(out, "Float64", "Points", points, 3);
  out << "      </Points>\n      <Cells>\n";
  writeArray(out, "Int64", "connectivity", connectivity);
  writeArray(out, "Int64", "offsets", offsets);
  writeArray(out, "UInt8", "types", types);
  if (mesh.dimension() == 3) {
    writeArray(out, "Int64", "faces", faces);
    writeArray(out, "Int64", "faceoffsets", faceOffsets);
  }
  out << "      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n";
  return out.str();
}

}  // namespace Details

template <class ExecSpace>
void writeVtkUnstructured(const std::string& path, const Mesh<ExecSpace>& mesh,
                          const std::vector<const CellField<ExecSpace>*>& fields,
                          double time) {
  writeFileAtomically(path, Details::unstructuredPieceText(path, mesh, fields, time, -1));
}

#define KFVM_INSTANTIATE_VTK_UNSTRUCTURED(Space)                                         \
  template std::string Details::unstructuredPieceText<Space>(                            \
      const std::string&, const Mesh<Space>&,                                            \
      const std::vector<const CellField<Space>*>&, double, Ordinal);                     \
  template void writeVtkUnstructured<Space>(const std::string&, const Mesh<Space>&,      \
                                            const std::vector<const CellField<Space>*>&, \
                                            double);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_VTK_UNSTRUCTURED)

}  // namespace kfvm
