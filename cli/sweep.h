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

/// Run a sweep: write DIR/sweep-plan.json, run every point of this shard that has no result.json
/// (its point.json written just before it runs), then write DIR/sweep.json and DIR/sweep.csv (all points of the plan,
/// status ok/failed/missing) and, unless sharded or opts.plots is false, the plots. Returns an
/// ExitCode: 0 all points of the shard ok, 1 some failed, 128+signal when interrupted
/// (InterruptGuard::signal_caught(), or 130 when opts.stop was set by other means).
/// Throws SweepUsageError (exit 2) for a DIR holding another sweep.
int run_sweep(const SweepRunOptions& opts, const Runner& runner);

/// `--merge IN... --out OUT`: merge_dirs, then write OUT's sweep.json/csv and plots. Returns 0
/// when every point of the plan is ok, 1 when some failed or are missing. Throws SweepUsageError.
int run_merge(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& out, bool plots,
              const std::optional<std::filesystem::path>& gnuplot, std::FILE* log);

}  // namespace nicsim
