// A calibration file, calibrations/NAME.toml (docs/calibration.md): the platform and profiles it is
// for, the estimates it fits (by their `--set` path, bounds that may only narrow the declared ones),
// the training and the validation references, their cross-validation groups, and the seeds.
//
//   platform = "supermicro-p4dpr-6gm+"
//   kernel_profile = "linux-2.4.20-i386"     # optional: the platform's default
//   cpu_profile = "xeon-prestonia"           # optional
//   seeds = [1, 2]                           # optional: each scenario's own seed
//   [[parameter]]
//   set = "hosts.*.hub_crossing_ns"          # or "hosts.*.nics.*.KEY" for a device/driver estimate
//   bounds = [60.0, 140.0]                   # optional, inside the declared bounds
//   [[train]]
//   ref = "../scenarios/busbench/x.ref.toml" # relative to this file's directory
//   metrics = ["mmio_read_us"]               # optional: only these of the file's references, named
//                                            # as check names them ("m", "m - [other]" for a vs)
//   group = "busbench"                       # optional: default the reference file's directory name
//   short = true                             # optional: run the short variant NAME.toml of each
//                                            # NAME.full.toml the figures run (their own and `vs`)
//   [[validate]]
//   ref = "..."
#pragma once
#include "cli/check_refs.h"
#include "core/calib.h"
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace nicsim {

struct CalibrationParam {
  std::string set;    ///< "hosts.*.KEY" or "hosts.*.nics.*.KEY"
  ParamSpec spec;     ///< the schema entry (declared calibratable, core/calib.h)
  std::string owner;  ///< "platform supermicro-p4dpr-6gm+", "device 82559"
  double lo = 0, hi = 0;  ///< the bounds of this calibration (inside the declared ones)
  double nominal = 0;     ///< the schema default
  bool integer() const { return spec.kind == ParamKind::Int; }
  const CalibBounds& calib() const { return *calib_bounds(spec); }  ///< the declared bounds
  int line = 0;
};

/// A [[train]] or [[validate]] entry: a reference file, optionally narrowed to some metrics.
struct CalibrationRefs {
  std::filesystem::path ref_file;  ///< as resolved (relative to the calibration file's directory)
  std::string ref_text;            ///< as written
  RefFile file;                    ///< parsed; with `short`, its scenario and `vs` paths name the short variants
  std::vector<size_t> selected;    ///< indices into file.refs
  std::string group;
  int line = 0;
};

struct CalibrationFile {
  std::filesystem::path path;
  std::string name;  ///< the file's stem without ".toml"
  std::string description, platform, kernel_profile, cpu_profile;
  std::vector<uint64_t> seeds;  ///< empty: each scenario's own
  std::vector<CalibrationParam> params;
  std::vector<CalibrationRefs> train, validate;
  std::string hash;  ///< content_hash of the file's bytes
};

/// Read and validate a calibration file. Throws RefFileError "FILE:LINE:COL: key 'K': what (did you
/// mean 'x'?)": unknown keys, an unknown platform or profile, a parameter that is not an estimate
/// declared calibratable (a sourced constant is never fitted), bounds outside the declared ones, a
/// missing or malformed reference file, a metric the reference file does not have.
CalibrationFile load_calibration_file(const std::filesystem::path& path);

}  // namespace nicsim
