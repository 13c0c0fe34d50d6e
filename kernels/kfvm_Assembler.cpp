#include <kfvm_Assembler.hpp>
#include <kfvm_Backends.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_KokkosCompat.hpp>

namespace kfvm {

namespace Details {

constexpr int maxFacesPerCell = 12;

/// Weight of a boundary face with coefficient k = D_f A_f under the Robin
/// condition a phi + b dphi/dn = g at distance d from the cell centre: the outward flux
/// is k (g - a phi_P) / (a d + b), so phi_P gets k a / (a d + b) and the rhs k g / (a d +
/// b).
KOKKOS_INLINE_FUNCTION Real robinWeight(Real k, Real a, Real b, Real d) {
  return k / (a * d + b);
}

/// Row offsets of the CRS structure: one entry per cell plus one per interior face.
template <class ExecSpace>
DeviceView<Offset*, ExecSpace> rowOffsetsOf(const Mesh<ExecSpace>& mesh) {
  DeviceView<Offset*, ExecSpace> offsets("kfvm::Assembler::rowOffsets",
                                         mesh.numCells() + 1);
  auto cellFaceOffsets = mesh.cellFaceOffsets();
  auto cellFaces = mesh.cellFaces();
  auto faceCells = mesh.faceCells();
  Kokkos::parallel_scan(
      "kfvm::Assembler::countEntries", indexRange(mesh.space(), mesh.numCells() + 1),
      KOKKOS_LAMBDA(Ordinal cell, Offset & partial, bool final) {
        if (final) offsets(cell) = partial;
        if (cell < Ordinal(cellFaceOffsets.extent(0)) - 1) {
          Offset count = 1;
          for (Offset s = cellFaceOffsets(cell); s < cellFaceOffsets(cell + 1); ++s) {
            if (faceCells(cellFaces(s), 1) >= 0) ++count;
          }
          partial += count;
        }
      });
  return offsets;
}

/// Columns in increasing order per row, and where each cell's own entry and each
/// cell-face slot's neighbour entry sit.
template <class ExecSpace>
struct StructureBuilder {
  DeviceView<const Offset*, ExecSpace> cellFaceOffsets;
  DeviceView<const Ordinal*, ExecSpace> cellFaces;
  DeviceView<const Ordinal* [2], ExecSpace> faceCells;
  DeviceView<Offset*, ExecSpace> rowOffsets;
  DeviceView<Ordinal*, ExecSpace> columns;
  DeviceView<Offset*, ExecSpace> diagonalEntries, faceEntries;

  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    Ordinal cols[maxFacesPerCell + 1];
    int n = 0;
    cols[n++] = cell;
    for (Offset s = cellFaceOffsets(cell); s < cellFaceOffsets(cell + 1); ++s) {
      const Ordinal face = cellFaces(s);
      const Ordinal owner = faceCells(face, 0), neighbour = faceCells(face, 1);
      if (neighbour >= 0) cols[n++] = owner == cell ? neighbour : owner;
    }
    for (int i = 1; i < n; ++i) {  // insertion sort: at most 13 entries
      const Ordinal key = cols[i];
      int j = i - 1;
      for (; j >= 0 && cols[j] > key; --j) cols[j + 1] = cols[j];
      cols[j + 1] = key;
    }
    const Offset first = rowOffsets(cell);
    for (int i = 0; i < n; ++i) {
      columns(first + i) = cols[i];
      if (cols[i] == cell) diagonalEntries(cell) = first + i;
    }
    for (Offset s = cellFaceOffsets(cell); s < cellFaceOffsets(cell + 1); ++s) {
      const Ordinal face = cellFaces(s);
      const Ordinal owner = faceCells(face, 0), neighbour = faceCells(face, 1);
      faceEntries(s) = 0;
      if (neighbour < 0) continue;
      const Ordinal other = owner == cell ? neighbour : owner;
      for (int i = 0; i < n; ++i) {
        if (cols[i] == other) faceEntries(s) = first + i;
      }
    }
  }
};

}  // namespace Details

