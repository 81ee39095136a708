// `nicsim sweep` as callable functions (the verb in cli/sweep.cpp parses the command line and
// calls these with the real process runner; tests call them with a fake runner or with
// process_runner(NICSIM_BIN) for end-to-end runs).
#pragma once
#include "cli/executor.h"
#include "cli/sweep_plan.h"
#include <cstdio>
#include <filesystem>
#include <optional>

namespace nicsim {

struct SweepRunOptions {
  SweepPlan plan;
  std::filesystem::path dir;              ///< --out
  std::optional<Shard> shard;             ///< --shard
  unsigned jobs = 1;                      ///< --jobs
  bool plots = true;                      ///< false: --no-plot (plots are never drawn by a shard)
  std::optional<std::filesystem::path> gnuplot;  ///< gnuplot executable; nullopt = not installed
  const std::atomic<bool>* stop = nullptr;       ///< set on SIGINT/SIGTERM
  std::FILE* log = stderr;                ///< progress and messages
  bool tty = false;                       ///< progress bar instead of per-point lines
};

/// Check, before any point runs, that the plan's scenario loads (platforms/scenario.h
/// load_scenario) with the plan's --set; then, axis by axis in command-line order, with each of
/// the axis' representative_values (the axes before it at their first value, so the last check is
/// the first point's full set of overrides). "seed" axes are skipped (parse_vary checked them).
/// Then every point's own combination of non-seed values (rules joining keys, values between an
/// axis' extremes). Throws SweepUsageError with the loader's message (file:line:col or --set, key,
/// did-you-mean), prefixed by the --vary KEY=VALUE that caused it, or by "--vary point K=V K=V ..."
/// for a combination.
void validate_sweep_scenario(const SweepPlan& plan);

/// The --metric names of `plan` that have a number in no "ok" row of `rows` (the rows' result.json
/// files are read from row.found_in), one message each: "--metric 'x' names no metric of
/// result.json (did you mean 'y'?); its metrics: a, b, ..." or "--metric 'x' is not a number in
/// result.json (it is an object)". Empty when every metric has a value somewhere, or when no row
/// is ok (nothing to judge by).
std::vector<std::string> metric_problems(const SweepPlan& plan, const std::vector<PointRow>& rows);

/// As metric_problems for one finished result (DIR/points/<id>/result.json): the --metric names it
/// does not contain. Used after the first finished point to warn early.
std::vector<std::string> metric_problems_in(const SweepPlan& plan, const std::filesystem::path& result_json);

/// Run a sweep: write DIR/sweep-plan.json, run every point of this shard that has no result.json
/// (its point.json written just before it runs), then write DIR/sweep.json and DIR/sweep.csv (all points of the plan,
/// status ok/failed/missing) and, unless sharded or opts.plots is false, the plots. After the first
/// point that finishes ok (or at once, when some point had finished before), a --metric that is
/// not in its result.json gets a warning naming the nearest metric; at the end, a --metric with a
/// number in no finished point is an error. Returns an ExitCode: 0 all points of the shard ok,
/// 1 some failed, 2 a --metric names nothing in any finished result (metric_problems; every output
/// is still written), 128+signal when interrupted (InterruptGuard::signal_caught(), or 130 when
/// opts.stop was set by other means). Throws SweepUsageError (exit 2) for a DIR holding another
/// sweep.
int run_sweep(const SweepRunOptions& opts, const Runner& runner);

/// `--merge IN... --out OUT`: merge_dirs, then write OUT's sweep.json/csv and plots. Returns 0
/// when every point of the plan is ok, 1 when some failed or are missing, 2 when a --metric names
/// nothing in any finished result (metric_problems). Throws SweepUsageError.
int run_merge(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& out, bool plots,
              const std::optional<std::filesystem::path>& gnuplot, std::FILE* log);

}  // namespace nicsim
