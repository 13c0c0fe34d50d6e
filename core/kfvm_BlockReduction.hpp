#ifndef KFVM_BLOCK_REDUCTION_HPP
#define KFVM_BLOCK_REDUCTION_HPP

// A sum over [0, n) in two passes with its partial sums allocated once: the stencil
// product with its dot (a CG iteration's) on GPUs, where each index is a chunk of cells.

#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_Types.hpp>

#include <Kokkos_Core.hpp>

#include <string>

namespace kfvm {

namespace Details {

/// Pass 1: each team of blockSize consecutive indices, one index a thread, sums what
/// body adds into partials(team).
template <class ExecSpace, class Value, class Body>
struct BlockPartialSums {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  Ordinal n;
  Body body;
  Kokkos::View<Value*, typename ExecSpace::memory_space> partials;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const Ordinal first = Ordinal(team.league_rank()) * team.team_size();
    Value sum;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, team.team_size()),
        [&](int t, Value& partial) {
          if (first + t < n) body(first + t, partial);
        },
        sum);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { partials(team.league_rank()) = sum; });
  }
};

/// Pass 2: the sum of the partials.
template <class ExecSpace, class Value>
struct SumOfPartials {
  Kokkos::View<Value*, typename ExecSpace::memory_space> partials;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal b, Value& sum) const {
    sum += partials(b);
  }
};

}  // namespace Details

/// Sums what body(i, partial) adds to partial (a Value: double, Compat::Sums<N>) over
/// i in [0, n) into a View in device memory, without waiting.
///
/// On a GPU every index is a thread of its own, in blocks of 128 consecutive indices as
/// forEachIndex runs them; each block writes its sum, and a second, small reduction adds
/// the blocks' sums. Kokkos' range reduction instead launches only as many threads as
/// the device holds at once and loops each over several indices, one after another.
/// It pays for light work an index (the stencil product with its dot); where an index
/// carries much work (CG's update with its three sums) the range reduction is faster, so
/// that one stays a range reduction (figures in perf/RESULTS.md). The partial sums are
/// allocated here, once per size: no allocation in a solve. Host spaces take the range
/// reduction (and allocate nothing).
template <class Value, class ExecSpace>
class BlockReduction {
 public:
  static constexpr int blockSize = 128;
  static constexpr bool onHost =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                 typename ExecSpace::memory_space>::accessible;

  BlockReduction() = default;
  /// Partial sums for up to n indices, labelled label.
  BlockReduction(const std::string& label, Ordinal n) {
    if (!onHost)
      partials_ = Kokkos::View<Value*, typename ExecSpace::memory_space>(
          label, std::size_t((n + blockSize - 1) / blockSize));
  }

  /// The sum over [0, n) of body into result; n at most the constructor's.
  template <class Body>
  void sum(const std::string& label, const ExecSpace& space, Ordinal n, const Body& body,
           const Kokkos::View<Value, typename ExecSpace::memory_space>& result) const {
    using Sum = Kokkos::Sum<Value, typename ExecSpace::memory_space>;
    if constexpr (onHost) {
      reduceIntoView(label, space, n, body, result);
    } else {
      const Ordinal blocks = (n + blockSize - 1) / blockSize;
      require(std::size_t(blocks) <= partials_.extent(0), label, ": ", n,
              " indices, more than the ", partials_.extent(0) * blockSize,
              " the block sums were made for");
      // A few bytes of team scratch: Kokkos 4.6's CUDA team launch allocates its
      // (level 1) team scratch on every launch while that is 0 bytes, and once when
      // it is not (measured: the no-allocation tests failed without this).
      Kokkos::parallel_for(
          label,
          Kokkos::TeamPolicy<ExecSpace>(space, int(blocks), blockSize)
              .set_scratch_size(1, Kokkos::PerTeam(8)),
          Details::BlockPartialSums<ExecSpace, Value, Body>{n, body, partials_});
      Kokkos::parallel_reduce(label + "::blocks", indexRange(space, blocks),
                              Details::SumOfPartials<ExecSpace, Value>{partials_},
                              Sum(result));
    }
  }

 private:
  Kokkos::View<Value*, typename ExecSpace::memory_space> partials_;
};

}  // namespace kfvm

#endif
