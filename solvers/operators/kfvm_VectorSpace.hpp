#ifndef KFVM_VECTOR_SPACE_HPP
#define KFVM_VECTOR_SPACE_HPP

#include <kfvm_Types.hpp>

#include <functional>

namespace kfvm {

/// Where the vectors of a LinearOperator live: their local length, which entries this
/// process owns, and how partial sums over processes are combined. On one process every
/// entry is owned and sums are local. A distributed space (a rank's cells with their
/// ghost layers) names its owned entries by a mask and sums over a communicator through
/// the function it is given (an MPI_Allreduce), so that kfvm's solvers need no MPI.
///
/// Dot products and norms count owned entries only. Vectors of a distributed space may
/// hold anything in their ghost entries; zeroGhosts() clears them.
template <class ExecSpace>
class VectorSpace {
 public:
  /// Sums count values in place over every process.
  using Reduction = std::function<void(double* values, int count)>;

  /// One process: size entries, all owned.
  explicit VectorSpace(Ordinal size = 0);
  /// A distributed space: owned(i) is 1 for an owned entry and 0 for a ghost, ghosts
  /// lists the ghost entries; sumOverProcesses adds partial sums over the processes.
  VectorSpace(const Vector<ExecSpace>& owned,
              const DeviceView<Ordinal*, ExecSpace>& ghosts, Reduction sumOverProcesses);

  /// Local length of a vector, ghost entries included.
  Ordinal size() const { return size_; }
  bool distributed() const { return bool(sumOverProcesses_); }

  /// x . y and ||x||_2 over the owned entries of every process.
  double dot(const Vector<ExecSpace>& x, const Vector<ExecSpace>& y) const;
  double norm2(const Vector<ExecSpace>& x) const;
  /// (a . b, c . d) in one pass and one reduction over processes.
  void dots(const Vector<ExecSpace>& a, const Vector<ExecSpace>& b,
            const Vector<ExecSpace>& c, const Vector<ExecSpace>& d, double out[2]) const;
  /// out[i] = basis[i] . w for i < count and out[count] = w . w (count + 1 entries),
  /// over the owned entries, in ceil(count / 16) passes over w (one with count = 0) and
  /// one reduction over processes (GMRES's Gram-Schmidt).
  void dotsWith(const Vector<ExecSpace>& w, const Vector<ExecSpace>* basis, int count,
                double* out) const;
  /// Sums partial values (this process's) over every process, in place.
  void sum(double* values, int count) const;
  /// Sets the ghost entries of x to 0 (nothing on one process; a loop over the ghosts).
  void zeroGhosts(const Vector<ExecSpace>& x) const;
  /// 1 on owned entries, 0 on ghosts; empty on one process.
  const Vector<ExecSpace>& ownedMask() const { return owned_; }

 private:
  Ordinal size_ = 0;
  Vector<ExecSpace> owned_;
  DeviceView<Ordinal*, ExecSpace> ghosts_;
  Reduction sumOverProcesses_;
};

}  // namespace kfvm

#endif
