#include <kfvm_Assembler.hpp>
#include <kfvm_Backends.hpp>
#include <kfvm_CoupledSystem.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>

#include "detail/kfvm_AssemblyKernels.hpp"
#include "detail/kfvm_CoefficientChecks.hpp"

#include <cmath>

namespace kfvm {

namespace Details {

template <class ExecSpace>
struct BlockStructureKernel {
  DeviceView<Offset*, ExecSpace> scalarOffsets;
  DeviceView<Ordinal*, ExecSpace> scalarColumns;
  DeviceView<Offset*, ExecSpace> offsets;
  DeviceView<Ordinal*, ExecSpace> columns;
  int n;

  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    const Offset first = scalarOffsets(cell);
    const Offset length = scalarOffsets(cell + 1) - first;
    for (int e = 0; e < n; ++e) {
      const Offset row = Offset(n) * n * first + Offset(e) * n * length;
      offsets(cell * n + e) = row;
      for (Offset k = 0; k < length; ++k)
        for (int v = 0; v < n; ++v)
          columns(row + k * n + v) = scalarColumns(first + k) * n + v;
    }
    if (cell == Ordinal(scalarOffsets.extent(0)) - 2)
      offsets(cell * n + n) = Offset(n) * n * scalarOffsets(cell + 1);
  }
};

/// Robin coefficients per boundary slot, one set per variable.
template <class ExecSpace>
struct CoupledBoundaryViews {
  DeviceView<const Real*, ExecSpace> a[maxCoupledVariables], b[maxCoupledVariables],
      g[maxCoupledVariables];
};

template <class ExecSpace>
struct BlockFillKernel {
  CoupledCoefficients<ExecSpace> k;
  CoupledBoundaryViews<ExecSpace> robin;
  DeviceView<const Ordinal*, ExecSpace> faceSlots;
  DeviceView<Offset*, ExecSpace> scalarOffsets;
  DeviceView<Ordinal*, ExecSpace> scalarColumns;
  DeviceView<const Offset*, ExecSpace> cellFaceOffsets;
  DeviceView<const Ordinal*, ExecSpace> cellFaces;
  DeviceView<const Ordinal* [2], ExecSpace> faceCells;
  DeviceView<const Real*, ExecSpace> areas, distances, volumes;
  DeviceView<Real*, ExecSpace> values;
  Vector<ExecSpace> previous, iterate, rhs;
  Real invDt;

  /// Position of scalar column `column` in the cell's stencil row.
  KOKKOS_INLINE_FUNCTION Offset position(Ordinal cell, Ordinal column) const {
    for (Offset p = scalarOffsets(cell); p < scalarOffsets(cell + 1); ++p)
      if (scalarColumns(p) == column) return p - scalarOffsets(cell);
    return 0;  // unreachable: the stencil holds every face neighbour
  }

  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    const int n = k.numVariables;
    const Offset first = scalarOffsets(cell);
    const Offset length = scalarOffsets(cell + 1) - first;
    const Offset self = position(cell, cell);
    const Real volume = volumes(cell);
    for (int e = 0; e < n; ++e) {
      const Offset row = Offset(n) * n * first + Offset(e) * n * length;
      for (Offset p = 0; p < length * n; ++p) values(row + p) = 0;
      Real b = k.s[e](cell) * volume;
      for (int v = 0; v < n; ++v) {
        const Real old = previous(cell * n + v), now = iterate(cell * n + v);
        const Real rho = k.rho[e][v](cell), c = k.c[e][v](cell);
        Real diagonal = rho * invDt * volume;
        b += rho * invDt * volume * old;
        if (k.cDiagonalOnly[e][v] && c > 0)  // FiPy's rule: c phi* on the right
          b += c * now * volume;
        else
          diagonal -= c * volume;
        if (k.hasS[e][v]) {  // Newton: S(now) + S'(now) (phi - now)
          const Real slope = k.S[e][v].derivative(now);
          diagonal -= slope * volume;
          b += (k.S[e][v](now) - slope * now) * volume;
        }
        const Coefficient<ExecSpace>& D = k.D[e][v];
        if (D.isField() || D.constant != 0) {
          for (Offset slot = cellFaceOffsets(cell); slot < cellFaceOffsets(cell + 1);
               ++slot) {
            const Ordinal f = cellFaces(slot);
            const Ordinal o = faceCells(f, 0), nb = faceCells(f, 1);
            const Real Df = D(f);
            if (nb < 0) {  // the Robin condition of variable v: J = aB phi_P - cB
              const Ordinal bs = faceSlots(f);
              const BoundaryFlux flux =
                  boundaryFlux(Df * areas(f), robin.a[v](bs), robin.b[v](bs),
                               robin.g[v](bs), distances(f), 0, ConvectionScheme::Upwind);
              diagonal += flux.aB;
              b += flux.cB;
              continue;
            }
            const Real weight = Df * areas(f) / distances(f);
            diagonal += weight;
            values(row + position(cell, o == cell ? nb : o) * n + v) -= weight;
          }
        }
        values(row + self * n + v) += diagonal;
      }
      rhs(cell * n + e) = b;
    }
  }
};

