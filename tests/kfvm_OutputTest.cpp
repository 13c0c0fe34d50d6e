// VTK output read back: values, coordinates and time of a .vtr, the cells of a .vtu,
// the .pvd collection, and errors naming the path.
#include "kfvm_TestHelpers.hpp"
#include "kfvm_TestMeshes.hpp"

#include <kfvm_VtkUnstructured.hpp>
#include <kfvm_VtkWriter.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The numbers of the first <DataArray ... Name="name" ...> element of an ASCII file.
std::vector<double> dataArray(const std::string& xml, const std::string& name) {
  const auto tag = xml.find("Name=\"" + name + "\"");
  if (tag == std::string::npos) return {};
  const auto begin = xml.find('>', tag) + 1;
  const auto end = xml.find("</DataArray>", begin);
  std::istringstream numbers(xml.substr(begin, end - begin));
  std::vector<double> values;
  for (double v; numbers >> v;) values.push_back(v);
  return values;
}

std::string scratchFolder(const std::string& name) {
  const std::filesystem::path folder = workPath(name);
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return folder.string();
}

/// x + 10 y + 100 z at the cell centres (outside the TEST body: CUDA lambdas).
void fillWithPosition(CellField<Space>& phi, const Mesh<Space>& mesh) {
  setFromCellCentres(
      phi, mesh, KOKKOS_LAMBDA(Real x, Real y, Real z) { return x + 10 * y + 100 * z; });
}

TEST(Output, VtkRectilinearFileReadsBackItsValuesCoordinatesAndTime) {
  const std::vector<double> xs{0, 0.5, 1.5, 3.0, 3.25}, ys{-1, 0, 2, 2.5}, zs{0, 1, 4};
  Mesh<Space> mesh(CartesianGrid::fromVertices(xs, ys, zs));
  CellField<Space> phi(mesh, "phi"), psi(mesh, "psi");
  fillWithPosition(phi, mesh);
  psi.fill(Real(-2.5));
  const std::string folder = scratchFolder("vtr");
  const std::string path = folder + "/fields.vtr";
  writeVtkRectilinear<Space>(path, mesh, {&phi, &psi}, 0.125);
  const std::string xml = readFile(path);
  EXPECT_NE(xml.find("WholeExtent=\"0 4 0 3 0 2\""), std::string::npos);
  const auto values = dataArray(xml, "phi");
  ASSERT_EQ(values.size(), std::size_t(24));
  std::size_t c = 0;
  for (int k = 0; k < 2; ++k)  // VTK cell order: x fastest, as kfvm's
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 4; ++i, ++c) {
        const double expected = (xs[i] + xs[i + 1]) / 2 + 10 * (ys[j] + ys[j + 1]) / 2 +
                                100 * (zs[k] + zs[k + 1]) / 2;
        EXPECT_NEAR(values[c], expected, tolerance(1e-12) * 400) << "cell " << c;
      }
  EXPECT_EQ(dataArray(xml, "psi"), std::vector<double>(24, -2.5));
  EXPECT_EQ(dataArray(xml, "x"), xs);
  EXPECT_EQ(dataArray(xml, "y"), ys);
  EXPECT_EQ(dataArray(xml, "z"), zs);
  EXPECT_EQ(dataArray(xml, "TIME"), std::vector<double>{0.125});
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

TEST(Output, TimeSeriesListsEveryFileAndErrorsNameThePath) {
  const std::string folder = scratchFolder("pvd");
  VtkTimeSeries series(folder + "/phi.pvd");
  series.add(0.0, "phi_000000.vtr");
  series.add(0.5, "phi_000001.vtr");
  const std::string xml = readFile(series.path());
  EXPECT_NE(xml.find("<DataSet timestep=\"0\" part=\"0\" file=\"phi_000000.vtr\"/>"),
            std::string::npos);
  EXPECT_NE(xml.find("<DataSet timestep=\"0.5\" part=\"0\" file=\"phi_000001.vtr\"/>"),
            std::string::npos);
  Mesh<Space> mesh(CartesianGrid::uniform1D(4, 1.0)),
      other(CartesianGrid::uniform1D(4, 1.0));
  CellField<Space> phi(other, "phi");
  expectError([&] { writeVtkRectilinear<Space>(folder + "/x.vtr", mesh, {&phi}, 0); },
              {"output"});
  CellField<Space> mine(mesh, "phi");
  expectError(
      [&] {
        writeVtkRectilinear<Space>(folder + "/no/such/folder/x.vtr", mesh, {&mine}, 0);
      },
      {"cannot open", "no/such/folder/x.vtr.tmp"});
}

