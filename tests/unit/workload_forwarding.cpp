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

using namespace nicsim;

TEST_CASE("forwarding: two flows through a 2.6.14 / e1000-6.2.15 router, forwarded <= offered, ForwDatagrams "
          "counts them, every frame accounted",
          "[workload][forwarding]") {
  Scenario s = load_scenario(std::string(NICSIM_SOURCE_DIR) + "/scenarios/seed003/2.6.14-e1000-6.2.15.toml",
                             {"workload.packets=5000", "workload.runs=2", "workload.average_last=1"});
  nlohmann::json result = nlohmann::json::object();
  std::ostringstream out;
  REQUIRE(run_workload(s, out, result) == 0);
  INFO(out.str());
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
  const std::string p = std::string(NICSIM_SOURCE_DIR) + "/scenarios/seed003/2.6.14-e1000-6.2.15.toml";
  CHECK_THROWS_WITH(load_scenario(p, {"workload.runs=2", "workload.average_last=3"}),
                    Catch::Contains("average_last (3) is more than runs (2)"));
  CHECK_THROWS_WITH(load_scenario(p, {"workload.port1=\"router.eth0\""}),
                    Catch::Contains("port1 names the same port as port0"));
}
