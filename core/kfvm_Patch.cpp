#include <kfvm_Error.hpp>
#include <kfvm_Patch.hpp>

namespace kfvm {

namespace {
constexpr std::array<const char*, numPatches> patchNames = {"left", "right", "bottom",
                                                            "top",  "back",  "front"};
}

std::string patchName(Patch patch) {
  return patchNames.at(static_cast<int>(patch));
}

Patch patchFromName(const std::string& name) {
  for (Patch patch : allPatches) {
    if (name == patchNames[static_cast<int>(patch)]) return patch;
  }
  fail("unknown boundary patch '", name,
       "' (expected left, right, bottom, top, back or front)");
}

}  // namespace kfvm
