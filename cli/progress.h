// Progress reporting for verbs that run many jobs (sweep, check): a one-line bar with counts and
// ETA, redrawn in place when the stream is a terminal; otherwise one plain line per finished job,
// so logs (Slurm, CI) stay readable.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>

namespace nicsim {

class Progress {
 public:
  /// `total` jobs will run; `tty` selects the redrawn bar (use is_tty(stream)).
  Progress(std::FILE* stream, size_t total, bool tty);
  /// A job ended: `ok` or not, its label and duration (s), and an optional note (first error line).
  void job_done(bool ok, const std::string& label, double seconds, const std::string& note = "");
  /// Redraw the bar (tty only) so the ETA stays current between completions.
  void tick();
  /// Clear the bar (tty only) before the caller prints its summary.
  void finish();
  /// The bar text for `done` of `total`, with ETA from the elapsed time `elapsed_s`.
  static std::string bar(size_t done, size_t total, size_t failed, double elapsed_s, int width = 30);

  static bool is_tty(std::FILE* stream);

 private:
  std::FILE* out_;
  size_t total_, done_ = 0, failed_ = 0;
  bool tty_;
  std::chrono::steady_clock::time_point start_;
  double elapsed() const;
};

struct ExecOptions;  // cli/executor.h

/// ExecOptions (cli/executor.h) running `jobs` at a time until `stop` turns true, each finished or
/// failed job and each tick reported to `progress` (check, report, explain --what-if).
ExecOptions progress_exec_options(Progress& progress, unsigned jobs, const std::atomic<bool>* stop);

/// A verb's last step: `body` called with the stop flag of an InterruptGuard (cli/executor.h) alive
/// for its duration; an exception it throws is printed as "nicsim WHAT: why" on stderr, exit 1.
int run_interruptible(const std::string& what, const std::function<int(const std::atomic<bool>* stop)>& body);

}  // namespace nicsim
