#include "cli/executor.h"
#include "core/results.h"
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fmt/core.h>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <spawn.h>
#include <sstream>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace nicsim {
namespace fs = std::filesystem;

const char* job_status_name(JobStatus s) {
  switch (s) {
    case JobStatus::Ok: return "ok";
    case JobStatus::Failed: return "failed";
    case JobStatus::Interrupted: return "interrupted";
    case JobStatus::NotStarted: return "not started";
  }
  return "?";
}

std::string tail_of(const std::string& text, size_t max_lines, size_t max_chars) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  size_t pos = t.size();
  size_t lines = 0;
  while (pos > 0) {
    size_t nl = t.rfind('\n', pos - 1);
    ++lines;
    if (nl == std::string::npos) { pos = 0; break; }
    if (lines == max_lines) { pos = nl + 1; break; }
    pos = nl;
  }
  std::string out = t.substr(pos);
  if (out.size() > max_chars) out = "..." + out.substr(out.size() - max_chars);
  return out;
}

void write_error_json(const fs::path& out_dir, const std::string& label, int exit_code,
                      const std::string& stderr_tail) {
  nlohmann::json j = {{"label", label}, {"exit_code", exit_code}, {"stderr_tail", stderr_tail}};
  write_json_atomic(out_dir / "error.json", j);
}

std::string format_duration(double s) {
  if (s < 0) s = 0;
  long t = static_cast<long>(s + 0.5);
  if (t < 60) return fmt::format("{}s", t);
  if (t < 3600) return fmt::format("{}m{:02}s", t / 60, t % 60);
  return fmt::format("{}h{:02}m", t / 3600, (t % 3600) / 60);
}

/// How long a job whose child died of SIGINT/SIGTERM waits for the stop flag before it counts as
/// failed (the group's Ctrl-C reaches the child and this process at the same moment, but either
/// may act first).
constexpr std::chrono::milliseconds kStopGrace{2000};

std::vector<JobResult> run_jobs(const std::vector<RunJob>& jobs, const Runner& runner, const ExecOptions& opts) {
  std::vector<JobResult> results(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) results[i].job = i;
  if (jobs.empty()) return results;

  auto stopped = [&] { return opts.stop && opts.stop->load(); };
  // Ctrl-C at a terminal sends SIGINT to the whole process group: a child can die of it (exit 130)
  // and its waitpid return here before this process' own handler has set the stop flag. A child
  // killed by SIGINT or SIGTERM is therefore given a moment for the stop to arrive before it counts
  // as failed (a signal from elsewhere, with no stop, still fails it).
  auto killed_by_interrupt = [](int code) { return code == 128 + SIGINT || code == 128 + SIGTERM; };
  auto stop_follows = [&] {
    if (!opts.stop) return false;
    const auto until = std::chrono::steady_clock::now() + kStopGrace;
    while (!stopped() && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return stopped();
  };
  std::mutex mu;  // serialises callbacks and guards `done`
  std::condition_variable cv;
  size_t next = 0, done = 0, finished_workers = 0;
  std::exception_ptr first_error;

  auto worker = [&] {
    for (;;) {
      size_t i;
      {
        std::lock_guard lk(mu);
        if (next >= jobs.size()) break;
        i = next++;
      }
      const RunJob& job = jobs[i];
      JobResult& r = results[i];
      if (stopped()) {
        r.status = JobStatus::NotStarted;
        continue;
      }
      try {
        std::error_code ec;
        fs::create_directories(job.out_dir, ec);
        fs::remove(job.out_dir / "result.json", ec);
        fs::remove(job.out_dir / "error.json", ec);
        auto t0 = std::chrono::steady_clock::now();
        RunOutcome o;
        try {
          o = runner(job);
        } catch (const std::exception& e) {
          o.exit_code = -1;
          o.stderr_tail = std::string("runner error: ") + e.what();
        }
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        r.exit_code = o.exit_code;
        r.stderr_tail = o.stderr_tail;
        bool has_result = fs::exists(job.out_dir / "result.json");
        if (o.exit_code == 0 && has_result) {
          r.status = JobStatus::Ok;
        } else if (stopped() || (killed_by_interrupt(o.exit_code) && stop_follows())) {
          // Killed (or failed) while stopping: record nothing so a resumed run redoes it.
          r.status = JobStatus::Interrupted;
          if (has_result) fs::remove(job.out_dir / "result.json", ec);
        } else {
          r.status = JobStatus::Failed;
          if (o.exit_code == 0) r.stderr_tail += (r.stderr_tail.empty() ? "" : "\n") +
                                                 std::string("nicsim run exited 0 but wrote no result.json");
          // result.json means "finished ok" to resume logic: keep a failed run's result aside.
          if (has_result) fs::rename(job.out_dir / "result.json", job.out_dir / "result.failed.json", ec);
          write_error_json(job.out_dir, job.label, r.exit_code, r.stderr_tail);
        }
      } catch (...) {
        std::lock_guard lk(mu);
        if (!first_error) first_error = std::current_exception();
        r.status = JobStatus::Failed;
      }
      std::lock_guard lk(mu);
      ++done;
      if (opts.on_done) opts.on_done(job, r, done, jobs.size());
    }
    std::lock_guard lk(mu);
    ++finished_workers;
    cv.notify_all();
  };

  unsigned n = std::max(1u, std::min<unsigned>(opts.jobs, static_cast<unsigned>(jobs.size())));
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < n; ++t) threads.emplace_back(worker);
  {
    std::unique_lock lk(mu);
    while (finished_workers < n) {
      if (cv.wait_for(lk, opts.tick, [&] { return finished_workers >= n; })) break;
      if (opts.on_tick) opts.on_tick(done, jobs.size());
    }
  }
  for (auto& t : threads) t.join();
  if (first_error) std::rethrow_exception(first_error);
  return results;
}

