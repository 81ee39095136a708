#include "cli/progress.h"
#include "cli/executor.h"
#include <fmt/core.h>
#include <unistd.h>

namespace nicsim {

Progress::Progress(std::FILE* stream, size_t total, bool tty)
    : out_(stream), total_(total), tty_(tty), start_(std::chrono::steady_clock::now()) {
  if (tty_ && total_ > 0) tick();
}

bool Progress::is_tty(std::FILE* stream) { return ::isatty(::fileno(stream)) == 1; }

double Progress::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string Progress::bar(size_t done, size_t total, size_t failed, double elapsed_s, int width) {
  double frac = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  int filled = static_cast<int>(frac * width + 1e-9);
  std::string b(static_cast<size_t>(filled), '#');
  b += std::string(static_cast<size_t>(width - filled), '.');
  std::string eta = done == 0 ? "?" : format_duration(elapsed_s / static_cast<double>(done) *
                                                      static_cast<double>(total - done));
  return fmt::format("[{}] {}/{} {:3.0f}%{} elapsed {} ETA {}", b, done, total, frac * 100,
                     failed ? fmt::format(" ({} failed)", failed) : "", format_duration(elapsed_s),
                     done == total ? "0s" : eta);
}

void Progress::job_done(bool ok, const std::string& label, double seconds, const std::string& note) {
  ++done_;
  if (!ok) ++failed_;
  if (tty_) {
    if (!ok) fmt::print(out_, "\r\033[KFAILED {}{}\n", label, note.empty() ? "" : ": " + note);
    tick();
  } else {
    fmt::print(out_, "[{}/{}] {} {} ({}){}\n", done_, total_, ok ? "ok    " : "FAILED", label,
               seconds < 60 ? fmt::format("{:.1f}s", seconds) : format_duration(seconds), note.empty() ? "" : ": " + note);
  }
  std::fflush(out_);
}

void Progress::tick() {
  if (!tty_) return;
  fmt::print(out_, "\r\033[K{}", bar(done_, total_, failed_, elapsed()));
  std::fflush(out_);
}

void Progress::finish() {
  if (tty_ && total_ > 0) fmt::print(out_, "\r\033[K");
  std::fflush(out_);
}

ExecOptions progress_exec_options(Progress& progress, unsigned jobs, const std::atomic<bool>* stop) {
  ExecOptions eo;
  eo.jobs = jobs;
  eo.stop = stop;
  eo.on_done = [&progress](const RunJob& j, const JobResult& r, size_t, size_t) {
    if (r.status == JobStatus::Ok || r.status == JobStatus::Failed)
      progress.job_done(r.status == JobStatus::Ok, j.label, r.seconds,
                        r.status == JobStatus::Failed ? fmt::format("exit {}", r.exit_code) : "");
  };
  eo.on_tick = [&progress](size_t, size_t) { progress.tick(); };
  return eo;
}

int run_interruptible(const std::string& what, const std::function<int(const std::atomic<bool>* stop)>& body) {
  try {
    InterruptGuard guard;
    return body(&InterruptGuard::flag());
  } catch (const std::exception& e) {
    fmt::print(stderr, "nicsim {}: {}\n", what, e.what());
    return 1;  // kExitRunFailed (cli/verbs.h)
  }
}

}  // namespace nicsim
