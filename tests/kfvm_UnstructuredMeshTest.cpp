// Meshes built from general cells (MeshTopology, Gmsh files): their geometry against the
// Cartesian grid and closed-form values, diffusion on them against the Cartesian path
// and the exact linear profile, named patches, and the meshes that must be errors.
#include "kfvm_TestHelpers.hpp"
#include "kfvm_TestMeshes.hpp"

#include <kfvm_GmshMesh.hpp>
#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_MeshQuality.hpp>
#include <kfvm_PointLocation.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

/// Steady diffusion with D = 1 + x + y per cell, phi = 0 on left, 1 on right, zero flux
/// elsewhere, solved by CG to 1e-12.
std::vector<double> steadyDiffusion(const Mesh<Space>& mesh, bool variable) {
  CellField<Space> D(mesh, "D"), phi(mesh, "phi");
  setFromCellCentres(
      D, mesh, KOKKOS_LAMBDA(Real x, Real y, Real) { return Real(1) + x + y; });
  Equation<Space> equation(mesh);
  if (variable)
    equation.diffusion(D);
  else
    equation.diffusion(Real(2));
  equation.boundary("left", BoundaryCondition::dirichlet(0))
      .boundary("right", BoundaryCondition::dirichlet(1));
  ImplicitStepper<Space> stepper(
      equation, makeLinearSolver<Space>("cg", {{"tolerance", solverToleranceText(1e-13)},
                                               {"max_iterations", "5000"}}));
  const auto report = stepper.solveSteady(phi);
  EXPECT_TRUE(report.converged) << report.reason;
  return toHost(phi.values());
}

std::vector<double> graded(int n) {
  std::vector<double> v(std::size_t(n) + 1);
  for (int i = 0; i <= n; ++i) v[std::size_t(i)] = std::pow(double(i) / n, 1.3);
  return v;
}

TEST(UnstructuredMesh, HexahedraFromGmshEqualTheCartesianGrid) {
  const auto xs = graded(5), ys = graded(4), zs = graded(3);
  const Mesh<Space> cartesian(CartesianGrid::fromVertices(xs, ys, zs));
  const Mesh<Space> general(hexahedra(xs, ys, zs).topology());
  EXPECT_TRUE(cartesian.isCartesian());
  EXPECT_FALSE(general.isCartesian());
  ASSERT_EQ(general.numCells(), cartesian.numCells());
  EXPECT_EQ(general.numFaces(), cartesian.numFaces());
  EXPECT_EQ(general.numBoundaryFaces(), cartesian.numBoundaryFaces());
  EXPECT_EQ(general.regionNames(), std::vector<std::string>{"domain"});
  for (Patch patch : allPatches) {
    EXPECT_EQ(general.patchSize(patch), cartesian.patchSize(patch)) << patchName(patch);
    EXPECT_EQ(general.patchIndex(patchName(patch)), int(patch));
  }
  const auto volumes = toHost(general.cellVolumes()),
             expected = toHost(cartesian.cellVolumes());
  const auto centres =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), general.cellCentres());
  const auto expectedCentres =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cartesian.cellCentres());
  for (Ordinal c = 0; c < general.numCells(); ++c) {
    EXPECT_NEAR(volumes[c], expected[c], tolerance(1e-15)) << "cell " << c;
    for (int a = 0; a < 3; ++a)
      EXPECT_NEAR(centres(c, a), expectedCentres(c, a), tolerance(1e-14)) << "cell " << c;
  }
  // The same equation through the face lists of both meshes: the same numbers.
  const auto onCartesian = steadyDiffusion(cartesian, true);
  const auto onGeneral = steadyDiffusion(general, true);
  for (Ordinal c = 0; c < general.numCells(); ++c)
    EXPECT_NEAR(onGeneral[c], onCartesian[c], tolerance(1e-10)) << "cell " << c;
}

/// phi - x at every cell centroid, largest.
double linearProfileError(const Mesh<Space>& mesh) {
  const auto phi = steadyDiffusion(mesh, false);
  const auto centres =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellCentres());
  double error = 0;
  for (Ordinal c = 0; c < mesh.numCells(); ++c)
    error = std::max(error, std::abs(phi[c] - centres(c, 0)));
  return error;
}

