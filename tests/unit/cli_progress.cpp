// Progress of a running simulation (cli/sim_progress.h): the line's text, the workload lengths it
// measures against, the watcher thread's calls, and the real binary's silence when stderr is not a
// terminal (CI, pipes) and its --quiet / --progress-file options.
#include "cli/sim_progress.h"
#include "platforms/scenario.h"
#include "tests/support/run_nicsim.h"
#include "tests/support/sweep_check.h"
#include <algorithm>
#include <atomic>
#include <thread>
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace cli_progress_test {
using namespace nicsim;
using namespace nicsim::test;


TEST_CASE("progress line: simulated time against the workload's length, rate and ETA", "[cli][progress]") {
  CHECK(sim_progress_line(12.4, 61.0, 10.0) == "simulated 12.40/61.00 s (20%), 1.24 sim-s/s, ETA 39s");
  // No length (NetPIPE runs until its last size): time and rate only.
  CHECK(sim_progress_line(0.5, std::nullopt, 2.0) == "simulated 0.50 s, 0.25 sim-s/s");
  // Past the length (a stream's start-up and drain) the share stops at 100 % and the ETA at 0.
  CHECK(sim_progress_line(62.0, 61.0, 31.0) == "simulated 62.00/61.00 s (100%), 2 sim-s/s, ETA 0s");
  CHECK(sim_progress_line(0.0, 10.0, 0.0) == "simulated 0.00/10.00 s (0%), 0 sim-s/s, ETA ?");
}

TEST_CASE("progress line: the workload lengths come from duration_s, start_s and sizes", "[cli][progress]") {
  const std::string src = NICSIM_SOURCE_DIR;
  Scenario s = load_scenario(src + "/scenarios/bcm5701/p4dpr-pcix100-stream.toml", {"workload.duration_s=2.5"});
  CHECK(workload_length_s(s) == Approx(2.5));
  s = load_scenario(src + "/scenarios/seed002/e1000-82544gc-pci66.toml", {"workload.duration_s=2"});
  const std::string sizes = s.workload.params.s("sizes");
  REQUIRE(!sizes.empty());
  const double n = 1.0 + static_cast<double>(std::count(sizes.begin(), sizes.end(), ','));
  CHECK(workload_length_s(s) == Approx(2 * n));  // one -l per size
  s = load_scenario(src + "/scenarios/seed000/82544gc-pci66.toml");
  CHECK_FALSE(workload_length_s(s));  // NetPIPE: until its last size
}

TEST_CASE("progress: the watcher calls show every period and clears the line at the end", "[cli][progress]") {
  std::atomic<int> lines{0};
  std::string last = "x";
  {
    SimProgress p(
        [&](const std::string& l) {
          if (!l.empty()) ++lines;
          last = l;
        },
        std::nullopt, std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(lines >= 2);
  CHECK(last.empty());  // the destructor's clear
}

TEST_CASE("cli: run shows no progress when stderr is not a terminal, --quiet and --progress-file parse",
          "[cli][progress]") {
  TempDir tmp;
  const std::string sc = "scenarios/seed000/82544gc-pci66.toml";
  auto r = run_nicsim_bin(tmp.path, {"run", sc, "--set", "workload.upper=1", "--set", "workload.trials=1", "--set", "workload.runtm_s=0.002"});
  CHECK(r.code == 0);
  CHECK(r.err.find("simulated") == std::string::npos);  // stderr is a file here
  CHECK(r.err.find("\033[K") == std::string::npos);
  r = run_nicsim_bin(tmp.path, {"run", sc, "--set", "workload.upper=1", "--set", "workload.trials=1", "--set", "workload.runtm_s=0.002", "--quiet"});
  CHECK(r.code == 0);
  CHECK(r.err.find("simulated") == std::string::npos);
  // explain's children write their line to a file; the run ends by clearing it.
  const std::string pf = (tmp / "p.progress").string();
  r = run_nicsim_bin(tmp.path, {"run", sc, "--set", "workload.upper=1", "--set", "workload.trials=1", "--set", "workload.runtm_s=0.002", "--progress-file", pf});
  CHECK(r.code == 0);
  CHECK(fs::exists(pf));
  CHECK(read_text(pf).empty());
  r = run_nicsim_bin(tmp.path, {"explain", sc, "--set", "workload.upper=1", "--set", "workload.trials=1", "--set", "workload.runtm_s=0.002", "--quiet"});
  CHECK(r.code == 0);
  CHECK(r.err.find("simulated") == std::string::npos);
}

}  // namespace cli_progress_test
