// kfvm: the command-line tool. `kfvm info` prints the build and the machine;
// `kfvm convection`, `kfvm allen-cahn` and `kfvm cahn-hilliard` run FiPy's classic
// problems; `kfvm run DECK` runs one described in a TOML deck, `kfvm check DECK`
// validates a deck.
//
// CLI11 parses first, so `--help` and usage errors never start Kokkos; Kokkos' own
// arguments (--kokkos-num-threads=4, --kokkos-device-id=1, ...) pass through to
// Kokkos::initialize, which runs only when a subcommand runs.
#include "kfvm_InfoCommand.hpp"
#include "kfvm_ProblemCommands.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstring>
#include <exception>
#include <vector>

int main(int argc, char* argv[]) {
  std::vector<char*> ownArguments;
  for (int i = 0; i < argc; ++i)
    if (i == 0 || std::strncmp(argv[i], "--kokkos-", 9) != 0)
      ownArguments.push_back(argv[i]);

  CLI::App app{"kfvm: finite-volume PDE solver on Kokkos"};
  app.require_subcommand(1);
  kfvm::app::CommandContext context{argc, argv};
  kfvm::app::addInfoCommand(app, context);
  kfvm::app::addConvectionCommand(app, context);
  kfvm::app::addAllenCahnCommand(app, context);
  kfvm::app::addCahnHilliardCommand(app, context);
#ifdef KFVM_HAVE_DECKS
  kfvm::app::addDeckCommands(app, context);
#endif
  try {
    app.parse(int(ownArguments.size()), ownArguments.data());
  } catch (const CLI::ParseError& error) {
    return app.exit(error);
  } catch (const std::exception& error) {
    const char* text = error.what();
    const bool prefixed = std::strncmp(text, "kfvm: ", 6) == 0;  // kfvm::Error's are
    std::fprintf(stderr, "%s%s\n", prefixed ? "" : "kfvm: ", text);
    return 1;
  }
  return context.exitCode;
}
