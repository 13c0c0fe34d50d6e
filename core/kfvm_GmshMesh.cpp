#include <kfvm_Error.hpp>
#include <kfvm_GmshMesh.hpp>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace kfvm {

namespace {

CellShape shapeOfType(int type) {
  switch (type) {
    case 2:
      return CellShape::Triangle;
    case 3:
      return CellShape::Quadrilateral;
    case 4:
      return CellShape::Tetrahedron;
    case 5:
      return CellShape::Hexahedron;
    case 6:
      return CellShape::Prism;
    default:
      return CellShape::Pyramid;
  }
}

std::string groupName(const GmshFile& file, int dimension, int tag) {
  const auto& group = file.physicalGroup(dimension, tag);
  return group.name.empty() ? std::to_string(tag) : group.name;
}

}  // namespace

MeshTopology gmshMeshTopology(const GmshFile& file, const std::string& name) {
  const int dimension = file.dimension();
  require(dimension == 2 || dimension == 3, "Gmsh mesh '", name, "' has dimension ",
          dimension, "; kfvm reads 2D and 3D Gmsh meshes (use a CartesianGrid in 1D)");
  if (dimension == 2) {  // every cell's node in one plane z = const
    double z = 0;
    bool first = true;
    for (const auto& element : file.elements) {
      if (element.dimension != 2) continue;
      for (Ordinal node : element.nodes) {
        const double zn = file.nodes[std::size_t(node)][2];
        if (first) z = zn;
        first = false;
        require(std::abs(zn - z) <= 1e-12 * (1 + std::abs(z)), "Gmsh mesh '", name,
                "': 2D element ", element.tag, " leaves the plane z = ", z,
                " (a node at z = ", zn, "); kfvm's 2D meshes lie in the x-y plane");
      }
    }
  }
  MeshTopology topology(dimension, file.nodes);
  try {
    for (const auto& element : file.elements) {
      if (element.dimension == dimension) {
        const Ordinal cell =
            topology.addCell(shapeOfType(element.type), element.nodes, element.tag);
        for (int tag : element.physicals)
          topology.setCellRegion(cell, groupName(file, dimension, tag));
      } else if (element.dimension == dimension - 1) {
        for (int tag : element.physicals)
          topology.addBoundaryFace(groupName(file, dimension - 1, tag), element.nodes);
      }
    }
  } catch (const Error& error) {
    fail("Gmsh mesh '", name, "': ", error.message());
  }
  return topology;
}

MeshTopology readGmshTopology(const std::string& path) {
  return gmshMeshTopology(readGmshFile(path), path);
}

MeshTopology meshGmshScript(const std::string& path, int dimension) {
  require(dimension == 2 || dimension == 3, "Gmsh script '", path,
          "': mesh it in dimension 2 or 3, got ", dimension);
  require(std::ifstream(path).good(), "Gmsh script '", path, "' cannot be opened");
  static std::atomic<int> counter{0};
  const auto stem =
      std::filesystem::temp_directory_path() /
      ("kfvm-gmsh-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  const std::string output = stem.string() + ".msh", log = stem.string() + ".log";
  const char* program = std::getenv("KFVM_GMSH") ? std::getenv("KFVM_GMSH") : "gmsh";
  const std::string dim = "-" + std::to_string(dimension);
  std::vector<std::string> words{program, dim,  "-format", "msh41", "-o",
                                 output,  "-v", "2",       path};
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t child = 0;
  const int spawned =
      posix_spawnp(&child, program, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  const auto cleanUp = [&] {
    std::error_code ignored;
    std::filesystem::remove(output, ignored);
    std::filesystem::remove(log, ignored);
  };
  if (spawned != 0) {
    cleanUp();
    fail("Gmsh script '", path, "': cannot run '", program,
         "' (install Debian's gmsh, or name the program in KFVM_GMSH)");
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  std::ostringstream messages;
  messages << std::ifstream(log).rdbuf();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
      !std::filesystem::exists(output)) {
    cleanUp();
    fail("Gmsh script '", path, "': '", program, " ", dim, "' failed (exit status ",
         WIFEXITED(status) ? WEXITSTATUS(status) : -1, "): ", messages.str());
  }
  try {
    MeshTopology topology = gmshMeshTopology(readGmshFile(output), path);
    cleanUp();
    return topology;
  } catch (...) {
    cleanUp();
    throw;
  }
}

}  // namespace kfvm
