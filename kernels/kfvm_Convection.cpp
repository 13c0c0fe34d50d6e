#include <kfvm_Convection.hpp>
#include <kfvm_Error.hpp>

namespace kfvm {

namespace {

struct SchemeName {
  ConvectionScheme scheme;
  const char* name;
};

constexpr SchemeName schemeNames[] = {{ConvectionScheme::Central, "central"},
                                      {ConvectionScheme::Upwind, "upwind"},
                                      {ConvectionScheme::PowerLaw, "power-law"},
                                      {ConvectionScheme::Exponential, "exponential"},
                                      {ConvectionScheme::Hybrid, "hybrid"},
                                      {ConvectionScheme::VanLeer, "van-leer"},
                                      {ConvectionScheme::Minmod, "minmod"},
                                      {ConvectionScheme::Superbee, "superbee"}};

}  // namespace

std::vector<std::string> convectionSchemeNames() {
  std::vector<std::string> names;
  for (const auto& entry : schemeNames) names.emplace_back(entry.name);
  return names;
}

ConvectionScheme convectionSchemeFromName(const std::string& name) {
  for (const auto& entry : schemeNames)
    if (name == entry.name) return entry.scheme;
  std::string known;
  for (const auto& entry : schemeNames)
    known += std::string(known.empty() ? "" : ", ") + entry.name;
  fail("unknown convection scheme '", name, "' (known: ", known, ")");
}

std::string convectionSchemeName(ConvectionScheme scheme) {
  for (const auto& entry : schemeNames)
    if (scheme == entry.scheme) return entry.name;
  fail("convection scheme ", int(scheme), " has no name");
}

}  // namespace kfvm
