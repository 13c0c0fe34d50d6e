#ifndef KFVM_COEFFICIENT_CHECKS_HPP
#define KFVM_COEFFICIENT_CHECKS_HPP

#include <kfvm_Coefficient.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_ForEach.hpp>
#include <kfvm_KokkosCompat.hpp>

#include <cmath>

namespace kfvm::Details {

/// The first index whose value is not finite (or negative, with nonNegative). A named
/// functor, not a KOKKOS_LAMBDA: this header is included by several translation units
/// (see kfvm_Blas1.hpp).
template <class ExecSpace>
struct FirstInvalidValue {
  DeviceView<const Real*, ExecSpace> values;
  bool nonNegative;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i, Ordinal& first) const {
    const Real v = values(i);
    const bool bad = !Compat::isfinite(v) || (nonNegative && v < 0);
    if (bad && i < first) first = i;
  }
};

/// Throws naming the first entry of a coefficient that is not finite, or is negative
/// where it must not be (role: "diffusion", "transient", ...; where: "cell" or "face").
template <class ExecSpace>
void requireValidCoefficient(const Coefficient<ExecSpace>& coefficient, const char* role,
                             const char* where, bool nonNegative) {
  if (!coefficient.isField()) {
    require(std::isfinite(coefficient.constant) &&
                (!nonNegative || coefficient.constant >= 0),
            role, " coefficient must be finite", nonNegative ? " and >= 0" : "", ", got ",
            coefficient.constant);
    return;
  }
  auto values = coefficient.values;
  const Ordinal n = Ordinal(values.extent(0));
  Ordinal firstBad = n;
  Kokkos::parallel_reduce("kfvm::Coefficient::validate", indexRange(ExecSpace(), n),
                          FirstInvalidValue<ExecSpace>{values, nonNegative},
                          Kokkos::Min<Ordinal>(firstBad));
  if (firstBad < n) {
    Real value = 0;
    Kokkos::deep_copy(value, Kokkos::subview(values, firstBad));
    fail(role, " coefficient at ", where, " ", firstBad, " is ", value,
         " (must be finite", nonNegative ? " and >= 0)" : ")");
  }
}

}  // namespace kfvm::Details

#endif
