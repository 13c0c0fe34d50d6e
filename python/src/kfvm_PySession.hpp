#ifndef KFVM_PY_SESSION_HPP
#define KFVM_PY_SESSION_HPP

// Kokkos' lifetime in the Python module. Kokkos starts on first use (the first mesh,
// kfvm.info(), ...) or at kfvm.initialize(num_threads=..., device_id=...), and is
// finalized once the last object holding device memory is gone: every such object holds
// a SessionRef, and the module's own reference is dropped at interpreter exit
// (atexit, in kfvm/__init__.py). So Kokkos::finalize never runs while a View lives,
// whatever order Python tears objects down in.

#include <memory>

namespace kfvm::python {

class Session {
 public:
  Session(int numThreads, int deviceId);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  int numThreads() const { return numThreads_; }
  int deviceId() const { return deviceId_; }

 private:
  int numThreads_, deviceId_;
  bool ownsKokkos_ = true;
};

using SessionRef = std::shared_ptr<Session>;

/// The running session; starts Kokkos with the defaults (its own environment variables:
/// OMP_NUM_THREADS, KOKKOS_NUM_THREADS, KOKKOS_DEVICE_ID, ...) when none runs yet.
/// Throws kfvm::Error after release() has finalized Kokkos (it cannot start again).
SessionRef session();

/// Starts Kokkos with these settings (-1: Kokkos' default); throws kfvm::Error naming
/// the running settings when it already runs with other ones.
SessionRef initialize(int numThreads, int deviceId);

/// Drops the module's reference (interpreter exit): Kokkos is finalized now if no
/// object holds device memory, otherwise when the last such object goes.
void release();

bool isRunning();

}  // namespace kfvm::python

#endif
