// Manufactured solutions with variable coefficients on smoothly graded non-uniform grids:
// the L2 error must fall at second order.
#include "kfvm_Manufactured.hpp"
#include "kfvm_TestHelpers.hpp"

#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_KokkosCompat.hpp>

#include <cmath>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

/// n vertices-1 cells on [0, 1], graded by x = s + 0.5 sin(2 pi s) / (2 pi): cells vary
/// smoothly in width by a factor of 3 across the domain.
std::vector<double> gradedVertices(int n) {
  std::vector<double> vertices(n + 1);
  for (int i = 0; i <= n; ++i) {
    const double s = double(i) / n;
    vertices[i] = s + 0.5 * std::sin(2 * pi * s) / (2 * pi);
  }
  return vertices;
}

/// Dirichlet values of an exact solution on every boundary face of a patch.
template <class Exact>
std::vector<Real> boundaryValues(const Mesh<Space>& mesh, Patch patch, Exact exact) {
  const auto faces =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.boundaryFaces());
  const auto centres =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.faceCentres());
  std::vector<Real> values;
  for (Ordinal i = 0; i < mesh.patchSize(patch); ++i) {
    const Ordinal f = faces(mesh.patchFirstSlot(patch) + i);
    values.push_back(Real(exact(centres(f, 0), centres(f, 1), centres(f, 2))));
  }
  return values;
}

/// L2 norm of phi - exact over the mesh.
template <class Exact>
double l2Error(const CellField<Space>& phi, const Mesh<Space>& mesh, Exact exact) {
  const auto values = toHost(phi.values());
  const auto centres =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellCentres());
  const auto volumes = toHost(mesh.cellVolumes());
  double sum = 0;
  for (Ordinal c = 0; c < mesh.numCells(); ++c) {
    const double e = values[c] - exact(centres(c, 0), centres(c, 1), centres(c, 2));
    sum += e * e * volumes[c];
  }
  return std::sqrt(sum);
}

// 2D: phi = sin(pi x) sin(pi y) + x, D = 1 + x + y^2 per cell (harmonic face means).
double exact2D(double x, double y, double) {
  return std::sin(pi * x) * std::sin(pi * y) + x;
}

void setSource2D(CellField<Space>& s, const Mesh<Space>& mesh) {
  const double p = pi;
  setFromCellCentres(
      s, mesh, KOKKOS_LAMBDA(Real xr, Real yr, Real) {
        const double x = xr, y = yr;
        const double sx = Compat::sin(p * x), cx = Compat::cos(p * x);
        const double sy = Compat::sin(p * y), cy = Compat::cos(p * y);
        const double D = 1 + x + y * y;
        const double phiX = p * cx * sy + 1, phiY = p * sx * cy;
        const double laplacian = -2 * p * p * sx * sy;
        return Real(-(phiX + 2 * y * phiY + D * laplacian));  // s = -div(D grad phi)
      });
}

void setDiffusivity2D(CellField<Space>& D, const Mesh<Space>& mesh) {
  setFromCellCentres(
      D, mesh, KOKKOS_LAMBDA(Real x, Real y, Real) { return Real(1) + x + y * y; });
}

double solve2D(int n) {
  Mesh<Space> mesh(CartesianGrid::fromVertices(gradedVertices(n), gradedVertices(n)));
  CellField<Space> D(mesh, "D"), s(mesh, "s"), phi(mesh, "phi");
  setDiffusivity2D(D, mesh);
  setSource2D(s, mesh);
  Equation<Space> equation(mesh);
  equation.diffusion(D).source(s);
  for (Patch patch : {Patch::Left, Patch::Right, Patch::Bottom, Patch::Top}) {
    equation.boundary(patch,
                      BoundaryCondition::dirichlet(boundaryValues(mesh, patch, exact2D)));
  }
  ImplicitStepper<Space> stepper(
      equation, makeLinearSolver<Space>(
                    "cg", {{"tolerance", "1e-12"}, {"max_iterations", "5000"}}));
  const auto report = stepper.solveSteady(phi);
  EXPECT_TRUE(report.converged) << report.reason;
  return l2Error(phi, mesh, exact2D);
}

// 3D: manufactured3D, D = 1 + x y z given per face.
void setFaceDiffusivity3D(FaceField<Space>& D, const Mesh<Space>& mesh) {
  setFromFaceCentres(
      D, mesh, KOKKOS_LAMBDA(Real x, Real y, Real z) { return Real(1) + x * y * z; });
}

double solve3D(int n) {
  const auto v = gradedVertices(n);
  Mesh<Space> mesh(CartesianGrid::fromVertices(v, v, v));
  CellField<Space> s(mesh, "s"), phi(mesh, "phi");
  FaceField<Space> D(mesh, "D");
  setFaceDiffusivity3D(D, mesh);
  setManufacturedSource3D(s, mesh);
  Equation<Space> equation(mesh);
  equation.diffusion(D).source(s);
  for (Patch patch : allPatches) {
    equation.boundary(
        patch, BoundaryCondition::dirichlet(boundaryValues(mesh, patch, manufactured3D)));
  }
  ImplicitStepper<Space> stepper(
      equation, makeLinearSolver<Space>(
                    "cg", {{"tolerance", "1e-12"}, {"max_iterations", "5000"}}));
  const auto report = stepper.solveSteady(phi);
  EXPECT_TRUE(report.converged) << report.reason;
  return l2Error(phi, mesh, manufactured3D);
}

void expectSecondOrder(const std::vector<double>& errors, const char* what) {
  for (std::size_t i = 1; i < errors.size(); ++i) {
    const double order = std::log2(errors[i - 1] / errors[i]);
    std::printf("  %s: L2 error %.4e -> %.4e, order %.3f\n", what, errors[i - 1],
                errors[i], order);
    EXPECT_GE(order, 1.9) << what << " refinement " << i;
  }
}

TEST(Convergence, Diffusion2DVariableCellCoefficientNonUniformIsSecondOrder) {
  expectSecondOrder({solve2D(16), solve2D(32), solve2D(64)}, "2D");
}

TEST(Convergence, Diffusion3DVariableFaceCoefficientNonUniformIsSecondOrder) {
  expectSecondOrder({solve3D(8), solve3D(16), solve3D(32)}, "3D");
}

}  // namespace
}  // namespace kfvm::Test