template <class ExecSpace>
struct PackKernel {
  Vector<ExecSpace> field, x;
  int n, v;
  bool toBlock;
  KOKKOS_FUNCTION void operator()(Ordinal cell) const {
    if (toBlock)
      x(cell * n + v) = field(cell);
    else
      field(cell) = x(cell * n + v);
  }
};

}  // namespace Details

template <class ExecSpace>
CoupledSystem<ExecSpace>::CoupledSystem(const Mesh<ExecSpace>& mesh, int numVariables)
    : mesh_(mesh) {
  require(numVariables >= 1 && numVariables <= maxCoupledVariables,
          "a coupled system has 1 to ", maxCoupledVariables, " variables, got ",
          numVariables);
  coefficients_.numVariables = numVariables;
  for (int v = 0; v < numVariables; ++v) boundaries_.emplace_back(mesh_);
  buildStructure();
}

template <class ExecSpace>
void CoupledSystem<ExecSpace>::buildStructure() {
  Equation<ExecSpace> stencil(mesh_);
  stencil.diffusion(1);
  scalarPattern_ = Assembler<ExecSpace>(stencil).matrix();
  const int n = numVariables();
  const Offset numEntries = Offset(n) * n * scalarPattern_.numEntries();
  DeviceView<Offset*, ExecSpace> offsets("kfvm::CoupledSystem::rowOffsets", size() + 1);
  DeviceView<Ordinal*, ExecSpace> columns("kfvm::CoupledSystem::columns", numEntries);
  forEachCell(
      "kfvm::CoupledSystem::structure", mesh_,
      Details::BlockStructureKernel<ExecSpace>{
          scalarPattern_.rowOffsets(), scalarPattern_.columns(), offsets, columns, n});
  matrix_ = CrsMatrix<ExecSpace>("kfvm::CoupledSystem::matrix", size(), size(), offsets,
                                 columns);
}

template <class ExecSpace>
void CoupledSystem<ExecSpace>::checkIndices(int equation, int variable) const {
  const int n = numVariables();
  require(equation >= 0 && equation < n, "equation index ", equation,
          " is out of range for a system of ", n, " variables");
  require(variable >= 0 && variable < n, "variable index ", variable,
          " is out of range for a system of ", n, " variables");
}

template <class ExecSpace>
void CoupledSystem<ExecSpace>::checkCoefficient(const Coefficient<ExecSpace>& coefficient,
                                                int e, int v, const char* role,
                                                const char* where, bool nonNegative) {
  try {
    Details::requireValidCoefficient(coefficient, role, where, nonNegative);
  } catch (const Error& error) {
    if (v < 0) fail("equation ", e, " of the coupled system: ", error.message());
    fail("equation ", e, ", variable ", v, " of the coupled system: ", error.message());
  }
}

template <class ExecSpace>
template <Centering Where>
Coefficient<ExecSpace> CoupledSystem<ExecSpace>::checkedField(
    const Field<ExecSpace, Where>& field, int e, int v, const char* role,
    bool nonNegative) const {
  checkIndices(e, v < 0 ? 0 : v);
  field.requireOn(mesh_, role);
  const Coefficient<ExecSpace> coefficient{0, field.values()};
  checkCoefficient(coefficient, e, v, role, Where == Centering::Cell ? "cell" : "face",
                   nonNegative);
  return coefficient;
}

template <class ExecSpace>
void CoupledSystem<ExecSpace>::checkValues() const {
  const auto& k = coefficients_;
  for (int e = 0; e < numVariables(); ++e) {
    if (k.s[e].isField()) checkCoefficient(k.s[e], e, -1, "source", "cell", false);
    for (int v = 0; v < numVariables(); ++v) {
      if (k.rho[e][v].isField())
        checkCoefficient(k.rho[e][v], e, v, "transient", "cell", true);
      if (k.D[e][v].isField())
        checkCoefficient(k.D[e][v], e, v, "diffusion", "face", false);
      if (k.c[e][v].isField())
        checkCoefficient(k.c[e][v], e, v, "implicit source", "cell", false);
    }
  }
}

