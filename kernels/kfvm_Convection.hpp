#ifndef KFVM_CONVECTION_HPP
#define KFVM_CONVECTION_HPP

#include <kfvm_KokkosCompat.hpp>
#include <kfvm_SchemeNames.hpp>
#include <kfvm_Types.hpp>

#include <string>
#include <vector>

namespace kfvm {

/// Face-value schemes of the ConvectionTerm, with FiPy's definitions.
///
/// The first five give the face value phi_f = alpha phi_U + (1 - alpha) phi_D between the
/// face's owner (phi_U) and neighbour (phi_D) from the face Peclet number P = F / (D A /
/// d), F = (u . n) A the volume flux from owner to neighbour:
///   Central      alpha = 1/2
///   Upwind       alpha = 1 for F > 0, 0 for F < 0, 1/2 for F = 0
///   Exponential  alpha = ((P - 1) e^P + 1) / (P (e^P - 1))  (exact in 1D steady state)
///   Hybrid       alpha = (P - 1) / P for P > 2, -1 / P for P < -2, 1/2 between
///   PowerLaw     Patankar's power law, as FiPy's PowerLawConvectionTerm
/// Without a diffusion term P is infinite: Exponential, Hybrid and PowerLaw become
/// Upwind.
///
/// VanLeer, Minmod and Superbee are TVD schemes: upwind plus a limited correction
/// phi_f = phi_U + psi(r) (phi_D - phi_U) / 2 with r = 2 grad(phi_U) . d_UD / (phi_D -
/// phi_U) - 1 (Darwish and Moukalled; on uniform grids the classic ratio of successive
/// differences). Implicitly, the correction is deferred: the matrix is upwind and the
/// correction, from the latest iterate, goes to the right-hand side; ImplicitStepper
/// sweeps until the nonlinear residual is small.
enum class ConvectionScheme {
  Central,
  Upwind,
  PowerLaw,
  Exponential,
  Hybrid,
  VanLeer,
  Minmod,
  Superbee
};

/// "central", "upwind", "power-law", "exponential", "hybrid", "van-leer", "minmod",
/// "superbee"; throws kfvm::Error naming the text and the known names.
ConvectionScheme convectionSchemeFromName(const std::string& name);
std::string convectionSchemeName(ConvectionScheme scheme);

/// FiPy's explicit convection terms (Equation::explicitConvection).
enum class ExplicitConvectionScheme {
  /// FiPy's ExplicitUpwindConvectionTerm: the upwind cell's previous value.
  Upwind,
  /// FiPy's VanLeerConvectionTerm: the upwind cell's previous value moved along its van
  /// Leer-limited normal gradient by half the cell's depth less the distance the flow
  /// covers in dt, (V - |F| dt) / (2 A) (FiPy's CFL-scaled limiter).
  VanLeer
};

/// The boundary face values the cell gradients of FiPy's VanLeerConvectionTerm read.
enum class ExplicitGradientBoundary {
  /// The value of a Dirichlet face (b = 0), the cell's own value elsewhere: FiPy's
  /// var.old on a variable without hasOld (var itself, with its constraints).
  DirichletValues,
  /// The cell's own value on every boundary face: FiPy's var.old with hasOld=True (a
  /// copy without constraints).
  CellValues
};

/// From the names of kfvm_SchemeNames.hpp; throw kfvm::Error naming the text and the
/// known names.
ExplicitConvectionScheme explicitConvectionSchemeFromName(const std::string& name);
ExplicitGradientBoundary explicitGradientBoundaryFromName(const std::string& name);

KOKKOS_INLINE_FUNCTION bool isTvd(ConvectionScheme scheme) {
  return scheme == ConvectionScheme::VanLeer || scheme == ConvectionScheme::Minmod ||
         scheme == ConvectionScheme::Superbee;
}

/// alpha(P) of a weighted scheme (TVD schemes return the upwind alpha).
KOKKOS_INLINE_FUNCTION Real convectionAlpha(ConvectionScheme scheme, Real P) {
  const Real half = Real(0.5);
  switch (scheme) {
    case ConvectionScheme::Central:
      return half;
    case ConvectionScheme::Exponential: {
      if (Compat::abs(P) < Real(1e-6)) return half + P / 12;  // series, avoids 0/0
      if (P > Real(50)) return (P - 1) / P;  // e^P overflows; exact limit
      if (P < Real(-50)) return -1 / P;
      const Real e = Compat::exp(P);
      return ((P - 1) * e + 1) / (P * (e - 1));
    }
    case ConvectionScheme::Hybrid:
      if (P > 2) return (P - 1) / P;
      if (P < -2) return -1 / P;
      return half;
    case ConvectionScheme::PowerLaw: {
      const Real eps = Real(1e-3);
      if (Compat::abs(P) < eps) return half;
      if (P > 10) return (P - 1) / P;
      if (P < -10) return -1 / P;
      if (P > 0) {
        const Real t = 1 - P / 10, t2 = t * t;
        return ((P - 1) + t2 * t2 * t) / P;
      }
      const Real t = 1 + P / 10, t2 = t * t;
      return (t2 * t2 * t - 1) / P;
    }
    default:  // Upwind and the TVD schemes' implicit part
      return P > 0 ? Real(1) : (P < 0 ? Real(0) : half);
  }
}

/// The TVD limiter psi(r); zero for r <= 0.
KOKKOS_INLINE_FUNCTION Real tvdLimiter(ConvectionScheme scheme, Real r) {
  if (!(r > 0)) return 0;
  switch (scheme) {
    case ConvectionScheme::VanLeer:
      return 2 * r / (1 + r);
    case ConvectionScheme::Minmod:
      return r < 1 ? r : Real(1);
    case ConvectionScheme::Superbee: {
      const Real a = 2 * r < 1 ? 2 * r : Real(1);
      const Real b = r < 2 ? r : Real(2);
      return a > b ? a : b;
    }
    default:
      return 0;
  }
}

}  // namespace kfvm

#endif
