#ifndef KFVM_APPS_PROBLEM_COMMANDS_HPP
#define KFVM_APPS_PROBLEM_COMMANDS_HPP

#include "kfvm_CommandContext.hpp"

#include <CLI/CLI.hpp>

namespace kfvm::app {

/// `kfvm convection`: steady convection-diffusion in 1D/2D/3D with a chosen scheme,
/// against the exact exponential boundary-layer profile.
void addConvectionCommand(CLI::App& app, CommandContext& context);

/// `kfvm allen-cahn`: a phase-field front (1D, against tanh) or a shrinking circle (2D,
/// against R^2 = R0^2 - 2 eps^2 t).
void addAllenCahnCommand(CLI::App& app, CommandContext& context);

/// `kfvm cahn-hilliard`: 2D Cahn-Hilliard from random data, coupled (phi, mu) or
/// higher-order form (kfvm_CahnHilliardCommand.cpp), reporting the
/// free energy (must never rise: exit 3 if it does) and the mass drift.
void addCahnHilliardCommand(CLI::App& app, CommandContext& context);

/// `kfvm run DECK` and `kfvm check DECK` (kfvm_RunCommand.cpp; built with toml++).
void addDeckCommands(CLI::App& app, CommandContext& context);

}  // namespace kfvm::app

#endif