template <class ExecSpace>
CoupledSystem<ExecSpace>& CoupledSystem<ExecSpace>::transient(int e, int v, Real rho) {
  checkIndices(e, v);
  require(std::isfinite(rho) && rho >= 0,
          "transient coefficient must be finite and >= 0, got ", rho);
  coefficients_.rho[e][v] = Coefficient<ExecSpace>{rho, {}};
  return *this;
}

template <class ExecSpace>
CoupledSystem<ExecSpace>& CoupledSystem<ExecSpace>::transient(
    int e, int v, const CellField<ExecSpace>& rho) {
  coefficients_.rho[e][v] = checkedField(rho, e, v, "transient", true);
  return *this;
}

template <class ExecSpace>
CoupledSystem<ExecSpace>& CoupledSystem<ExecSpace>::diffusion(int e, int v, Real D) {
  checkIndices(e, v);
  require(std::isfinite(D), "diffusion coefficient must be finite, got ", D);
  coefficients_.D[e][v] = Coefficient<ExecSpace>{D, {}};
  return *this;
}

template <class ExecSpace>
CoupledSystem<ExecSpace>& CoupledSystem<ExecSpace>::diffusion(
    int e, int v, const FaceField<ExecSpace>& D) {
  coefficients_.D[e][v] = checkedField(D, e, v, "diffusion", false);
  return *this;
}

template <class ExecSpace>
CoupledSystem<ExecSpace>& CoupledSystem<ExecSpace>::implicitSource(
    int e, int v, Real c, ImplicitSourceForm form) {
  checkIndices(e, v);
  require(std::isfinite(c), "implicit source coefficient must be finite, got ", c);
  coefficients_.c[e][v] = Coefficient<ExecSpace>{c, {}};
  coefficients_.cDiagonalOnly[e][v] = form == ImplicitSourceForm::DiagonalOnly;
  return *this;
}

template <class ExecSpace>
CoupledSystem<ExecSpace>& CoupledSystem<ExecSpace>::implicitSource(
    int e, int v, const CellField<ExecSpace>& c, ImplicitSourceForm form) {
  coefficients_.c[e][v] = checkedField(c, e, v, "implicit source", false);
  coefficients_.cDiagonalOnly[e][v] = form == ImplicitSourceForm::DiagonalOnly;
  return *this;
}

template <class ExecSpace>
CoupledSystem<ExecSpace>& CoupledSystem<ExecSpace>::source(int e, int v,
                                                           const Polynomial& S) {
  checkIndices(e, v);
  require(S.terms > 0, "source Polynomial has no coefficients");
  coefficients_.S[e][v] = S;
  coefficients_.hasS[e][v] = true;
  return *this;
}

template <class ExecSpace>
CoupledSystem<ExecSpace>& CoupledSystem<ExecSpace>::source(int e, Real s) {
  checkIndices(e, 0);
  require(std::isfinite(s), "source must be finite, got ", s);
  coefficients_.s[e] = Coefficient<ExecSpace>{s, {}};
  return *this;
}

template <class ExecSpace>
CoupledSystem<ExecSpace>& CoupledSystem<ExecSpace>::source(
    int e, const CellField<ExecSpace>& s) {
  coefficients_.s[e] = checkedField(s, e, -1, "source", false);
  return *this;
}

template <class ExecSpace>
CoupledSystem<ExecSpace>& CoupledSystem<ExecSpace>::boundary(
    int variable, Patch patch, const BoundaryCondition& condition) {
  return boundary(variable, patchName(patch), condition);
}

template <class ExecSpace>
CoupledSystem<ExecSpace>& CoupledSystem<ExecSpace>::boundary(
    int variable, const std::string& patch, const BoundaryCondition& condition) {
  checkIndices(0, variable);
  try {
    boundaries_[variable].set(patch, condition);
  } catch (const Error& error) {
    fail("variable ", variable, " of the coupled system: ", error.message());
  }
  return *this;
}

template <class ExecSpace>
CoupledSystem<ExecSpace>& CoupledSystem<ExecSpace>::boundarySlots(
    int variable, const std::vector<Ordinal>& slots, const std::vector<Real>& a,
    const std::vector<Real>& b, const std::vector<Real>& g) {
  checkIndices(0, variable);
  try {
    boundaries_[variable].setSlots(slots, a, b, g);
  } catch (const Error& error) {
    fail("variable ", variable, " of the coupled system: ", error.message());
  }
  return *this;
}

template <class ExecSpace>
bool CoupledSystem<ExecSpace>::isNonlinear() const {
  for (int e = 0; e < numVariables(); ++e)
    for (int v = 0; v < numVariables(); ++v)
      if (coefficients_.hasS[e][v] && coefficients_.S[e][v].terms > 2) return true;
  return false;
}

