// The rx_flood workload (platforms/rx_flood_workload.cpp) end to end on bench/rx-flood-64b.toml:
// two ports of one 82546EB offered 64-byte frames at wire rate by the traffic generator. What the
// host takes is emergent (Linux 2.4 non-NAPI receive livelock); the test asserts what must hold
// whatever the model's speed: the offered rate is the generator's exact schedule, the host cannot
// take it all, every frame is accounted for, and the loader refuses a flooded port that a
// [[links]] cable also uses.
#include "platforms/run_workload.h"
#include "platforms/scenario.h"
#include <catch2/catch.hpp>
#include <sstream>

using namespace nicsim;

TEST_CASE("rx_flood: 2 x 1.488 Mpps offered, the host drops what it cannot take, every frame accounted",
          "[workload][rx_flood]") {
  Scenario s = load_scenario(std::string(NICSIM_SOURCE_DIR) + "/bench/rx-flood-64b.toml", {"workload.duration_s=0.002"});
  nlohmann::json result = nlohmann::json::object();
  std::ostringstream out;
  REQUIRE(run_workload(s, out, result) == 0);
  INFO(out.str());
  const auto& m = result["metrics"];
  // The tester's schedule: 1,488,095.2 frames/s per port; 2977 frames started in 2 ms (frame k at
  // k * 672 ns).
  CHECK(m["offered_pps"].get<double>() == Approx(2 * 1488095.238).epsilon(1e-6));
  CHECK(m["nic_accepted_pps"].get<double>() > 0);
  CHECK(m["nic_accepted_pps"].get<double>() < m["offered_pps"].get<double>());
  for (const char* port : {"alpha.eth1", "alpha.eth1:1"}) {
    INFO(port);
    const std::string p = port;
    CHECK(m["offered_frames." + p] == 2977);
    // Every offered frame the NIC saw is either taken into the packet buffer or missed (MPC);
    // a few are still on the wire or in the MAC pipeline when the window closes.
    const double seen = (m["nic_accepted_pps." + p].get<double>() + m["missed_pps." + p].get<double>()) * 0.002;
    CHECK(seen <= 2977.5);
    CHECK(seen >= 2977 - 3);
  }
  REQUIRE(result.contains("accounting"));
  CHECK(result["accounting"]["balanced"] == true);
  CHECK(result["accounting"]["directions"].size() == 4);  // two tester links, both directions
}

TEST_CASE("rx_flood: the loader refuses a flooded port cabled by a links entry and a receiver2 on another host",
          "[workload][rx_flood]") {
  const std::string base = R"(
name = "x"
[hosts.alpha]
platform = "supermicro-p4dpr-6gm+"
[hosts.alpha.nics.eth1]
device = "82546EB"
slot = "pcix"
driver = "e1000-4.4.12-k1"
[hosts.beta]
platform = "supermicro-p4dpr-6gm+"
[hosts.beta.nics.eth1]
device = "82546EB"
slot = "pcix"
driver = "e1000-4.4.12-k1"
)";
  try {
    load_scenario_text(base + "[[links]]\na = \"alpha.eth1\"\nb = \"beta.eth1\"\n[workload]\ntype = \"rx_flood\"\nreceiver = \"alpha.eth1\"\n", "t.toml");
    FAIL("accepted a flooded port that is also cabled");
  } catch (const ScenarioError& e) {
    CHECK(e.key == "links.0");
    CHECK(std::string(e.what()).find("traffic generator") != std::string::npos);
  }
  try {
    load_scenario_text(base + "[workload]\ntype = \"rx_flood\"\nreceiver = \"alpha.eth1\"\nreceiver2 = \"beta.eth1\"\n", "t.toml");
    FAIL("accepted receiver2 on another host");
  } catch (const ScenarioError& e) {
    CHECK(e.key == "workload.receiver2");
  }
  try {
    load_scenario_text(base + "[workload]\ntype = \"rx_flood\"\nreceiver = \"alpha.eth1:2\"\n", "t.toml");
    FAIL("accepted port 2 of a two-port 82546EB");
  } catch (const ScenarioError& e) {
    CHECK(e.key == "workload.receiver");
    CHECK(std::string(e.what()).find("has 2 Ethernet ports") != std::string::npos);
  }
  // An explicit empty receiver2 means none, as its documentation says.
  CHECK_NOTHROW(load_scenario_text(base + "[workload]\ntype = \"rx_flood\"\nreceiver = \"alpha.eth1\"\nreceiver2 = \"\"\n", "t.toml"));
}
