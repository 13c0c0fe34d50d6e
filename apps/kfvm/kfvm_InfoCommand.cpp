#include "kfvm_InfoCommand.hpp"

#include <kfvm_SystemInfo.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace kfvm::app {

namespace {

struct InfoOptions {
  bool backendsOnly = false;
  bool kokkosVerbose = false;
};

std::string joined(const std::vector<std::string>& words) {
  std::string text;
  for (const auto& word : words) text += (text.empty() ? "" : " ") + word;
  return text.empty() ? "(none)" : text;
}

const char* yesNo(bool value) {
  return value ? "yes" : "no";
}

double gibibytes(std::size_t bytes) {
  return double(bytes) / (1024.0 * 1024.0 * 1024.0);
}

int runInfo(const InfoOptions& options) {
  const SystemInfo info = systemInfo();
  if (options.backendsOnly) {
    // One name per line: the guard test compares this list with ctest's labels.
    for (const auto& space : info.kokkosExecutionSpaces)
      std::printf("%s\n", space.c_str());
    return 0;
  }
  std::printf("kfvm %s (real type %s)\n", info.kfvmVersion.c_str(),
              info.realType.c_str());
  std::printf("Kokkos %s\n", info.kokkosVersion.c_str());
  std::printf("  execution spaces:      %s\n",
              joined(info.kokkosExecutionSpaces).c_str());
  std::printf("  kfvm backends:         %s\n", joined(info.kfvmBackends).c_str());
  std::printf("  default space:         %s\n", info.defaultExecutionSpace.c_str());
  std::printf("  host concurrency:      %d\n", info.hostConcurrency);
  std::printf("Kokkos Kernels:          %s\n", yesNo(info.kokkosKernels));
  std::printf("Trilinos:                %s\n", yesNo(info.trilinos));
  std::printf("MPI:                     %s\n", yesNo(info.mpi));
  std::printf("Memory:\n");
  for (const auto& memory : info.memories)
    std::printf("  %-22s %s: %.1f GiB total, %.1f GiB free\n", memory.where.c_str(),
                memory.backend.c_str(), gibibytes(memory.totalBytes),
                gibibytes(memory.freeBytes));
  if (info.kfvmBackends != info.kokkosExecutionSpaces)
    std::printf(
        "note: kfvm does not support every execution space this Kokkos enables; the "
        "others are not built or tested\n");
  if (options.kokkosVerbose) std::printf("\n%s", kokkosConfigurationText().c_str());
  return 0;
}

}  // namespace

void addInfoCommand(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<InfoOptions>();
  auto* info = app.add_subcommand(
      "info", "Print kfvm's build: Kokkos, backends, devices and memory, Trilinos, MPI");
  info->add_flag("--backends", options->backendsOnly,
                 "Print only Kokkos' execution spaces, one per line");
  info->add_flag("--kokkos", options->kokkosVerbose,
                 "Append Kokkos' own verbose configuration report");
  info->callback(
      [options, &context] { context.runWithKokkos([&] { return runInfo(*options); }); });
}

}  // namespace kfvm::app
