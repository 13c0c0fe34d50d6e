#ifndef KFVM_PARALLEL_VTK_HPP
#define KFVM_PARALLEL_VTK_HPP

#include <kfvm_CartesianGrid.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_Field.hpp>
#include <kfvm_HaloExchange.hpp>

#include <mpi.h>

#include <exception>
#include <string>
#include <vector>

namespace kfvm {

/// Writes distributed cell fields as a ParaView parallel rectilinear grid. Each rank
/// writes the owned cells of its block to `stem_<rank>.vtr`, with the block's global
/// extent and vertex coordinates. Rank 0 writes `stem.pvtr`, which lists every piece
/// with its extent and opens as one grid in ParaView. The fields are in the halo's
/// GhostedBlock layout, as on DistributedSystem::localMesh(); ghost cells are not
/// written. grid is the global grid.
///
/// Collective over the halo's communicator: it returns once every file is complete.
/// Every write is checked (kfvm_DurableFile.hpp). Each rank writes its piece to a
/// temporary; the pieces replace the old ones only once every rank has written its own,
/// and rank 0 then replaces the .pvtr. When any rank fails, every rank throws
/// kfvm::Error: the failing rank's message names the path and the reason, the others'
/// say that another rank failed and repeat its message; the files of an earlier output
/// under the same stem are left as they were, and no temporary is left.
template <class ExecSpace>
void writeParallelVtk(const std::string& stem, const CartesianGrid& grid,
                      const HaloExchange<ExecSpace>& halo,
                      const std::vector<const CellField<ExecSpace>*>& fields,
                      double time);

namespace Details {

/// For kfvm's collective writers and readers (parallel VTK, distributed checkpoints):
/// every rank of comm calls it at the same point with its failure ("" when it
/// succeeded). Unless every rank succeeded, every rank throws kfvm::Error: a failing
/// rank with its own message, the others with what + ": another rank (r) failed: " and
/// the message of r, the lowest failing rank. So no rank is left waiting in the next
/// collective call.
void agreeOnFailure(MPI_Comm comm, const std::string& failure, const std::string& what);

/// body()'s failure as a message ("" when it succeeded): a kfvm::Error's without the
/// "kfvm: " prefix, or another std::exception's.
template <class Body>
std::string failureOf(Body&& body) {
  try {
    body();
    return {};
  } catch (const Error& error) {
    const std::string message = error.what();
    return message.compare(0, 6, "kfvm: ") == 0 ? message.substr(6) : message;
  } catch (const std::exception& error) {
    const std::string message = error.what();
    return message.empty() ? "an error without a message" : message;
  }
}

}  // namespace Details

}  // namespace kfvm

#endif
