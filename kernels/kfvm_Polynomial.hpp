#ifndef KFVM_POLYNOMIAL_HPP
#define KFVM_POLYNOMIAL_HPP

#include <kfvm_Error.hpp>
#include <kfvm_Types.hpp>

#include <cmath>
#include <initializer_list>

namespace kfvm {

/// p(phi) = c0 + c1 phi + ... + c7 phi^7: a coefficient that depends on the solution
/// (FiPy's coeff=1 + phi**2, or the phase-field source phi - phi^3), evaluated on the
/// device at every sweep.
struct Polynomial {
  static constexpr int maxTerms = 8;
  Real coefficients[maxTerms] = {0, 0, 0, 0, 0, 0, 0, 0};
  int terms = 0;

  Polynomial() = default;
  /// Coefficients from the constant term up: Polynomial{1, 0, 1} is 1 + phi^2.
  Polynomial(std::initializer_list<double> values) {
    require(values.size() >= 1 && values.size() <= std::size_t(maxTerms),
            "a Polynomial takes 1 to ", maxTerms, " coefficients, got ", values.size());
    for (double value : values) {
      require(std::isfinite(value), "Polynomial coefficient ", terms,
              " must be finite, got ", value);
      coefficients[terms++] = Real(value);
    }
  }

  KOKKOS_INLINE_FUNCTION Real operator()(Real phi) const {
    Real value = 0;
    for (int k = terms - 1; k >= 0; --k) value = value * phi + coefficients[k];
    return value;
  }

  /// dp/dphi
  KOKKOS_INLINE_FUNCTION Real derivative(Real phi) const {
    Real value = 0;
    for (int k = terms - 1; k >= 1; --k) value = value * phi + k * coefficients[k];
    return value;
  }
};

}  // namespace kfvm

#endif
