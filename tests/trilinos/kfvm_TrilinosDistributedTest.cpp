// The Trilinos path across MPI ranks: DistributedSystem's owned rows go to Tpetra with
// the native path's ownership (row map: owned cells' global ids; column map: the local
// cells', ghosts included). Runs at 1, 2 and 4 ranks (ctest Trilinos.mpi2 and .mpi4).
#include "../kfvm_TestHelpers.hpp"
#include "../mpi/kfvm_DistributedProblem.hpp"

#include <kfvm_Assembler.hpp>
#include <kfvm_DistributedSystem.hpp>
#include <kfvm_ImplicitStepper.hpp>
#include <kfvm_KokkosCompat.hpp>
#include <kfvm_TrilinosSolver.hpp>

#include <mpi.h>

#include <array>
#include <cmath>
#include <cstdlib>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

/// The size of MPI_COMM_WORLD. This test program leaves MPI to the Trilinos adapter,
/// which starts it on first use; these tests may come first.
int worldSize() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    MPI_Init(nullptr, nullptr);
    std::atexit([] { MPI_Finalize(); });
  }
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

const std::array<int, 3> cells = {12, 10, 8};

CartesianGrid globalGrid() {
  return CartesianGrid::uniform3D(12, 10, 8, 1.2, 1.0, 0.8);
}

struct Distributed {
  Decomposition decomposition;
  DistributedSystem<Space> system;
  CellField<Space> D, phi;
  Equation<Space> equation;

  Distributed(const Decomposition& split, bool convect)
      : decomposition(split),
        system(globalGrid(), split, MPI_COMM_WORLD),
        D(system.localMesh(), "D"),
        phi(system.localMesh(), "phi"),
        equation(system.localMesh()) {
    fillFields(system.localMesh(), D, phi);
    setUp(equation, D, convect, [&](Patch p) { return system.isPhysical(p); });
    system.setEquation(equation);
  }
};

TEST(TrilinosMpi, OwnedRowsWithGlobalColumnIdsAreTheRowsOfTheGlobalMatrix) {
  const Real dt = 0.01;
  // The global matrix, assembled on this process alone.
  Mesh<Space> mesh(globalGrid());
  CellField<Space> D(mesh, "D"), phi(mesh, "phi");
  fillFields(mesh, D, phi);
  Equation<Space> whole(mesh);
  setUp(whole, D, true, [](Patch) { return true; });
  Assembler<Space> assembler(whole);
  Vector<Space> rhs("kfvm::Test::rhs", mesh.numCells());
  assembler.assemble(1 / dt, 1, phi, rhs);
  const auto global = assembler.matrix().toDenseHost();

  Distributed part(Decomposition::balanced(3, cells, worldSize()), true);
  part.system.setSolver("bicgstab", 1e-12, 1000);
  ASSERT_TRUE(part.system.step(part.phi, dt).converged);  // assembles at phi0
  const auto& owned = part.system.ownedRows();
  const auto rowIds = part.system.ownedGlobalIds();
  const auto columnIds = part.system.columnGlobalIds();
  ASSERT_EQ(std::size_t(owned.numRows()), rowIds.size());
  ASSERT_EQ(std::size_t(owned.numColumns()), columnIds.size());
  const auto offsets = toHost(owned.rowOffsets());
  const auto columns =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), owned.columns());
  const auto values = toHost(owned.values());
  for (std::size_t r = 0; r < rowIds.size(); ++r) {
    const auto& row = global[std::size_t(rowIds[r])];
    int nonzeros = 0, globalNonzeros = 0;
    for (std::size_t e = std::size_t(offsets[r]); e < std::size_t(offsets[r + 1]); ++e) {
      const auto g = std::size_t(columnIds[std::size_t(columns(e))]);
      ASSERT_EQ(values[e], row[g]) << "row " << rowIds[r] << ", column " << g;
      nonzeros += values[e] != 0;
    }
    for (double entry : row) globalNonzeros += entry != 0;
    // No entry of the global row is missing.
    ASSERT_EQ(nonzeros, globalNonzeros) << "row " << rowIds[r];
  }
  // Every global row is owned by exactly one rank.
  long long count = (long long)rowIds.size(), total = 0;
  MPI_Allreduce(&count, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(total, 12LL * 10 * 8);
}

