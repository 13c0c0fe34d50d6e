#include <detail/kfvm_AssemblyKernels.hpp>
#include <detail/kfvm_HigherOrderKernels.hpp>
#include <kfvm_Backends.hpp>

namespace kfvm::Details {

namespace {

/// Room for a cell, 12 face neighbours and 12 of theirs each.
constexpr int maxTwoHopColumns = 1 + 12 + 12 * 12;

template <class ExecSpace>
struct TwoHopColumns {
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
      for (Offset t = cellFaceOffsets(near); t < cellFaceOffsets(near + 1); ++t) {
        const Ordinal far = across(near, cellFaces(t));
        if (far >= 0) insert(cols, n, far);
      }
    }
    return n;
  }
};

template <class ExecSpace>
TwoHopColumns<ExecSpace> twoHopColumns(const Mesh<ExecSpace>& mesh) {
  return {mesh.cellFaceOffsets(), mesh.cellFaces(), mesh.faceCells()};
}

/// Position of column in row (which holds it).
template <class ExecSpace>
KOKKOS_INLINE_FUNCTION Offset entryOf(
    const DeviceView<const Offset*, ExecSpace>& rowOffsets,
    const DeviceView<const Ordinal*, ExecSpace>& columns, Ordinal row, Ordinal column) {
  Offset low = rowOffsets(row), high = rowOffsets(row + 1) - 1;
  while (low < high) {
    const Offset middle = low + (high - low) / 2;
    if (columns(middle) < column)
      low = middle + 1;
    else
      high = middle;
  }
  return low;
}

template <class ExecSpace>
struct TwoHopFill {
  TwoHopColumns<ExecSpace> rows;
  DeviceView<const Offset*, ExecSpace> rowOffsets;
  DeviceView<Ordinal*, ExecSpace> columns;
  DeviceView<Offset*, ExecSpace> diagonalEntries, faceEntries;

  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    Ordinal cols[maxTwoHopColumns];
    const int n = rows.collect(cell, cols);
    const Offset first = rowOffsets(cell);
    for (int i = 0; i < n; ++i) columns(first + i) = cols[i];
    const DeviceView<const Ordinal*, ExecSpace> filled = columns;
    diagonalEntries(cell) = entryOf<ExecSpace>(rowOffsets, filled, cell, cell);
    for (Offset s = rows.cellFaceOffsets(cell); s < rows.cellFaceOffsets(cell + 1); ++s) {
      const Ordinal other = rows.across(cell, rows.cellFaces(s));
      faceEntries(s) =
          other < 0 ? Offset(0) : entryOf<ExecSpace>(rowOffsets, filled, cell, other);
    }
  }
};

/// Per cell: potentialSlope = diag(M) = g'(phi*) + (K_kappa)_cc / V, and potential =
/// theta m + (1 - theta) mu(phiOld), m = g(phi*) - g'(phi*) phi* - b_kappa / V.
template <class ExecSpace>
struct PotentialKernel {
  AssemblyGeometry<ExecSpace> g;
  Real kappa, theta;
  Polynomial law;
  Vector<ExecSpace> old, iterate, potential, slope;

  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    Real diagonal = 0, boundaryPart = 0, kOld = 0;
    for (Offset s = g.cellFaceOffsets(cell); s < g.cellFaceOffsets(cell + 1); ++s) {
      const Ordinal f = g.cellFaces(s);
      const Ordinal o = g.faceCells(f, 0), n = g.faceCells(f, 1);
      if (n >= 0) {
        const Real k = kappa * g.areas(f) / g.distances(f);
        diagonal += k;
        kOld += k * (old(cell) - old(o == cell ? n : o));
      } else {
        const Ordinal bs = g.faceSlots(f);
        const BoundaryFlux flux =
            boundaryFlux(kappa * g.areas(f), g.robinA(bs), g.robinB(bs), g.robinG(bs),
                         g.distances(f), Real(0), g.scheme);
        diagonal += flux.aB;
        boundaryPart += flux.cB;
        kOld += flux.aB * old(cell);
      }
    }
    const Real volume = g.volumes(cell);
    const Real phi = iterate(cell), gPrime = law.derivative(phi);
    slope(cell) = gPrime + diagonal / volume;
    Real value = theta * (law(phi) - gPrime * phi - boundaryPart / volume);
    if (theta < 1)
      value += (1 - theta) * (law(old(cell)) + (kOld - boundaryPart) / volume);
    potential(cell) = value;
  }
};

/// Row `cell` of theta K_D M into the matrix, b_D - K_D potential into the right-hand
/// side.
template <class ExecSpace>
struct HigherOrderRowKernel {
  AssemblyGeometry<ExecSpace> g;
  Real D, kappa, theta;
  DeviceView<const Real*, ExecSpace> muA, muB, muG;
  Vector<ExecSpace> potential, slope;
  DeviceView<const Offset*, ExecSpace> rowOffsets;
  DeviceView<const Ordinal*, ExecSpace> columns;
  DeviceView<Real*, ExecSpace> values;
  DeviceView<const Offset*, ExecSpace> diagonalEntries;
  Vector<ExecSpace> diagonal, rhs;

