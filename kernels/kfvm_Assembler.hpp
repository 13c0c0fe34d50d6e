#ifndef KFVM_ASSEMBLER_HPP
#define KFVM_ASSEMBLER_HPP

#include <kfvm_CrsMatrix.hpp>
#include <kfvm_Equation.hpp>

namespace kfvm {

/// Turns an Equation into a linear system A phi = r on its mesh.
///
/// With the spatial operator written as L(phi) = b - K phi (K from diffusion, boundary
/// conditions and the implicit source; b from boundary values and the source), a time
/// step of the theta scheme from phiOld reads
///
///   (m/dt + theta K) phi = (m/dt) phiOld - (1 - theta) K phiOld + b,   m = rho * volume,
///
/// theta = 1 being backward Euler, 1/2 Crank-Nicolson; a steady solve is 1/dt = 0 and
/// theta = 1. The CRS structure (the cell, then its neighbours, in column order) is built
/// once on construction. Each assemble() refills values and right-hand side with one face
/// loop (face coefficients) and one cell loop in which every cell gathers its own faces:
/// no atomics, the same result on every backend and run. With a higher-order term the
/// structure also holds each cell's neighbours' neighbours, and one more cell loop adds
/// that term (detail/kfvm_HigherOrderKernels.hpp).
template <class ExecSpace>
class Assembler {
 public:
  explicit Assembler(const Equation<ExecSpace>& equation);

  /// Refills matrix() and rhs. invDt = 0 and theta = 1 for a steady problem.
  void assemble(Real invDt, Real theta, const CellField<ExecSpace>& phiOld,
                const Vector<ExecSpace>& rhs);
  /// The same, with the nonlinear parts (TVD deferred correction) evaluated at iterate,
  /// the latest approximation of the new phi.
  void assemble(Real invDt, Real theta, const CellField<ExecSpace>& phiOld,
                const CellField<ExecSpace>& iterate, const Vector<ExecSpace>& rhs);

  /// Whether assemble() refills the matrix values (default true). Off, it refills the
  /// face coefficients, diagonal and right-hand side only, for matrix-free solves
  /// (StencilOperator), and matrix() keeps the values of the last fill. Throws
  /// kfvm::Error turning it off for an equation with the fourth-order term (no
  /// matrix-free form).
  void setFillsMatrix(bool fill);
  bool fillsMatrix() const { return fillsMatrix_; }

  /// The face form of the last assemble()'s operator, which geometric multigrid
  /// coarsens (faces numbered as the mesh's): faces(f) is theta times interior face f's
  /// weight (the mean of its two sides': convection enters by its symmetric part), and
  /// theta D A on boundary face f, whose conductance to its boundary value is then
  /// faces(f) a / (a d + b) with the Robin a and b of its boundary slot (the equation's
  /// BoundaryConditions: Dirichlet b = 0, Neumann a = 0) and its distance d. The
  /// diagonal is a cell part plus the sum of the cell's interior face coefficients and
  /// boundary conductances; an interior face couples its two cells by -faces(f). Throws
  /// kfvm::Error naming a View of the wrong size, or an equation with the fourth-order
  /// term (which reaches beyond a cell's faces).
  void faceForm(const DeviceView<Real*, ExecSpace>& faces) const;

  /// y = K x with the face coefficients of the last assemble(): the generic face path,
  /// without the matrix.
  void applySpatialOperator(const Vector<ExecSpace>& x, const Vector<ExecSpace>& y) const;

  /// Largest forward-Euler time step that keeps updates positive (see
  /// Details::explicitStableTimeStep); the equation's current coefficients.
  Real explicitStableTimeStep() const;

  const CrsMatrix<ExecSpace>& matrix() const { return matrix_; }
  const Equation<ExecSpace>& equation() const { return equation_; }
  /// Per face: on interior faces the owner weight a_O of the outflow J_f = a_O phi_O -
  /// a_N phi_N (D_f A_f / d_f without convection); D_f A_f on boundary faces.
  DeviceView<const Real*, ExecSpace> faceCoefficients() const { return ownerWeights_; }
  /// Per interior face the neighbour weight a_N (the same View without convection).
  DeviceView<const Real*, ExecSpace> faceNeighbourCoefficients() const {
    return neighbourWeights_;
  }
  /// Diagonal of the last assembled matrix (also when the matrix is not filled).
  Vector<ExecSpace> diagonal() const { return diagonal_; }
  /// theta of the last assemble().
  Real theta() const { return theta_; }

 private:
  bool tvd() const {
    return equation_.hasConvection() && isTvd(equation_.convectionScheme());
  }

  Equation<ExecSpace> equation_;
  CrsMatrix<ExecSpace> matrix_;
  DeviceView<Offset*, ExecSpace> diagonalEntries_;  // per cell
  DeviceView<Offset*, ExecSpace> faceEntries_;  // per cell-face slot; unused on boundary
  bool repeatedNeighbours_ = false;
  DeviceView<Real* [3], ExecSpace>
      correctionGradient_;  // DiffusionCorrection's             //
                            // StencilStructure::repeatedNeighbours
  DeviceView<Real*, ExecSpace> ownerWeights_, neighbourWeights_;
  DeviceView<Real*[3], ExecSpace> gradient_, gradientOld_;  // TVD only
  DeviceView<Real*, ExecSpace> correction_;                 // TVD only
  DeviceView<Real* [3], ExecSpace> explicitGradient_;       // FiPy's VanLeer only
  Vector<ExecSpace> potential_, potentialSlope_;            // higher-order term only
  Vector<ExecSpace> diagonal_;
  Real theta_ = 1;
  bool fillsMatrix_ = true;
  /// What the face weights were last computed from, when that is numbers only: the
  /// weights depend on D, the convection velocity and scheme and the mesh, so with a
  /// constant D and velocity (no field, whose values may change in place, and no D(phi))
  /// assemble() computes them again only when these numbers change.
  struct FaceWeightInputs {
    bool numbersOnly = false;
    Real D = 0, velocity[3] = {0, 0, 0};
    bool convection = false;
    int scheme = 0;
    bool operator==(const FaceWeightInputs& other) const;
  };
  static FaceWeightInputs faceWeightInputsOf(const Equation<ExecSpace>& equation);
  FaceWeightInputs weightsFrom_;  // numbersOnly false: none yet, or fields
};

}  // namespace kfvm

#endif
