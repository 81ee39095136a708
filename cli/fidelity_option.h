// `--fidelity exact|fast` of nicsim run, sweep, explain and check (docs/fast-mode.md):
// the same as `--set fidelity=VALUE` (the scenario's top-level key, platforms/scenario.h), given
// after the other overrides so it wins over them and over the file.
#pragma once
#include "core/fidelity.h"
#include <boost/program_options.hpp>
#include <string>
#include <vector>

namespace nicsim {

/// The option's help text.
inline constexpr const char* kFidelityOptionHelp =
    "exact (default) or fast: coarser DMA, no FCS or TCP payload checksum, for bulk runs and sweeps; results within the "
    "deviations docs/fast-mode.md publishes (same as --set fidelity=VALUE)";

/// The line a text report of a fast run ends (run) or starts (explain, after "A: "/"B: ") with.
inline constexpr const char* kFastFidelityNote =
    "fidelity fast: coarser DMA, no FCS or TCP payload checksum; deviations from exact in docs/fast-mode.md";

/// Adds "--fidelity VALUE" to `opts`.
inline void add_fidelity_option(boost::program_options::options_description& opts) {
  opts.add_options()("fidelity", boost::program_options::value<std::string>(), kFidelityOptionHelp);
}

/// When --fidelity was given: appends "fidelity=VALUE" to `sets` and returns "" (VALUE accepted),
/// or returns why VALUE is not a fidelity ("--fidelity must be exact or fast, not 'quick'").
inline std::string apply_fidelity_option(const boost::program_options::variables_map& vm,
                                         std::vector<std::string>& sets) {
  if (!vm.count("fidelity")) return "";
  const std::string v = vm["fidelity"].as<std::string>();
  if (!parse_fidelity(v)) return "--fidelity must be " + std::string(kFidelityValues) + ", not '" + v + "'";
  sets.push_back("fidelity=\"" + v + "\"");
  return "";
}

/// Adds "--calibration NAME" to `opts` (docs/calibration.md).
inline void add_calibration_option(boost::program_options::options_description& opts) {
  opts.add_options()("calibration", boost::program_options::value<std::string>(),
                     "NAME: use the fit calibrations/NAME.fit.toml (found beside the scenario, above it or in the current "
                     "directory): its values become the platform's, a --set still wins (same as --set calibration=NAME)");
}

/// When --calibration was given: appends "calibration=\"NAME\"" to `sets` and returns "", or returns
/// why NAME cannot name a calibration.
inline std::string apply_calibration_option(const boost::program_options::variables_map& vm,
                                            std::vector<std::string>& sets) {
  if (!vm.count("calibration")) return "";
  const std::string v = vm["calibration"].as<std::string>();
  if (v.empty() || v.find_first_of("/\\\"") != std::string::npos)
    return "--calibration takes NAME, the stem of calibrations/NAME.toml, not '" + v + "'";
  sets.push_back("calibration=\"" + v + "\"");
  return "";
}

}  // namespace nicsim
