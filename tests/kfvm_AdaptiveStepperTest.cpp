// Adaptive time stepping (AdaptiveStepper): each accepted step meets its local error
// tolerance against the exact solution, a step that is too large is rejected and
// retried smaller, the controller keeps to its limits, a coupled system is stepped per
// variable's tolerance, a solve that does not converge is a rejection (and, at dt_min,
// a failure with the fields left at the step's start), and bad settings are errors.
#include "kfvm_TestHelpers.hpp"

#include <kfvm_AdaptiveStepper.hpp>
#include <kfvm_LinearSolver.hpp>

#include <cmath>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

/// d(phi)/dt = D lap(phi) - rate phi on a closed 1D domain: a uniform field stays
/// uniform, so phi(t) = phi(0) exp(-rate t) exactly, also for the discrete equation in
/// space. Only the time discretization errs. Its stepper solves to 1e-13.
Equation<Space> decayEquation(const Mesh<Space>& mesh, double rate) {
  Equation<Space> equation(mesh);
  equation.transient(1.0).diffusion(1.0).implicitSource(-rate);
  return equation;
}

struct Decay {
  Mesh<Space> mesh{CartesianGrid::uniform1D(5, 1.0)};
  double rate;
  Equation<Space> equation;
  ImplicitStepper<Space> stepper;
  explicit Decay(double rate_)
      : rate(rate_),
        equation(decayEquation(mesh, rate_)),
        stepper(equation, makeLinearSolver<Space>(
                              "cg", {{"tolerance", solverToleranceText(1e-13)}})) {}
};

double valueOf(const CellField<Space>& phi) {
  return phi.toHost()[2];
}

TEST(AdaptiveStepping, EachAcceptedStepMeetsItsToleranceAndATooLargeOneIsRetried) {
  for (const auto scheme : {TimeScheme::BackwardEuler, TimeScheme::CrankNicolson}) {
    Decay decay(2.0);
    AdaptiveOptions options;
    options.tolerance = 1e-4;
    AdaptiveStepper<Space> adaptive(decay.stepper, scheme, options);
    const char* name = scheme == TimeScheme::BackwardEuler ? "backward Euler" : "CN";
    CellField<Space> phi(decay.mesh, "phi", 1.0);
    double time = 0, dt = 0.5, largestError = 0;
    int steps = 0;
    while (time < 1) {
      const double start = valueOf(phi);
      const auto report = adaptive.step(phi, std::min(dt, 1 - time));
      ASSERT_TRUE(report.accepted) << name << ": " << report.reason;
      if (steps == 0) {  // dt = 0.5 errs by 0.13 (BE) or 0.01 (CN): far too much
        EXPECT_GE(report.rejected, 1) << name;
        EXPECT_LT(report.dt, 0.5) << name;
      }
      const double now = valueOf(phi);
      const double trueError = std::abs(now - start * std::exp(-decay.rate * report.dt));
      const double allowed = options.tolerance * std::abs(now);
      // The step-doubling estimate is exact to leading order in dt.
      EXPECT_LE(trueError, 1.3 * allowed)
          << name << ", step " << steps << " of dt " << report.dt;
      EXPECT_LE(report.error, 1.0) << name;
      largestError = std::max(largestError, report.error);
      time += report.dt;
      dt = report.dtNext;
      ++steps;
      ASSERT_LT(steps, 2000) << name;
    }
    // The controller steers towards the tolerance, not far below it.
    EXPECT_GT(largestError, 0.2) << name;
    EXPECT_LT(steps, scheme == TimeScheme::BackwardEuler ? 400 : 60) << name;
  }
}

TEST(AdaptiveStepping, AdvanceLandsOnTheEndWithinTheGrowthAndStepLimits) {
  Decay decay(0.5);
  AdaptiveOptions options;
  options.tolerance = 1e-3;
  options.maxGrowth = 1.5;
  options.dtMax = 0.4;
  AdaptiveStepper<Space> adaptive(decay.stepper, TimeScheme::CrankNicolson, options);
  CellField<Space> phi(decay.mesh, "phi", 3.0);
  // Step by step: dt never grows by more than 1.5 nor beyond dt_max.
  double time = 0, dt = 1e-3;
  for (int step = 0; step < 25; ++step) {
    const auto report = adaptive.step(phi, dt);
    ASSERT_TRUE(report.accepted) << report.reason;
    EXPECT_LE(report.dtNext, 1.5 * report.dt * (1 + 1e-12));
    EXPECT_GE(report.dtNext, options.minShrink * report.dt * (1 - 1e-12));
    EXPECT_LE(report.dtNext, options.dtMax);
    time += report.dt;
    dt = report.dtNext;
  }
  EXPECT_DOUBLE_EQ(dt, 0.4);  // from 1e-3 by at most 1.5 a step (15 steps), then capped
  // The rest of the run to t = 5, its last step shortened to land on the end.
  const auto run = adaptive.advance(phi, time, 5.0, dt);
  ASSERT_TRUE(run.completed) << run.reason;
  EXPECT_DOUBLE_EQ(run.time, 5.0);
  EXPECT_LE(run.largestDt, 0.4);
  EXPECT_GT(run.steps, int((5.0 - time) / 0.4) - 1);
  EXPECT_LE(run.largestError, 1.0);
  // Each step errs by at most about 1e-3 |phi|, and errors decay: the global error
  // stays within the sum of the allowed ones.
  const double exact = 3.0 * std::exp(-0.5 * 5.0);
  EXPECT_LT(std::abs(valueOf(phi) - exact), 1.3e-3 * 3.0 * (run.steps + 25));
  EXPECT_GT(valueOf(phi), 0);
}

