// Implicit steps across 1, 2 and 4 ranks equal the single-process steps: 3D diffusion
// with a variable coefficient and mixed boundary conditions, with and without upwind
// convection, and Cahn-Hilliard 2D (fourth order, nonlinear: two ghost layers and
// sweeps). Every rank also solves the whole problem alone, for reference.
#include "../kfvm_TestSpace.hpp"
#include "kfvm_AgainstOneProcess.hpp"
#include "kfvm_DistributedProblem.hpp"
#include "kfvm_MpiTestHelpers.hpp"

#include <kfvm_AdaptiveStepper.hpp>
#include <kfvm_DistributedSystem.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_KokkosCompat.hpp>
#include <kfvm_SparseLU.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

/// scheme: upwind (linear), or a TVD scheme (sweeps, two ghost layers); matrixFree:
/// products by the stencil (interior and rim boxes) rather than the matrix; method and
/// preconditioner: the distributed solve's (empty: CG or BiCGStab with Jacobi);
/// timeScheme: the step's, the same stepper on one process and across the ranks.
void checkAgainstOneProcess(const Decomposition& decomposition, bool convect,
                            ConvectionScheme scheme = ConvectionScheme::Upwind,
                            bool matrixFree = false, const std::string& method = "",
                            const std::string& preconditioner = "jacobi",
                            TimeScheme timeScheme = TimeScheme::BackwardEuler) {
  const auto grid = CartesianGrid::uniform3D(12, 10, 8, 1.2, 1.0, 0.8);
  EquationCase c;
  c.name = (convect ? convectionSchemeName(scheme) + " convection-diffusion"
                    : std::string("diffusion")) +
           (matrixFree ? " (matrix-free)" : "") +
           (method.empty() ? std::string() : ", " + method + "+" + preconditioner) +
           (timeScheme == TimeScheme::CrankNicolson ? ", Crank-Nicolson" : "");
  c.terms = [convect, scheme](Equation<Space>& equation, const auto& isPhysical) {
    CellField<Space> D(equation.mesh(), "D");
    setFromCellCentres(D, equation.mesh(), ProblemCoefficient{});
    setUp(equation, D, convect, isPhysical, scheme);
  };
  c.start = [](CellField<Space>& phi, const Mesh<Space>& mesh) {
    setFromCellCentres(phi, mesh, ProblemStart{});
  };
  c.solver = convect ? "bicgstab" : "cg";  // convection is not symmetric: BiCGStab
  c.solverTolerance = 1e-12;
  c.maxSweeps = 40;
  c.steps = 1;
  c.dt = Real(0.01);
  c.scheme = timeScheme;
  if (!method.empty())
    c.distributedSolver = [method, preconditioner] {
      return makeLinearSolver<Space>(method, {{"tolerance", solverToleranceText(1e-12)},
                                              {"max_iterations", "5000"},
                                              {"preconditioner", preconditioner}});
    };
  c.matrixFree = matrixFree;
  c.garbageGhosts = true;  // a step exchanges them before it reads them
  c.tolerance = sizeof(Real) == sizeof(double) ? 1e-9 : 1e-4;
  c.relative = true;  // owned and ghost cells, to the solver tolerance
  checkAgainstOneProcess(Mesh<Space>(grid),
                         onBlocks(grid, decomposition, convect && isTvd(scheme) ? 2 : 1),
                         c);
}

TEST(Distributed, ImplicitDiffusionStepEqualsTheOneProcessStep) {
  checkAgainstOneProcess(Decomposition::balanced(3, {12, 10, 8}, worldSize()), false);
  checkAgainstOneProcess(
      Decomposition::withProcessGrid(3, {12, 10, 8}, worldSize(), {worldSize(), 1, 1}),
      false);
}

TEST(Distributed, ImplicitConvectionDiffusionStepEqualsTheOneProcessStep) {
  checkAgainstOneProcess(Decomposition::balanced(3, {12, 10, 8}, worldSize()), true);
}

