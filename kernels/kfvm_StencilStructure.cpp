#include <detail/kfvm_StencilStructure.hpp>
#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>

namespace kfvm::Details {

namespace {

/// The columns of one row, Hops faces deep.
template <class ExecSpace, int Hops>
struct RowNeighbourhood {
  /// Room for a cell, its face neighbours and (Hops = 2) theirs.
  static constexpr int capacity =
      1 + maxFacesPerCell + (Hops == 2 ? maxFacesPerCell * maxFacesPerCell : 0);

  DeviceView<const Offset*, ExecSpace> cellFaceOffsets;
  DeviceView<const Ordinal*, ExecSpace> cellFaces;
  DeviceView<const Ordinal* [2], ExecSpace> faceCells;

  KOKKOS_INLINE_FUNCTION Ordinal across(Ordinal cell, Ordinal face) const {
    const Ordinal owner = faceCells(face, 0), neighbour = faceCells(face, 1);
    if (neighbour < 0) return -1;
    return owner == cell ? neighbour : owner;
  }

  /// Inserts into the increasing list cols[0..n) unless already there.
  KOKKOS_INLINE_FUNCTION static void insert(Ordinal* cols, int& n, Ordinal key) {
    int j = n - 1;
    for (; j >= 0 && cols[j] > key; --j) {
    }
    if (j >= 0 && cols[j] == key) return;
    for (int i = n - 1; i > j; --i) cols[i + 1] = cols[i];
    cols[j + 1] = key;
    ++n;
  }

  /// The row's columns, increasing; returns how many.
  KOKKOS_INLINE_FUNCTION int collect(Ordinal cell, Ordinal* cols) const {
    int n = 0;
    insert(cols, n, cell);
    for (Offset s = cellFaceOffsets(cell); s < cellFaceOffsets(cell + 1); ++s) {
      const Ordinal near = across(cell, cellFaces(s));
      if (near < 0) continue;
      insert(cols, n, near);
      if constexpr (Hops == 2) {
        for (Offset t = cellFaceOffsets(near); t < cellFaceOffsets(near + 1); ++t) {
          const Ordinal far = across(near, cellFaces(t));
          if (far >= 0) insert(cols, n, far);
        }
      }
    }
    return n;
  }
};

template <class ExecSpace, int Hops>
struct StencilFill {
  RowNeighbourhood<ExecSpace, Hops> rows;
  StencilStructure<ExecSpace> s;

  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    Ordinal cols[RowNeighbourhood<ExecSpace, Hops>::capacity];
    const int n = rows.collect(cell, cols);
    const Offset first = s.rowOffsets(cell);
    for (int i = 0; i < n; ++i) s.columns(first + i) = cols[i];
    const DeviceView<const Offset*, ExecSpace> offsets = s.rowOffsets;
    const DeviceView<const Ordinal*, ExecSpace> columns = s.columns;
    s.diagonalEntries(cell) = entryOf<ExecSpace>(offsets, columns, cell, cell);
    for (Offset f = rows.cellFaceOffsets(cell); f < rows.cellFaceOffsets(cell + 1); ++f) {
      const Ordinal other = rows.across(cell, rows.cellFaces(f));
      s.faceEntries(f) =
          other < 0 ? Offset(0) : entryOf<ExecSpace>(offsets, columns, cell, other);
    }
  }
};

template <class ExecSpace, int Hops>
StencilStructure<ExecSpace> build(const Mesh<ExecSpace>& mesh) {
  const RowNeighbourhood<ExecSpace, Hops> rows{mesh.cellFaceOffsets(), mesh.cellFaces(),
                                               mesh.faceCells()};
  const Ordinal numCells = mesh.numCells();
  StencilStructure<ExecSpace> s;
  s.rowOffsets =
      DeviceView<Offset*, ExecSpace>("kfvm::Assembler::rowOffsets", numCells + 1);
  const auto offsets = s.rowOffsets;
  Kokkos::parallel_scan(
      "kfvm::Assembler::countEntries", indexRange(mesh.space(), numCells + 1),
      KOKKOS_LAMBDA(Ordinal cell, Offset & partial, bool final) {
        if (final) offsets(cell) = partial;
        if (cell < numCells) {
          Ordinal cols[RowNeighbourhood<ExecSpace, Hops>::capacity];
          partial += rows.collect(cell, cols);
        }
      });
  Offset numEntries = 0;
  Kokkos::deep_copy(numEntries, Kokkos::subview(s.rowOffsets, numCells));
  s.columns = DeviceView<Ordinal*, ExecSpace>("kfvm::Assembler::columns", numEntries);
  s.diagonalEntries =
      DeviceView<Offset*, ExecSpace>("kfvm::Assembler::diagonalEntries", numCells);
  s.faceEntries = DeviceView<Offset*, ExecSpace>("kfvm::Assembler::faceEntries",
                                                 mesh.cellFaces().extent(0));
  forEachCell("kfvm::Assembler::buildStructure", mesh,
              StencilFill<ExecSpace, Hops>{rows, s});
  const auto cellFaceOffsets = mesh.cellFaceOffsets();
  const DeviceView<const Offset*, ExecSpace> faceEntries = s.faceEntries;
  Ordinal repeated = 0;
  Kokkos::parallel_reduce(
      "kfvm::Assembler::repeatedNeighbours", indexRange(mesh.space(), numCells),
      KOKKOS_LAMBDA(Ordinal cell, Ordinal & count) {
        const Offset first = cellFaceOffsets(cell), last = cellFaceOffsets(cell + 1);
        for (Offset a = first; a < last; ++a) {
          for (Offset b = a + 1; b < last; ++b)
            count += faceEntries(a) != 0 && faceEntries(a) == faceEntries(b) ? 1 : 0;
        }
      },
      repeated);
  s.repeatedNeighbours = repeated > 0;
  return s;
}

}  // namespace

template <class ExecSpace>
StencilStructure<ExecSpace> buildStencilStructure(const Mesh<ExecSpace>& mesh, int hops) {
  require(hops == 1 || hops == 2, "a stencil reaches 1 or 2 faces deep, got ", hops);
  return hops == 1 ? build<ExecSpace, 1>(mesh) : build<ExecSpace, 2>(mesh);
}

#define KFVM_INSTANTIATE_STENCIL_STRUCTURE(Space) \
  template StencilStructure<Space> buildStencilStructure<Space>(const Mesh<Space>&, int);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_STENCIL_STRUCTURE)

}  // namespace kfvm::Details
