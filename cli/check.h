// `nicsim check` as a callable function (the verb in cli/check.cpp parses the command line and calls
// it with the real process runner; tests call it with a fake runner, or with
// process_runner(NICSIM_BIN) for end-to-end checks of real scenarios).
#pragma once
#include "cli/check_refs.h"
#include "cli/executor.h"
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace nicsim {

struct CheckOptions {
  std::vector<std::filesystem::path> paths = {"scenarios"};  ///< files or directories (see find_ref_files)
  std::vector<std::string> sets;                 ///< --set for every run
  bool fast = false;                             ///< only reference files with `fast = true`
  unsigned jobs = 1;
  std::optional<std::filesystem::path> out;      ///< keep runs here (DIR/<n>-<scenario stem>/); default: temp dir, removed
  std::optional<std::filesystem::path> junit;    ///< write JUnit XML here
  const std::atomic<bool>* stop = nullptr;
  std::FILE* table = stdout;                     ///< the result table
  std::FILE* log = stderr;                       ///< progress and errors
  bool tty = false;
  /// Load each scenario with `sets` before running anything; a ScenarioError is exit 2 (the CLI
  /// sets this; test runners with stand-in scenario files leave it off).
  bool validate_scenarios = false;
  /// Run scenarios whose fidelity (file or `sets`) is "fast" (docs/fast-mode.md). Off: such a
  /// scenario is a usage error (exit 2) before anything runs, since references are checked against
  /// the exact model (`nicsim check --allow-fast-fidelity` turns it on).
  bool allow_fast_fidelity = false;
  /// Reuse finished runs instead of running them again (`nicsim report`; resumable): a scenario
  /// whose run directory under `out` already holds a complete result.json (result_complete,
  /// cli/sweep_plan.h), or for which one is found anywhere under a directory of `reuse_from` (a
  /// finished `check --out` or `sweep --out` directory, searched recursively), is not run when that
  /// result's "params" equal the scenario as loaded with `sets` (the same file, values and seed).
  bool reuse = false;
  std::vector<std::filesystem::path> reuse_from;
};

/// One scenario of a check: where its result is, and whether it was reused or run now.
struct CheckRun {
  std::filesystem::path scenario;     ///< the scenario file
  std::filesystem::path result_json;  ///< its result.json (empty when the run failed)
  bool ok = false;                    ///< the run finished (or was reused) with a result
  bool reused = false;                ///< found finished, not run again (CheckOptions::reuse)
  double seconds = 0;                 ///< the run's wall time (0 when reused)
};

/// A complete result.json (result_complete, cli/sweep_plan.h) and its "params".
struct FinishedResult {
  std::filesystem::path result_json;
  nlohmann::json params;
};

/// The complete result.json files under `dirs` (recursively) that have "params", in directory
/// order, each directory's files sorted by path (CheckOptions::reuse takes the first match).
std::vector<FinishedResult> finished_results(const std::vector<std::filesystem::path>& dirs);

/// Run every scenario that has references (one `nicsim run` each, opts.jobs in parallel), compare,
/// print the table, write JUnit. Returns 0 when every reference passes or is a known miss
/// (Verdict::KnownMiss), 1 when one is out of tolerance without known_miss or a run failed, 2 when a reference file is malformed or missing (nothing is run),
/// 128+signal when interrupted. `checks_out`, when given, receives every RefCheck.
/// `runs_out`, when given, receives one CheckRun per scenario, in the order of the reference files.
int run_check(const CheckOptions& opts, const Runner& runner, std::vector<RefCheck>* checks_out = nullptr,
              std::vector<CheckRun>* runs_out = nullptr);

}  // namespace nicsim
