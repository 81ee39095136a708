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

// This file's own names, apart from the other files of a unity batch.
namespace workload_rx_flood_test {
using namespace nicsim;

namespace {
// Two P4DPR-6GM+ boxes with an 82546EB each (e1000 4.4.12-k1).
const char* kAlpha = R"(
name = "x"
[hosts.alpha]
platform = "supermicro-p4dpr-6gm+"
[hosts.alpha.nics.eth1]
device = "82546EB"
slot = "pcix"
driver = "e1000-4.4.12-k1"
)";
const char* kBeta = R"([hosts.beta]
platform = "supermicro-p4dpr-6gm+"
[hosts.beta.nics.eth1]
device = "82546EB"
slot = "pcix"
driver = "e1000-4.4.12-k1"
)";
}  // namespace

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
  const std::string base = std::string(kAlpha) + kBeta;
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

namespace {
// Host alpha's 82546EB's two ports as the slaves of a balance-rr bond (as scenarios/bonding).
const std::string kBondHost = std::string(kAlpha) + R"([hosts.alpha.bonds.bond0]
mode = "balance-rr"
miimon = 100
slaves = ["eth1", "eth1:1"]
)";
}  // namespace

TEST_CASE("rx_flood into a bond floods each of its slave ports and the host's IP takes the frames",
          "[workload][rx_flood][bonding]") {
  // Regression: a bond as receiver was accepted by the loader and failed at run time (no NIC port
  // "bond0" to cable). A bond receives on its slaves: a tester port into each. start_s 1: ifup
  // waits for the bond to have a usable slave (the e1000 watchdog's link, then bond_mii_monitor).
  Scenario s = load_scenario_text(kBondHost +
                                      "[workload]\ntype = \"rx_flood\"\nreceiver = \"alpha.bond0\"\nload = 0.1\n"
                                      "start_s = 1\nduration_s = 0.002\n",
                                  "t.toml");
  nlohmann::json result = nlohmann::json::object();
  std::ostringstream out;
  REQUIRE(run_workload(s, out, result) == 0);
  INFO(out.str());
  CHECK(out.str().find("receiver is bond bond0 (balance-rr): a tester port into each of its slaves eth1, eth1:1") !=
        std::string::npos);
  const auto& m = result["metrics"];
  CHECK(m["offered_pps"].get<double>() == Approx(2 * 0.1 * 1488095.238).epsilon(1e-6));
  for (const char* port : {"alpha.eth1", "alpha.eth1:1"}) {
    INFO(port);
    CHECK(m["offered_frames." + std::string(port)].get<double>() > 0);
    CHECK(m["nic_accepted_pps." + std::string(port)].get<double>() > 0);
  }
  // At a tenth of wire rate the host takes them up its stack (a few are on the wire or in the
  // driver when the window closes).
  CHECK(m["ip_received_pps"].get<double>() > 0.9 * m["offered_pps"].get<double>());
  REQUIRE(result.contains("accounting"));
  CHECK(result["accounting"]["balanced"] == true);
}

TEST_CASE("rx_flood: the loader refuses a links entry on a slave of the flooded bond", "[workload][rx_flood][bonding]") {
  const std::string beta = std::string(kBeta) + R"([[links]]
a = "alpha.eth1:1"
b = "beta.eth1"
)";
  try {
    load_scenario_text(kBondHost + beta + "[workload]\ntype = \"rx_flood\"\nreceiver = \"alpha.bond0\"\n",
                       "t.toml");
    FAIL("accepted a cable on a slave of the flooded bond");
  } catch (const ScenarioError& e) {
    CHECK(e.key == "links.0");
    CHECK(std::string(e.what()).find("alpha.eth1:1 is a slave of alpha.bond0, the flooded receiver") != std::string::npos);
  }
}

namespace {
nlohmann::json run_seed003_flood(const std::vector<std::string>& sets, std::string& text) {
  std::string path = NICSIM_SOURCE_DIR;
  path += "/scenarios/seed003/flood-switch-fc-on-2.4.toml";
  Scenario s = load_scenario(path, sets);
  nlohmann::json result = nlohmann::json::object();
  std::ostringstream out;
  const int rc = run_workload(s, out, result);
  text = out.str();
  REQUIRE(rc == 0);
  return result;
}
}  // namespace

TEST_CASE("rx_flood through a switch that obeys 802.3x: the NIC's XOFFs reach the switch, which drops in its output "
          "queue, every frame accounted",
          "[workload][rx_flood][switch]") {
  std::string text;
  const nlohmann::json r = run_seed003_flood({"workload.duration_s=0.005"}, text);
  INFO(text);
  const auto& m = r["metrics"];
  for (const char* port : {"router.eth0", "router.eth0:1"}) {
    INFO(port);
    const std::string sp = std::string(port) == "router.eth0" ? "switch0.port1" : "switch0.port3";
    // At wire rate the 2.4 host cannot keep up: the RX FIFO reaches FCRTH, the NIC sends XOFF
    // (CTRL.TFCE from FlowControl = 3) and the switch, paused, fills its output queue and drops.
    CHECK(m["xoff_sent." + std::string(port)].get<uint64_t>() >= 1);
    CHECK(m["switch_pause_rx." + sp].get<uint64_t>() >= m["xoff_sent." + std::string(port)].get<uint64_t>());
    CHECK(m["switch_queue_drop_pps." + sp].get<double>() > 0);
  }
  REQUIRE(r.contains("accounting"));
  CHECK(r["accounting"]["balanced"] == true);
  CHECK(r["accounting"]["directions"].size() == 8);  // tester-switch and switch-NIC links, both ways
}

TEST_CASE("rx_flood through a switch that ignores 802.3x: PAUSE frames are consumed, nothing is dropped in the switch",
          "[workload][rx_flood][switch]") {
  std::string text;
  const nlohmann::json r = run_seed003_flood({"workload.duration_s=0.002", "workload.switch_obey_pause=false"}, text);
  INFO(text);
  const auto& m = r["metrics"];
  CHECK(m["xoff_sent.router.eth0"].get<uint64_t>() >= 1);
  for (const char* sp : {"switch0.port1", "switch0.port3"}) {
    CHECK(m["switch_pause_rx." + std::string(sp)].get<uint64_t>() == 0);
    CHECK(m["switch_queue_drop_pps." + std::string(sp)].get<double>() == 0);
  }
  CHECK(r["accounting"]["balanced"] == true);
}

}  // namespace workload_rx_flood_test