/// One step with solver (a Trilinos name) on the owned rows equals the one-process
/// native step in every owned and ghost cell.
void checkTrilinosStep(const Decomposition& split, bool convect,
                       const std::string& solver, Parameters parameters) {
  const Real dt = 0.01;
  Mesh<Space> mesh(globalGrid());
  CellField<Space> D(mesh, "D"), reference(mesh, "phi");
  fillFields(mesh, D, reference);
  Equation<Space> whole(mesh);
  setUp(whole, D, convect, [](Patch) { return true; });
  ImplicitStepper<Space> stepper(
      whole,
      makeLinearSolver<Space>(convect ? "bicgstab" : "cg", {{"tolerance", "1e-12"}}));
  ASSERT_TRUE(stepper.step(reference, dt).converged);
  const auto expected = toHost(reference.values());

  Distributed part(split, convect);
  parameters.set("tolerance", "1e-12").set("max_iterations", 500);
  part.system.setSolver(makeTrilinosSolver<Space>(solver, parameters, MPI_COMM_WORLD,
                                                  part.system.ownedGlobalIds(),
                                                  part.system.columnGlobalIds()));
  const auto report = part.system.step(part.phi, dt);
  ASSERT_TRUE(report.converged) << solver << ": " << report.reason << " ("
                                << parameters.getString("preconditioner", "") << ")";
  EXPECT_GT(report.iterations, 0);
  // The same report on every rank: Belos' reductions span them all.
  int iterations[2] = {report.iterations, -report.iterations};
  MPI_Allreduce(MPI_IN_PLACE, iterations, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(iterations[0], -iterations[1]);
  const auto values = toHost(part.phi.values());
  const auto ids = part.system.localGlobalIds();
  double worst = 0, scale = 0;
  for (std::size_t c = 0; c < ids.size(); ++c) {
    const double want = expected[std::size_t(ids[c])];
    worst = std::max(worst, std::abs(values[c] - want));
    scale = std::max(scale, std::abs(want));
  }
  EXPECT_LT(worst, 1e-9 * scale) << solver << ", " << worldSize() << " ranks";
}

TEST(TrilinosMpi, BelosWithMueLuOrIfpack2OnOwnedRowsEqualsTheOneProcessStep) {
  const auto balanced = Decomposition::balanced(3, cells, worldSize());
  checkTrilinosStep(balanced, false, "belos:cg", {{"preconditioner", "muelu"}});
  checkTrilinosStep(
      Decomposition::withProcessGrid(3, cells, worldSize(), {1, 1, worldSize()}), false,
      "belos:cg", {{"preconditioner", "ifpack2:relaxation"}});
  checkTrilinosStep(balanced, true, "belos:gmres", {{"preconditioner", "ifpack2:ilut"}});
  checkTrilinosStep(balanced, true, "belos:bicgstab", {{"preconditioner", "muelu"}});
}

TEST(TrilinosMpi, GlobalIdsThatDoNotFitTheOwnedRowsAreAnError) {
  Distributed part(Decomposition::balanced(3, cells, worldSize()), false);
  auto rows = part.system.ownedGlobalIds();
  rows.pop_back();
  part.system.setSolver(makeTrilinosSolver<Space>("belos:cg", {}, MPI_COMM_WORLD, rows,
                                                  part.system.columnGlobalIds()));
  expectError([&] { part.system.step(part.phi, 0.01); },
              {"row ids", std::to_string(rows.size())});
}

}  // namespace
}  // namespace kfvm::Test
