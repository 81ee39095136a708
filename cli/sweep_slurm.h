// `nicsim sweep --slurm N`: run a sweep's points as a Slurm job array of N tasks (one --shard
// I/N each, all sharing the sweep directory) and merge them with a dependent job
// (`nicsim sweep --merge DIR --out DIR`). The two batch scripts are written to DIR/slurm/ so they
// can also be read, edited or resubmitted by hand. Rerunning the same command submits only the
// shards that still have unfinished points (a task that was killed, preempted or timed out), and
// the merge again.
#pragma once
#include "cli/sweep_plan.h"
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace nicsim {

struct SlurmSweep {
  std::vector<std::string> sweep_args;   ///< `nicsim sweep` arguments common to every task (no --shard/--jobs)
  std::filesystem::path binary;          ///< the nicsim executable the tasks run (absolute)
  std::filesystem::path dir;             ///< the sweep directory (absolute; shared by the tasks)
  unsigned tasks = 1;                    ///< N: array tasks = shards
  unsigned cpus_per_task = 1;            ///< --jobs of each task (sbatch --cpus-per-task)
  std::vector<std::string> sbatch_args;  ///< extra sbatch options (--sbatch-arg), for both jobs
  bool plots = true;                     ///< false: the merge draws no plots (--no-plot)
  bool wait = false;                     ///< block until the merge job ends (sbatch --wait)
};

/// `s` quoted for a POSIX shell: as is when it holds only safe characters, else in single quotes.
std::string shell_quote(const std::string& s);

/// The array job script (DIR/slurm/sweep.sbatch): #SBATCH --array=0-(N-1), a log per task in
/// DIR/slurm/logs/, and `nicsim sweep ARGS --shard $SLURM_ARRAY_TASK_ID/N --jobs C`.
std::string slurm_array_script(const SlurmSweep& s);
/// The merge job script (DIR/slurm/merge.sbatch): `nicsim sweep --merge DIR --out DIR`.
std::string slurm_merge_script(const SlurmSweep& s);

/// The shards (0..N-1) that still have points without a complete result.json.
std::vector<unsigned> pending_shards(const std::filesystem::path& dir, const std::vector<Point>& all, unsigned tasks);

/// "0-3", "1,4-6": an sbatch --array list of sorted indices.
std::string array_spec(const std::vector<unsigned>& indices);

/// Write both scripts, submit the array (only `pending` indices; none: no array job) and the merge
/// job (after the array, --dependency=afterany), and report the job ids on `log`. With s.wait,
/// waits for the merge and returns its exit code (0 all points ok, 1 some failed or missing);
/// else returns 0 once submitted. Returns 1 with a message when sbatch is missing or refuses.
int submit_slurm_sweep(const SlurmSweep& s, const std::vector<unsigned>& pending, std::FILE* log);

}  // namespace nicsim
