#include "kfvm_AssemblyProblems.hpp"

#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_KokkosCompat.hpp>

#include <algorithm>
#include <array>
#include <cmath>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

/// The 3 x 2 mesh of the gold test: dx = 1, dy = 2; cell c = i + 3 j.
/// D per cell {1, 3, 1, 2, 2, 2}; implicit source c = -0.5; source s = 1;
/// left Dirichlet 1, right Neumann 0.5, bottom Robin (a, b, g) = (1, 2, 3), top no flux.
struct GoldProblem {
  Mesh<Space> mesh{CartesianGrid::fromVertices({0, 1, 2, 3}, {0, 2, 4})};
  CellField<Space> D{mesh, "D"};
  Equation<Space> equation{mesh};

  GoldProblem() {
    D.fromHost({1, 3, 1, 2, 2, 2});
    equation.transient(1.0)
        .diffusion(D)
        .implicitSource(-0.5)
        .source(1.0)
        .boundary(Patch::Left, BoundaryCondition::dirichlet(1.0))
        .boundary(Patch::Right, BoundaryCondition::neumann(0.5))
        .boundary(Patch::Bottom, BoundaryCondition::robin(1.0, 2.0, 3.0));
  }
};

// Hand computation (see the comments per row). Interior x faces: area 2, distance 1;
// interior y faces: area 1, distance 2. Harmonic means on this uniform mesh are
// 2 D1 D2 / (D1 + D2): faces c0|c1, c1|c2 -> 1.5 (x 2/1 = 3), c3|c4, c4|c5 -> 2 (-> 4),
// c0|c3, c2|c5 -> 4/3 (x 1/2 = 2/3), c1|c4 -> 2.4 (-> 1.2).
// Left Dirichlet: D A / (d = 0.5) = 4 D on the diagonal and 4 D * 1 in the rhs.
// Right Neumann 0.5: D A * 0.5 = D in the rhs. Bottom Robin: D A / (a d + b) = D / 3 on
// the diagonal and D A g / 3 = D in the rhs. Implicit source: +0.5 * volume 2 = 1 on the
// diagonal; source: 1 * 2 = 2 in the rhs.
const double third = 1.0 / 3.0;
const std::vector<std::vector<double>> goldMatrix = {
    {3 + 2 * third + 4 + third + 1, -3, 0, -2 * third, 0, 0},  // = 9
    {-3, 3 + 3 + 1.2 + 1 + 1, -3, 0, -1.2, 0},                 // = 9.2
    {0, -3, 3 + 2 * third + third + 1, 0, 0, -2 * third},      // = 5
    {-2 * third, 0, 0, 2 * third + 4 + 8 + 1, -4, 0},          // = 41/3
    {0, -1.2, 0, -4, 4 + 4 + 1.2 + 1, -4},                     // = 10.2
    {0, 0, -2 * third, 0, -4, 4 + 2 * third + 1}};             // = 17/3
const std::vector<double> goldRhs = {4 + 1 + 2, 3 + 2, 1 + 1 + 2, 8 + 2, 2, 2 + 2};

TEST(Assembly, MatrixAndRhsOn3x2MeshWithMixedConditionsMatchHandValues) {
  EXPECT_NEAR(goldMatrix[0][0], 9.0, 1e-14);
  EXPECT_NEAR(goldMatrix[3][3], 41.0 / 3.0, 1e-14);
  GoldProblem problem;
  Assembler<Space> assembler(problem.equation);
  CellField<Space> old(problem.mesh, "old");
  Vector<Space> rhs("rhs", 6);
  assembler.assemble(0, 1, old, rhs);  // steady
  const auto dense = assembler.matrix().toDenseHost();
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 6; ++j) {
      EXPECT_NEAR(dense[i][j], goldMatrix[i][j], tolerance(1e-13))
          << "entry " << i << "," << j;
    }
  }
  EXPECT_LT(maxDifference(toHost(rhs), goldRhs), tolerance(1e-13));
  // The structure holds exactly the cell and its face neighbours, columns ascending.
  EXPECT_EQ(assembler.matrix().numEntries(), Offset(6 + 2 * 7));
}