// dphi/dt = div(M grad(phi^3 - phi - div(eps^2 grad phi))), zero flux, from random data
// (as CahnHilliard.BothForms2D...): the fourth-order rows reach two cells away and
// diagonal neighbours, and phi^3 needs sweeps.
TEST(Distributed, CahnHilliard2DStepsEqualTheOneProcessSteps) {
  const int nx = 20, ny = 16, steps = 4;
  const double length = 10, epsilon = 1, mobility = 1;
  const Real dt = 0.1;
  const auto grid = CartesianGrid::uniform2D(nx, ny, length, length * ny / nx);
  std::mt19937 random(2026);
  std::uniform_real_distribution<double> noise(-0.05, 0.05);
  std::vector<double> initial(std::size_t(nx * ny));
  for (auto& value : initial) value = noise(random);
  // In float the fourth-order systems stall near 1e-6 (see the CahnHilliard tests).
  const bool inDouble = sizeof(Real) == sizeof(double);
  const double linearTolerance = inDouble ? 1e-13 : 1e-5;
  const double sweepTolerance = inDouble ? 1e-11 : 1e-5;
  const auto setUp = [&](Equation<Space>& equation) {
    equation.transient().higherOrderDiffusion(mobility, epsilon * epsilon,
                                              Polynomial{0, -1, 0, 1});
  };

  Mesh<Space> mesh(grid);
  Equation<Space> whole(mesh);
  setUp(whole);
  ImplicitStepper<Space> stepper(
      whole,
      makeLinearSolver<Space>("bicgstab", {{"tolerance", inDouble ? "1e-13" : "1e-5"},
                                           {"max_iterations", "5000"}}));
  stepper.setSweeps(30, Real(sweepTolerance));
  CellField<Space> reference(mesh, "phi");
  reference.fromHost(initial);
  for (int step = 0; step < steps; ++step)
    ASSERT_TRUE(stepper.step(reference, dt).converged) << "one process, step " << step;
  const auto expected =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), reference.values());

  for (const auto& decomposition :
       {Decomposition::balanced(2, {nx, ny, 1}, worldSize()),
        Decomposition::withProcessGrid(2, {nx, ny, 1}, worldSize(),
                                       {worldSize(), 1, 1})}) {
    DistributedSystem<Space> system(grid, decomposition, MPI_COMM_WORLD,
                                    GpuAwareMpi::Auto, 2);
    Equation<Space> part(system.localMesh());
    setUp(part);
    system.setEquation(part);
    system.setSolver("bicgstab", linearTolerance, 5000);
    system.setSweeps(30, sweepTolerance);
    const auto ids = system.localGlobalIds();
    std::vector<double> local(ids.size());
    for (std::size_t c = 0; c < ids.size(); ++c) local[c] = initial[std::size_t(ids[c])];
    CellField<Space> phi(system.localMesh(), "phi");
    phi.fromHost(local);
    for (int step = 0; step < steps; ++step) {
      const auto report = system.step(phi, dt);
      ASSERT_TRUE(report.converged) << "step " << step << ": " << report.reason;
    }
    const auto values =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), phi.values());
    double worst = 0, scale = 0;
    for (std::size_t c = 0; c < ids.size(); ++c) {
      const double want = double(expected(std::size_t(ids[c])));
      worst = std::max(worst, std::abs(double(values(c)) - want));
      scale = std::max(scale, std::abs(want));
    }
    // Both ghost layers too: they come from the last exchange.
    EXPECT_LT(worst, (inDouble ? 1e-8 : 1e-3) * scale) << "rank " << worldRank();
  }
}

TEST(Distributed, MatrixFreeStepsEqualTheOneProcessSteps) {
  for (const bool convect : {false, true}) {
    checkAgainstOneProcess(Decomposition::balanced(3, {12, 10, 8}, worldSize()), convect,
                           ConvectionScheme::Upwind, true);
    checkAgainstOneProcess(
        Decomposition::withProcessGrid(3, {12, 10, 8}, worldSize(), {1, worldSize(), 1}),
        convect, ConvectionScheme::Upwind, true);
  }
  checkAgainstOneProcess(Decomposition::balanced(3, {12, 10, 8}, worldSize()), true,
                         ConvectionScheme::VanLeer, true);
}

