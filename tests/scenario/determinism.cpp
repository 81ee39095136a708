// Determinism (DESIGN.md "Deterministic"): the same scenario, seed and binary give a byte-identical
// result.json except its wall time; a sweep point is exactly the `nicsim run` of that point; and
// another seed gives another run. Short NetPIPE runs (a few ms of simulated time each).
#include "tests/support/run_nicsim.h"
#include "tests/support/sweep_check.h"
#include <catch2/catch.hpp>
#include <filesystem>
#include <regex>
#include <string>

// This file's own names, apart from the other files of a unity batch.
namespace determinism_test {

namespace {

namespace fs = std::filesystem;
using nicsim::test::read_text;
using nicsim::test::run_stdout;
using nicsim::test::TempDir;

// Two sizes, two short trials: ~0.1 s of wall time per run.
const std::string kScenario = fs::absolute("scenarios/default.toml").string();
const std::string kShort = "--set workload.upper=24 --set workload.trials=2 --set workload.runtm_s=0.002";

/// result.json's text without its one line that may change between identical runs.
std::string without_wall_time(const std::string& text) {
  static const std::regex wall(R"(\n *"wall_time_s": [^\n]*)");
  std::string out = std::regex_replace(text, wall, "");
  REQUIRE(out.size() < text.size());  // the line was there (and was removed)
  return out;
}

std::string run_result(const fs::path& out, const std::string& args) {
  run_stdout(std::string(NICSIM_BIN) + " run " + kScenario + " " + args + " --out " + out.string() + " >/dev/null 2>&1");
  return read_text(out / "result.json");
}

}  // namespace

TEST_CASE("determinism: the same scenario and seed twice give a byte-identical result.json except wall_time_s") {
  TempDir t;
  std::string a = run_result(t / "a", kShort + " --seed 5");
  std::string b = run_result(t / "b", kShort + " --seed 5");
  REQUIRE(a.find("\"status\": \"ok\"") != std::string::npos);
  // Not vacuous: the runs did simulate something and traced messages.
  auto j = nlohmann::json::parse(a);
  REQUIRE(j["sim_time_s"].get<double>() > 0);
  REQUIRE(!j["counters"].empty());
  REQUIRE(without_wall_time(a) == without_wall_time(b));
}

TEST_CASE("determinism: a sweep point's result.json is the plain nicsim run of the same point") {
  TempDir t;
  // The sweep passes its --set first, then the varied key: the plain run below does the same.
  run_stdout(std::string(NICSIM_BIN) + " sweep " + kScenario + " " + kShort +
             " --vary 'hosts.*.nics.eth1.RxIntDelay=0,64' --vary seed=2 --metric latency_us --jobs 2"
             " --no-plot --out " + (t / "sweep").string() + " >/dev/null 2>&1");
  fs::path point;
  for (auto& d : fs::directory_iterator(t / "sweep" / "points"))
    if (d.path().filename().string().find("RxIntDelay=64") != std::string::npos) point = d.path();
  REQUIRE(!point.empty());
  std::string swept = read_text(point / "result.json");
  std::string plain = run_result(t / "plain", kShort + " --seed 2 --set 'hosts.*.nics.eth1.RxIntDelay=64'");
  REQUIRE(without_wall_time(swept) == without_wall_time(plain));
}

TEST_CASE("determinism: different seeds give different runs") {
  TempDir t;
  auto a = nlohmann::json::parse(run_result(t / "a", kShort + " --seed 1"));
  auto b = nlohmann::json::parse(run_result(t / "b", kShort + " --seed 2"));
  REQUIRE(a["seed"] == 1);
  REQUIRE(b["seed"] == 2);
  // The seed draws each NIC's crystal offset (clock_ppm_spread): the hardware differs ...
  REQUIRE(a["hardware"] != b["hardware"]);
  // ... and so does what was simulated, beyond the seed fields themselves.
  for (auto* j : {&a, &b}) {
    j->erase("seed");
    j->erase("wall_time_s");
    j->erase("params");
    j->erase("hardware");
  }
  REQUIRE(a != b);
}

}  // namespace determinism_test
