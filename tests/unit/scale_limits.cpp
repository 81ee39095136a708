// Runs and sweeps at their limits stay bounded: a plot interval that would sample a run hundreds of
// thousands of times is refused (or the series stops at its cap), and a sweep of many points says
// what its check before the first point is doing.
#include "platforms/run_workload.h"
#include "platforms/scenario.h"
#include "platforms/transfer_report.h"
#include "tests/support/run_nicsim.h"
#include "tests/support/sweep_check.h"
#include <catch2/catch.hpp>
#include <sstream>

// This file's own names, apart from the other files of a unity batch.
namespace scale_limits_test {
using namespace nicsim;
using namespace nicsim::test;


TEST_CASE("run: a plot interval that would sample a workload of known length more than the cap is refused before "
          "the run (bug: 1 µs over a 0.4 s run took more than 120 s)",
          "[cli][plots]") {
  TempDir tmp;
  // 10 s of TCP_STREAM at 1 µs: ten million samples.
  auto r = run_nicsim_bin(tmp.path, {"run", "scenarios/seed000/82546eb-pcix100-stream.toml", "--plots",
                                     (tmp / "p").string(), "--plot-interval-ms", "0.001"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--plot-interval-ms 0.001 would sample the workload's 10 s 10000000 times"));
  CHECK_THAT(r.err, Catch::Contains("at most 100000 samples"));
  CHECK_THAT(r.err, Catch::Contains("use --plot-interval-ms 0.1 or more"));
  CHECK_FALSE(std::filesystem::exists(tmp / "p" / "series.json"));
}

TEST_CASE("run: the series of a workload of unknown length stops at its sample cap and the result says when",
          "[plots]") {
  Scenario s = load_scenario(std::string(NICSIM_SOURCE_DIR) + "/scenarios/default.toml",
                             {"workload.upper=1", "workload.trials=1", "workload.runtm_s=0.001"});
  nlohmann::json result = nlohmann::json::object();
  std::ostringstream out;
  RunOptions o;
  o.series_interval_s = 1e-5;
  o.series_max_samples = 20;
  REQUIRE(run_workload(s, out, result, o) == 0);
  REQUIRE(result.contains("series_stopped_at_s"));
  CHECK(result["series"]["t_s"].size() == 20);
  CHECK(result["series_stopped_at_s"].get<double>() == result["series"]["t_s"].back().get<double>());
  CHECK(result["metrics"].contains("latency_us"));  // the run itself went on to its end
}

TEST_CASE("sweep: the check of every combination before the first point says what it does and how far it is",
          "[cli][sweep]") {
  // 10,000 combinations (the reporting threshold): a silent pre-check of a million took 74 s.
  TempDir tmp;
  auto r = run_nicsim_bin(tmp.path, {"sweep", "scenarios/default.toml", "--vary", "workload.upper=1:100:1",
                                     "--vary", "workload.pert=1:100:1", "--metric", "latency_us", "--out",
                                     (tmp / "sw").string(), "--dry-run"});
  CHECK(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("checking that each of the 10000 combinations of --vary values loads"));
  CHECK_THAT(r.err, Catch::Contains("checked 10000 of 10000 combinations (100%)"));
}

}  // namespace scale_limits_test
