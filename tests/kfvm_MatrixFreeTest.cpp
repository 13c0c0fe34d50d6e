// The matrix-free stencil and fill against the assembled matrix: every loop, boxes,
// uniform weights, coefficient fields, and the structured fill of the diagonal and
// right-hand side; periodic grids.
#include "kfvm_AssemblyProblems.hpp"

#include <kfvm_StencilOperator.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

namespace kfvm::Test {
namespace {

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

// Periodic grids: along a periodic axis the first and last cells are neighbours through
// the line's face 0. Every loop's product equals the assembled matrix's, with face
// weights (a diffusivity field and convection, on stretched cells) and with uniform
// weights (one diffusion constant), periodic along one axis or several, with boundary
// conditions on the other axes. The 3D grids have 19 cells along z (a partial chunk of
// the column loop) and 16 (two whole chunks, the uniform path's wrap), and 2 cells
// along a periodic axis (each cell both neighbours of the other).
TEST(Assembly, MatrixFreeStencilMatchesCrsProductOnPeriodicGrids) {
  struct Case {
    CartesianGrid grid;
    std::array<bool, 3> periodic;
  };
  const std::vector<Case> cases = {
      {CartesianGrid::fromSpacing({0.1, 0.2, 0.15, 0.3, 0.05}), {true, false, false}},
      {CartesianGrid::uniform1D(2, 1.0), {true, false, false}},
      {CartesianGrid::fromSpacing({0.1, 0.2, 0.15, 0.3}, {0.4, 0.1, 0.2}),
       {true, true, false}},
      {CartesianGrid::uniform2D(6, 11, 1.2, 0.5), {false, true, false}},
      {CartesianGrid::uniform3D(5, 4, 19, 1.0, 0.8, 1.5), {true, true, true}},
      {CartesianGrid::uniform3D(4, 3, 16, 1.0, 0.8, 1.5), {false, false, true}},
      {CartesianGrid::uniform3D(6, 2, 16, 1.0, 0.8, 1.5), {true, true, false}},
      {CartesianGrid::fromSpacing({0.1, 0.2, 0.15}, {0.4, 0.1, 0.2, 0.3},
                                  {0.3, 0.1, 0.2, 0.25}),
       {false, true, true}}};
  for (const auto& c : cases)
    for (const bool uniform : {true, false}) {
      const Mesh<Space> mesh(c.grid, GridGeometry(Coordinates::Cartesian, c.periodic));
      const int dim = c.grid.dimension();
      bool evenlySpaced = true;
      for (int axis = 0; axis < dim; ++axis) {
        const auto& v = c.grid.vertices(axis);
        for (std::size_t i = 1; i + 1 < v.size(); ++i)
          evenlySpaced =
              evenlySpaced && std::abs((v[i + 1] - v[i]) - (v[1] - v[0])) < 1e-12;
      }
      CellField<Space> D(mesh, "D"), old(mesh, "old");
      setSmoothDiffusivity(D, mesh);
      setWavyField(old, mesh);
      Equation<Space> equation(mesh);
      equation.transient(2.0).implicitSource(-0.25).source(1.0);
      if (uniform) {
        equation.diffusion(1.7);
      } else {
        equation.diffusion(D).convection(7.0, dim >= 2 ? -4.0 : 0.0, dim >= 3 ? 3.0 : 0.0,
                                         ConvectionScheme::PowerLaw);
      }
      if (mesh.hasPatch(Patch::Left))
        equation.boundary(Patch::Left, BoundaryCondition::dirichlet(1.0));
      if (mesh.hasPatch(Patch::Bottom))
        equation.boundary(Patch::Bottom, BoundaryCondition::robin(2.0, 1.0, 0.5));
      if (mesh.hasPatch(Patch::Front))
        equation.boundary(Patch::Front, BoundaryCondition::neumann(-0.3));
      Assembler<Space> assembler(equation);
      const Ordinal n = mesh.numCells();
      Vector<Space> rhs("rhs", n), fromStencil("stencil", n);
      assembler.assemble(3, 0.5, old, rhs);
      const auto [a, scale] = hostProduct(assembler, old);
      const auto x = toHost(old.values());
      double expectedDot = 0, magnitude = 0;
      for (std::size_t cell = 0; cell < x.size(); ++cell) {
        expectedDot += x[cell] * a[cell];
        magnitude += std::abs(x[cell] * a[cell]);
      }
      for (const StencilLoop loop :
           {StencilLoop::Rows, StencilLoop::Columns, StencilLoop::Cells,
            StencilLoop::Teams, StencilLoop::StreamingRows, StencilLoop::Auto}) {
        const StencilOperator<Space> stencil(assembler, loop);
        const std::string where = Details::concatenate(
            "dimension ", dim, ", periodic ", c.periodic[0], c.periodic[1], c.periodic[2],
            uniform ? ", uniform" : ", face weights", ", loop ", int(loop));
        EXPECT_EQ(stencil.uniformWeights(), uniform && evenlySpaced) << where;
        Kokkos::deep_copy(fromStencil, Real(-12345));  // every entry must be written
        stencil.apply(old.values(), fromStencil);
        EXPECT_LT(maxDifference(a, toHost(fromStencil)), tolerance(1e-13) * scale)
            << where;
        Kokkos::deep_copy(fromStencil, Real(-12345));
        DeviceScalar<Space> dot("dot");
        Kokkos::deep_copy(dot, 1e300);
        stencil.applyAndDot(old.values(), fromStencil, dot);
        double fromDevice = 0;
        Kokkos::deep_copy(fromDevice, dot);
        EXPECT_LT(maxDifference(a, toHost(fromStencil)), tolerance(1e-13) * scale)
            << "applyAndDot, " << where;
        EXPECT_NEAR(fromDevice, expectedDot, tolerance(1e-13) * magnitude)
            << "applyAndDot, " << where;
      }
    }
}

}  // namespace
}  // namespace kfvm::Test