TEST(AdaptiveStepping, CoupledSystemMeetsEachVariablesTolerance) {
  // u' = -2 u, v' = -0.5 v (uncoupled, scales 1 and 100), Neumann: uniform fields.
  Mesh<Space> mesh(CartesianGrid::uniform1D(4, 1.0));
  CoupledSystem<Space> system(mesh, 2);
  system.transient(0, 0).diffusion(0, 0, 1.0).implicitSource(0, 0, -2.0);
  system.transient(1, 1).diffusion(1, 1, 1.0).implicitSource(1, 1, -0.5);
  CoupledStepper<Space> stepper(
      system, makeLinearSolver<Space>("gmres", {{"tolerance", solverToleranceText(1e-13)},
                                                {"preconditioner", "none"}}));
  AdaptiveOptions options;
  options.tolerance = 1e-4;
  AdaptiveStepper<Space> adaptive(stepper, options);
  std::vector<CellField<Space>> fields{CellField<Space>(mesh, "u", 1.0),
                                       CellField<Space>(mesh, "v", 100.0)};
  double dt = 0.3;
  for (int step = 0; step < 10; ++step) {
    const double u = valueOf(fields[0]), v = valueOf(fields[1]);
    const auto report = adaptive.step(fields, dt);
    ASSERT_TRUE(report.accepted) << report.reason;
    const double uError = std::abs(valueOf(fields[0]) - u * std::exp(-2.0 * report.dt));
    const double vError = std::abs(valueOf(fields[1]) - v * std::exp(-0.5 * report.dt));
    // u decays faster: it sets the step; each meets its own tolerance.
    EXPECT_LE(uError, 1.3e-4 * std::abs(valueOf(fields[0]))) << "step " << step;
    EXPECT_LE(vError, 1.3e-4 * std::abs(valueOf(fields[1]))) << "step " << step;
    dt = report.dtNext;
  }
}

TEST(AdaptiveStepping, ASolveThatFailsIsRejectedAndAtDtMinTheStepFails) {
  // Diffusion on 40 cells: a large dt needs many CG iterations, a small one few.
  Mesh<Space> mesh(CartesianGrid::uniform1D(40, 1.0));
  Equation<Space> equation(mesh);
  equation.transient(1.0).diffusion(1.0);
  equation.boundary(Patch::Left, BoundaryCondition::dirichlet(1.0));
  ImplicitStepper<Space> stepper(
      equation, makeLinearSolver<Space>("cg", {{"tolerance", solverToleranceText(1e-10)},
                                               {"max_iterations", "6"}}));
  AdaptiveOptions options;
  options.tolerance = 1;  // only the solves can reject
  options.absoluteTolerance = 1;
  AdaptiveStepper<Space> adaptive(stepper, TimeScheme::BackwardEuler, options);
  CellField<Space> phi(mesh, "phi", 0.0);
  const auto report = adaptive.step(phi, 10.0);
  ASSERT_TRUE(report.accepted) << report.reason;
  EXPECT_GE(report.rejected, 1);
  EXPECT_LT(report.dt, 10.0);
  // With dt_min at the first try, the failed solve fails the step; phi is unchanged.
  options.dtMin = 10.0;
  AdaptiveStepper<Space> floored(stepper, TimeScheme::BackwardEuler, options);
  const auto before = phi.toHost();
  const auto failed = floored.step(phi, 10.0);
  EXPECT_FALSE(failed.accepted);
  EXPECT_NE(failed.reason.find("did not converge"), std::string::npos) << failed.reason;
  EXPECT_NE(failed.reason.find("dt_min"), std::string::npos) << failed.reason;
  EXPECT_EQ(phi.toHost(), before);
}

TEST(AdaptiveStepping, BadSettingsAreErrorsNamingThem) {
  Decay decay(1.0);
  auto& stepper = decay.stepper;
  const auto expectBad = [&](AdaptiveOptions options, const std::string& what) {
    expectError(
        [&] { AdaptiveStepper<Space>(stepper, TimeScheme::BackwardEuler, options); },
        {what});
  };
  AdaptiveOptions o;
  o.tolerance = -1;
  expectBad(o, "tolerance must be finite and >= 0, got -1");
  o = {};
  o.tolerance = 0;
  expectBad(o, "both 0");
  o = {};
  o.maxGrowth = 0.5;
  expectBad(o, "max_growth must be finite and >= 1, got 0.5");
  o = {};
  o.minShrink = 1;
  expectBad(o, "min_shrink must be in (0, 1), got 1");
  o = {};
  o.dtMin = 2;
  o.dtMax = 1;
  expectBad(o, "dt_max must be > 0 and >= dt_min = 2, got 1");
  o = {};
  o.integral = std::nan("");
  expectBad(o, "integral must be finite and >= 0, got nan");
  AdaptiveStepper<Space> adaptive(stepper, TimeScheme::BackwardEuler);
  CellField<Space> phi(decay.mesh, "phi");
  expectError([&] { adaptive.step(phi, 0.0); }, {"dt must be finite and > 0, got 0"});
  Mesh<Space> other(CartesianGrid::uniform1D(5, 1.0));
  CellField<Space> elsewhere(other, "elsewhere");
  expectError([&] { adaptive.step(elsewhere, 0.1); }, {"adaptive stepping field"});
  expectError([&] { adaptive.advance(phi, 1.0, 0.5, 0.1); }, {"end >= start"});
}

}  // namespace
}  // namespace kfvm::Test
