#include "kfvm_TestHelpers.hpp"

#include <kfvm_Assembler.hpp>
#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_KokkosCompat.hpp>
#include <kfvm_StencilOperator.hpp>

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

// Device lambdas live in free functions: CUDA does not allow them in constructors or in
// gtest's private TestBody().
void setSmoothDiffusivity(CellField<Space>& D, const Mesh<Space>& mesh) {
  setFromCellCentres(
      D, mesh, KOKKOS_LAMBDA(Real x, Real y, Real z) {
        return Real(1) + x * x + Real(0.5) * y + z;
      });
}

void setWavyField(CellField<Space>& phi, const Mesh<Space>& mesh) {
  setFromCellCentres(
      phi, mesh, KOKKOS_LAMBDA(Real x, Real y, Real z) {
        return Compat::sin(Real(7) * x + Real(3) * y) + z;
      });
}

void setLinearField(CellField<Space>& phi, const Mesh<Space>& mesh) {
  setFromCellCentres(
      phi, mesh,
      KOKKOS_LAMBDA(Real x, Real y, Real z) { return x - Real(2) * y * z + Real(1); });
}

void setPositiveBumps(CellField<Space>& phi, const Mesh<Space>& mesh) {
  setFromCellCentres(
      phi, mesh, KOKKOS_LAMBDA(Real x, Real y, Real z) {
        return Compat::sin(Real(9) * x) * Compat::sin(Real(5) * y + z) + Real(2);
      });
}

void setLayeredDiffusivity(CellField<Space>& D, const Mesh<Space>& mesh) {
  setFromCellCentres(
      D, mesh, KOKKOS_LAMBDA(Real x, Real y, Real z) { return Real(0.5) + x + y * z; });
}

/// A 3D non-uniform mesh with variable D and every kind of boundary condition.
struct MixedProblem3D {
  Mesh<Space> mesh;
  CellField<Space> D;
  Equation<Space> equation;

  /// With convect, also a power-law convection term: the operator is non-symmetric.
  explicit MixedProblem3D(const CartesianGrid& grid, bool convect = false)
      : mesh(grid), D(mesh, "D"), equation(mesh) {
    setSmoothDiffusivity(D, mesh);
    equation.transient(2.0).diffusion(D).implicitSource(-0.25).source(1.0);
    if (convect) {
      const int dim = grid.dimension();
      equation.convection(7.0, dim >= 2 ? -4.0 : 0.0, dim >= 3 ? 3.0 : 0.0,
                          ConvectionScheme::PowerLaw);
    }
    if (mesh.hasPatch(Patch::Left)) {
      equation.boundary(Patch::Left, BoundaryCondition::dirichlet(1.0));
    }
    if (mesh.hasPatch(Patch::Right)) {
      equation.boundary(Patch::Right, BoundaryCondition::robin(2.0, 1.0, 0.5));
    }
    if (mesh.hasPatch(Patch::Top)) {
      equation.boundary(Patch::Top, BoundaryCondition::neumann(-0.3));
    }
  }
};

/// A x on the host for the assembler's last assemble(), and its largest magnitude (the
/// scale of the matrix-free comparisons).
struct HostProduct {
  std::vector<double> values;
  double scale = 0;
};

HostProduct hostProduct(const Assembler<Space>& assembler, const CellField<Space>& x) {
  Vector<Space> product("product", x.values().extent(0));
  multiply(assembler.matrix(), x.values(), product);
  HostProduct result{toHost(product)};
  for (double v : result.values) result.scale = std::max(result.scale, std::abs(v));
  return result;
}

TEST(Assembly, MatrixFreeStencilMatchesCrsProductIn1D2D3D) {
  for (const bool convect : {false, true})
    for (const auto& grid :
         {CartesianGrid::fromSpacing({0.1, 0.2, 0.15, 0.3, 0.05}),
          CartesianGrid::fromSpacing({0.1, 0.2, 0.15, 0.3}, {0.4, 0.1, 0.2}),
          CartesianGrid::fromSpacing({0.1, 0.2, 0.15, 0.3}, {0.4, 0.1, 0.2},
                                     {0.3, 0.1, 0.2, 0.25})}) {
      MixedProblem3D problem(grid, convect);
      Assembler<Space> assembler(problem.equation);
      const StencilOperator<Space> stencils[] = {
          StencilOperator<Space>(assembler, StencilLoop::Rows),
          StencilOperator<Space>(assembler, StencilLoop::Columns),
          StencilOperator<Space>(assembler, StencilLoop::Cells),
          StencilOperator<Space>(assembler, StencilLoop::Teams),
          StencilOperator<Space>(assembler, StencilLoop::StreamingRows),
          StencilOperator<Space>(assembler)};
      CellField<Space> old(problem.mesh, "old");
      setWavyField(old, problem.mesh);
      const Ordinal n = problem.mesh.numCells();
      Vector<Space> rhs("rhs", n), fromStencil("fromStencil", n);
      for (const Real theta : {Real(1), Real(0.5)}) {
        assembler.assemble(10, theta, old, rhs);
        const auto [a, scale] = hostProduct(assembler, old);
        for (const auto& stencil : stencils) {
          Kokkos::deep_copy(fromStencil,
                            Real(-12345));  // poison: every entry must be written
          stencil.apply(old.values(), fromStencil);
          EXPECT_LT(maxDifference(a, toHost(fromStencil)), tolerance(1e-14) * scale)
              << "dimension " << grid.dimension() << (convect ? ", with convection" : "");
        }
      }
    }
}

