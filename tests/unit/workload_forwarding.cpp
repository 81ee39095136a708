// The forwarding workload (platforms/forwarding_workload.cpp) end to end on a seed-003 scenario,
// short: a Linux 2.6 router forwards a flow into each 82546EB port to the other port. What it
// forwards is emergent; the test asserts what must hold whatever the model's speed: frames really
// cross the router (ip_forward, Ip.ForwDatagrams), a flow's forwarded rate cannot exceed its
// offered rate, each run has the same schedule, drops are reported by reason, and every frame on
// the four link directions is accounted for.
#include "core/sim_context.h"
#include "platforms/run_workload.h"
#include "platforms/scenario.h"
#include <catch2/catch.hpp>
#include <sstream>

// This file's own names, apart from the other files of a unity batch.
namespace workload_forwarding_test {
using namespace nicsim;

namespace {
const std::string kRouter = std::string(NICSIM_SOURCE_DIR) + "/scenarios/seed003/2.6.14-e1000-6.2.15.toml";

/// Run the short seed-003 router scenario with `overrides` (--set syntax); its text output in `out`.
/// Returns the result JSON; fails the test case if the run does not exit 0.
nlohmann::json run_router(const std::vector<std::string>& overrides, std::string& out) {
  Scenario s = load_scenario(kRouter, overrides);
  nlohmann::json result = nlohmann::json::object();
  std::ostringstream os;
  const int rc = run_workload(s, os, result);
  out = os.str();
  INFO(out);
  REQUIRE(rc == 0);
  return result;
}
}  // namespace

TEST_CASE("forwarding: two flows through a 2.6.14 / e1000-6.2.15 router, forwarded <= offered, ForwDatagrams "
          "counts them, every frame accounted",
          "[workload][forwarding]") {
  std::string out;
  const nlohmann::json result = run_router({"workload.packets=5000", "workload.runs=2", "workload.average_last=1"}, out);
  INFO(out);
  const auto& m = result["metrics"];
  const double offered = m["offered_kpps_per_port"].get<double>();
  CHECK(offered == Approx(1488.095238).epsilon(1e-6));  // 64-byte frames at 1 Gb/s: 672 ns each
  for (const char* f : {"forwarded_kpps.flow0", "forwarded_kpps.flow1"}) {
    INFO(f);
    CHECK(m[f].get<double>() > 0);
    CHECK(m[f].get<double>() <= offered * 1.0001);
  }
  CHECK(m["forwarded_kpps"].get<double>() == Approx(m["forwarded_kpps.flow0"].get<double>() +
                                                    m["forwarded_kpps.flow1"].get<double>()));
  // The router forwarded at least what the two sinks counted over both runs.
  const double sunk = (m["run1.forwarded_kpps"].get<double>() + m["run2.forwarded_kpps"].get<double>()) * 1e3 *
                      5000 / (offered * 1e3);
  CHECK(double(sim().counters.get("router.netstat.Ip.ForwDatagrams")) >= sunk - 1);
  CHECK(m.contains("drops.rx_fifo.router.eth0"));
  CHECK(m.contains("drops.qdisc.router.eth0:1"));
  REQUIRE(result.contains("accounting"));
  CHECK(result["accounting"]["balanced"] == true);
  CHECK(result["accounting"]["directions"].size() == 4);  // two tester links, both directions
}

TEST_CASE("forwarding: the loader refuses average_last above runs and port1 equal to port0", "[workload][forwarding]") {
  CHECK_THROWS_WITH(load_scenario(kRouter, {"workload.runs=2", "workload.average_last=3"}),
                    Catch::Contains("average_last (3) is more than runs (2)"));
  CHECK_THROWS_WITH(load_scenario(kRouter, {"workload.port1=\"router.eth0\""}),
                    Catch::Contains("port1 names the same port as port0"));
}

// Regression (short runs read a third faster than full ones): the rate counted the frames the router
// still forwarded after the burst (its packet buffer, rings and qdisc emptying, ~1,000 per flow) over
// the burst's duration. The rate is now the frames the sinks counted while the burst was on; the rest
// is forwarded_after_burst. Both together are what the router forwarded (Ip.ForwDatagrams, no qdisc
// drops here), so a rate that still held the after-burst frames would count them twice.
TEST_CASE("forwarding: the rate counts the frames forwarded during the burst, those forwarded after it "
          "counted apart, not in the rate",
          "[workload][forwarding]") {
  std::string out;
  const nlohmann::json result = run_router({"workload.packets=6000", "workload.runs=1", "workload.average_last=1"}, out);
  INFO(out);
  const auto& m = result["metrics"];
  const double burst_s = 6000 / (m["offered_kpps_per_port"].get<double>() * 1e3);
  const double in_burst = m["forwarded_kpps"].get<double>() * 1e3 * burst_s;
  const double after = m["forwarded_after_burst"].get<double>();
  // What the router held when the burst ended: far more than a frame (it forwards well below the
  // offered 2 x 1.488 Mpps), at most what two ports' packet buffers (48 KB), rings and qdiscs hold.
  CHECK(after > 100);
  CHECK(after < 2 * (1000 + 256 + 256 + 48 * 1024 / 64));
  REQUIRE(m["drops.qdisc.router.eth0"].get<double>() + m["drops.qdisc.router.eth0:1"].get<double>() == 0);
  CHECK(in_burst + after == Approx(double(sim().counters.get("router.netstat.Ip.ForwDatagrams"))).margin(1.5));
}

}  // namespace workload_forwarding_test