TEST(UnstructuredMesh, LinearProfileIsExactOnTrianglesPrismsAndPolygons) {
  const Mesh<Space> triangles(crossedTriangles(6, 0).topology());
  EXPECT_EQ(triangles.numCells(), 4 * 6 * 6);
  EXPECT_EQ(triangles.patchNames(),
            (std::vector<std::string>{"left", "right", "bottom", "top"}));
  EXPECT_LT(linearProfileError(triangles), tolerance(1e-11));
  const Mesh<Space> prisms(crossedTriangles(4, 3).topology());
  EXPECT_EQ(prisms.numCells(), 4 * 4 * 4 * 3);
  EXPECT_EQ(prisms.patchSize(Patch::Back), 4 * 4 * 4);
  EXPECT_LT(linearProfileError(prisms), tolerance(1e-11));

  // Octagons: squares with a node in the middle of each side, so that each side is two
  // faces; the same numbers as the Cartesian grid.
  const int n = 5;
  std::vector<Point> nodes;
  for (int j = 0; j <= 2 * n; ++j) {
    for (int i = 0; i <= 2 * n; ++i) nodes.push_back({0.5 * i / n, 0.5 * j / n, 0});
  }
  const auto id = [&](int i, int j) {
    return Ordinal(i + (2 * n + 1) * j);
  };
  MeshTopology octagons(2, nodes);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i)
      octagons.addPolygon({id(2 * i, 2 * j), id(2 * i + 1, 2 * j), id(2 * i + 2, 2 * j),
                           id(2 * i + 2, 2 * j + 1), id(2 * i + 2, 2 * j + 2),
                           id(2 * i + 1, 2 * j + 2), id(2 * i, 2 * j + 2),
                           id(2 * i, 2 * j + 1)});
  }
  for (int m = 0; m < 2 * n; ++m) {
    octagons.addBoundaryFace("left", {id(0, m), id(0, m + 1)});
    octagons.addBoundaryFace("right", {id(2 * n, m), id(2 * n, m + 1)});
  }
  const Mesh<Space> polygons(octagons);
  EXPECT_EQ(polygons.patchNames(),
            (std::vector<std::string>{"left", "right", "boundary"}));
  EXPECT_EQ(polygons.patchSize(polygons.patchIndex("boundary")), 4 * n);
  EXPECT_EQ(polygons.numFaces(), 2 * (n + 1) * 2 * n);
  EXPECT_LT(linearProfileError(polygons), tolerance(1e-11));
  const Mesh<Space> squares(CartesianGrid::uniform2D(n, n, 1, 1));
  const auto onSquares = steadyDiffusion(squares, true),
             onPolygons = steadyDiffusion(polygons, true);
  for (Ordinal c = 0; c < squares.numCells(); ++c)
    EXPECT_NEAR(onPolygons[c], onSquares[c], tolerance(1e-10)) << "cell " << c;
}

