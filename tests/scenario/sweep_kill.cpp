// kill -9: a sweep killed by SIGKILL at random moments, its parent alone, one of its
// `nicsim run` children, or the whole tree, and rerun each time, loses no finished point, redoes
// none, and ends with the sweep.csv of an uninterrupted sweep. A killed parent takes its children
// with it (PR_SET_PDEATHSIG), and a sweep directory in use is refused to a second sweep (flock).
#include "cli/dir_lock.h"
#include "tests/support/sweep_check.h"
#include <catch2/catch.hpp>
#include <algorithm>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

// This file's own names, apart from the other files of a unity batch.
namespace sweep_kill_test {
using namespace std::chrono_literals;

namespace {

namespace fs = std::filesystem;
using nicsim::test::read_text;
using nicsim::test::TempDir;

const std::string kKillScenario = fs::absolute("scenarios/default.toml").string();

/// The sweep under test: 6 points of a short NetPIPE run (~0.3-0.5 s each), 2 at a time.
std::vector<std::string> sweep_args(const fs::path& out) {
  return {NICSIM_BIN, "sweep", kKillScenario, "--set", "workload.upper=64", "--set", "workload.trials=2",
          "--set", "workload.runtm_s=0.02", "--vary", "hosts.*.nics.eth1.RxIntDelay=0,64",
          "--vary", "seed=1:3:1", "--metric", "latency_us", "--jobs", "2", "--no-plot", "--out", out.string()};
}

/// fork + exec `args` with stdout and stderr appended to `log`; returns the pid.
pid_t spawn(const std::vector<std::string>& args, const fs::path& log) {
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

/// Wait for `pid` (our child); its exit code, or 128+signal.
int wait_exit(pid_t pid) {
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/// The children of `pid` (every thread's /proc children list: the sweep spawns from worker threads).
std::vector<pid_t> children_of(pid_t pid) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (auto& t : fs::directory_iterator(fs::path("/proc") / std::to_string(pid) / "task", ec)) {
    std::ifstream f(t.path() / "children");
    pid_t c;
    while (f >> c) out.push_back(c);
  }
  return out;
}

/// The --out DIR of `nicsim run` process `pid` (from its command line), or "" when unreadable.
fs::path out_dir_of(pid_t pid) {
  std::ifstream f(fs::path("/proc") / std::to_string(pid) / "cmdline", std::ios::binary);
  std::vector<std::string> args;
  std::string a;
  while (std::getline(f, a, '\0')) args.push_back(a);
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--out") return args[i + 1];
  return {};
}

/// Whether `pid` is gone (no /proc entry, or a zombie nobody reaped yet: it runs no more).
bool dead(pid_t pid) {
  std::ifstream f(fs::path("/proc") / std::to_string(pid) / "stat");
  if (!f) return true;
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  auto p = s.rfind(')');
  return p == std::string::npos || p + 2 >= s.size() || s[p + 2] == 'Z' || s[p + 2] == 'X';
}

/// Poll until `cond` holds; false after `limit` (a bound against hanging, not a measurement).
template <typename F>
bool eventually(F cond, std::chrono::milliseconds limit = 20s) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (!cond()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

/// Finished points (points/<id>/result.json) with their inode, mtime and contents.
struct Finished {
  ino_t ino;
  int64_t mtime_ns;
  std::string text;
  bool operator==(const Finished&) const = default;
};
std::map<std::string, Finished> finished_points(const fs::path& dir) {
  std::map<std::string, Finished> out;
  std::error_code ec;
  for (auto& d : fs::directory_iterator(dir / "points", ec)) {
    fs::path r = d.path() / "result.json";
    struct stat st{};
    if (::stat(r.c_str(), &st) != 0) continue;
    out[d.path().filename().string()] = {st.st_ino, int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
                                         read_text(r)};
  }
  return out;
}

}  // namespace

TEST_CASE("sweep kill -9: killed at random moments and rerun, no finished point is lost or redone, the CSV is an uninterrupted sweep's") {
  TempDir t;
  // The reference: one uninterrupted sweep.
  REQUIRE(wait_exit(spawn(sweep_args(t / "ref"), t / "ref.log")) == 0);
  const std::string ref_csv = read_text(t / "ref" / "sweep.csv");
  REQUIRE(std::count(ref_csv.begin(), ref_csv.end(), '\n') == 7);  // header + 6 points

  const fs::path dir = t / "killed", log = t / "killed.log";
  std::mt19937 rng(16);  // fixed: the same kill schedule every run (the timing still varies)
  std::uniform_int_distribution<int> delay_ms(50, 900);
  enum Kill { Parent, OneChild, Tree };
  int rounds_with_children = 0;
  for (Kill k : {Parent, OneChild, Tree, Parent, OneChild, Parent}) {
    auto before = finished_points(dir);
    if (before.size() == 6) break;  // everything already finished: nothing left to interrupt
    pid_t sweep = spawn(sweep_args(dir), log);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
    std::vector<pid_t> kids = children_of(sweep);
    rounds_with_children += !kids.empty();
    INFO("round " << k << ", sweep pid " << sweep << ", " << kids.size() << " children");
    if (k == OneChild && !kids.empty()) {
      ::kill(kids.front(), SIGKILL);
      wait_exit(sweep);  // the sweep records the failed point and carries on to the end
    } else {
      // Each child's point directory, and whether it had its result already.
      std::vector<std::pair<fs::path, bool>> running;
      for (pid_t c : kids) {
        fs::path out = out_dir_of(c);
        if (!out.empty()) running.push_back({out, fs::exists(out / "result.json")});
      }
      if (k == Tree)
        for (pid_t c : kids) ::kill(c, SIGKILL);
      ::kill(sweep, SIGKILL);
      int rc = wait_exit(sweep);
      CHECK((rc == 128 + SIGKILL || rc == 0 || rc == 1));  // 0/1: it ended before the kill
      // The children die with their parent: none keeps running and finishes its point (an
      // orphan would write its result.json before it exits).
      for (pid_t c : kids) CHECK(eventually([c] { return dead(c); }));
      for (auto& [out, had] : running) {
        INFO("point " << out);
        if (!had && rc == 128 + SIGKILL) CHECK(!fs::exists(out / "result.json"));
      }
    }
    // No finished point was lost, and none was redone (same inode, mtime and bytes).
    auto after = finished_points(dir);
    for (auto& [id, f] : before) {
      INFO("point " << id);
      REQUIRE(after.count(id));
      CHECK(after.at(id) == f);
    }
  }
  CHECK(rounds_with_children > 0);  // the kills did land while points ran

  auto before = finished_points(dir);
  REQUIRE(wait_exit(spawn(sweep_args(dir), log)) == 0);
  auto after = finished_points(dir);
  REQUIRE(after.size() == 6);
  for (auto& [id, f] : before) CHECK(after.at(id) == f);
  CHECK(read_text(dir / "sweep.csv") == ref_csv);
}

TEST_CASE("sweep kill -9: a second sweep in a directory in use is refused, and a killed sweep leaves no lock") {
  TempDir t;
  const fs::path dir = t / "s";
  pid_t first = spawn(sweep_args(dir), t / "first.log");
  REQUIRE(eventually([&] { return !children_of(first).empty(); }));
  // Same directory while the first runs: exit 2, nothing started, the holder named.
  pid_t second = spawn(sweep_args(dir), t / "second.log");
  CHECK(wait_exit(second) == 2);
  std::string msg = read_text(t / "second.log");
  CHECK(msg.find("another nicsim sweep (pid " + std::to_string(first) + ") is running in") != std::string::npos);
  ::kill(first, SIGKILL);
  REQUIRE(wait_exit(first) == 128 + SIGKILL);
  // The kernel dropped the dead sweep's lock: a rerun takes it and finishes.
  CHECK(wait_exit(spawn(sweep_args(dir), t / "third.log")) == 0);
}

TEST_CASE("sweep lock: an unsharded sweep excludes everything, shards of one sweep share a directory but not a shard") {
  TempDir t;
  using nicsim::DirLockBusy;
  using nicsim::DirLock;
  using S = std::optional<std::pair<unsigned, unsigned>>;
  {
    DirLock all(t.path, S{});
    CHECK_THROWS_AS(DirLock(t.path, S{}), DirLockBusy);
    CHECK_THROWS_AS(DirLock(t.path, S{std::make_pair(0u, 2u)}), DirLockBusy);
  }
  {
    DirLock s0(t.path, S{std::make_pair(0u, 2u)});
    DirLock s1(t.path, S{std::make_pair(1u, 2u)});  // another shard: fine
    CHECK_THROWS_AS(DirLock(t.path, S{std::make_pair(0u, 2u)}), DirLockBusy);
    CHECK_THROWS_AS(DirLock(t.path, S{}), DirLockBusy);
  }
  DirLock again(t.path, S{});  // every lock was released
}

}  // namespace sweep_kill_test
