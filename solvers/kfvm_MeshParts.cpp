#include <kfvm_Backends.hpp>
#include <kfvm_DistributedMeshOperator.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_Partition.hpp>

#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace kfvm {

namespace Details {

namespace {

int partsOf(MPI_Comm comm) {
  int size = 0;
  require(MPI_Comm_size(comm, &size) == MPI_SUCCESS, "mesh parts: MPI_Comm_size failed");
  return size;
}

}  // namespace

}  // namespace Details

template <class ExecSpace>
MeshParts<ExecSpace>::MeshParts(const MeshTopology& topology, MPI_Comm comm,
                                int ghostLayers, PartitionMethod method, GpuAwareMpi mode)
    : MeshParts(topology, topology.connect(), comm, ghostLayers, method, mode) {}

template <class ExecSpace>
MeshParts<ExecSpace>::MeshParts(const MeshTopology& topology,
                                const MeshTopology::Connectivity& connectivity,
                                MPI_Comm comm, int ghostLayers, PartitionMethod method,
                                GpuAwareMpi mode)
    : Partition<ExecSpace>(comm, ghostLayers),
      mode_(mode),
      owners_(partitionCells(topology, connectivity, Details::partsOf(comm), method)),
      part_(meshPart(topology, connectivity, owners_, this->rank(), ghostLayers)),
      halo_(part_, comm, mode) {
  std::vector<Ordinal> owned(std::size_t(part_.ownedCells));
  std::iota(owned.begin(), owned.end(), Ordinal(0));
  this->setCells(Mesh<ExecSpace>(part_.topology), part_.globalCells, std::move(owned));
}

template <class ExecSpace>
MeshHaloExchange<ExecSpace>& MeshParts<ExecSpace>::haloOf(int components) {
  if (components == 1) return halo_;
  auto& halo = blockHalos_[components];
  if (!halo)
    halo = std::make_unique<MeshHaloExchange<ExecSpace>>(part_, this->communicator(),
                                                         mode_, components);
  return *halo;
}

template <class ExecSpace>
void MeshParts<ExecSpace>::exchange(const Vector<ExecSpace>& x, int components) {
  haloOf(components).exchange(x);
}

template <class ExecSpace>
void MeshParts<ExecSpace>::checkConditions(
    const BoundaryConditions<ExecSpace>& conditions, int variable) const {
  require(!conditions.isSet(MeshPart::cutPatch), "distributed system: patch '",
          MeshPart::cutPatch,
          "' is where this rank's part ends; it takes no boundary condition",
          variable < 0 ? std::string() : " (variable " + std::to_string(variable) + ")");
}

template <class ExecSpace>
void MeshParts<ExecSpace>::checkReach(const Equation<ExecSpace>& equation) const {
  const bool reachesTwoCells =
      equation.hasHigherOrder() || equation.hasDiffusionCrossTerms() ||
      (equation.hasConvection() && isTvd(equation.convectionScheme()));
  require(!reachesTwoCells || this->ghostLayers() >= 2,
          "distributed system: the non-orthogonal correction, a diffusion tensor, TVD "
          "convection and the fourth-order term read cells two faces away; construct the "
          "system with 2 ghost layers, not ",
          this->ghostLayers());
}

template <class ExecSpace>
std::unique_ptr<LinearOperator<ExecSpace>> MeshParts<ExecSpace>::rowsOf(
    const Assembler<ExecSpace>& assembler) {
  return std::make_unique<DistributedMeshOperator<ExecSpace>>(halo_, assembler);
}

template <class ExecSpace>
std::unique_ptr<LinearOperator<ExecSpace>> MeshParts<ExecSpace>::rowsOf(
    const CrsMatrix<ExecSpace>& matrix, int components) {
  return std::make_unique<DistributedMeshOperator<ExecSpace>>(haloOf(components), matrix);
}

template <class ExecSpace>
void MeshParts<ExecSpace>::setMatrixFree(LinearOperator<ExecSpace>&, bool on) {
  require(!on,
          "distributed system: matrix-free products across ranks need the blocks "
          "of a Cartesian grid (GridBlocks), not a general mesh's parts");
}

#define KFVM_INSTANTIATE_MESH_PARTS(Space) template class MeshParts<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_MESH_PARTS)

}  // namespace kfvm