TEST(Output, VtkUnstructuredFileHoldsEveryCellAsPolygonOrPolyhedron) {
  const std::string folder = scratchFolder("vtu");
  // 2D: 4 x 2 x 2 triangles as polygons of 3 nodes.
  const Mesh<Space> triangles(crossedTriangles(2, 0).topology());
  CellField<Space> phi(triangles, "phi");
  fillWithPosition(phi, triangles);
  writeVtkUnstructured<Space>(folder + "/triangles.vtu", triangles, {&phi}, 0.5);
  std::string xml = readFile(folder + "/triangles.vtu");
  EXPECT_NE(xml.find("NumberOfPoints=\"13\" NumberOfCells=\"16\""), std::string::npos);
  EXPECT_EQ(dataArray(xml, "types"), std::vector<double>(16, 7));
  auto offsets = dataArray(xml, "offsets");
  ASSERT_EQ(offsets.size(), std::size_t(16));
  EXPECT_EQ(offsets.back(), 48);
  EXPECT_EQ(dataArray(xml, "phi"), toHost(phi.values()));
  EXPECT_EQ(dataArray(xml, "TIME"), std::vector<double>{0.5});
  // Each polygon's nodes go around it: consecutive nodes share one of its edges.
  const auto connectivity = dataArray(xml, "connectivity");
  const auto points = dataArray(xml, "Points");
  for (std::size_t c = 0; c < 16; ++c) {
    double area = 0;  // the shoelace area, non-zero only for nodes in order
    for (std::size_t k = 0; k < 3; ++k) {
      const auto p = std::size_t(connectivity[3 * c + k]);
      const auto q = std::size_t(connectivity[3 * c + (k + 1) % 3]);
      area += points[3 * p] * points[3 * q + 1] - points[3 * q] * points[3 * p + 1];
    }
    EXPECT_NEAR(std::abs(area) / 2, 1.0 / 16, 1e-12) << "cell " << c;
  }
  // 3D: the 6 tetrahedra of a cube as polyhedra of 4 faces.
  const Mesh<Space> tetrahedra(cutCubes(1, false));
  CellField<Space> psi(tetrahedra, "psi");
  psi.fill(Real(3));
  writeVtkUnstructured<Space>(folder + "/tetrahedra.vtu", tetrahedra, {&psi}, 1);
  xml = readFile(folder + "/tetrahedra.vtu");
  EXPECT_NE(xml.find("NumberOfPoints=\"8\" NumberOfCells=\"6\""), std::string::npos);
  EXPECT_EQ(dataArray(xml, "types"), std::vector<double>(6, 42));
  EXPECT_EQ(dataArray(xml, "offsets"), (std::vector<double>{4, 8, 12, 16, 20, 24}));
  const auto faces = dataArray(xml, "faces");
  ASSERT_EQ(faces.size(), std::size_t(6 * 17));  // per cell: 4, then 4 x (3 nodes)
  EXPECT_EQ(faces[0], 4);
  EXPECT_EQ(faces[1], 3);
  EXPECT_EQ(dataArray(xml, "faceoffsets").back(), 6 * 17);
  EXPECT_EQ(dataArray(xml, "psi"), std::vector<double>(6, 3));
  EXPECT_FALSE(std::filesystem::exists(folder + "/tetrahedra.vtu.tmp"));
  const Mesh<Space> box(CartesianGrid::uniform2D(2, 2, 1, 1));
  CellField<Space> boxed(box, "phi");
  expectError([&] { writeVtkUnstructured<Space>(folder + "/box.vtu", box, {&boxed}, 0); },
              {"box.vtu", "writeVtkRectilinear"});
  expectError(
      [&] {
        writeVtkUnstructured<Space>(folder + "/no/such/t.vtu", tetrahedra, {&psi}, 0);
      },
      {"cannot open", "no/such/t.vtu.tmp"});
}

}  // namespace
}  // namespace kfvm::Test