TEST(UnstructuredMesh, TetrahedraAndPyramidsCloseAndFillTheCube) {
  for (bool pyramids : {false, true}) {
    const Mesh<Space> mesh(cutCubes(3, pyramids));
    SCOPED_TRACE(pyramids ? "pyramids" : "tetrahedra");
    EXPECT_EQ(mesh.numCells(), 6 * 27);
    auto names = mesh.patchNames();  // in the order the faces were named
    std::sort(names.begin(), names.end());
    const std::vector<std::string> sides{"back", "bottom", "front",
                                         "left", "right",  "top"};
    EXPECT_EQ(names, sides);
    const auto volumes = toHost(mesh.cellVolumes());
    const auto centres =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellCentres());
    double total = 0, moment[3] = {0, 0, 0};
    for (Ordinal c = 0; c < mesh.numCells(); ++c) {
      EXPECT_NEAR(volumes[c], 1.0 / (6 * 27), tolerance(1e-15));
      total += volumes[c];
      for (int a = 0; a < 3; ++a) moment[a] += volumes[c] * centres(c, a);
    }
    EXPECT_NEAR(total, 1, tolerance(1e-13));
    for (int a = 0; a < 3; ++a) EXPECT_NEAR(moment[a], 0.5, tolerance(1e-13));
    // Each cell is closed: its outward area vectors sum to zero; the boundary's area
    // is 6.
    const auto offsets =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellFaceOffsets());
    const auto faces =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellFaces());
    const auto faceCells =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.faceCells());
    const auto normals =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.faceNormals());
    const auto areas = toHost(mesh.faceAreas());
    for (Ordinal c = 0; c < mesh.numCells(); ++c) {
      double sum[3] = {0, 0, 0};
      for (Offset i = offsets(c); i < offsets(c + 1); ++i) {
        const Ordinal f = faces(i);
        const double sign = faceCells(f, 0) == c ? 1 : -1;
        for (int a = 0; a < 3; ++a) sum[a] += sign * areas[f] * normals(f, a);
      }
      for (int a = 0; a < 3; ++a)
        EXPECT_NEAR(sum[a], 0, tolerance(1e-15)) << "cell " << c;
    }
    double boundaryArea = 0;
    for (Ordinal f = 0; f < mesh.numFaces(); ++f)
      boundaryArea += faceCells(f, 1) < 0 ? areas[f] : 0;
    EXPECT_NEAR(boundaryArea, 6, tolerance(1e-13));
    EXPECT_EQ(mesh.numBoundaryFaces(), pyramids ? 6 * 9 : 2 * 6 * 9);
  }
}

TEST(UnstructuredMesh, BadMeshesAndPatchesAreErrors) {
  std::vector<Point> nodes{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {0, 1, 0}, {1, 1, 0}};
  expectError([&] { Mesh<Space>(MeshTopology(1, nodes)); }, {"dimension 2 or 3, got 1"});
  {
    MeshTopology flat(2, nodes);  // three nodes on one line
    flat.addCell(CellShape::Triangle, {0, 1, 2}, 7);
    expectError([&] { Mesh<Space>{flat}; }, {"cell 0 (element 7)", "degenerate"});
  }
  MeshTopology topology(2, nodes);
  expectError(
      [&] {
        topology.addCell(CellShape::Triangle, {0, 1, 9}, 3);
      },
      {"element 3", "node 9", "5 nodes"});
  expectError(
      [&] {
        topology.addCell(CellShape::Triangle, {0, 1, 1}, 4);
      },
      {"element 4", "repeats a node"});
  expectError(
      [&] {
        topology.addCell(CellShape::Tetrahedron, {0, 1, 3, 4}, 5);
      },
      {"dimension 3", "element 5"});
  EXPECT_EQ(topology.numCells(), 0);  // a refused cell leaves nothing behind
  {
    MeshTopology twice(2, nodes);  // sides (1 4) and (4 1) of one polygon
    twice.addPolygon({0, 1, 4, 1}, 13);
    expectError([&] { twice.connect(); }, {"element 13", "twice"});
  }
  {
    // A face of 17 nodes (past the pairwise check) that repeats one.
    std::vector<Point> ring;
    for (int i = 0; i < 18; ++i)
      ring.push_back({std::cos(0.3 * i), std::sin(0.3 * i), 0});
    MeshTopology polyhedra(3, ring);
    std::vector<Ordinal> big;
    for (Ordinal i = 0; i < 16; ++i) big.push_back(i);
    big.push_back(3);
    expectError(
        [&] {
          polyhedra.addPolyhedron({big, {0, 1, 17}, {1, 2, 17}, {2, 0, 17}}, 21);
        },
        {"element 21", "repeats a node"});
    EXPECT_EQ(polyhedra.numCells(), 0);
  }
  topology.addCell(CellShape::Triangle, {0, 1, 3}, 10);
  topology.addCell(CellShape::Triangle, {1, 4, 3}, 11);
  {
    MeshTopology three = topology;  // a third cell on the face (1 3)
    three.addCell(CellShape::Triangle, {1, 2, 3}, 12);
    expectError([&] { three.connect(); }, {"face (1 3)", "3 cells", "element 10"});
  }
  {
    MeshTopology inside = topology;
    inside.addBoundaryFace("wall", {3, 1});
    expectError([&] { inside.connect(); }, {"patch 'wall'", "inside the mesh"});
    MeshTopology missing = topology;
    missing.addBoundaryFace("wall", {0, 4});
    expectError([&] { missing.connect(); }, {"patch 'wall'", "(0 4)", "no cell has"});
  }
  topology.addBoundaryFace("wall", {0, 1});
  const Mesh<Space> mesh(topology);
  EXPECT_EQ(mesh.patchNames(), (std::vector<std::string>{"wall", "boundary"}));
  expectError([&] { mesh.grid(); }, {"not a Cartesian grid"});
  expectError([&] { mesh.patchIndex("inlet"); },
              {"unknown boundary patch 'inlet'", "'wall', 'boundary'"});
  Equation<Space> equation(mesh);
  expectError([&] { equation.boundary("left", BoundaryCondition::dirichlet(0)); },
              {"unknown boundary patch 'left'", "'wall', 'boundary'"});
  equation.boundary("wall", BoundaryCondition::dirichlet(1));
  EXPECT_TRUE(equation.boundaryConditions().isSet("wall"));
  // A Gmsh line mesh, and a 2D Gmsh mesh off its plane.
  MshText line;
  line.element(1, 1, {line.node(0, 0, 0), line.node(1, 0, 0)});
  expectError([&] { line.topology(); }, {"test.msh", "dimension 1"});
  MshText tilted;
  tilted.element(2, 1,
                 {tilted.node(0, 0, 0), tilted.node(1, 0, 0), tilted.node(0, 1, 1)});
  expectError([&] { tilted.topology(); }, {"test.msh", "element 1", "x-y plane"});
  // Gmsh scripts: a missing script, a missing program (the meshing itself runs in the
  // Python tests where gmsh is installed: FiPy's circle example).
  expectError([] { meshGmshScript("no/such/script.geo", 2); },
              {"'no/such/script.geo' cannot be opened"});
  const auto script = std::filesystem::path(workPath("point.geo"));
  std::ofstream(script) << "Point(1) = {0, 0, 0, 0.1};\n";
  const char* before = std::getenv("KFVM_GMSH");
  const std::string saved = before ? before : "";
  ::setenv("KFVM_GMSH", "/no/such/gmsh", 1);
  expectError([&] { meshGmshScript(script.string(), 2); },
              {"cannot run '/no/such/gmsh'"});
  expectError([&] { meshGmshScript(script.string(), 1); }, {"dimension 2 or 3, got 1"});
  if (before)
    ::setenv("KFVM_GMSH", saved.c_str(), 1);
  else
    ::unsetenv("KFVM_GMSH");
  std::filesystem::remove(script);
}

