#ifndef KFVM_COLLECTIVE_FAILURE_HPP
#define KFVM_COLLECTIVE_FAILURE_HPP

// A failure on one MPI rank made an error on every rank, so that no rank waits forever
// in the next collective call: what kfvm's collective writers and readers (parallel VTK,
// distributed checkpoints, kfvm-mpi-bench's output) use after each step that can fail.

#include <kfvm_Error.hpp>

#include <mpi.h>

#include <exception>
#include <string>

namespace kfvm {

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
    return error.message();
  } catch (const std::exception& error) {
    const std::string message = error.what();
    return message.empty() ? "an error without a message" : message;
  }
}

}  // namespace Details

}  // namespace kfvm

#endif
