#ifndef KFVM_PRECONDITIONER_HPP
#define KFVM_PRECONDITIONER_HPP

#include <kfvm_GridDiscretization.hpp>
#include <kfvm_LinearOperator.hpp>
#include <kfvm_Parameters.hpp>

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace kfvm {

/// z = M^-1 r, M an approximation of a LinearOperator that is cheap to invert (as
/// Belos' and Ifpack2's preconditioners, PETSc's PC). Create one by name with
/// makePreconditioner(); a Krylov method applies it.
///
/// setup() is called with the operator before each solve whose values may have changed.
/// It allocates only when the operator's size or structure changed and otherwise only
/// recomputes from the values. apply() allocates nothing. On a distributed space the
/// preconditioner is local to each rank (block Jacobi across ranks) and z's ghost
/// entries are 0.
template <class ExecSpace>
class Preconditioner {
 public:
  virtual ~Preconditioner() = default;
  Preconditioner(const Preconditioner&) = delete;
  Preconditioner& operator=(const Preconditioner&) = delete;

  const std::string& name() const { return name_; }
  /// Prepares M for op, which must stay alive until the next setup().
  void setup(const LinearOperator<ExecSpace>& op);
  /// Where the next setups' operators come from (multigrid coarsens it; the others
  /// ignore it). Kept until set again.
  void setDiscretization(const GridDiscretization<ExecSpace>& discretization) {
    discretization_ = discretization;
  }
  /// z = M^-1 r; r and z are distinct vectors of the operator's space.
  virtual void apply(const Vector<ExecSpace>& r, const Vector<ExecSpace>& z) const = 0;

  /// For a pointwise preconditioner (Jacobi: z = w .* r), w; nullptr otherwise. The fused
  /// CG iteration applies it inside its update kernel.
  virtual const Vector<ExecSpace>* pointwiseWeights() const { return nullptr; }
  /// Where the pointwise weights are one number: w's entry `representative` stands for
  /// every covered entry (Jacobi over an operator whose diagonal is one number there).
  virtual UniformInteriorEntries uniformWeights() const { return {}; }
  /// True for "none" (z = r).
  virtual bool isIdentity() const { return false; }
  /// True when setup() needs the operator's assembled matrix (a factorization): such a
  /// preconditioner cannot serve a matrix-free operator.
  virtual bool needsMatrix() const { return false; }

 protected:
  explicit Preconditioner(std::string name) : name_(std::move(name)) {}
  const LinearOperator<ExecSpace>& op() const { return *op_; }
  const GridDiscretization<ExecSpace>& discretization() const { return discretization_; }

 private:
  /// sizeChanged: allocate for op.size(); structureChanged: the pattern changed too.
  virtual void setupImpl(const LinearOperator<ExecSpace>& op, bool sizeChanged,
                         bool structureChanged) = 0;

  std::string name_;
  const LinearOperator<ExecSpace>* op_ = nullptr;
  GridDiscretization<ExecSpace> discretization_;
  Ordinal size_ = -1;
  long version_ = -1;
};

/// Creates a preconditioner:
///  - "none": z = r;
///  - "jacobi": z = r / diag(A);
///  - "ilu0": ILU(0) of the assembled matrix (each rank's local rows on many);
///  - "block-jacobi": ILU(0) of each variable's diagonal block of a coupled system (the
///    couplings between variables dropped); ILU(0) for a scalar equation;
///  - "chebyshev": the Jacobi-preconditioned Chebyshev polynomial of A, matrix-free.
///    Parameters chebyshev_degree (3: degree - 1 products per apply),
///    chebyshev_eigen_iterations (10: Lanczos steps of Jacobi-CG that estimate the
///    largest eigenvalue of D^-1 A), chebyshev_boost (1.1: that estimate is multiplied
///    by it), chebyshev_ratio (30: the smallest eigenvalue targeted is the largest over
///    it), chebyshev_estimate ("setup": at every setup, the default; "structure": only
///    when the structure changes).
///  - "mg": geometric multigrid over the structured grid of the operator's Assembler
///    (LinearOperator::assembler(); GridLevel), one cycle per apply, Chebyshev-Jacobi
///    smoothing in fused kernels. Parameters mg_degree (4: the smoothing polynomial's
///    degree, one kernel a degree), mg_sweeps (1: polynomials before and after the
///    coarse correction), mg_coarse_cells (64, at most 1000: coarsen until a level has at
///    most this many cells; that level is solved directly), mg_coarse_degree (16: the
///    coarsest level's polynomial when mg_levels stops above 1000 cells), mg_levels (30
///    at most), mg_cycle ("v", "w" or "f": full multigrid, not symmetric: for GMRES,
///    BiCGStab or richardson, not CG), mg_estimate ("gershgorin": each level's bound of
///    D^-1 A's eigenvalues from its rows at every setup, the default; "setup" or
///    "structure": chebyshev's Lanczos estimate, at every setup or when the structure
///    changes), mg_smoother ("chebyshev", the default, or "gauss-seidel": red-black,
///    mg_sweeps sweeps forward before and backward after, symmetric), mg_sweep_loop
///    ("auto": column chunks on a device for uniform 3D levels of more than 2^26 cells,
///    else cell by cell; "cells"; "columns"). It coarsens the discretization it is
///    handed (setDiscretization(): a scalar equation's Assembler on a structured grid).
///    Across MPI ranks (a DistributedSystem's: GridDiscretization::distribution) each
///    rank coarsens its block
///    (DistributedLevels) and the coarsest level is gathered (GatheredCoarseSolve);
///    mg_estimate must be "gershgorin" there. On a coupled system's block matrix (a
///    CoupledStepper's: GridDiscretization::grid), coupled multigrid instead
///    (BlockLevel): point-block red-black Gauss-Seidel, every variable of a cell at
///    once, and a direct coarsest solve; mg_sweeps, mg_coarse_cells, mg_levels and
///    mg_cycle ("v" or "w") apply; not symmetric (GMRES); one process.
/// An unknown name or a bad value is a kfvm::Error naming it.
template <class ExecSpace>
std::unique_ptr<Preconditioner<ExecSpace>> makePreconditioner(
    const std::string& name, const Parameters& parameters = {});

/// Names makePreconditioner() accepts.
std::vector<std::string> preconditionerNames();
/// The parameter keys preconditioner name reads.
std::set<std::string> preconditionerParameters(const std::string& name);

}  // namespace kfvm

#endif