TEST(Assembly, BackwardEulerAddsMassToDiagonalAndOldValuesToRhs) {
  GoldProblem problem;
  Assembler<Space> assembler(problem.equation);
  CellField<Space> old(problem.mesh, "old");
  old.fromHost({1, 2, 3, 4, 5, 6});
  Vector<Space> rhs("rhs", 6);
  assembler.assemble(0.5, 1, old, rhs);  // dt = 2: mass rho V / dt = 1
  const auto dense = assembler.matrix().toDenseHost();
  const auto values = toHost(rhs);
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 6; ++j) {
      EXPECT_NEAR(dense[i][j], goldMatrix[i][j] + (i == j ? 1.0 : 0.0), tolerance(1e-13));
    }
    EXPECT_NEAR(values[i], goldRhs[i] + (i + 1), tolerance(1e-13));
  }
}

TEST(Assembly, CrankNicolsonRhsUsesHalfTheOperatorOnOldValues) {
  GoldProblem problem;
  Assembler<Space> assembler(problem.equation);
  CellField<Space> old(problem.mesh, "old");
  const std::vector<double> oldValues = {1, -2, 3, 0.5, 5, -1};
  old.fromHost(oldValues);
  Vector<Space> rhs("rhs", 6);
  assembler.assemble(0.25, 0.5, old, rhs);  // mass rho V / dt = 0.5
  const auto dense = assembler.matrix().toDenseHost();
  const auto values = toHost(rhs);
  for (int i = 0; i < 6; ++i) {
    double Kold = 0;
    for (int j = 0; j < 6; ++j) {
      EXPECT_NEAR(dense[i][j], 0.5 * goldMatrix[i][j] + (i == j ? 0.5 : 0.0),
                  tolerance(1e-13));
      Kold += goldMatrix[i][j] * oldValues[j];
    }
    EXPECT_NEAR(values[i], 0.5 * oldValues[i] - 0.5 * Kold + goldRhs[i],
                tolerance(1e-12));
  }
}

TEST(Assembly, GenericFaceOperatorMatchesMatrixWithoutMass) {
  for (const bool convect : {false, true}) {
    MixedProblem3D problem(
        CartesianGrid::fromSpacing({0.1, 0.2, 0.15}, {0.4, 0.1}, {0.3, 0.1}), convect);
    Assembler<Space> assembler(problem.equation);
    CellField<Space> x(problem.mesh, "x");
    setLinearField(x, problem.mesh);
    const Ordinal n = problem.mesh.numCells();
    Vector<Space> rhs("rhs", n), fromMatrix("fromMatrix", n), fromFaces("fromFaces", n);
    assembler.assemble(0, 1, x, rhs);  // steady: the matrix is K itself
    multiply(assembler.matrix(), x.values(), fromMatrix);
    assembler.applySpatialOperator(x.values(), fromFaces);
    EXPECT_LT(maxDifference(toHost(fromMatrix), toHost(fromFaces)), tolerance(1e-13))
        << (convect ? "with convection" : "without convection");
  }
}

TEST(Assembly, ClosedDomainConservesIntegralOver100ImplicitSteps) {
  Mesh<Space> mesh(CartesianGrid::fromSpacing({0.1, 0.2, 0.15, 0.3, 0.25, 0.1},
                                              {0.2, 0.1, 0.3, 0.2}, {0.3, 0.2, 0.1}));
  CellField<Space> D(mesh, "D"), phi(mesh, "phi");
  setLayeredDiffusivity(D, mesh);
  setPositiveBumps(phi, mesh);
  Equation<Space> equation(mesh);
  equation.transient().diffusion(D);  // every patch zero-flux by default
  const double initial = integrate(phi, mesh);
  ImplicitStepper<Space> stepper(
      equation, makeLinearSolver<Space>(
                    "cg", {{"tolerance", "1e-14"}, {"max_iterations", "2000"}}));
  for (int step = 0; step < 100; ++step) {
    const auto report = stepper.step(phi, 0.01);
    ASSERT_TRUE(report.converged) << report.reason;
  }
  EXPECT_LT(std::abs(integrate(phi, mesh) - initial) / initial, tolerance(1e-12));
  // and the field has diffused: its spread shrank
  const auto values = toHost(phi.values());
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  EXPECT_LT(*high - *low, 1.0);
}

