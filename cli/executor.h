// Runs many `nicsim run` jobs in parallel, for `sweep` and `check`.
//
// The executor is the I/O layer shared by both verbs: it takes a list of jobs and a Runner callback
// (the real one spawns `nicsim run` as a child process; tests inject a fake), calls the runner from
// `jobs` worker threads, and classifies each outcome. A job succeeded when the runner reports exit
// code 0 AND the job's out_dir holds result.json (written atomically by `nicsim run`, so a killed
// child never leaves a half result). A failed job gets out_dir/error.json (exit code, stderr tail),
// also written atomically; a job interrupted by a stop request gets nothing, so it is simply rerun.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace nicsim {

/// One `nicsim run` invocation.
struct RunJob {
  std::string label;                ///< short name for progress lines (point id, scenario path)
  std::filesystem::path scenario;   ///< scenario TOML file
  std::vector<std::string> sets;    ///< `--set` arguments, each "key=value"
  std::optional<uint64_t> seed;     ///< `--seed N` when set
  std::filesystem::path out_dir;    ///< `--out DIR`: where result.json must appear
  std::vector<std::string> extra_args;  ///< further `nicsim run` arguments (e.g. "--trace", FILE)
};

/// What a runner reports for one job.
struct RunOutcome {
  int exit_code = 0;          ///< child's exit status; 128+signal when it was killed by a signal
  std::string stderr_tail;    ///< last lines of the child's stderr (for error.json and messages)
};

/// Runs one job to completion (blocking). Called concurrently from several threads: must be
/// thread-safe. Must write nothing but files inside job.out_dir.
using Runner = std::function<RunOutcome(const RunJob&)>;

enum class JobStatus {
  Ok,           ///< exit 0 and result.json present
  Failed,       ///< error.json written
  Interrupted,  ///< a stop was requested while it ran and it did not finish: nothing recorded
  NotStarted,   ///< a stop was requested before it started
};

const char* job_status_name(JobStatus s);

struct JobResult {
  size_t job = 0;  ///< index into the jobs vector
  JobStatus status = JobStatus::NotStarted;
  int exit_code = 0;
  std::string stderr_tail;
  double seconds = 0;  ///< wall-clock duration of the run
};

struct ExecOptions {
  unsigned jobs = 1;                          ///< worker threads (>= 1)
  const std::atomic<bool>* stop = nullptr;    ///< when it turns true, no new job starts
  /// Called (serialised, from one thread at a time) after each job ends, with counts so far.
  std::function<void(const RunJob&, const JobResult&, size_t done, size_t total)> on_done;
  /// Called about once per `tick` while jobs run (serialised with on_done); for progress/ETA.
  std::function<void(size_t done, size_t total)> on_tick;
  std::chrono::milliseconds tick{1000};
};

/// Runs every job (at most opts.jobs at a time) and returns one JobResult per job, in job order.
/// Before a job starts, a stale out_dir/result.json and out_dir/error.json are removed. Throws
/// std::runtime_error only if error.json cannot be written.
std::vector<JobResult> run_jobs(const std::vector<RunJob>& jobs, const Runner& runner, const ExecOptions& opts);

/// Write out_dir/error.json atomically: {"label", "exit_code", "stderr_tail"}.
void write_error_json(const std::filesystem::path& out_dir, const std::string& label, int exit_code,
                      const std::string& stderr_tail);

/// The last `max_lines` lines (at most `max_chars` characters) of `text`.
std::string tail_of(const std::string& text, size_t max_lines = 20, size_t max_chars = 4000);

/// The argv (without argv[0]) of `nicsim run` for `job`:
/// run SCENARIO --out DIR [--seed N] [--set k=v ...].
std::vector<std::string> run_arguments(const RunJob& job);

/// A Runner that spawns `binary run ...` (see run_arguments) as a child process, with stdout in
/// out_dir/run.out and stderr in out_dir/run.err, waits for it, and reports its exit status and
/// stderr tail. The child's pid is registered so that a SIGINT/SIGTERM caught by an
/// InterruptGuard kills it.
Runner process_runner(std::filesystem::path binary);

/// The environment variable process_runner sets in each child to its own pid.
inline constexpr const char* kDieWithParentEnv = "NICSIM_DIE_WITH_PARENT";

/// Called first thing by every nicsim process: when kDieWithParentEnv names the parent's pid
/// (a child of process_runner), remove it from the environment and ask the kernel for SIGKILL when
/// the parent dies (prctl PR_SET_PDEATHSIG), so a sweep, check or explain killed by SIGKILL leaves
/// no `nicsim run` behind to write into its directories. Exits at once (128+9) when the parent is
/// already gone. The signal follows the parent's spawning thread, which waits for the child.
void die_with_parent_from_env();

/// Path of the running executable (readlink /proc/self/exe). Throws std::runtime_error.
std::filesystem::path self_executable();

/// Catches SIGINT and SIGTERM while alive: sets flag() and sends SIGTERM to every child spawned
/// by process_runner (SIGKILL on a second signal), so the verb can stop launching, collect what
/// finished, and exit. Restores
/// the previous handlers on destruction. At most one guard may be alive at a time.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  /// True once a signal arrived (while a guard is alive; reset when it dies).
  static const std::atomic<bool>& flag();
  /// The signal number caught (0 = none).
  static int signal_caught();
};

/// Format seconds as "42s", "3m07s" or "2h05m".
std::string format_duration(double seconds);

}  // namespace nicsim
