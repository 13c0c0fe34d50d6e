// kfvm's loop wrappers on both sides of smallHostLoop(): a host backend with a thread
// pool runs a short loop on the calling thread and a long one through Kokkos; both must
// visit every index once and reduce to the same values (sums, Compat::Sums,
// Compat::Maxima, into a View), the blocked form (rowsPerIndex) included. On Serial and
// on devices only the Kokkos path runs, and the same expectations hold.
#include "kfvm_TestHelpers.hpp"

#include <kfvm_ForEach.hpp>
#include <kfvm_KokkosCompat.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace kfvm::Test {
namespace {

using Space = TestExecSpace;

/// Adds i + 1 to visits(i): a second visit of an index doubles its entry.
struct Visit {
  Vector<Space> visits;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i) const { visits(i) += Real(i + 1); }
};

/// Visits the rows of block b (block rows each, the last one short).
struct VisitBlock {
  Vector<Space> visits;
  Ordinal block, size;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal b) const {
    for (Ordinal i = b * block; i < (b + 1) * block && i < size; ++i)
      visits(i) += Real(i + 1);
  }
};

struct SumOfIndices {
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i, Real& sum) const { sum += Real(i); }
};

/// Two sums in one pass: of i and of 1.
struct TwoSums {
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i, Compat::Sums<2>& sums) const {
    sums.value[0] += double(i);
    sums.value[1] += 1.0;
  }
};

/// The largest of sin(i) and of -i (the latter is -0 at i = 0).
struct TwoMaxima {
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i, Compat::Maxima<2>& maxima) const {
    const double s = Compat::sin(double(i));
    if (s > maxima.value[0]) maxima.value[0] = s;
    if (-double(i) > maxima.value[1]) maxima.value[1] = -double(i);
  }
};

// Lengths around the boundary (none below 0 when KFVM_SMALL_HOST_LOOP=0 turns it off),
// and well past it.
std::vector<Ordinal> lengths() {
  const Ordinal small = smallHostLoop();
  return {0, 1, std::max(small - 1, Ordinal(0)), small, small + 1, 5 * small + 3};
}

void expectEachIndexOnce(const Vector<Space>& visits, Ordinal n,
                         const std::string& what) {
  const auto got = toHost(visits);
  int wrong = 0;
  for (Ordinal i = 0; i < n; ++i) wrong += got[std::size_t(i)] != double(i + 1);
  EXPECT_EQ(wrong, 0) << what << ": indices visited other than once";
}

TEST(ForEach, ShortAndLongLoopsVisitEveryIndexOnceAndReduceAlike) {
  for (const Ordinal n : lengths()) {
    const std::string what = "n = " + std::to_string(n);
    const Vector<Space> visits("kfvm::Test::visits", std::size_t(n));
    forEachIndex("kfvm::Test::visit", Space(), n, Visit{visits});
    expectEachIndexOnce(visits, n, what);

    // Blocks of 64 rows: the blocked loop counts its rows, not its indices.
    const Ordinal block = 64;
    const Vector<Space> blocked("kfvm::Test::blocked", std::size_t(n));
    forEachIndex("kfvm::Test::visitBlocks", Space(), (n + block - 1) / block,
                 VisitBlock{blocked, block, n}, block);
    expectEachIndexOnce(blocked, n, what + " in blocks");

    const double count = double(n), indexSum = count * (count - 1) / 2;
    EXPECT_NEAR(sumOverIndex("kfvm::Test::sum", Space(), n, SumOfIndices{}), indexSum,
                (sizeof(Real) == sizeof(double) ? 0 : 1e-3) * indexSum)  // float rounds
        << what;
    Compat::Sums<2> sums;
    sums.value[0] = sums.value[1] = -1;  // overwritten, not added to
    reduceOverIndex("kfvm::Test::sums", Space(), n, TwoSums{}, sums);
    EXPECT_EQ(sums.value[0], indexSum) << what;
    EXPECT_EQ(sums.value[1], count) << what;

    // Into a View (a device fills it without waiting), starting from what it held.
    const Kokkos::View<Compat::Sums<2>, Space::memory_space> intoView("kfvm::Test::sums");
    Kokkos::deep_copy(intoView, sums);
    reduceIntoView("kfvm::Test::sumsIntoView", Space(), n, TwoSums{}, intoView);
    const auto fromView =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), intoView);
    EXPECT_EQ(fromView().value[0], indexSum) << what;
    EXPECT_EQ(fromView().value[1], count) << what;

    Compat::Maxima<2> maxima;
    reduceOverIndex("kfvm::Test::maxima", Space(), n, TwoMaxima{}, maxima);
    double largest = -1e308;
    for (Ordinal i = 0; i < n; ++i) largest = std::max(largest, std::sin(double(i)));
    EXPECT_NEAR(maxima.value[0], largest, 1e-15) << what;
    EXPECT_EQ(maxima.value[1], n > 0 ? 0.0 : -1e308) << what;
  }
}

}  // namespace
}  // namespace kfvm::Test