TEST(UnstructuredMesh, QualityMeasuresNonOrthogonalityAndSkewness) {
  const auto grid = meshQuality(Mesh<Space>(CartesianGrid::uniform2D(4, 3, 1, 1)));
  EXPECT_EQ(grid.interiorFaces, 3 * 3 + 4 * 2);
  EXPECT_EQ(grid.maxNonOrthogonality, 0);
  EXPECT_EQ(grid.maxSkewness, 0);
  // Crossed triangles: orthogonal, but the centroid line crosses a half-diagonal at a
  // third of the diagonal, a quarter of the line's length from the face's centroid.
  const auto triangles = meshQuality(Mesh<Space>(crossedTriangles(3, 0).topology()));
  EXPECT_EQ(triangles.interiorFaces, 4 * 9 + 2 * 3 * 2);
  EXPECT_LT(triangles.maxNonOrthogonality, sizeof(Real) == sizeof(double) ? 1e-5 : 1e-2);
  EXPECT_NEAR(triangles.maxSkewness, 0.25, tolerance(1e-12));
  // Kuhn tetrahedra are not orthogonal: faces tens of degrees off their centroid line,
  // none over 70.
  const auto tetrahedra = meshQuality(Mesh<Space>(cutCubes(2, false)));
  std::printf(
      "  Kuhn tetrahedra: non-orthogonality max %.2f, mean %.2f degrees; skewness "
      "max %.3f\n",
      tetrahedra.maxNonOrthogonality, tetrahedra.meanNonOrthogonality,
      tetrahedra.maxSkewness);
  EXPECT_GT(tetrahedra.maxNonOrthogonality, 10);
  EXPECT_LT(tetrahedra.maxNonOrthogonality, 70);
  EXPECT_EQ(tetrahedra.facesOver70Degrees, 0);
  EXPECT_GT(tetrahedra.meanNonOrthogonality, 0);
  EXPECT_LE(tetrahedra.meanNonOrthogonality, tetrahedra.maxNonOrthogonality);
}