// FiPy's convection boundary (Equation::convectionThroughSlots) against hand values: 3
// cells of width 1 in a row, D = 1, upwind u = (1, 0, 0), phi = 1 on the left,
// dphi/dn = 0.5 on the right. Rows are outflows: cell 0 has diffusion 1 + 2 (the
// Dirichlet face at d = 1/2) and convection 1 out, the left face's inflow of the value
// 1 on the right-hand side (2 + 1 = 3); cell 1 takes 2 phi_0 in. Cell 2's right face
// is where the three forms differ: kfvm's convects phi_P + d q (rhs 0.5 - 0.25), FiPy's
// open face convects phi_P (upwind's alpha = 1: rhs 0.5), a closed face nothing.
TEST(Assembly, FipyConvectionBoundaryMatchesHandValues) {
  const Mesh<Space> mesh(CartesianGrid::fromVertices({0, 1, 2, 3}, {0, 1}));
  const Ordinal left = mesh.patchFirstSlot(Patch::Left);
  const Ordinal right = mesh.patchFirstSlot(Patch::Right);
  const auto assembled = [&](int form) {
    Equation<Space> equation(mesh);
    equation.diffusion(1.0)
        .convection(1.0, 0.0, 0.0, ConvectionScheme::Upwind)
        .boundary(Patch::Left, BoundaryCondition::dirichlet(1.0))
        .boundary(Patch::Right, BoundaryCondition::neumann(0.5));
    if (form == 1) equation.convectionThroughSlots({left, right});
    if (form == 2) equation.convectionThroughSlots({left});
    Assembler<Space> assembler(equation);
    CellField<Space> old(mesh, "old");
    Vector<Space> rhs("rhs", 3);
    assembler.assemble(0, 1, old, rhs);
    return std::make_pair(assembler.matrix().toDenseHost(), toHost(rhs));
  };
  const std::vector<std::vector<double>> open = {{4, -1, 0}, {-2, 3, -1}, {0, -2, 2}};
  const std::vector<std::vector<double>> closed = {{4, -1, 0}, {-2, 3, -1}, {0, -2, 1}};
  const std::vector<std::vector<double>> rhs = {{3, 0, 0.25}, {3, 0, 0.5}, {3, 0, 0.5}};
  for (int form = 0; form < 3; ++form) {
    const auto [matrix, b] = assembled(form);
    const auto& gold = form == 2 ? closed : open;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        EXPECT_NEAR(matrix[i][j], gold[i][j], tolerance(1e-14))
            << "form " << form << ", entry " << i << "," << j;
    EXPECT_LT(maxDifference(b, rhs[form]), tolerance(1e-14)) << "form " << form;
  }
  Equation<Space> bad(mesh);
  EXPECT_THROW(bad.convectionThroughSlots({mesh.numBoundaryFaces()}), Error);
}

// FiPy's ExplicitDiffusionTerm (Equation::explicitDiffusion): div(D_e grad x) at the
// iterate x on the right-hand side, nothing in the matrix. Cells of width 1, D_e = 2:
// k = 2 inside, 4 to the Dirichlet face (d = 1/2), the Neumann face gives D_e g = 1.
TEST(Assembly, ExplicitDiffusionMatchesHandValues) {
  const Mesh<Space> mesh(CartesianGrid::fromVertices({0, 1, 2, 3}, {0, 1}));
  const FaceField<Space> De(mesh, "De", 2.0);
  const auto rhsOf = [&](bool asField, ExplicitDiffusionBoundary boundary) {
    Equation<Space> equation(mesh);
    equation.boundary(Patch::Left, BoundaryCondition::dirichlet(1.0))
        .boundary(Patch::Right, BoundaryCondition::neumann(0.5));
    if (asField)
      equation.explicitDiffusion(De, boundary);
    else
      equation.explicitDiffusion(2.0, boundary);
    Assembler<Space> assembler(equation);
    CellField<Space> old(mesh, "old"), iterate(mesh, "iterate");
    iterate.fromHost({1.0, 2.0, 4.0});
    Vector<Space> rhs("rhs", 3);
    assembler.assemble(0, 1, old, iterate, rhs);
    const auto dense = assembler.matrix().toDenseHost();
    for (const auto& row : dense)
      for (double v : row) EXPECT_EQ(v, 0.0);
    return toHost(rhs);
  };
  const std::vector<double> conditions = {2 + 4 * (1 - 1), -2 + 4, -4 + 1};
  const std::vector<double> zeroFlux = {2, 2, -4};
  for (bool asField : {false, true}) {
    EXPECT_LT(maxDifference(rhsOf(asField, ExplicitDiffusionBoundary::EquationConditions),
                            conditions),
              tolerance(1e-14))
        << "field " << asField;
    EXPECT_LT(
        maxDifference(rhsOf(asField, ExplicitDiffusionBoundary::ZeroFlux), zeroFlux),
        tolerance(1e-14))
        << "field " << asField;
  }
  Equation<Space> bad(mesh);
  EXPECT_THROW(bad.explicitDiffusion(std::nan("")), Error);
}