// The matrix-free fill (no matrix) takes every row through (i, j, k) at theta = 1
// without the face lists: its diagonal and right-hand side equal the face-list fill's
// to rounding, steady and transient, with a transient coefficient
// field, with and without convection, on non-uniform grids in 1D, 2D and 3D; at
// theta = 1/2 both take the face lists.
TEST(Assembly, MatrixFreeFillEqualsTheFaceListFill) {
  for (const bool convect : {false, true})
    for (const auto& grid :
         {CartesianGrid::fromSpacing({0.1, 0.2, 0.15, 0.3, 0.05}),
          CartesianGrid::fromSpacing({0.1, 0.2, 0.15, 0.3}, {0.4, 0.1, 0.2, 0.3}),
          CartesianGrid::fromSpacing({0.1, 0.2, 0.15, 0.3, 0.2}, {0.4, 0.1, 0.2, 0.3},
                                     {0.3, 0.1, 0.2, 0.25, 0.1, 0.2})})
      for (const bool rhoField : {false, true}) {
        MixedProblem3D problem(grid, convect);
        CellField<Space> rho(problem.mesh, "rho"), old(problem.mesh, "old");
        setWavyField(old, problem.mesh);
        setSmoothDiffusivity(rho, problem.mesh);
        if (rhoField) problem.equation.transient(rho);
        Assembler<Space> withMatrix(problem.equation), matrixFree(problem.equation);
        matrixFree.setFillsMatrix(false);
        const Ordinal n = problem.mesh.numCells();
        Vector<Space> rhs("rhs", n), rhsMatrixFree("rhsMatrixFree", n);
        for (const Real theta : {Real(1), Real(0.5)})
          for (const Real invDt : {Real(10), Real(0)}) {
            withMatrix.assemble(invDt, theta, old, rhs);
            Kokkos::deep_copy(matrixFree.diagonal(), Real(-12345));  // all written
            Kokkos::deep_copy(rhsMatrixFree, Real(-12345));
            matrixFree.assemble(invDt, theta, old, rhsMatrixFree);
            const std::string where = Details::concatenate(
                "dimension ", grid.dimension(), ", theta ", theta, ", 1/dt ", invDt,
                convect ? ", convection" : "", rhoField ? ", rho" : "");
            // The same sums in the same order: equal but for the compiler's choice of
            // fused multiply-adds in each path (a few units in the last place).
            const auto diagonal = toHost(withMatrix.diagonal());
            const auto b = toHost(rhs);
            EXPECT_LT(maxDifference(diagonal, toHost(matrixFree.diagonal())),
                      tolerance(4e-15) * largestMagnitude(diagonal))
                << where;
            EXPECT_LT(maxDifference(b, toHost(rhsMatrixFree)),
                      tolerance(4e-15) * largestMagnitude(b))
                << where;
          }
      }
}

