#ifndef KFVM_SPARSE_LU_HPP
#define KFVM_SPARSE_LU_HPP

// A sparse LU factorization on the host, in double precision, behind one small interface
// with a class per package (KLU and UMFPACK, both from SuiteSparse): the direct solver's
// engine (kfvm_DirectSolver.hpp). The package files are compiled only when SuiteSparse
// was found; its headers are included there alone.

#include <memory>
#include <string>
#include <vector>

namespace kfvm::Details {

/// A square matrix in compressed rows on the host: what a SparseLU factors.
struct HostCsr {
  int rows = 0;
  std::vector<int> offsets;  ///< rows + 1 entries
  std::vector<int> columns;  ///< increasing within a row
  std::vector<double> values;
};

/// What factor() found: fine, or the matrix is singular to working precision (a zero
/// pivot, or a pivot the package reports as such), with the package's words; and
/// whether the last factorization's pivots were kept.
struct FactorResult {
  bool ok = true;
  std::string problem;
  bool reusedPivots = false;
};

/// Sparse LU of A (rows x rows), symbolic analysis once per structure (analyze), numeric
/// factorization once per set of values (factor), then any number of solves. The
/// packages store columns; they factor the CSR arrays as the columns of A^T and solve the
/// transposed system, which is A x = b.
class SparseLU {
 public:
  virtual ~SparseLU() = default;

  /// The package's name: "klu" or "umfpack".
  virtual std::string package() const = 0;
  /// Fill-reducing ordering and symbolic factorization of the structure of a.
  virtual void analyze(const HostCsr& a) = 0;
  /// The entries of L and U the analysis predicts (before pivoting), after analyze().
  virtual double predictedEntries() const = 0;
  /// Numeric factorization of a, whose structure is the analyzed one. reusePivots: keep
  /// the row pivots of the last factorization where the package can (KLU's refactor,
  /// about twice as fast); a fresh partial-pivoting factorization otherwise.
  virtual FactorResult factor(const HostCsr& a, bool reusePivots) = 0;
  /// Overwrites x (b on entry) with the solution of A x = b.
  virtual void solve(std::vector<double>& x) = 0;
  /// Entries of L and U together (fill), after factor().
  virtual double factorEntries() const = 0;
};

/// The packages this build has (empty without SuiteSparse).
std::vector<std::string> sparseLUPackages();

/// A SparseLU of the package named; a kfvm::Error naming the packages built when it is
/// not one of them.
std::unique_ptr<SparseLU> makeSparseLU(const std::string& package);

}  // namespace kfvm::Details

// The direct solver's names and where it is the default: Kokkos-free, for callers
// compiled for the host alone (decks).
namespace kfvm {

/// Names the direct solver answers to ("lu", "direct").
std::vector<std::string> directSolverNames();

/// Whether the direct solver is kfvm's default for a system on one process that Krylov
/// methods find hard at large dt (the fourth-order term, coupled systems; in kfvm.fipy
/// every system, standing for FiPy's LU): when this build has it, and the mesh is small
/// enough for a sparse LU's fill to cost less than Krylov iterations (at most
/// directDefaultCells(dimension) cells). Decks, the Python API and kfvm.fipy ask here.
bool directSolverByDefault(int dimension, long long cells);
long long directDefaultCells(int dimension);
/// Whether this build has the direct solver (a sparse LU package: SuiteSparse).
bool haveDirectSolver();

}  // namespace kfvm

#endif
