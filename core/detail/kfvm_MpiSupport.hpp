#ifndef KFVM_DETAIL_MPI_SUPPORT_HPP
#define KFVM_DETAIL_MPI_SUPPORT_HPP

// What the halo exchanges share (kfvm_HaloExchange.cpp defines them).

namespace kfvm::Details {

/// Whether the MPI library takes device memory (KFVM_GPU_AWARE_MPI=0/1 decides when
/// set; otherwise Open MPI's MPIX_Query_cuda_support, false elsewhere).
bool gpuAwareMpiAvailable();

/// Throws kfvm::Error naming the MPI call, the rank and MPI's message unless status is
/// MPI_SUCCESS.
void check(int status, const char* what, int rank);

}  // namespace kfvm::Details

#endif
