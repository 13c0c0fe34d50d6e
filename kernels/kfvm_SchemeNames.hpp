#ifndef KFVM_SCHEME_NAMES_HPP
#define KFVM_SCHEME_NAMES_HPP

// The names of the convection schemes and the explicit-convection options, without
// Kokkos: decks read them in files compiled by the host compiler alone (apps/CMakeLists).
// Their enums and name-to-value functions are in kfvm_Convection.hpp.

#include <string>
#include <vector>

namespace kfvm {

/// "central", "upwind", "power-law", "exponential", "hybrid", "van-leer", "minmod",
/// "superbee" (ConvectionScheme).
std::vector<std::string> convectionSchemeNames();
/// "upwind", "van-leer" (ExplicitConvectionScheme).
std::vector<std::string> explicitConvectionSchemeNames();
/// "cell-values", "dirichlet-values" (ExplicitGradientBoundary).
std::vector<std::string> explicitGradientBoundaryNames();

}  // namespace kfvm

#endif