template <class ExecSpace>
const BoundaryConditions<ExecSpace>& CoupledSystem<ExecSpace>::boundaryConditions(
    int variable) const {
  require(variable >= 0 && variable < numVariables(), "coupled system: variable ",
          variable, " out of range [0, ", numVariables(), ")");
  return boundaries_[std::size_t(variable)];
}

template <class ExecSpace>
bool CoupledSystem<ExecSpace>::hasTransient(int equation) const {
  require(equation >= 0 && equation < numVariables(), "coupled system: equation ",
          equation, " out of range [0, ", numVariables(), ")");
  for (int v = 0; v < numVariables(); ++v) {
    const auto& rho = coefficients_.rho[equation][v];
    if (rho.isField() || rho.constant != 0) return true;
  }
  return false;
}

template <class ExecSpace>
void CoupledSystem<ExecSpace>::validate() const {
  const auto& k = coefficients_;
  const int n = numVariables();
  auto present = [](const Coefficient<ExecSpace>& x) {
    return x.isField() || x.constant != 0;
  };
  auto acts = [&](int e, int v) {
    return present(k.rho[e][v]) || present(k.D[e][v]) || present(k.c[e][v]) ||
           k.hasS[e][v];
  };
  for (int e = 0; e < n; ++e) {
    bool any = false;
    for (int v = 0; v < n; ++v) any = any || acts(e, v);
    require(any, "equation ", e,
            " of the coupled system has no term acting on any variable");
  }
  for (int v = 0; v < n; ++v) {
    bool any = false;
    for (int e = 0; e < n; ++e) any = any || acts(e, v);
    require(any, "variable ", v, " of the coupled system appears in no equation");
  }
}

template <class ExecSpace>
void CoupledSystem<ExecSpace>::assemble(Real invDt, const Vector<ExecSpace>& previous,
                                        const Vector<ExecSpace>& iterate,
                                        const Vector<ExecSpace>& rhs) {
  require(previous.extent(0) == std::size_t(size()) &&
              iterate.extent(0) == std::size_t(size()) &&
              rhs.extent(0) == std::size_t(size()),
          "coupled assembly: block vectors must have ", size(), " entries");
  require(invDt >= 0 && std::isfinite(invDt), "1/dt must be finite and >= 0, got ",
          invDt);
  Details::CoupledBoundaryViews<ExecSpace> robin;
  for (int v = 0; v < numVariables(); ++v) {
    robin.a[v] = boundaries_[v].robinA();
    robin.b[v] = boundaries_[v].robinB();
    robin.g[v] = boundaries_[v].robinG();
  }
  forEachCell(
      "kfvm::CoupledSystem::fill", mesh_,
      Details::BlockFillKernel<ExecSpace>{
          coefficients_, robin, mesh_.faceBoundarySlots(), scalarPattern_.rowOffsets(),
          scalarPattern_.columns(), mesh_.cellFaceOffsets(), mesh_.cellFaces(),
          mesh_.faceCells(), mesh_.faceAreas(), mesh_.faceDistances(),
          mesh_.cellVolumes(), matrix_.values(), previous, iterate, rhs, invDt});
}

template <class ExecSpace>
void CoupledSystem<ExecSpace>::pack(const std::vector<CellField<ExecSpace>>& fields,
                                    const Vector<ExecSpace>& x) const {
  require(int(fields.size()) == numVariables(), "pack: ", fields.size(), " fields for ",
          numVariables(), " variables");
  for (int v = 0; v < numVariables(); ++v) {
    fields[v].requireOn(mesh_, "coupled variable");
    forEachCell(
        "kfvm::CoupledSystem::pack", mesh_,
        Details::PackKernel<ExecSpace>{fields[v].values(), x, numVariables(), v, true});
  }
}

template <class ExecSpace>
void CoupledSystem<ExecSpace>::unpack(const Vector<ExecSpace>& x,
                                      std::vector<CellField<ExecSpace>>& fields) const {
  require(int(fields.size()) == numVariables(), "unpack: ", fields.size(), " fields for ",
          numVariables(), " variables");
  for (int v = 0; v < numVariables(); ++v)
    forEachCell(
        "kfvm::CoupledSystem::unpack", mesh_,
        Details::PackKernel<ExecSpace>{fields[v].values(), x, numVariables(), v, false});
}

#define KFVM_INSTANTIATE_COUPLED(Space) template class CoupledSystem<Space>;
KFVM_FOR_EACH_BACKEND(KFVM_INSTANTIATE_COUPLED)

}  // namespace kfvm
