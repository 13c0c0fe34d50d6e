// kfvm: the command-line tool. `kfvm info` prints the build and the machine;
// `kfvm convection`, `kfvm allen-cahn` and `kfvm cahn-hilliard` run FiPy's classic
// problems; `kfvm run DECK` runs one described in a TOML deck, `kfvm check DECK`
// validates a deck.
//
// CLI11 parses first, so `--help` and usage errors never start Kokkos; Kokkos' own
// arguments (--kokkos-num-threads=4, --kokkos-device-id=1, ...) pass through to
// Kokkos::initialize, which runs only when a subcommand runs.
#include "kfvm_CommandContext.hpp"
#include "kfvm_InfoCommand.hpp"
#include "kfvm_MeshCommand.hpp"
#include "kfvm_ProblemCommands.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <vector>

#ifdef KFVM_COMMAND_WITH_MPI
#include <mpi.h>

namespace {

/// MPI for the lifetime of main when mpirun (Open MPI, or a PMI launcher) started this
/// process; a plain `kfvm` does not start MPI.
struct MpiSession {
  bool started = false;
  MpiSession(int& argc, char**& argv) {
    if (!std::getenv("OMPI_COMM_WORLD_SIZE") && !std::getenv("PMI_SIZE") &&
        !std::getenv("PMIX_RANK"))
      return;
    started = MPI_Init(&argc, &argv) == MPI_SUCCESS;
  }
  ~MpiSession() {
    if (started) MPI_Finalize();
  }
};

}  // namespace
#endif

int main(int argc, char* argv[]) {
#ifdef KFVM_COMMAND_WITH_MPI
  const MpiSession mpi(argc, argv);
#endif
  std::vector<char*> ownArguments;
  for (int i = 0; i < argc; ++i)
    if (i == 0 || std::strncmp(argv[i], "--kokkos-", 9) != 0)
      ownArguments.push_back(argv[i]);

  CLI::App app{"kfvm: finite-volume PDE solver on Kokkos"};
  app.require_subcommand(1);
  app.failure_message([](const CLI::App*, const CLI::Error& error) {
    return std::string("kfvm error: ") + error.what() +
           "\nRun with --help for more information.\n";
  });
  kfvm::app::CommandContext context{argc, argv};
  kfvm::app::addInfoCommand(app, context);
  kfvm::app::addMeshCommand(app, context);
  kfvm::app::addConvectionCommand(app, context);
  kfvm::app::addAllenCahnCommand(app, context);
  kfvm::app::addCahnHilliardCommand(app, context);
#ifdef KFVM_HAVE_DECKS
  kfvm::app::addDeckCommands(app, context);
#endif
  try {
    app.parse(int(ownArguments.size()), ownArguments.data());
  } catch (const CLI::ParseError& error) {
    const int status = app.exit(error);  // prints --help, or the usage error
    return status == 0 ? kfvm::app::exitOk : kfvm::app::exitUsage;
  } catch (const std::exception& error) {
    kfvm::app::printError(error);
    return kfvm::app::exitError;
  }
  return context.exitCode;
}
