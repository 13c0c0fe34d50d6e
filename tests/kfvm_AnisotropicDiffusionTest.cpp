// Anisotropic diffusion with a tensor per cell or per face: the same numbers as a
// constant tensor when the field is constant, a scalar coefficient's when the tensors are
// multiples of the identity, second order for a variable tensor with cross terms on a
// grid and on triangles, and clear errors for tensors that are not positive definite.
#include "kfvm_TestHelpers.hpp"
#include "kfvm_TestMeshes.hpp"

#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_TensorField.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

/// The matrix is symmetric (the cross terms go to the right-hand side): CG. Float
/// builds solve to 1e-5 (BiCGStab stalled near 2e-6 there).
constexpr bool isDouble = sizeof(Real) == sizeof(double);

std::vector<double> solveSteady(const Equation<Space>& equation) {
  CellField<Space> phi(equation.mesh(), "phi");
  ImplicitStepper<Space> stepper(
      equation, makeLinearSolver<Space>("cg", {{"tolerance", isDouble ? "1e-13" : "1e-5"},
                                               {"max_iterations", "5000"}}));
  stepper.setSweeps(300, Real(isDouble ? 1e-11 : 1e-5));
  const auto report = stepper.solveSteady(phi);
  EXPECT_TRUE(report.converged) << report.reason;
  return toHost(phi.values());
}

/// The centres of a mesh's cells or faces on the host.
template <class Centres>
std::vector<std::array<double, 3>> hostPoints(const Centres& centres) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), centres);
  std::vector<std::array<double, 3>> points(host.extent(0));
  for (std::size_t i = 0; i < points.size(); ++i)
    points[i] = {host(i, 0), host(i, 1), host(i, 2)};
  return points;
}

/// Gamma(x, y) = [[1 + x/2, 0.3 + 0.2 y], [0.3 + 0.2 y, 1 + y/2]]: positive definite on
/// the unit square, with cross terms that vary.
Tensor3 variableTensor(const std::array<double, 3>& p) {
  const Real a = Real(1 + 0.5 * p[0]), b = Real(0.3 + 0.2 * p[1]),
             c = Real(1 + 0.5 * p[1]);
  return {{{a, b, 0}, {b, c, 0}, {0, 0, 1}}};
}

/// phi = sin(pi x) sin(pi y) and the source s = -div(Gamma grad phi) for variableTensor.
double exactPhi(double x, double y) {
  return std::sin(pi * x) * std::sin(pi * y);
}
double manufacturedSource(double x, double y) {
  const double sx = std::sin(pi * x), cx = std::cos(pi * x);
  const double sy = std::sin(pi * y), cy = std::cos(pi * y);
  const double px = pi * cx * sy, py = pi * sx * cy;
  const double pxx = -pi * pi * sx * sy, pyy = pxx, pxy = pi * pi * cx * cy;
  const double a = 1 + 0.5 * x, b = 0.3 + 0.2 * y, c = 1 + 0.5 * y;
  // div(Gamma grad phi) = a_x px + a pxx + b_y px + 2 b pxy + c_y py + c pyy
  return -(0.5 * px + a * pxx + 0.2 * px + 2 * b * pxy + 0.5 * py + c * pyy);
}

enum class Where { Cells, Faces };

/// L2 error of the manufactured solution with variableTensor given per cell or per face.
double manufacturedError(const Mesh<Space>& mesh, Where where) {
  Equation<Space> equation(mesh);
  CellTensorField<Space> cellTensors(mesh, "gamma");
  FaceTensorField<Space> faceTensors(mesh, "gamma");
  const auto cells = hostPoints(mesh.cellCentres());
  if (where == Where::Cells) {
    std::vector<Tensor3> tensors;
    for (const auto& p : cells) tensors.push_back(variableTensor(p));
    cellTensors.fromHost(tensors);
    equation.diffusion(cellTensors);
  } else {
    std::vector<Tensor3> tensors;
    for (const auto& p : hostPoints(mesh.faceCentres()))
      tensors.push_back(variableTensor(p));
    faceTensors.fromHost(tensors);
    equation.diffusion(faceTensors);
  }
  CellField<Space> source(mesh, "s");
  std::vector<double> s;
  for (const auto& p : cells) s.push_back(manufacturedSource(p[0], p[1]));
  source.fromHost(s);
  equation.source(source).diffusionCorrection(DiffusionCorrection::OverRelaxed,
                                              CellGradient::LeastSquares);
  for (const char* name : {"left", "right", "bottom", "top"})
    equation.boundary(name, BoundaryCondition::dirichlet(0));
  const auto phi = solveSteady(equation);
  const auto volumes = toHost(mesh.cellVolumes());
  double sum = 0;
  for (std::size_t c = 0; c < phi.size(); ++c) {
    const double e = phi[c] - exactPhi(cells[c][0], cells[c][1]);
    sum += e * e * volumes[c];
  }
  return std::sqrt(sum);
}

TEST(AnisotropicDiffusion, VariableTensorsConvergeAtSecondOrderOnGridsAndTriangles) {
  for (Where where : {Where::Cells, Where::Faces}) {
    for (bool triangles : {false, true}) {
      std::vector<double> errors;
      for (int n : {8, 16, 32}) {
        const Mesh<Space> mesh = triangles
                                     ? Mesh<Space>(crossedTriangles(n / 2, 0).topology())
                                     : Mesh<Space>(CartesianGrid::uniform2D(n, n, 1, 1));
        errors.push_back(manufacturedError(mesh, where));
      }
      const double order = std::log2(errors[1] / errors[2]);
      std::printf("  tensors per %s on %s: L2 errors %.3e %.3e %.3e, order %.3f\n",
                  where == Where::Cells ? "cell" : "face",
                  triangles ? "triangles" : "grid", errors[0], errors[1], errors[2],
                  order);
      EXPECT_GE(order, 1.9) << (triangles ? "triangles" : "grid");
    }
  }
}

