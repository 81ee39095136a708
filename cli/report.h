// `nicsim report [DIR ...] --out OUT`: one self-contained HTML page (OUT/index.html) that shows how
// close the model is to the hardware it claims to model. For every scenario with references
// (X.ref.toml) under the given directories it runs the scenario (through `check`'s machinery:
// cli/check.h run_check and the executor, in parallel, reusing finished runs), then writes per
// directory (a seed or system): what the hardware was, the reference vs model table with verdicts
// and explanations, plots of the references against the model (chosen from the metric names: a
// family `NAME.<N>B` over sizes spanning a factor of 4 or more is a log-size line plot, other
// plain metrics are bars grouped by unit), the `explain` gap table between scenarios that answer
// the same question (same workload type and the same referenced metrics), and a summary at the top
// with per directory passes / known misses / fails and the fidelity guard's state (each result's
// metrics and counters against tests/fidelity/baseline under tests/fidelity/tolerances.json,
// core/fidelity_compare.h).
//
// The page has no script and loads nothing: inline CSS and SVG (cli/svg_plot.h). The same results
// give the same bytes except the line `<p class="generated">` (the time it was written; the
// SOURCE_DATE_EPOCH environment variable fixes it, as reproducible builds do).
#pragma once
#include "cli/check.h"
#include "cli/check_refs.h"
#include "platforms/calibration_fit.h"
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace nicsim {

/// One scenario of the page.
struct ReportScenario {
  std::filesystem::path scenario;  ///< the scenario file as found
  std::vector<RefCheck> checks;    ///< its references, checked
  nlohmann::json result;           ///< its result.json (null when the run failed)
  /// Fidelity guard: "ok" (within tolerance of the baseline), "drift" (some value beyond it),
  /// "none" (no baseline for this scenario), "skipped" (run failed, or --set changed the scenario).
  std::string fidelity = "none";
  std::string fidelity_text;       ///< one sentence for the page
};

/// One directory (a seed or a system) of the page, in path order.
struct ReportGroup {
  std::string dir;                       ///< e.g. "scenarios/seed000"
  std::vector<ReportScenario> scenarios;  ///< sorted by path
};

/// A calibration some run of the page used (result.json params.calibration).
struct ReportCalibration {
  std::string fit_file;
  FitFile fit;
};

struct ReportPage {
  std::vector<ReportGroup> groups;
  std::vector<ReportCalibration> calibrations;  ///< shown in their own section when not empty
  std::string generated;  ///< the timestamp line's text ("generated 2026-12-02 19:00:00 UTC by nicsim 0.1.0")
  std::vector<std::string> sets;  ///< --set applied to every run (shown on the page)
};

/// The page (a complete HTML5 document). Deterministic in `page`.
std::string report_html(const ReportPage& page);

/// The fidelity guard's state of one result: compares result.json `result` with
/// ROOT/tests/fidelity/baseline/<path under ROOT/scenarios without .toml>.json, where ROOT is the
/// parent of the nearest ancestor directory of `scenario` named "scenarios", under
/// ROOT/tests/fidelity/tolerances.json. Sets s.fidelity and s.fidelity_text.
void fidelity_state(ReportScenario& s);

struct ReportOptions {
  std::vector<std::filesystem::path> paths = {"scenarios"};  ///< directories or files (find_ref_files)
  std::filesystem::path out;                 ///< OUT: index.html and runs/ (reused on the next report)
  std::vector<std::filesystem::path> reuse;  ///< finished check/sweep directories to take results from
  std::vector<std::string> sets;
  bool fast = false;  ///< only reference files with fast = true
  unsigned jobs = 1;
  const std::atomic<bool>* stop = nullptr;
  std::FILE* log = stderr;
  bool tty = false;
};

/// Run (or reuse) every scenario and write OUT/index.html. Returns 0 when the page is written, 1
/// when it is written but some run failed (its references show ERROR), 2 for a usage problem
/// (no or malformed reference files: nothing is written), 128+signal when interrupted.
int run_report(const ReportOptions& o, const Runner& runner);

}  // namespace nicsim
