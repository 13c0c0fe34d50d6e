#ifndef KFVM_FOR_EACH_HPP
#define KFVM_FOR_EACH_HPP

#include <kfvm_Types.hpp>

#include <Kokkos_Core.hpp>

#include <string>

namespace kfvm {

/// Range policy over [0, n) on one execution space instance, with kfvm's index type.
template <class ExecSpace>
Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<Ordinal>> indexRange(
    const ExecSpace& space, Ordinal n) {
  return Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<Ordinal>>(space, 0, n);
}

/// Runs body(i) for i in [0, n) on space. The label names the kernel for Kokkos Tools.
template <class ExecSpace, class Body>
void forEachIndex(const std::string& label, const ExecSpace& space, Ordinal n,
                  const Body& body) {
  Kokkos::parallel_for(label, indexRange(space, n), body);
}

/// Runs body(cell) for every cell of the mesh.
template <class MeshType, class Body>
void forEachCell(const std::string& label, const MeshType& mesh, const Body& body) {
  forEachIndex(label, mesh.space(), mesh.numCells(), body);
}

/// Runs body(face) for every face of the mesh.
template <class MeshType, class Body>
void forEachFace(const std::string& label, const MeshType& mesh, const Body& body) {
  forEachIndex(label, mesh.space(), mesh.numFaces(), body);
}

/// Sum over i in [0, n) of what body(i, partial) adds to partial.
template <class ExecSpace, class Body>
Real sumOverIndex(const std::string& label, const ExecSpace& space, Ordinal n,
                  const Body& body) {
  Real sum = 0;
  Kokkos::parallel_reduce(label, indexRange(space, n), body, sum);
  return sum;
}

}  // namespace kfvm

#endif