// applyBox: a block's interior, then its rim in up to 6 slabs (as DistributedSystem
// overlaps a halo exchange), gives apply()'s numbers; each box writes its cells only.
TEST(Assembly, MatrixFreeStencilOnBoxesCoversTheGridAndWritesOnlyTheBox) {
  const auto grid = CartesianGrid::fromSpacing(
      {0.1, 0.2, 0.15, 0.3, 0.2, 0.1}, {0.4, 0.1, 0.2, 0.3, 0.1}, {0.3, 0.1, 0.2, 0.25});
  MixedProblem3D problem(grid, true);
  Assembler<Space> assembler(problem.equation);
  CellField<Space> old(problem.mesh, "old");
  setWavyField(old, problem.mesh);
  const Ordinal n = problem.mesh.numCells();
  Vector<Space> rhs("rhs", n), fromBoxes("fromBoxes", n);
  assembler.assemble(10, 1, old, rhs);
  const auto [a, scale] = hostProduct(assembler, old);
  const std::array<int, 3> cells = {6, 5, 4};
  for (const auto loop : {StencilLoop::Rows, StencilLoop::StreamingRows,
                          StencilLoop::Cells, StencilLoop::Auto}) {
    const StencilOperator<Space> stencil(assembler, loop);
    // The interior 1 .. n-2 on every axis, then the rim peeled axis by axis.
    std::vector<std::pair<std::array<int, 3>, std::array<int, 3>>> boxes = {
        {{1, 1, 1}, {5, 4, 3}}};
    std::array<int, 3> lo = {0, 0, 0}, hi = cells;
    for (int axis = 0; axis < 3; ++axis) {
      std::array<int, 3> begin = lo, end = hi;
      end[axis] = 1;
      boxes.push_back({begin, end});
      begin[axis] = cells[axis] - 1;
      end[axis] = cells[axis];
      boxes.push_back({begin, end});
      lo[axis] = 1;
      hi[axis] = cells[axis] - 1;
    }
    Kokkos::deep_copy(fromBoxes, Real(-12345));  // poison: every entry must be written
    for (const auto& [begin, end] : boxes) {
      const auto before = toHost(fromBoxes);
      stencil.applyBox(old.values(), fromBoxes, begin, end);
      const auto after = toHost(fromBoxes);
      for (int k = 0; k < cells[2]; ++k)
        for (int j = 0; j < cells[1]; ++j)
          for (int i = 0; i < cells[0]; ++i) {
            const std::size_t c = std::size_t(i + cells[0] * (j + cells[1] * k));
            const bool inside = i >= begin[0] && i < end[0] && j >= begin[1] &&
                                j < end[1] && k >= begin[2] && k < end[2];
            if (!inside) ASSERT_EQ(after[c], before[c]) << "cell " << c << " outside";
          }
    }
    EXPECT_LT(maxDifference(a, toHost(fromBoxes)), tolerance(1e-14) * scale);
    expectError(
        [&] {
          stencil.applyBox(old.values(), fromBoxes, {0, 0, 0}, {7, 5, 4});
        },
        {"[0, 7) along axis 0", "0 .. 6 cells"});
    expectError(
        [&] {
          stencil.applyBox(old.values(), fromBoxes, {0, 3, 0}, {6, 2, 4});
        },
        {"[3, 2) along axis 1"});
  }
}

