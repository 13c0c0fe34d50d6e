#ifndef KFVM_FOR_EACH_HPP
#define KFVM_FOR_EACH_HPP

#include <kfvm_Error.hpp>
#include <kfvm_Types.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>

namespace kfvm {

/// Range policy over [0, n) on one execution space instance, with kfvm's index type.
template <class ExecSpace>
Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<Ordinal>> indexRange(
    const ExecSpace& space, Ordinal n) {
  return Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<Ordinal>>(space, 0, n);
}

/// Loops shorter than this many rows run on the calling thread on a host backend with a
/// thread pool (OpenMP, Threads): there a fork and join (a microsecond or more, a futex
/// call when the threads sleep) costs more than the loop itself. FiPy's examples (meshes
/// of hundreds to a few thousand cells) make hundreds of thousands of such kernels.
/// 2048, or the environment variable KFVM_SMALL_HOST_LOOP (rows; 0 turns it off), read
/// at the first call; a value that is not a count is a kfvm::Error naming it.
inline Ordinal smallHostLoop() {
  static const Ordinal rows = [] {
    const char* text = std::getenv("KFVM_SMALL_HOST_LOOP");
    if (text == nullptr) return Ordinal(2048);
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    require(*text != '\0' && *end == '\0' && value >= 0 && value <= 1L << 30,
            "KFVM_SMALL_HOST_LOOP must be a number of rows from 0 to 2^30, got '", text,
            "'");
    return Ordinal(value);
  }();
  return rows;
}

namespace Details {

/// Whether ExecSpace is a host backend with a thread pool (Serial forks nothing).
template <class ExecSpace>
constexpr bool forksHostThreads() {
#ifdef KOKKOS_ENABLE_SERIAL
  if (std::is_same<ExecSpace, Kokkos::Serial>::value) return false;
#endif
  return std::is_same<typename ExecSpace::memory_space, Kokkos::HostSpace>::value;
}

/// Whether a loop over rows rows on ExecSpace runs on the calling thread: a host
/// backend with a thread pool and fewer than smallHostLoop() rows. Whether a Kokkos Tools
/// library is loaded does not matter (CallingThreadKernel tells it of the loop): a run
/// takes the same paths watched or not, so Kokkos' first-use scratch is not allocated
/// only once a watch starts.
template <class ExecSpace>
bool runsOnCallingThread(Ordinal rows) {
  if constexpr (forksHostThreads<ExecSpace>())
    return rows < smallHostLoop();
  else
    return false;
}

/// Tells a loaded Kokkos Tools library of a loop run on the calling thread, as Kokkos
/// tells it of its own (begin at construction, end at destruction), so that tools count,
/// name and time every kernel.
template <class ExecSpace>
class CallingThreadKernel {
 public:
  CallingThreadKernel(const std::string& label, const ExecSpace& space, bool reduction)
      : active_(Kokkos::Tools::profileLibraryLoaded()), reduction_(reduction) {
    if (!active_) return;
    const auto device = Kokkos::Tools::Experimental::device_id(space);
    if (reduction_)
      Kokkos::Tools::beginParallelReduce(label, device, &id_);
    else
      Kokkos::Tools::beginParallelFor(label, device, &id_);
  }
  ~CallingThreadKernel() {
    if (!active_) return;
    if (reduction_)
      Kokkos::Tools::endParallelReduce(id_);
    else
      Kokkos::Tools::endParallelFor(id_);
  }
  CallingThreadKernel(const CallingThreadKernel&) = delete;
  CallingThreadKernel& operator=(const CallingThreadKernel&) = delete;

 private:
  bool active_, reduction_;
  std::uint64_t id_ = 0;
};

}  // namespace Details

/// Runs body(i) for i in [0, n) on space. The label names the kernel for Kokkos Tools.
/// rowsPerIndex: the rows one index stands for (a blocked kernel's block), for the
/// choice of running a short loop on the calling thread (smallHostLoop).
template <class ExecSpace, class Body>
void forEachIndex(const std::string& label, const ExecSpace& space, Ordinal n,
                  const Body& body, Ordinal rowsPerIndex = 1) {
  if constexpr (Details::forksHostThreads<ExecSpace>()) {
    if (Details::runsOnCallingThread<ExecSpace>(n * rowsPerIndex)) {
      const Details::CallingThreadKernel<ExecSpace> kernel(label, space, false);
      for (Ordinal i = 0; i < n; ++i) body(i);
      return;
    }
  }
  Kokkos::parallel_for(label, indexRange(space, n), body);
}

/// result = the reduction over i in [0, n) of what body(i, partial) adds to partial,
/// started from Kokkos::reduction_identity<Value>::sum() (a sum, or Compat::Sums /
/// Compat::Maxima). Short host loops run on the calling thread as forEachIndex's do.
template <class ExecSpace, class Body, class Value>
void reduceOverIndex(const std::string& label, const ExecSpace& space, Ordinal n,
                     const Body& body, Value& result, Ordinal rowsPerIndex = 1) {
  if constexpr (Details::forksHostThreads<ExecSpace>()) {
    if (Details::runsOnCallingThread<ExecSpace>(n * rowsPerIndex)) {
      const Details::CallingThreadKernel<ExecSpace> kernel(label, space, true);
      Value partial = Kokkos::reduction_identity<Value>::sum();
      for (Ordinal i = 0; i < n; ++i) body(i, partial);
      result = partial;
      return;
    }
  }
  Kokkos::parallel_reduce(label, indexRange(space, n), body, result);
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

/// result() = the reduction over i in [0, n) of what body(i, partial) adds to partial
/// (Kokkos::Sum: a number, Compat::Sums), result a View in ExecSpace's memory that a
/// device fills without waiting. Short host loops run on the calling thread as
/// forEachIndex's do.
template <class ExecSpace, class Body, class Value>
void reduceIntoView(const std::string& label, const ExecSpace& space, Ordinal n,
                    const Body& body,
                    const Kokkos::View<Value, typename ExecSpace::memory_space>& result) {
  if constexpr (Details::forksHostThreads<ExecSpace>()) {
    if (Details::runsOnCallingThread<ExecSpace>(n)) {
      const Details::CallingThreadKernel<ExecSpace> kernel(label, space, true);
      Value partial = Kokkos::reduction_identity<Value>::sum();
      for (Ordinal i = 0; i < n; ++i) body(i, partial);
      result() = partial;
      return;
    }
  }
  Kokkos::parallel_reduce(label, indexRange(space, n), body,
                          Kokkos::Sum<Value, typename ExecSpace::memory_space>(result));
}

/// Sum over i in [0, n) of what body(i, partial) adds to partial.
template <class ExecSpace, class Body>
Real sumOverIndex(const std::string& label, const ExecSpace& space, Ordinal n,
                  const Body& body) {
  Real sum = 0;
  reduceOverIndex(label, space, n, body, sum);
  return sum;
}

}  // namespace kfvm

#endif
