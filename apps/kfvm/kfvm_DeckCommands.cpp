// `kfvm run DECK` and `kfvm check DECK`: the command line of a deck's run (kfvm::decks,
// decks/kfvm_DeckRun.hpp).
#include "kfvm_CommandContext.hpp"
#include "kfvm_Deck.hpp"
#include "kfvm_DeckRun.hpp"
#include "kfvm_ProblemCommands.hpp"

#include <kfvm_SchemeNames.hpp>

#include <memory>
#include <string>

namespace kfvm::app {

void addDeckCommands(CLI::App& app, CommandContext& context) {
  auto deckPath = std::make_shared<std::string>();
  auto options = std::make_shared<RunOptions>();
  auto* run = app.add_subcommand("run", "Run the problem a TOML deck describes");
  run->add_option("deck", *deckPath, "Deck file (see apps/decks/README.md)")->required();
  run->add_option("--output", options->output,
                  "Output folder (replaces [output] directory)");
  run->add_option("--restart", options->restart,
                  "Go on from a checkpoint ([output] checkpoint_every writes them)");
  run->add_option("--max-steps", options->maxSteps,
                  "Stop after this many steps (a short run; its [check] is not made)")
      ->check(CLI::Range(1LL, maxSteps));
  run->add_option(
         "--cells", options->cells,
         "Cells per direction, replacing the deck's (a small run of a large deck)")
      ->check(CLI::Range(1, 100000));
  auto* quiet = run->add_flag("-q,--quiet", options->quiet,
                              "Warnings, errors and the results only (no progress)");
  run->add_flag("-v,--verbose", options->verbose,
                "Debug messages too: a progress line every step, sweep residuals, the "
                "files and checkpoints written")
      ->excludes(quiet);
  run->callback([deckPath, options, &context] {
    Deck deck = readDeck(
        *deckPath, convectionSchemeNames());  // a bad deck fails before Kokkos starts
    if (options->cells > 0) setCellsPerDirection(deck, options->cells);
    context.runWithKokkos([&] { return runDeck(deck, *options); });
  });
  auto checkPath = std::make_shared<std::string>();
  auto* check = app.add_subcommand("check", "Validate a deck without running it");
  check->add_option("deck", *checkPath, "Deck file")->required();
  check->callback([checkPath, &context] {
    const Deck deck = readDeck(*checkPath, convectionSchemeNames());
    context.runWithKokkos([&] { return checkDeck(deck); });
  });
}

}  // namespace kfvm::app