  /// Adds weight * (row j of M) to row cell.
  KOKKOS_INLINE_FUNCTION void addRowOfM(Ordinal cell, Ordinal j, Real weight) const {
    values(entryOf<ExecSpace>(rowOffsets, columns, cell, j)) += weight * slope(j);
    const Real scale = weight * kappa / g.volumes(j);
    for (Offset s = g.cellFaceOffsets(j); s < g.cellFaceOffsets(j + 1); ++s) {
      const Ordinal f = g.cellFaces(s);
      const Ordinal o = g.faceCells(f, 0), n = g.faceCells(f, 1);
      if (n < 0) continue;
      const Ordinal k = o == j ? n : o;
      values(entryOf<ExecSpace>(rowOffsets, columns, cell, k)) -=
          scale * g.areas(f) / g.distances(f);
    }
  }

  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    Real outerDiagonal = 0, boundaryPart = 0, kPotential = 0;
    for (Offset s = g.cellFaceOffsets(cell); s < g.cellFaceOffsets(cell + 1); ++s) {
      const Ordinal f = g.cellFaces(s);
      const Ordinal o = g.faceCells(f, 0), n = g.faceCells(f, 1);
      if (n >= 0) {
        const Ordinal other = o == cell ? n : o;
        const Real k = D * g.areas(f) / g.distances(f);
        outerDiagonal += k;
        kPotential += k * (potential(cell) - potential(other));
        addRowOfM(cell, other, -theta * k);
      } else {
        const Ordinal bs = g.faceSlots(f);
        const BoundaryFlux flux = boundaryFlux(D * g.areas(f), muA(bs), muB(bs), muG(bs),
                                               g.distances(f), Real(0), g.scheme);
        outerDiagonal += flux.aB;
        boundaryPart += flux.cB;
        kPotential += flux.aB * potential(cell);
      }
    }
    addRowOfM(cell, cell, theta * outerDiagonal);
    rhs(cell) += boundaryPart - kPotential;
    diagonal(cell) = values(diagonalEntries(cell));
  }
};

}  // namespace

template <class ExecSpace>
DeviceView<Offset*, ExecSpace> twoHopRowOffsets(const Mesh<ExecSpace>& mesh) {
  DeviceView<Offset*, ExecSpace> offsets("kfvm::Assembler::twoHopRowOffsets",
                                         mesh.numCells() + 1);
  const auto rows = twoHopColumns(mesh);
  const Ordinal numCells = mesh.numCells();
  Kokkos::parallel_scan(
      "kfvm::Assembler::countTwoHopEntries", indexRange(mesh.space(), numCells + 1),
      KOKKOS_LAMBDA(Ordinal cell, Offset & partial, bool final) {
        if (final) offsets(cell) = partial;
        if (cell < numCells) {
          Ordinal cols[maxTwoHopColumns];
          partial += rows.collect(cell, cols);
        }
      });
  return offsets;
}

template <class ExecSpace>
void buildTwoHopStructure(const Mesh<ExecSpace>& mesh,
                          const DeviceView<Offset*, ExecSpace>& rowOffsets,
                          const DeviceView<Ordinal*, ExecSpace>& columns,
                          const DeviceView<Offset*, ExecSpace>& diagonalEntries,
                          const DeviceView<Offset*, ExecSpace>& faceEntries) {
  forEachCell("kfvm::Assembler::buildTwoHopStructure", mesh,
              TwoHopFill<ExecSpace>{twoHopColumns(mesh), rowOffsets, columns,
                                    diagonalEntries, faceEntries});
}

template <class ExecSpace>
void addHigherOrderTerm(const Equation<ExecSpace>& equation, Real theta,
                        const Vector<ExecSpace>& phiOld, const Vector<ExecSpace>& iterate,
                        const Vector<ExecSpace>& potential,
                        const Vector<ExecSpace>& potentialSlope,
                        const DeviceView<const Offset*, ExecSpace>& rowOffsets,
                        const DeviceView<const Ordinal*, ExecSpace>& columns,
                        const DeviceView<Real*, ExecSpace>& values,
                        const DeviceView<const Offset*, ExecSpace>& diagonalEntries,
                        const Vector<ExecSpace>& diagonal, const Vector<ExecSpace>& rhs) {
  const AssemblyGeometry<ExecSpace> geometry(equation);
  const Real kappa = equation.higherOrderKappa();
  forEachCell(
      "kfvm::Assembler::higherOrderPotential", equation.mesh(),
      PotentialKernel<ExecSpace>{geometry, kappa, theta, equation.higherOrderLaw(),
                                 phiOld, iterate, potential, potentialSlope});
  const auto& bcs = equation.higherOrderBoundaryConditions();
  forEachCell("kfvm::Assembler::higherOrderRows", equation.mesh(),
              HigherOrderRowKernel<ExecSpace>{
                  geometry, equation.higherOrderMobility(), kappa, theta, bcs.robinA(),
                  bcs.robinB(), bcs.robinG(), potential, potentialSlope, rowOffsets,
                  columns, values, diagonalEntries, diagonal, rhs});
}

#define KFVM_INSTANTIATE_HIGHER_ORDER_KERNELS(Space)                                     \
  template DeviceView<Offset*, Space> twoHopRowOffsets<Space>(const Mesh<Space>&);       \
  template void buildTwoHopStructure<Space>(                                             \
      const Mesh<Space>&, const DeviceView<Offset*, Space>&,                             \
      const DeviceView<Ordinal*, Space>&, const DeviceView<Offset*, Space>&,             \
      const DeviceView<Offset*, Space>&);                                                \
  template void addHigherOrderTerm<Space>(                                               \
      const Equation<Space>&, Real, const Vector<Space>&, const Vector<Space>&,          \
      const Vector<Space>&, const Vector<Space>&,                                        \
      const DeviceView<const Offset*, Space>&, const DeviceView<const Ordinal*, Space>&, \
      const DeviceView<Real*, Space>&, const DeviceView<const Offset*, Space>&,          \
      const Vector<Space>&, const Vector<Space>&);
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_HIGHER_ORDER_KERNELS)

}  // namespace kfvm::Details
