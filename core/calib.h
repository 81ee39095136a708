// Calibratable estimates (`nicsim calibrate`, docs/calibration.md): a schema entry whose source is
// an estimate may declare hard bounds a fit may not leave, each with its physical argument (a
// datasheet limit, a bus width, a neighbouring part's documented value), and the mechanism the
// value sets. The declaration sits beside the entry in its schema:
//
//   calibratable(real_param("hub_crossing_ns", 100.0, 50.0, 150.0, "ns", "...", "estimate: ..."),
//                50.0, "why not less", 150.0, "why not more", "what it sets")
//
// and is looked up by the entry (calib_bounds), so ParamSpec itself stays as it is.
#pragma once
#include "core/params.h"
#include <string>

namespace nicsim {

struct CalibBounds {
  double lo = 0, hi = 0;       ///< in the parameter's unit; lo <= default <= hi, inside [min, max]
  std::string lo_why, hi_why;  ///< the physical argument for each bound
  std::string mechanism;       ///< what the value sets in the model (named in a failed fit's text)
};

/// `spec` (an Int or Real estimate), declared calibratable within [lo, hi]; returns it unchanged.
/// Throws std::logic_error (a programming error in a schema) when its source does not start with
/// "estimate" (sourced constants are never fitted), when a bound's argument or the mechanism is
/// empty, or when lo < hi, lo <= default <= hi inside [min, max] does not hold.
ParamSpec calibratable(ParamSpec spec, double lo, std::string lo_why, double hi, std::string hi_why,
                       std::string mechanism);

/// The bounds declared for `spec` (the same name, source and doc), or nullptr when it is not
/// calibratable.
const CalibBounds* calib_bounds(const ParamSpec& spec);

}  // namespace nicsim
