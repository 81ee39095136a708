// Testbed: builds hosts, plugs devices into their slots and joins link ports, from the test-
// registry entries (tests/unit/fake_entries.cpp). No sc_start: elaboration only.
#include "core/sim_context.h"
#include "platforms/testbed.h"
#include "tests/unit/fake_entries.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace platforms_testbed_test {
using namespace nicsim;

namespace {
const char* kTwoHosts = R"(name = "tb"
seed = 11
[hosts.alpha]
platform = "test-p4dpr-6gm+"
[hosts.alpha.nics.eth0]
device = "test-lom"
slot = "lan"
driver = "test-drv"
[hosts.alpha.nics.eth1]
device = "test-dual"
slot = "pcix"
driver = "test-drv"
[hosts.beta]
platform = "test-p4dpr-6gm+"
cpu_mhz = 1800
[hosts.beta.nics.eth1]
device = "test-nic"
slot = "pci66"
driver = "test-drv"
[[links]]
type = "test-cable"
a = "alpha.eth1:1"
b = "beta.eth1"
length_m = 3
[workload]
type = "test-pingpong"
)";
}  // namespace

TEST_CASE("Testbed builds hosts, attaches each device in its slot and joins link ports", "[testbed]") {
  testing::attach_log().clear();
  static int released = 0;
  {
    Testbed tb(load_scenario_text(kTwoHosts, "tb.toml"));
    CHECK(sim().rng.seed() == 11);
    REQUIRE(tb.hosts().size() == 2);
    CHECK(tb.host("alpha").hw->name() == "alpha");
    CHECK(tb.host("beta").hw->params_json()["cpu_mhz"] == 1800);
    CHECK(tb.hardware_json()["alpha"]["cpu_mhz"] == 2400);
    // One attach per NIC table, in NIC-name order; a dual-port device is one device in one slot.
    CHECK(testing::attach_log() ==
          std::vector<std::string>{"alpha:lan:test-lom", "alpha:pcix:test-dual", "beta:pci66:test-nic"});
    // The fake platform answers one vector per PCI function (0x30 + 8*slot_index + fn).
    CHECK(tb.nic("alpha", "eth1").vectors == std::vector<unsigned>{0x40, 0x41});
    CHECK(tb.nic("beta.eth1").vectors == std::vector<unsigned>{0x38});
    CHECK(tb.nic("alpha", "eth1").config->driver_params.i("InterruptThrottleRate") == 8000);
    CHECK(tb.nic("alpha", "eth1").driver_entry->name == "test-drv");
    CHECK(std::string(tb.nic("alpha", "eth0").dev()->info().name) == "test-lom");
    CHECK(tb.port("alpha.eth1:1").port_name() == "alpha_eth1.port1");
    CHECK(tb.port("beta.eth1").port_name() == "beta_eth1.port0");
    CHECK_THROWS_AS(tb.port("beta.eth1:1"), std::out_of_range);
    CHECK_THROWS_AS(tb.host("gamma"), std::out_of_range);
    CHECK_THROWS_AS(tb.nic("alpha", "eth7"), std::out_of_range);

    REQUIRE(tb.links().size() == 1);
    auto* link = dynamic_cast<testing::FakeLink*>(tb.links()[0].get());
    REQUIRE(link);
    CHECK(std::string(link->name()) == "link0");
    CHECK(link->a == &tb.port("alpha.eth1:1"));
    CHECK(link->b == &tb.port("beta.eth1"));
    CHECK(link->cfg.length_m == 3.0);

    struct Software {
      ~Software() { ++released; }
    };
    tb.keepalive.push_back(std::make_shared<Software>());
    CHECK(released == 0);
  }
  CHECK(released == 1);
}

TEST_CASE("Testbed names the NIC whose model failed to build", "[testbed]") {
  std::string text = kTwoHosts;
  text.replace(text.find("device = \"test-nic\""), 19, "device = \"test-broken\"");
  Scenario s = load_scenario_text(text, "tb.toml");
  try {
    Testbed tb(s);
    FAIL("no error");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "NIC beta.eth1 (test-broken in slot 'pci66'): boom");
  }
}

TEST_CASE("Testbed destroys its hardware newest first: links, then hosts from the last, each host's NICs before it", "[testbed]") {
  // SystemC 2.3 removes a port or export from its registry by scanning from the newest end, so
  // this order keeps teardown linear in the number of hosts (2,000 empty hosts: 25 s before).
  testing::destroy_log().clear();
  {
    Testbed tb(load_scenario_text(kTwoHosts, "tb.toml"));
    REQUIRE(testing::destroy_log().empty());
  }
  CHECK(testing::destroy_log() == std::vector<std::string>{"link:link0", "nic:beta_eth1", "host:beta", "nic:alpha_eth1",
                                                  "nic:alpha_eth0", "host:alpha"});
}

}  // namespace platforms_testbed_test
