#ifndef KFVM_APPS_INFO_COMMAND_HPP
#define KFVM_APPS_INFO_COMMAND_HPP

#include "kfvm_CommandContext.hpp"

#include <CLI/CLI.hpp>

namespace kfvm::app {

/// Adds `kfvm info` to the command line; its callback runs it.
void addInfoCommand(CLI::App& app, CommandContext& context);

}  // namespace kfvm::app

#endif