// The solver stack on many ranks: every Krylov method with every preconditioner, on the
// owned rows of the matrix and (for the preconditioners that need no matrix) on the
// matrix-free stencil, equals the one-process step.
TEST(Distributed, EveryKrylovMethodWithEveryPreconditionerEqualsTheOneProcessStep) {
  const auto decomposition = Decomposition::balanced(3, {12, 10, 8}, worldSize());
  for (const std::string method : {"cg", "fcg", "bicgstab", "gmres", "fgmres"}) {
    for (const std::string preconditioner :
         {"none", "jacobi", "ilu0", "block-jacobi", "chebyshev", "mg"}) {
      SCOPED_TRACE(method + "+" + preconditioner);
      checkAgainstOneProcess(decomposition, false, ConvectionScheme::Upwind, false,
                             method, preconditioner);
      if (preconditioner == "jacobi" || preconditioner == "chebyshev" ||
          preconditioner == "mg")
        checkAgainstOneProcess(decomposition, false, ConvectionScheme::Upwind, true,
                               method, preconditioner);
    }
  }
  for (const std::string method : {"bicgstab", "gmres", "fgmres"}) {  // non-symmetric
    SCOPED_TRACE(method + "+ilu0, convection");
    checkAgainstOneProcess(decomposition, true, ConvectionScheme::Upwind, false, method,
                           "ilu0");
  }
}

TEST(Distributed, TvdConvectionDiffusionStepWithSweepsEqualsTheOneProcessStep) {
  for (const auto scheme : {ConvectionScheme::VanLeer, ConvectionScheme::Superbee})
    checkAgainstOneProcess(Decomposition::balanced(3, {12, 10, 8}, worldSize()), true,
                           scheme);
}

// One stepper on one process and across ranks: Crank-Nicolson (its explicit half reads
// the old values' ghosts), with the matrix and matrix-free, linear and with TVD sweeps.
TEST(Distributed, CrankNicolsonStepsEqualTheOneProcessSteps) {
  const auto decomposition = Decomposition::balanced(3, {12, 10, 8}, worldSize());
  for (const bool matrixFree : {false, true}) {
    SCOPED_TRACE(matrixFree ? "matrix-free" : "matrix");
    checkAgainstOneProcess(decomposition, false, ConvectionScheme::Upwind, matrixFree, "",
                           "jacobi", TimeScheme::CrankNicolson);
    checkAgainstOneProcess(decomposition, true, ConvectionScheme::Upwind, matrixFree, "",
                           "jacobi", TimeScheme::CrankNicolson);
  }
  checkAgainstOneProcess(decomposition, true, ConvectionScheme::VanLeer, false, "",
                         "jacobi", TimeScheme::CrankNicolson);
}

// Adaptive steps across ranks: the same controller over the distributed stepper, its
// errors the maxima over the ranks, takes the steps and rejections of one process and
// ends with its values.
TEST(Distributed, AdaptiveStepsEqualTheOneProcessSteps) {
  const auto grid = CartesianGrid::uniform3D(12, 10, 8, 1.2, 1.0, 0.8);
  const auto decomposition = Decomposition::balanced(3, {12, 10, 8}, worldSize());
  AdaptiveOptions options;
  options.tolerance = 2e-3;
  options.maxGrowth = 4;
  const double end = 0.05, first = 0.02;  // the first try is too large: rejected
  Mesh<Space> mesh(grid);
  CellField<Space> D(mesh, "D"), reference(mesh, "phi");
  fillFields(mesh, D, reference);
  Equation<Space> whole(mesh);
  setUp(
      whole, D, false, [](Patch) { return true; }, ConvectionScheme::Upwind);
  ImplicitStepper<Space> stepper(
      whole, makeLinearSolver<Space>("cg", {{"tolerance", solverToleranceText(1e-12)}}));
  AdaptiveStepper<Space> alone(stepper, TimeScheme::CrankNicolson, options);
  const AdaptiveRunReport expected = alone.advance(reference, 0, end, first);
  ASSERT_TRUE(expected.completed) << expected.reason;
  ASSERT_GT(expected.rejected, 0);
  const auto want =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), reference.values());

  DistributedSystem<Space> system(grid, decomposition, MPI_COMM_WORLD);
  const auto& local = system.localMesh();
  CellField<Space> localD(local, "D"), phi(local, "phi");
  fillFields(local, localD, phi);
  Equation<Space> part(local);
  setUp(
      part, localD, false, [&](Patch p) { return system.isPhysical(p); },
      ConvectionScheme::Upwind);
  system.setEquation(part);
  system.setSolver("cg", solverTolerance(1e-12), 5000);
  AdaptiveStepper<Space> distributed(
      local,
      [&](std::vector<CellField<Space>>& fields, Real dt) {
        return system.step(fields[0], dt, TimeScheme::CrankNicolson);
      },
      2, options);
  distributed.setMaxOverProcesses(system.maxOverRanks());
  const AdaptiveRunReport report = distributed.advance(phi, 0, end, first);
  ASSERT_TRUE(report.completed) << report.reason;
  EXPECT_EQ(report.steps, expected.steps);
  EXPECT_EQ(report.rejected, expected.rejected);
  EXPECT_NEAR(report.smallestDt, expected.smallestDt,
              tolerance(1e-9) * expected.smallestDt);
  const auto values =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), phi.values());
  const auto ids = system.localGlobalIds();
  double worst = 0, scale = 0;
  for (std::size_t c = 0; c < ids.size(); ++c) {
    const double w = double(want(std::size_t(ids[c])));
    worst = std::max(worst, std::abs(double(values(c)) - w));
    scale = std::max(scale, std::abs(w));
  }
  EXPECT_LT(worst, (sizeof(Real) == sizeof(double) ? 1e-9 : 1e-4) * scale)
      << "rank " << worldRank();
}

