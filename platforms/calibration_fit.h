// A calibration's fit (calibrations/NAME.fit.toml, written by `nicsim calibrate`, docs/calibration.md)
// and how a scenario uses one: its top-level `calibration = "NAME"` (or `--calibration NAME`) makes
// the fitted values the platform's values for every host on the calibration's platform and
// profiles, where neither the scenario file nor a `--set` gives the key.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <toml++/toml.h>
#include <utility>
#include <vector>


namespace nicsim {

/// One fitted parameter.
struct FitParam {
  std::string set;        ///< the `--set` path the calibration names it by: "hosts.*.hub_crossing_ns"
  bool integer = false;   ///< an integer parameter (the fit is rounded)
  double fitted = 0, nominal = 0;
  double lo = 0, hi = 0;                    ///< the calibration's bounds (may narrow the declared ones)
  double declared_lo = 0, declared_hi = 0;  ///< the schema's bounds (ParamSpec::calib)
  std::string unit, mechanism;
  bool at_bound = false;  ///< within 5 % of the bounds' width from lo or hi: the fit failed
  /// The parameter's key (the last segment of `set`).
  std::string key() const;
};

/// One reference as the fit sees it.
struct FitRef {
  std::string role;       ///< "train" or "validate"
  std::string ref_file;   ///< the .ref.toml, relative to the fit file's directory
  std::string metric;     ///< the reference's metric (a `vs` reference: "METRIC - [OTHER]")
  std::string group;      ///< cross-validation group
  std::string reference;  ///< how check writes the expected value: "28 ±15%", "[60, 130]"
  std::optional<double> simulated;  ///< mean over the calibration's seeds at the fit; none: the run failed
  double error = 0;        ///< signed; relative, or in tolerances (error_in_tolerances)
  bool error_in_tolerances = false;  ///< a difference (`vs`) or absolute reference: error / tolerance
  bool within = false;     ///< within the reference's tolerance (range)
};

/// Errors of one set of references.
struct FitSummary {
  size_t count = 0, within = 0;
  double mean_abs = 0, mean_signed = 0, worst = 0;  ///< worst: the largest |error|, signed
  std::string worst_ref;                            ///< "FILE: METRIC" of the worst
};

/// The leave-one-group-out fit without `group`, and its error on `group`'s references.
struct FitCvGroup {
  std::string group;
  std::vector<double> fitted;  ///< in the order of FitFile::params
  size_t count = 0;
  double mean_abs = 0;
};

struct FitFile {
  std::string name;              ///< NAME (calibrations/NAME.toml)
  std::string platform, kernel_profile, cpu_profile;  ///< profiles: "" = the platform's
  std::string calibration_file;  ///< NAME.toml, beside the fit
  std::string calibration_hash;  ///< content_hash of the calibration file the fit was made from
  std::string nicsim_version, binary_hash;
  bool ok = true;                ///< false: a parameter ended at a bound (the values are not to be used)
  std::string failure;           ///< why it failed, naming the mechanism probably missing
  double objective = 0, nominal_objective = 0;  ///< mean |log(sim/ref)| at the fit and at the nominal values
  size_t evaluations = 0;        ///< objective evaluations of the main fit
  std::vector<uint64_t> seeds;
  std::vector<FitParam> params;
  std::vector<FitRef> refs;
  FitSummary train, validate;
  std::optional<double> cv_mean_abs;  ///< leave-one-group-out error over every training reference
  std::string cv_note;                ///< why there is none ("one group")
  std::vector<FitCvGroup> cv;
  /// Relative change of each training figure when one parameter moves by ±5 % of its bounds' width
  /// around the fit: sensitivity[p][f], figures named by sensitivity_figures[f] ("FILE: METRIC").
  std::vector<std::string> sensitivity_figures;
  std::vector<std::vector<double>> sensitivity;
};

/// The fit file's text (TOML; a header comment says it is written by `nicsim calibrate`).
std::string fit_file_text(const FitFile& f);
/// Parse a fit file's text; `path` names it in errors. Throws std::runtime_error ("PATH: key 'x': ...").
FitFile parse_fit_text(std::string_view text, const std::string& path);
/// Read and parse (see parse_fit_text). Throws std::runtime_error, also when unreadable.
FitFile read_fit_file(const std::filesystem::path& path);

/// "fnv1a64:0123456789abcdef": the FNV-1a 64-bit hash of `bytes`.
std::string content_hash(std::string_view bytes);
/// content_hash of a file's bytes. Throws std::runtime_error when it cannot be read.
std::string file_hash(const std::filesystem::path& path);

/// calibrations/NAME.fit.toml in the directory of `scenario_file` or the nearest ancestor that has
/// it, else in the current directory; nullopt when none exists.
std::optional<std::filesystem::path> find_fit_file(const std::string& name, const std::filesystem::path& scenario_file);

/// A value a calibration gives one host (or NIC) of a scenario.
struct CalibrationTarget {
  std::string key;   ///< full dotted key: "hosts.alpha.hub_crossing_ns", "hosts.beta.nics.eth1.cpusaver_ticks_per_us"
  double value = 0;
  bool integer = false;
};

/// Where `values` (FitParam::set paths "hosts.*.KEY" or "hosts.*.nics.*.KEY" with their values)
/// apply in a scenario's TOML tree `root` (after its `--set`s): every host whose platform is
/// `platform` and whose kernel and CPU profiles (the host's key, else the platform's default) are
/// `kernel_profile` / `cpu_profile` ("" = any), for a NIC key every NIC of such a host whose device
/// or driver has the parameter. A key the tree already gives (the scenario file or a --set) is left
/// alone and listed in `given` instead. `hosts_matched` (optional) receives how many hosts matched.
std::vector<CalibrationTarget> calibration_targets(const toml::table& root, const std::string& platform,
                                                   const std::string& kernel_profile, const std::string& cpu_profile,
                                                   const std::vector<FitParam>& values, std::vector<std::string>* given,
                                                   size_t* hosts_matched = nullptr);

/// A value as `--set` and the fit file write it: an integer without a decimal point, else the
/// shortest text that reads back to the same double.
std::string calibration_value_text(double v, bool integer);

}  // namespace nicsim