template <class ExecSpace>
Assembler<ExecSpace>::Assembler(const Equation<ExecSpace>& equation)
    : equation_(equation),
      faceCoefficients_("kfvm::Assembler::faceCoefficients", equation.mesh().numFaces()),
      diagonal_("kfvm::Assembler::diagonal", equation.mesh().numCells()) {
  equation_.validate();
  const auto& mesh = equation_.mesh();
  {
    auto offsets =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cellFaceOffsets());
    for (Ordinal c = 0; c < mesh.numCells(); ++c) {
      require(offsets(c + 1) - offsets(c) <= Offset(Details::maxFacesPerCell), "cell ", c,
              " has ", offsets(c + 1) - offsets(c),
              " faces; the assembler supports up to ", Details::maxFacesPerCell);
    }
  }
  auto rowOffsets = Details::rowOffsetsOf(mesh);
  Offset numEntries = 0;
  Kokkos::deep_copy(numEntries, Kokkos::subview(rowOffsets, mesh.numCells()));
  DeviceView<Ordinal*, ExecSpace> columns("kfvm::Assembler::columns", numEntries);
  diagonalEntries_ =
      DeviceView<Offset*, ExecSpace>("kfvm::Assembler::diagonalEntries", mesh.numCells());
  faceEntries_ = DeviceView<Offset*, ExecSpace>("kfvm::Assembler::faceEntries",
                                                mesh.cellFaces().extent(0));
  Details::StructureBuilder<ExecSpace> builder{
      mesh.cellFaceOffsets(), mesh.cellFaces(), mesh.faceCells(), rowOffsets, columns,
      diagonalEntries_,       faceEntries_};
  forEachCell("kfvm::Assembler::buildStructure", mesh, builder);
  matrix_ = CrsMatrix<ExecSpace>("kfvm::Assembler::matrix", mesh.numCells(),
                                 mesh.numCells(), rowOffsets, columns);
}

template <class ExecSpace>
void Assembler<ExecSpace>::assemble(Real invDt, Real theta,
                                    const CellField<ExecSpace>& phiOld,
                                    const Vector<ExecSpace>& rhs) {
  const auto& mesh = equation_.mesh();
  phiOld.requireOn(mesh, "previous-step");
  require(rhs.extent(0) == std::size_t(mesh.numCells()), "right-hand side has ",
          rhs.extent(0), " entries, mesh has ", mesh.numCells(), " cells");
  require(theta > 0 && theta <= 1, "theta must be in (0, 1], got ", theta);
  require(invDt >= 0 && Compat::isfinite(invDt), "1/dt must be finite and >= 0, got ",
          invDt);
  theta_ = theta;

  // Face loop: D_f A_f / d_f inside, D_f A_f on the boundary.
  auto coefficients = faceCoefficients_;
  auto faceCells = mesh.faceCells();
  auto areas = mesh.faceAreas();
  auto distances = mesh.faceDistances();
  auto normals = mesh.faceNormals();
  auto faceCentres = mesh.faceCentres();
  auto cellCentres = mesh.cellCentres();
  const auto D = equation_.diffusionCoefficient();
  const bool perFace = equation_.diffusionPerFace();
  forEachFace(
      "kfvm::Assembler::faceCoefficients", mesh, KOKKOS_LAMBDA(Ordinal f) {
        const Ordinal owner = faceCells(f, 0), neighbour = faceCells(f, 1);
        Real Df;
        if (perFace) {
          Df = D(f);
        } else if (neighbour < 0) {
          Df = D(owner);
        } else {
          // Harmonic mean weighted by each cell's distance to the face.
          Real dOwner = 0;
          for (int a = 0; a < 3; ++a)
            dOwner += (faceCentres(f, a) - cellCentres(owner, a)) * normals(f, a);
          const Real dNeighbour = distances(f) - dOwner;
          const Real Downer = D(owner), Dneighbour = D(neighbour);
          Df = (Downer > 0 && Dneighbour > 0)
                   ? distances(f) / (dOwner / Downer + dNeighbour / Dneighbour)
                   : Real(0);
        }
        coefficients(f) = neighbour < 0 ? Df * areas(f) : Df * areas(f) / distances(f);
      });

  // Cell loop: each row gathers its faces.
  auto cellFaceOffsets = mesh.cellFaceOffsets();
  auto cellFaces = mesh.cellFaces();
  auto faceSlots = mesh.faceBoundarySlots();
  auto volumes = mesh.cellVolumes();
  auto values = matrix_.values();
  auto diagonal = diagonal_;
  auto diagonalEntries = diagonalEntries_;
  auto faceEntries = faceEntries_;
  const auto& bcs = equation_.boundaryConditions();
  auto robinA = bcs.robinA(), robinB = bcs.robinB(), robinG = bcs.robinG();
  const auto rho = equation_.transientCoefficient();
  const auto c = equation_.implicitSourceCoefficient();
  const auto s = equation_.sourceCoefficient();
  const bool transient = equation_.hasTransient();
  auto old = phiOld.values();
  const Real explicitWeight = 1 - theta;
  forEachCell(
      "kfvm::Assembler::fillRows", mesh, KOKKOS_LAMBDA(Ordinal cell) {
        const Real volume = volumes(cell);
        const Real mass = transient ? invDt * rho(cell) * volume : Real(0);
        const Real oldValue = old(cell);
        Real diag = mass - theta * c(cell) * volume;
        Real b = mass * oldValue + s(cell) * volume;
        Real Kold = -c(cell) * volume * oldValue;  // (K phiOld) of this row
        for (Offset slot = cellFaceOffsets(cell); slot < cellFaceOffsets(cell + 1);
             ++slot) {
          const Ordinal f = cellFaces(slot);
          const Ordinal owner = faceCells(f, 0), neighbour = faceCells(f, 1);
          const Real k = coefficients(f);
          if (neighbour >= 0) {
            const Ordinal other = owner == cell ? neighbour : owner;
            values(faceEntries(slot)) = -theta * k;
            diag += theta * k;
            Kold += k * (oldValue - old(other));
          } else {
            const Ordinal bs = faceSlots(f);
            const Real weight =
                Details::robinWeight(k, robinA(bs), robinB(bs), distances(f));
            const Real kBoundary = weight * robinA(bs);
            diag += theta * kBoundary;
            b += weight * robinG(bs);
            Kold += kBoundary * oldValue;
          }
        }
        values(diagonalEntries(cell)) = diag;
        diagonal(cell) = diag;
        rhs(cell) = b - explicitWeight * Kold;
      });
}

