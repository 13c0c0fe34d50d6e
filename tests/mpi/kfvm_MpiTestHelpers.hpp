#ifndef KFVM_MPI_TEST_HELPERS_HPP
#define KFVM_MPI_TEST_HELPERS_HPP

#include <mpi.h>

namespace kfvm::Test {

inline int worldSize() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

inline int worldRank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

}  // namespace kfvm::Test

#endif
