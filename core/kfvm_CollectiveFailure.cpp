#include <kfvm_CollectiveFailure.hpp>

#include <climits>

namespace kfvm {

namespace Details {

void agreeOnFailure(MPI_Comm comm, const std::string& failure, const std::string& what) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int mine = failure.empty() ? INT_MAX : rank, first = INT_MAX;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == INT_MAX) return;
  int size = int(failure.size());
  MPI_Bcast(&size, 1, MPI_INT, first, comm);
  std::string reason = rank == first ? failure : std::string(std::size_t(size), ' ');
  MPI_Bcast(reason.data(), size, MPI_CHAR, first, comm);
  if (!failure.empty()) throw Error(failure);
  const std::string prefix = what + ": ";  // not twice
  if (reason.compare(0, prefix.size(), prefix) == 0) reason.erase(0, prefix.size());
  fail(what, ": another rank (", first, ") failed: ", reason);
}

}  // namespace Details

}  // namespace kfvm