template <class ExecSpace>
void Assembler<ExecSpace>::applySpatialOperator(const Vector<ExecSpace>& x,
                                                const Vector<ExecSpace>& y) const {
  const auto& mesh = equation_.mesh();
  require(x.extent(0) == std::size_t(mesh.numCells()) &&
              y.extent(0) == std::size_t(mesh.numCells()),
          "applySpatialOperator: vectors must have ", mesh.numCells(), " entries, got ",
          x.extent(0), " and ", y.extent(0));
  auto cellFaceOffsets = mesh.cellFaceOffsets();
  auto cellFaces = mesh.cellFaces();
  auto faceCells = mesh.faceCells();
  auto faceSlots = mesh.faceBoundarySlots();
  auto distances = mesh.faceDistances();
  auto volumes = mesh.cellVolumes();
  auto coefficients = faceCoefficients_;
  const auto& bcs = equation_.boundaryConditions();
  auto robinA = bcs.robinA(), robinB = bcs.robinB();
  const auto c = equation_.implicitSourceCoefficient();
  forEachCell(
      "kfvm::Assembler::applySpatialOperator", mesh, KOKKOS_LAMBDA(Ordinal cell) {
        const Real value = x(cell);
        Real sum = -c(cell) * volumes(cell) * value;
        for (Offset slot = cellFaceOffsets(cell); slot < cellFaceOffsets(cell + 1);
             ++slot) {
          const Ordinal f = cellFaces(slot);
          const Ordinal owner = faceCells(f, 0), neighbour = faceCells(f, 1);
          if (neighbour >= 0) {
            sum += coefficients(f) * (value - x(owner == cell ? neighbour : owner));
          } else {
            const Ordinal bs = faceSlots(f);
            sum += Details::robinWeight(coefficients(f), robinA(bs), robinB(bs),
                                        distances(f)) *
                   robinA(bs) * value;
          }
        }
        y(cell) = sum;
      });
}

#define KFVM_INSTANTIATE_ASSEMBLER(Space) template class Assembler<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_ASSEMBLER)

}  // namespace kfvm