TEST(Distributed, ConditionsOnInnerSidesAndUnsupportedTermsAreErrors) {
  const auto grid = CartesianGrid::uniform3D(12, 10, 8, 1.2, 1.0, 0.8);
  const auto decomposition =
      Decomposition::withProcessGrid(3, {12, 10, 8}, worldSize(), {worldSize(), 1, 1});
  DistributedSystem<Space> system(grid, decomposition, MPI_COMM_WORLD);
  Equation<Space> convecting(system.localMesh());
  convecting.transient(1.0).diffusion(1.0).convection(1.0, 0, 0,
                                                      ConvectionScheme::VanLeer);
  EXPECT_THROW(system.setEquation(convecting), Error);  // TVD: two ghost layers
  Equation<Space> fourthOrder(system.localMesh());
  fourthOrder.transient().higherOrderDiffusion(1.0, 1.0, Polynomial{0, -1, 0, 1});
  try {
    system.setEquation(fourthOrder);
    ADD_FAILURE() << "expected kfvm::Error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("2 ghost layers, not 1"), std::string::npos)
        << error.what();
  }
  EXPECT_THROW(system.setMatrixFree(true), Error);  // no equation yet
  EXPECT_THROW(system.stepper(), Error);            // idem
  EXPECT_THROW(system.setSweeps(0, 1e-8), Error);
  EXPECT_THROW(system.setSweeps(10, -1), Error);
  if (worldSize() > 1) {
    const int rank = worldRank();
    Equation<Space> inner(system.localMesh());
    // Rank 0's right side and every other rank's left side face another rank.
    const Patch patch = rank == 0 ? Patch::Right : Patch::Left;
    EXPECT_FALSE(system.isPhysical(patch));
    inner.transient(1.0).diffusion(1.0).boundary(patch, BoundaryCondition::dirichlet(0));
    try {
      system.setEquation(inner);
      ADD_FAILURE() << "expected kfvm::Error";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find("faces another rank"), std::string::npos);
    }
  }
  CellField<Space> phi(system.localMesh(), "phi");
  EXPECT_THROW(system.step(phi, 0.1), Error);                  // no equation yet
  EXPECT_THROW(system.setSolver("minres", 1e-8, 100), Error);  // not a Krylov method
  EXPECT_THROW(system.setSolver("cg", 0, 100), Error);
}

// The direct solver factors on one process: across ranks it is refused when the stepper
// hands it the distributed operator, naming the solvers that work there.
TEST(Distributed, TheDirectSolverIsRefusedNamingTheAlternatives) {
  const auto grid = CartesianGrid::uniform3D(12, 10, 8, 1.2, 1.0, 0.8);
  const auto decomposition = Decomposition::balanced(3, {12, 10, 8}, worldSize());
  DistributedSystem<Space> system(grid, decomposition, MPI_COMM_WORLD);
  Equation<Space> equation(system.localMesh());
  equation.transient(1.0).diffusion(1.0);
  system.setEquation(equation);
  CellField<Space> phi(system.localMesh(), "phi");
  const bool haveLU = !Details::sparseLUPackages().empty();
  expectRefused(
      [&] {
        system.setSolver("lu", 1e-8, 10);
        system.step(phi, 0.1);
      },
      haveLU ? std::vector<std::string>{"direct solve on one process", "gmres", "mg"}
             : std::vector<std::string>{"libsuitesparse-dev"});
}

}  // namespace
}  // namespace kfvm::Test
