// `nicsim calibrate`: fit a platform's declared estimates to a training set of references and
// report the error on the references the fit never saw (docs/calibration.md). The verb in
// cli/calibrate.cpp parses the command line and calls run_calibrate with the real process runner;
// tests call it with process_runner(NICSIM_BIN).
#pragma once
#include "cli/executor.h"
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

namespace nicsim {

struct CalibrateOptions {
  std::filesystem::path file;                  ///< calibrations/NAME.toml
  std::optional<std::filesystem::path> out;    ///< runs kept here; default: beside the file, NAME.runs/
  unsigned jobs = 1;                           ///< `nicsim run` children at a time
  size_t max_evals = 40;                       ///< objective evaluations of the main fit (global + polish)
  std::filesystem::path binary;                ///< the nicsim the runner starts (hashed into every run's key)
  const std::atomic<bool>* stop = nullptr;
  std::FILE* out_text = stdout;                ///< the sensitivity table and the result
  std::FILE* log = stderr;                     ///< progress and errors
  bool tty = false;                            ///< one progress line redrawn in place
};

/// What a calibration ran (for tests): runs started and runs found finished in the out directory.
struct CalibrateStats {
  size_t runs_started = 0, runs_reused = 0, evaluations = 0;
};

/// Load the calibration file, refuse what cannot be fitted (exit 2: a reference in both sets, more
/// parameters than a third of the training figures, a parameter that moves no training figure or two
/// that move the same figures in the same proportion), fit, and write NAME.fit.toml beside the file.
/// Returns 0 when the fit is good, 1 when a value ended within 5 % of a bound (the fit file is written,
/// marked failed) or a run failed, 2 on a refusal or bad input, 128+signal when interrupted.
int run_calibrate(const CalibrateOptions& opts, const Runner& runner, CalibrateStats* stats = nullptr);

}  // namespace nicsim