std::vector<std::string> run_arguments(const RunJob& job) {
  std::vector<std::string> a = {"run", job.scenario.string(), "--out", job.out_dir.string()};
  if (job.seed) {
    a.push_back("--seed");
    a.push_back(std::to_string(*job.seed));
  }
  for (auto& s : job.sets) {
    a.push_back("--set");
    a.push_back(s);
  }
  a.insert(a.end(), job.extra_args.begin(), job.extra_args.end());
  return a;
}

// ---- child registry and signal forwarding ----------------------------------------------------

namespace {
constexpr size_t kMaxChildren = 1024;
std::atomic<pid_t> g_children[kMaxChildren];
std::atomic<bool> g_stop{false};
volatile sig_atomic_t g_signal = 0;
struct sigaction g_old_int, g_old_term;
std::atomic<bool> g_guard_alive{false};

void on_signal(int sig) {
  g_signal = sig;
  // First signal: ask the children to stop (SIGTERM); a second one (Ctrl-C again) kills them.
  int kill_with = g_stop.exchange(true) ? SIGKILL : SIGTERM;
  for (auto& c : g_children) {
    pid_t p = c.load();
    if (p > 0) ::kill(p, kill_with);
  }
}

size_t register_child(pid_t pid) {
  for (size_t i = 0; i < kMaxChildren; ++i) {
    pid_t expected = 0;
    if (g_children[i].compare_exchange_strong(expected, pid)) return i;
  }
  return kMaxChildren;
}

std::string read_file_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
}  // namespace

InterruptGuard::InterruptGuard() {
  if (g_guard_alive.exchange(true)) throw std::logic_error("InterruptGuard: only one may be alive");
  g_stop.store(false);
  g_signal = 0;
  struct sigaction sa{};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
  g_guard_alive.store(false);
  g_stop.store(false);
}

const std::atomic<bool>& InterruptGuard::flag() { return g_stop; }
int InterruptGuard::signal_caught() { return g_signal; }

void die_with_parent_from_env() {
  const char* v = std::getenv(kDieWithParentEnv);
  if (!v) return;
  std::string text = v;
  ::unsetenv(kDieWithParentEnv);  // not inherited by anything this process starts
  char* end = nullptr;
  long parent = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || parent <= 0) return;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The parent may have died before prctl: then this process was already reparented.
  if (::getppid() != static_cast<pid_t>(parent)) ::_exit(128 + SIGKILL);
}

fs::path self_executable() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n < 0) throw std::runtime_error(std::string("cannot read /proc/self/exe: ") + std::strerror(errno));
  return fs::path(std::string(buf, static_cast<size_t>(n)));
}

Runner process_runner(fs::path binary) {
  return [binary](const RunJob& job) -> RunOutcome {
    fs::create_directories(job.out_dir);
    std::vector<std::string> args = run_arguments(job);
    args.insert(args.begin(), binary.string());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    fs::path out = job.out_dir / "run.out", err = job.out_dir / "run.err";

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    // The child dies with this process, even when this one is SIGKILLed (die_with_parent_from_env).
    std::vector<std::string> env_text;
    for (char** e = environ; *e; ++e)
      if (std::strncmp(*e, kDieWithParentEnv, std::strlen(kDieWithParentEnv)) != 0 ||
          (*e)[std::strlen(kDieWithParentEnv)] != '=')
        env_text.emplace_back(*e);
    env_text.push_back(fmt::format("{}={}", kDieWithParentEnv, ::getpid()));
    std::vector<char*> envp;
    for (auto& e : env_text) envp.push_back(e.data());
    envp.push_back(nullptr);
    pid_t pid = 0;
    int rc = ::posix_spawn(&pid, binary.c_str(), &fa, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return {127, fmt::format("cannot start {}: {}", binary.string(), std::strerror(rc))};

    size_t slot = register_child(pid);
    // A signal that arrived between spawn and registration did not reach this child.
    if (g_guard_alive.load() && g_stop.load()) ::kill(pid, SIGTERM);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (slot < kMaxChildren) g_children[slot].store(0);

    RunOutcome o;
    if (WIFEXITED(status)) o.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) o.exit_code = 128 + WTERMSIG(status);
    else o.exit_code = -1;
    o.stderr_tail = tail_of(read_file_text(err));
    if (WIFSIGNALED(status))
      o.stderr_tail += fmt::format("{}killed by signal {} ({})", o.stderr_tail.empty() ? "" : "\n",
                                   WTERMSIG(status), strsignal(WTERMSIG(status)));
    return o;
  };
}

}  // namespace nicsim
