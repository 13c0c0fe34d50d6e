#ifndef KFVM_APPS_MESH_COMMAND_HPP
#define KFVM_APPS_MESH_COMMAND_HPP

#include "kfvm_CommandContext.hpp"

#include <CLI/CLI.hpp>

namespace kfvm::app {

/// Adds `kfvm mesh FILE.msh` to the command line: reads a Gmsh mesh, builds it on the
/// default execution space and prints its size, its patches with their face counts, its
/// cell regions and its quality (MeshQuality); a mesh kfvm cannot read or build is an
/// error naming the file and the element, and a non-zero exit.
void addMeshCommand(CLI::App& app, CommandContext& context);

}  // namespace kfvm::app

#endif
