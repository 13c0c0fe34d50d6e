#include <kfvm_Convection.hpp>
#include <kfvm_Error.hpp>

namespace kfvm {

namespace {

template <class Enum>
struct NameOf {
  Enum value;
  const char* name;
};

constexpr NameOf<ConvectionScheme> schemeNames[] = {
    {ConvectionScheme::Central, "central"},
    {ConvectionScheme::Upwind, "upwind"},
    {ConvectionScheme::PowerLaw, "power-law"},
    {ConvectionScheme::Exponential, "exponential"},
    {ConvectionScheme::Hybrid, "hybrid"},
    {ConvectionScheme::VanLeer, "van-leer"},
    {ConvectionScheme::Minmod, "minmod"},
    {ConvectionScheme::Superbee, "superbee"}};
constexpr NameOf<ExplicitConvectionScheme> explicitSchemeNames[] = {
    {ExplicitConvectionScheme::Upwind, "upwind"},
    {ExplicitConvectionScheme::VanLeer, "van-leer"}};
constexpr NameOf<ExplicitGradientBoundary> gradientBoundaryNames[] = {
    {ExplicitGradientBoundary::CellValues, "cell-values"},
    {ExplicitGradientBoundary::DirichletValues, "dirichlet-values"}};

template <class Enum, std::size_t N>
std::vector<std::string> namesOf(const NameOf<Enum> (&table)[N]) {
  std::vector<std::string> names;
  for (const auto& entry : table) names.emplace_back(entry.name);
  return names;
}

template <class Enum, std::size_t N>
Enum fromName(const NameOf<Enum> (&table)[N], const std::string& name, const char* what) {
  for (const auto& entry : table)
    if (name == entry.name) return entry.value;
  std::string known;
  for (const auto& entry : table)
    known += std::string(known.empty() ? "" : ", ") + entry.name;
  fail("unknown ", what, " '", name, "' (known: ", known, ")");
}

}  // namespace

std::vector<std::string> convectionSchemeNames() {
  return namesOf(schemeNames);
}

ConvectionScheme convectionSchemeFromName(const std::string& name) {
  return fromName(schemeNames, name, "convection scheme");
}

std::vector<std::string> explicitConvectionSchemeNames() {
  return namesOf(explicitSchemeNames);
}

ExplicitConvectionScheme explicitConvectionSchemeFromName(const std::string& name) {
  return fromName(explicitSchemeNames, name, "explicit convection scheme");
}

std::vector<std::string> explicitGradientBoundaryNames() {
  return namesOf(gradientBoundaryNames);
}

ExplicitGradientBoundary explicitGradientBoundaryFromName(const std::string& name) {
  return fromName(gradientBoundaryNames, name, "explicit gradient boundary");
}

std::string convectionSchemeName(ConvectionScheme scheme) {
  for (const auto& entry : schemeNames)
    if (scheme == entry.value) return entry.name;
  fail("convection scheme ", int(scheme), " has no name");
}

}  // namespace kfvm
