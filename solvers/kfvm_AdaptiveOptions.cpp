#include <kfvm_AdaptiveOptions.hpp>
#include <kfvm_Error.hpp>

#include <cmath>
#include <utility>

namespace kfvm {

void AdaptiveOptions::validate() const {
  require(std::isfinite(tolerance) && tolerance >= 0,
          "adaptive stepping: tolerance must be finite and >= 0, got ", tolerance);
  require(std::isfinite(absoluteTolerance) && absoluteTolerance >= 0,
          "adaptive stepping: absolute_tolerance must be finite and >= 0, got ",
          absoluteTolerance);
  require(tolerance > 0 || absoluteTolerance > 0,
          "adaptive stepping: tolerance and absolute_tolerance are both 0; give one");
  require(std::isfinite(dtMin) && dtMin >= 0,
          "adaptive stepping: dt_min must be finite and >= 0, got ", dtMin);
  require(dtMax > 0 && dtMax >= dtMin,
          "adaptive stepping: dt_max must be > 0 and >= ", "dt_min = ", dtMin, ", got ",
          dtMax);
  require(std::isfinite(maxGrowth) && maxGrowth >= 1,
          "adaptive stepping: max_growth must be finite and >= 1, got ", maxGrowth);
  require(minShrink > 0 && minShrink < 1,
          "adaptive stepping: min_shrink must be in (0, 1), got ", minShrink);
  for (const auto& [name, value] :
       {std::pair<const char*, double>{"proportional", proportional},
        {"integral", integral},
        {"derivative", derivative}})
    require(std::isfinite(value) && value >= 0, "adaptive stepping: ", name,
            " must be finite and >= 0, got ", value);
  require(integral > 0 || proportional > 0,
          "adaptive stepping: proportional and integral are both 0: dt would never "
          "change");
  require(maxRejections >= 1, "adaptive stepping: max_rejections must be >= 1, got ",
          maxRejections);
}

}  // namespace kfvm