/// Solves div(Gamma grad phi) = 0 with phi = 0 on the left and 1 on the right.
std::vector<double> sideToSide(Equation<Space>& equation) {
  equation
      .diffusionCorrection(DiffusionCorrection::OverRelaxed, CellGradient::LeastSquares)
      .boundary("left", BoundaryCondition::dirichlet(0))
      .boundary("right", BoundaryCondition::dirichlet(1));
  return solveSteady(equation);
}

TEST(AnisotropicDiffusion, ConstantFieldsGiveTheConstantTensorsNumbers) {
  const Mesh<Space> mesh(crossedTriangles(5, 0).topology());
  const Tensor3 gamma{{{1.0, 0.4, 0}, {0.4, 0.6, 0}, {0, 0, 1}}};
  Equation<Space> constant(mesh), perCell(mesh), perFace(mesh);
  constant.diffusion(gamma);
  CellTensorField<Space> cellTensors(mesh, "gamma");
  cellTensors.fill(gamma);
  perCell.diffusion(cellTensors);
  FaceTensorField<Space> faceTensors(mesh, "gamma");
  faceTensors.fill(gamma);
  perFace.diffusion(faceTensors);
  const auto reference = sideToSide(constant);
  EXPECT_LT(maxDifference(sideToSide(perCell), reference), tolerance(1e-11));
  EXPECT_LT(maxDifference(sideToSide(perFace), reference), tolerance(1e-11));
  EXPECT_GT(
      maxDifference(reference, sideToSide(Equation<Space>(mesh).diffusion(Real(1)))),
      1e-3);  // the cross terms matter
}

TEST(AnisotropicDiffusion, IsotropicCellTensorsGiveTheScalarHarmonicMean) {
  // D jumps by 100 between the halves: the harmonic face mean keeps the flux.
  const Mesh<Space> mesh(CartesianGrid::uniform2D(8, 3, 1, 1));
  const auto cells = hostPoints(mesh.cellCentres());
  std::vector<double> D;
  std::vector<Tensor3> tensors;
  for (const auto& p : cells) {
    const Real d = p[0] < 0.5 ? Real(1) : Real(100);
    D.push_back(d);
    tensors.push_back({{{d, 0, 0}, {0, d, 0}, {0, 0, 7}}});  // zz is off the mesh
  }
  CellField<Space> scalar(mesh, "D");
  scalar.fromHost(D);
  CellTensorField<Space> isotropic(mesh, "Gamma");
  isotropic.fromHost(tensors);
  Equation<Space> withScalar(mesh), withTensors(mesh);
  withScalar.diffusion(scalar);
  withTensors.diffusion(isotropic);
  const auto expected = sideToSide(withScalar);
  EXPECT_LT(maxDifference(sideToSide(withTensors), expected), tolerance(1e-11));
  // The exact profile: slopes 100 : 1, phi(0.5) = 100 / 101.
  const double slope = 1 / (0.5 + 0.5 / 100);
  for (std::size_t c = 0; c < cells.size(); ++c) {
    const double x = cells[c][0];
    const double exact = x < 0.5 ? slope * x : slope * 0.5 + slope / 100 * (x - 0.5);
    EXPECT_NEAR(expected[c], exact, tolerance(1e-11)) << "cell " << c;
  }
}

TEST(AnisotropicDiffusion, TensorsThatAreNotPositiveDefiniteAreNamed) {
  const Mesh<Space> mesh(CartesianGrid::uniform2D(4, 2, 1, 1));
  CellTensorField<Space> cellTensors(mesh, "gamma");
  std::vector<Tensor3> tensors(8, Tensor3{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}});
  tensors[5] = {{{1, 2, 0}, {2, 1, 0}, {0, 0, 1}}};  // cell 5: (0.375, 0.75)
  cellTensors.fromHost(tensors);
  Equation<Space> equation(mesh);
  expectError([&] { equation.diffusion(cellTensors); },
              {"diffusion tensor at cell 5", "(0.375, 0.75, ", "[[1, 2], [2, 1]]",
               "2x2 leading minor is -3"});
  // Checked again when the values change after the equation took them.
  tensors[5] = Tensor3{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  cellTensors.fromHost(tensors);
  equation.diffusion(cellTensors);
  tensors[2] = {{{-1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  cellTensors.fromHost(tensors);
  CellField<Space> phi(mesh, "phi");
  expectError([&] { equation.updateNonlinear(phi); },
              {"diffusion tensor at cell 2", "1x1 leading minor is -1"});
  FaceTensorField<Space> faceTensors(mesh, "gamma");
  expectError([&] { equation.diffusion(faceTensors); },  // all zero
              {"diffusion tensor at face 0", "1x1 leading minor is 0"});
  expectError(
      [&] {
        cellTensors.fill({{{1, 0.5, 0}, {0.4, 1, 0}, {0, 0, 1}}});
      },
      {"tensor field 'gamma' is not symmetric", "[0][1] = 0.5"});
  const Mesh<Space> other(CartesianGrid::uniform2D(4, 2, 1, 1));
  expectError([&] { Equation<Space>(other).diffusion(cellTensors); },
              {"diffusion tensor field 'gamma' belongs to mesh"});
}

}  // namespace
}  // namespace kfvm::Test