// DiffusionSign::Either (FiPy's face coefficient of either sign): D = -1 gives minus
// the matrix and right-hand side of D = 1; kfvm's default refuses it, and a non-finite
// face value still throws at assembly.
TEST(Assembly, DiffusionOfEitherSignIsMinusThePositiveOne) {
  const Mesh<Space> mesh(CartesianGrid::fromVertices({0, 1, 2, 3}, {0, 1}));
  FaceField<Space> negative(mesh, "negative", -1.0), positive(mesh, "positive", 1.0);
  const auto assembled = [&](Equation<Space>& equation) {
    equation.boundary(Patch::Left, BoundaryCondition::dirichlet(1.0));
    Assembler<Space> assembler(equation);
    CellField<Space> old(mesh, "old");
    Vector<Space> rhs("rhs", 3);
    assembler.assemble(0, 1, old, rhs);
    return std::make_pair(assembler.matrix().toDenseHost(), toHost(rhs));
  };
  Equation<Space> plus(mesh), minusField(mesh), minusConstant(mesh);
  plus.diffusion(positive);
  minusField.diffusion(negative, DiffusionSign::Either);
  minusConstant.diffusion(-1.0, DiffusionSign::Either);
  const auto [A, b] = assembled(plus);
  for (auto* minus : {&minusField, &minusConstant}) {
    const auto [M, c] = assembled(*minus);
    for (int i = 0; i < 3; ++i) {
      EXPECT_NEAR(c[i], -b[i], tolerance(1e-14));
      for (int j = 0; j < 3; ++j) EXPECT_NEAR(M[i][j], -A[i][j], tolerance(1e-14));
    }
  }
  Equation<Space> refused(mesh);
  EXPECT_THROW(refused.diffusion(negative), Error);
  EXPECT_THROW(refused.diffusion(-1.0), Error);
  Equation<Space> later(mesh);
  later.diffusion(negative, DiffusionSign::Either);
  Assembler<Space> assembler(later);
  Kokkos::deep_copy(Kokkos::subview(negative.values(), 1), Real(std::nan("")));
  CellField<Space> old(mesh, "old");
  Vector<Space> rhs("rhs", 3);
  EXPECT_THROW(assembler.assemble(0, 1, old, rhs), Error);
}

// ImplicitSourceForm::DiagonalOnly (FiPy's ImplicitSourceTerm rule): c <= 0 in the
// matrix, c > 0 times the iterate on the right-hand side. Cells of volume 1.
TEST(Assembly, ImplicitSourceDiagonalOnlyMatchesHandValues) {
  const Mesh<Space> mesh(CartesianGrid::fromVertices({0, 1, 2, 3}, {0, 1}));
  CellField<Space> c(mesh, "c");
  c.fromHost({-1.0, 2.0, 0.0});
  const auto assembled = [&](ImplicitSourceForm form) {
    Equation<Space> equation(mesh);
    equation.implicitSource(c, form);
    Assembler<Space> assembler(equation);
    CellField<Space> old(mesh, "old"), iterate(mesh, "iterate");
    iterate.fromHost({1.0, 2.0, 4.0});
    Vector<Space> rhs("rhs", 3);
    assembler.assemble(0, 1, old, iterate, rhs);
    return std::make_pair(assembler.matrix().toDenseHost(), toHost(rhs));
  };
  const auto [fipyMatrix, fipyRhs] = assembled(ImplicitSourceForm::DiagonalOnly);
  const auto [kfvmMatrix, kfvmRhs] = assembled(ImplicitSourceForm::Matrix);
  const std::vector<double> fipyDiagonal = {1, 0, 0}, kfvmDiagonal = {1, -2, 0};
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(fipyMatrix[i][i], fipyDiagonal[i], tolerance(1e-14)) << i;
    EXPECT_NEAR(kfvmMatrix[i][i], kfvmDiagonal[i], tolerance(1e-14)) << i;
  }
  EXPECT_LT(maxDifference(fipyRhs, {0, 4, 0}), tolerance(1e-14));
  EXPECT_LT(maxDifference(kfvmRhs, {0, 0, 0}), tolerance(1e-14));
}

}  // namespace
}  // namespace kfvm::Test
