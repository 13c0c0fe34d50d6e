#include "kfvm_TestHelpers.hpp"

#include <kfvm_Mesh.hpp>

#include <cmath>

namespace kfvm::Test {
namespace {

using MeshType = Mesh<TestExecSpace>;

template <class ViewType>
auto host(const ViewType& view) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
}

TEST(Mesh, CountsAndVolumesOfNonUniform3DGrid) {
  const MeshType mesh(
      CartesianGrid::fromSpacing({0.5, 1.0, 1.5}, {2.0, 1.0}, {1.0, 0.25}));
  EXPECT_EQ(mesh.dimension(), 3);
  EXPECT_EQ(mesh.numCells(), 12);
  EXPECT_EQ(mesh.numFacesNormalTo(0), 4 * 2 * 2);
  EXPECT_EQ(mesh.numFacesNormalTo(1), 3 * 3 * 2);
  EXPECT_EQ(mesh.numFacesNormalTo(2), 3 * 2 * 3);
  EXPECT_EQ(mesh.numFaces(), 16 + 18 + 18);
  EXPECT_EQ(mesh.numBoundaryFaces(), 2 * (2 * 2) + 2 * (3 * 2) + 2 * (3 * 2));
  const auto volumes = host(mesh.cellVolumes());
  double total = 0;
  for (Ordinal c = 0; c < mesh.numCells(); ++c) total += volumes(c);
  EXPECT_NEAR(total, 3.0 * 3.0 * 1.25, tolerance(1e-12));
  EXPECT_NEAR(volumes(0), 0.5 * 2.0 * 1.0, tolerance(1e-12));
  EXPECT_NEAR(volumes(11), 1.5 * 1.0 * 0.25, tolerance(1e-12));  // cell (2, 1, 1)
}

TEST(Mesh, FacesPointFromOwnerToNeighbourAndOutwardOnBoundary) {
  const MeshType mesh(
      CartesianGrid::fromVertices({0, 0.3, 1.0, 1.2}, {0, 1, 1.5}, {0, 2}));
  const auto faceCells = host(mesh.faceCells());
  const auto normals = host(mesh.faceNormals());
  const auto faceCentres = host(mesh.faceCentres());
  const auto cellCentres = host(mesh.cellCentres());
  const auto distances = host(mesh.faceDistances());
  const auto areas = host(mesh.faceAreas());
  for (Ordinal f = 0; f < mesh.numFaces(); ++f) {
    const Ordinal owner = faceCells(f, 0), neighbour = faceCells(f, 1);
    double towardsFace = 0, normalLength = 0;
    for (int a = 0; a < 3; ++a) {
      towardsFace += (faceCentres(f, a) - cellCentres(owner, a)) * normals(f, a);
      normalLength += normals(f, a) * normals(f, a);
    }
    EXPECT_NEAR(normalLength, 1.0, tolerance(1e-14));
    EXPECT_GT(towardsFace, 0) << "face " << f;
    EXPECT_GT(areas(f), 0);
    if (neighbour >= 0) {
      double between = 0;
      for (int a = 0; a < 3; ++a) {
        between += (cellCentres(neighbour, a) - cellCentres(owner, a)) * normals(f, a);
      }
      EXPECT_NEAR(distances(f), between, tolerance(1e-12)) << "face " << f;
    } else {
      EXPECT_NEAR(distances(f), towardsFace, tolerance(1e-12)) << "face " << f;
    }
  }
  // The face between cells (0,0,0) and (1,0,0): area dy*dz = 1*2, distance 0.15 + 0.35.
  EXPECT_EQ(faceCells(1, 0), 0);
  EXPECT_EQ(faceCells(1, 1), 1);
  EXPECT_NEAR(areas(1), 2.0, tolerance(1e-14));
  EXPECT_NEAR(distances(1), 0.5, tolerance(1e-12));
}

TEST(Mesh, CellFacesAndFaceCellsAgree) {
  const MeshType mesh(CartesianGrid::uniform2D(4, 3, 2.0, 1.5));
  const auto offsets = host(mesh.cellFaceOffsets());
  const auto cellFaces = host(mesh.cellFaces());
  const auto faceCells = host(mesh.faceCells());
  std::vector<int> seen(mesh.numFaces(), 0);
  for (Ordinal c = 0; c < mesh.numCells(); ++c) {
    EXPECT_EQ(offsets(c + 1) - offsets(c), Offset(4));
    for (Offset s = offsets(c); s < offsets(c + 1); ++s) {
      const Ordinal f = cellFaces(s);
      EXPECT_TRUE(faceCells(f, 0) == c || faceCells(f, 1) == c)
          << "cell " << c << " face " << f;
      ++seen[f];
    }
  }
  for (Ordinal f = 0; f < mesh.numFaces(); ++f) {
    EXPECT_EQ(seen[f], faceCells(f, 1) >= 0 ? 2 : 1) << "face " << f;
  }
}

TEST(Mesh, PatchesHoldTheirBoundaryFaces) {
  const MeshType mesh(CartesianGrid::uniform3D(3, 4, 5, 3.0, 4.0, 5.0));
  const auto boundaryFaces = host(mesh.boundaryFaces());
  const auto boundaryPatches = host(mesh.boundaryPatches());
  const auto slots = host(mesh.faceBoundarySlots());
  const auto centres = host(mesh.faceCentres());
  const double extent[3] = {3.0, 4.0, 5.0};
  for (Patch patch : allPatches) {
    const int axis = patchAxis(patch);
    EXPECT_EQ(mesh.patchSize(patch), 3 * 4 * 5 / mesh.cellCounts()[axis]);
    for (Ordinal i = 0; i < mesh.patchSize(patch); ++i) {
      const Ordinal slot = mesh.patchFirstSlot(patch) + i;
      const Ordinal face = boundaryFaces(slot);
      EXPECT_EQ(boundaryPatches(slot), static_cast<int>(patch));
      EXPECT_EQ(slots(face), slot);
      EXPECT_NEAR(centres(face, axis), patchIsHighSide(patch) ? extent[axis] : 0.0,
                  1e-12);
    }
  }
  Ordinal interior = 0;
  for (Ordinal f = 0; f < mesh.numFaces(); ++f) interior += slots(f) < 0 ? 1 : 0;
  EXPECT_EQ(interior + mesh.numBoundaryFaces(), mesh.numFaces());
}

TEST(Mesh, OneDimensionalGridHasUnitAreas) {
  const MeshType mesh(CartesianGrid::uniform1D(5, 10.0));
  EXPECT_EQ(mesh.numFaces(), 6);
  EXPECT_EQ(mesh.numBoundaryFaces(), 2);
  EXPECT_FALSE(mesh.hasPatch(Patch::Top));
  const auto areas = host(mesh.faceAreas());
  const auto volumes = host(mesh.cellVolumes());
  for (Ordinal f = 0; f < 6; ++f) EXPECT_NEAR(areas(f), 1.0, tolerance(1e-15));
  for (Ordinal c = 0; c < 5; ++c) EXPECT_NEAR(volumes(c), 2.0, tolerance(1e-15));
}

TEST(Mesh, BadGridsAreRejectedNamingTheValue) {
  expectError([] { CartesianGrid::uniform1D(0, 1.0); }, {"number of cells along x", "0"});
  expectError([] { CartesianGrid::uniform2D(4, -3, 1.0, 1.0); }, {"along y", "-3"});
  expectError([] { CartesianGrid::uniform3D(2, 2, 2, 1.0, 1.0, -2.5); },
              {"length along z", "-2.5"});
  expectError(
      [] {
        CartesianGrid::fromSpacing({1.0, 0.0, 1.0});
      },
      {"spacing along x", "0", "index 1"});
  expectError(
      [] {
        CartesianGrid::fromSpacing({1.0}, {1.0, -0.5});
      },
      {"spacing along y", "-0.5"});
  expectError(
      [] {
        CartesianGrid::fromVertices({0.0, 1.0, 0.5});
      },
      {"spacing along x", "-0.5"});
  expectError([] { CartesianGrid::fromSpacing({1.0, NAN}); }, {"spacing along x", "nan"});
  expectError([] { patchFromName("middle"); }, {"middle"});
}

}  // namespace
}  // namespace kfvm::Test
