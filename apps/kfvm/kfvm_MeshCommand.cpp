#include "kfvm_MeshCommand.hpp"

#include <kfvm_GmshMesh.hpp>
#include <kfvm_Mesh.hpp>
#include <kfvm_MeshQuality.hpp>

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace kfvm::app {

namespace {

int describeMesh(const std::string& path) {
  using Space = Kokkos::DefaultExecutionSpace;
  const MeshTopology topology = readGmshTopology(path);
  const Mesh<Space> mesh(topology);
  std::printf("Gmsh mesh '%s': %dD, %lld cells, %lld faces (%lld on the boundary), %s\n",
              path.c_str(), mesh.dimension(), (long long)mesh.numCells(),
              (long long)mesh.numFaces(), (long long)mesh.numBoundaryFaces(),
              Space::name());
  std::printf("patches:\n");
  for (int p = 0; p < mesh.patchCount(); ++p)
    std::printf("  %-24s %10lld faces\n", mesh.patchNames()[std::size_t(p)].c_str(),
                (long long)mesh.patchSize(p));
  if (!mesh.regionNames().empty()) {
    std::vector<long long> counts(mesh.regionNames().size(), 0);
    const auto regions =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellRegions());
    long long outside = 0;
    for (std::size_t c = 0; c < regions.extent(0); ++c) {
      if (regions(c) >= 0)
        ++counts[std::size_t(regions(c))];
      else
        ++outside;
    }
    std::printf("cell regions:\n");
    for (std::size_t r = 0; r < counts.size(); ++r)
      std::printf("  %-24s %10lld cells\n", mesh.regionNames()[r].c_str(), counts[r]);
    if (outside > 0) std::printf("  %-24s %10lld cells\n", "(in no region)", outside);
  }
  const MeshQuality quality = meshQuality(mesh);
  std::printf("quality over %lld interior faces:\n", (long long)quality.interiorFaces);
  std::printf(
      "  non-orthogonality       max %.2f, mean %.2f degrees; %lld faces over 70\n",
      quality.maxNonOrthogonality, quality.meanNonOrthogonality,
      (long long)quality.facesOver70Degrees);
  std::printf("  skewness                max %.3f\n", quality.maxSkewness);
  if (quality.maxNonOrthogonality > 5)
    std::printf(
        "note: a non-orthogonal mesh: diffusion wants the correction "
        "(Equation::diffusionCorrection, Python's DiffusionTermCorrection)\n");
  return 0;
}

}  // namespace

void addMeshCommand(CLI::App& app, CommandContext& context) {
  auto path = std::make_shared<std::string>();
  auto* command = app.add_subcommand(
      "mesh", "Read a Gmsh .msh file and print its patches, regions and quality");
  command->add_option("file", *path, "Gmsh mesh file (MSH 2.2 or 4.1, ASCII or binary)")
      ->required();
  command->callback(
      [path, &context] { context.runWithKokkos([&] { return describeMesh(*path); }); });
}

}  // namespace kfvm::app