TEST(UnstructuredMesh, EveryCentroidLiesInItsOwnCell) {
  const Mesh<Space> mesh(cutCubes(2, false, 0.04));
  const auto centres =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellCentres());
  for (Ordinal c = 0; c < mesh.numCells(); ++c)
    EXPECT_EQ(cellContaining(mesh, {centres(c, 0), centres(c, 1), centres(c, 2)}), c);
  EXPECT_EQ(cellContaining(mesh, {1.5, 0.5, 0.5}), -1);
  // A cube's corner belongs to several cells: the first of them.
  EXPECT_EQ(cellContaining(mesh, {0, 0, 0}), 0);
}

}  // namespace
}  // namespace kfvm::Test

namespace kfvm::Test {
namespace {

TEST(UnstructuredMesh, FiPyConventionTakesFiPysCentresAndDistances) {
  // Two quadrilaterals that are not parallelograms, sharing the face (1, 4):
  // nodes 0 (0,0) 1 (2,0) 2 (3,0) 3 (0,1) 4 (1,2) 5 (3,1). FiPy's centre of a cell is
  // the mean of its faces' midpoints, its distance the length between the centres.
  const std::vector<std::array<double, 3>> nodes{{0, 0, 0}, {2, 0, 0}, {3, 0, 0},
                                                 {0, 1, 0}, {1, 2, 0}, {3, 1, 0}};
  const auto build = [&](GeometryConvention convention) {
    MeshTopology topology(2, nodes);
    topology.addPolygon({0, 1, 4, 3});
    topology.addPolygon({1, 2, 5, 4});
    topology.setGeometryConvention(convention);
    return Mesh<Space>(topology);
  };
  const Mesh<Space> fipy = build(GeometryConvention::FiPy);
  const Mesh<Space> centroids = build(GeometryConvention::Centroids);
  EXPECT_EQ(fipy.geometryConvention(), GeometryConvention::FiPy);
  const auto centres =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fipy.cellCentres());
  // Cell 0: midpoints (1,0), (1.5,1), (0.5,1.5), (0,0.5): mean (0.75, 0.75).
  // Cell 1: midpoints (2.5,0), (3,0.5), (2,1.5), (1.5,1): mean (2.25, 0.75).
  EXPECT_NEAR(centres(0, 0), 0.75, tolerance(1e-15));
  EXPECT_NEAR(centres(0, 1), 0.75, tolerance(1e-15));
  EXPECT_NEAR(centres(1, 0), 2.25, tolerance(1e-15));
  EXPECT_NEAR(centres(1, 1), 0.75, tolerance(1e-15));
  const auto cells =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fipy.faceCells());
  const auto distances = toHost(fipy.faceDistances());
  const auto projected = toHost(centroids.faceDistances());
  for (Ordinal f = 0; f < fipy.numFaces(); ++f) {
    if (cells(f, 1) < 0) continue;
    EXPECT_NEAR(distances[std::size_t(f)], 1.5,
                tolerance(1e-15));              // |(2.25,.75)-(.75,.75)|
    EXPECT_LT(projected[std::size_t(f)], 1.5);  // the centroids' projection on the normal
  }
  // The same volumes either way (exact polygon areas: 2.5 and 2).
  EXPECT_EQ(toHost(fipy.cellVolumes()), toHost(centroids.cellVolumes()));
  Equation<Space> equation(fipy);
  expectError([&] { equation.diffusionCorrection(DiffusionCorrection::OverRelaxed); },
              {"needs a mesh of GeometryConvention::Centroids"});
}

}  // namespace
}  // namespace kfvm::Test