// Constant D on uniform grids: one weight per axis, the face arrays unread; the same
// numbers as the matrix. A D field, convection or an uneven grid keeps the face arrays.
// ny = 11 spans two tiles of the row loop, nz = 19 three chunks of the column loop (two
// whole, one partial), nz = 16 two whole chunks with ny = 1 (no y neighbours); nx = 45
// makes rows long enough for whole 64-byte lines of y (StreamingRows streams those),
// its six rows starting at six different offsets within a line. The
// matrix's face weight is D's harmonic mean times A / d, the uniform one D A / d: equal
// up to rounding, hence 1e-13 (a few float ulps) rather than 1e-14.
TEST(Assembly, MatrixFreeStencilWithUniformWeightsMatchesCrsProduct) {
  for (const bool convect : {false, true})
    for (const auto& grid :
         {CartesianGrid::uniform1D(7, 0.7), CartesianGrid::uniform2D(6, 11, 1.2, 0.5),
          CartesianGrid::uniform3D(5, 4, 19, 1.0, 0.8, 1.5),
          CartesianGrid::uniform3D(3, 1, 16, 0.6, 0.2, 1.1),
          CartesianGrid::uniform3D(45, 3, 2, 2.0, 0.4, 0.3)}) {
      Mesh<Space> mesh(grid);
      Equation<Space> equation(mesh);
      equation.transient(2.0).diffusion(1.7).implicitSource(-0.5).boundary(
          Patch::Left, BoundaryCondition::dirichlet(1.0));
      equation.boundary(Patch::Right, BoundaryCondition::robin(1.0, 2.0, 0.5));
      if (grid.dimension() >= 2)
        equation.boundary(Patch::Top, BoundaryCondition::neumann(0.3));
      if (convect)
        equation.convection(0.4, grid.dimension() >= 2 ? -0.3 : 0.0,
                            grid.dimension() >= 3 ? 0.2 : 0.0, ConvectionScheme::Upwind);
      Assembler<Space> assembler(equation);
      CellField<Space> old(mesh, "old");
      setWavyField(old, mesh);
      const Ordinal n = mesh.numCells();
      Vector<Space> rhs("rhs", n), fromStencil("stencil", n);
      assembler.assemble(3, 0.5, old, rhs);
      const auto [a, scale] = hostProduct(assembler, old);
      for (const StencilLoop loop :
           {StencilLoop::Rows, StencilLoop::Columns, StencilLoop::Cells,
            StencilLoop::Teams, StencilLoop::StreamingRows, StencilLoop::Auto}) {
        const StencilOperator<Space> stencil(assembler, loop);
        EXPECT_EQ(stencil.uniformWeights(), !convect);
        // One diagonal for the cells with all neighbours: at least 3 cells per axis.
        bool threePerAxis = true;
        for (int axis = 0; axis < grid.dimension(); ++axis)
          threePerAxis = threePerAxis && grid.cells(axis) >= 3;
        EXPECT_EQ(stencil.uniformInteriorDiagonal(), !convect && threePerAxis);
        Kokkos::deep_copy(fromStencil, Real(-12345));
        stencil.apply(old.values(), fromStencil);
        EXPECT_LT(maxDifference(a, toHost(fromStencil)), tolerance(1e-13) * scale)
            << "dimension " << grid.dimension() << ", loop " << int(loop)
            << (convect ? ", with convection" : "");
        // The product with its dot x . (A x) in one pass (CG's fused iteration).
        Kokkos::deep_copy(fromStencil, Real(-12345));
        DeviceScalar<Space> dot("dot");
        Kokkos::deep_copy(dot, 1e300);  // poison: the reduction must overwrite it
        stencil.applyAndDot(old.values(), fromStencil, dot);
        double fromDevice = 0, expected = 0, magnitude = 0;
        Kokkos::deep_copy(fromDevice, dot);
        const auto x = toHost(old.values());
        for (std::size_t c = 0; c < x.size(); ++c) {
          expected += x[c] * a[c];
          magnitude += std::abs(x[c] * a[c]);
        }
        EXPECT_LT(maxDifference(a, toHost(fromStencil)), tolerance(1e-13) * scale);
        EXPECT_NEAR(fromDevice, expected, tolerance(1e-13) * magnitude)
            << "applyAndDot, dimension " << grid.dimension() << ", loop " << int(loop);
      }
    }
  Mesh<Space> uneven(CartesianGrid::fromSpacing({0.1, 0.2, 0.1}));
  Equation<Space> onUneven(uneven);
  onUneven.diffusion(1.0);
  EXPECT_FALSE(StencilOperator<Space>(Assembler<Space>(onUneven)).uniformWeights());
  Mesh<Space> even(CartesianGrid::uniform1D(4, 1.0));
  CellField<Space> D(even, "D");
  D.fromHost({1, 2, 3, 4});
  Equation<Space> withField(even), withConvection(even);
  withField.diffusion(D);
  withConvection.diffusion(1.0).convection(1.0, 0, 0);
  EXPECT_FALSE(StencilOperator<Space>(Assembler<Space>(withField)).uniformWeights());
  EXPECT_FALSE(StencilOperator<Space>(Assembler<Space>(withConvection)).uniformWeights());
}

// Uniform weights with a transient or implicit source coefficient field: the interior
// diagonals differ from cell to cell, so each cell's own is read (a stencil that took
// one cell's for all would miss the matrix by far more than rounding).
TEST(Assembly, MatrixFreeStencilReadsEachDiagonalWhenCoefficientFieldsVary) {
  Mesh<Space> mesh(CartesianGrid::uniform3D(6, 5, 19, 1.0, 0.8, 1.5));
  CellField<Space> varying(mesh, "varying");
  setWavyField(varying, mesh);
  CellField<Space> positive(mesh, "positive"), old(mesh, "old");
  setWavyField(old, mesh);
  {
    auto values = toHost(varying.values());
    for (auto& v : values) v = 2 + std::abs(v);
    positive.fromHost(values);
  }
  for (const bool fieldIsTransient : {true, false}) {
    Equation<Space> equation(mesh);
    if (fieldIsTransient)
      equation.transient(positive).diffusion(1.7).implicitSource(-0.5);
    else
      equation.transient(2.0).diffusion(1.7).implicitSource(positive);
    equation.boundary(Patch::Left, BoundaryCondition::dirichlet(1.0));
    Assembler<Space> assembler(equation);
    const Ordinal n = mesh.numCells();
    Vector<Space> rhs("rhs", n), fromStencil("stencil", n);
    assembler.assemble(3, 0.5, old, rhs);
    const auto [a, scale] = hostProduct(assembler, old);
    for (const StencilLoop loop : {StencilLoop::Rows, StencilLoop::Columns,
                                   StencilLoop::Cells, StencilLoop::Auto}) {
      const StencilOperator<Space> stencil(assembler, loop);
      EXPECT_TRUE(stencil.uniformWeights());
      EXPECT_FALSE(stencil.uniformInteriorDiagonal());
      Kokkos::deep_copy(fromStencil, Real(-12345));
      stencil.apply(old.values(), fromStencil);
      EXPECT_LT(maxDifference(a, toHost(fromStencil)), tolerance(1e-13) * scale)
          << (fieldIsTransient ? "transient" : "source") << " field, loop " << int(loop);
    }
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
