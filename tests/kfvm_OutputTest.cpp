// VTK output read back: values, coordinates and time of a .vtr, the .pvd collection,
// and errors naming the path.
#include "kfvm_TestHelpers.hpp"

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
  const auto folder = std::filesystem::temp_directory_path() /
                      ("kfvm-output-test-" + std::string(Space::name()) + "-" + name);
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

}  // namespace
}  // namespace kfvm::Test
