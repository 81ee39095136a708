// Scenario syntax of bonds ([hosts.H.bonds.bond0]: mode, miimon, slaves) and per-host TCP sysctls
// ([hosts.H.sysctl]), with the real registry entries (P4DPR-6GM+, 82546EB, e1000, NetPIPE): what
// loads, and the message of each mistake (file:line:col, key, suggestion).
#include "core/sim_context.h"
#include "platforms/host_software.h"
#include "platforms/scenario.h"
#include "scenario_run.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace scenario_bonds_test {
using namespace nicsim;

namespace {

const std::string kBonded = R"(name = "bonded"
[hosts.alpha]
platform = "supermicro-p4dpr-6gm+"
[hosts.alpha.nics.eth1]
device = "82546EB"
slot = "pcix"
driver = "e1000-4.4.12-k1"
[hosts.alpha.bonds.bond0]
mode = 0
miimon = 100
slaves = ["eth1", "eth1:1"]
[hosts.alpha.sysctl]
"net.ipv4.tcp_reordering" = 10
[hosts.beta]
platform = "supermicro-p4dpr-6gm+"
[hosts.beta.nics.eth1]
device = "82546EB"
slot = "pcix"
driver = "e1000-4.4.12-k1"
[hosts.beta.bonds.bond0]
slaves = ["eth1", "eth1:1"]
[hosts.beta.sysctl.net.ipv4]
tcp_reordering = 127
[[links]]
a = "alpha.eth1"
b = "beta.eth1"
[[links]]
a = "alpha.eth1:1"
b = "beta.eth1:1"
[workload]
type = "netpipe"
transmitter = "alpha.bond0"
receiver = "beta.bond0"
lower = 65536
upper = 65536
)";

std::string edit(const std::string& from, const std::string& to, std::string text = kBonded) {
  auto pos = text.find(from);
  REQUIRE(pos != std::string::npos);
  text.replace(pos, from.size(), to);
  return text;
}

std::string bonds_error_of(const std::string& text) {
  try {
    load_scenario_text(text, "b.toml");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "(loaded)";
}

}  // namespace

TEST_CASE("scenario bonds: modprobe-style mode and miimon, ifenslave order, sysctls in both spellings", "[scenario][bonding]") {
  Scenario s = load_scenario_text(kBonded, "b.toml");
  const BondConfig* b = s.find_bond("alpha", "bond0");
  REQUIRE(b);
  CHECK(b->slaves == std::vector<std::string>{"eth1", "eth1:1"});
  CHECK(b->params.s("mode") == "balance-rr");  // mode = 0
  CHECK(b->params.i("miimon") == 100);
  CHECK(s.find_bond("beta", "bond0")->params.s("mode") == "balance-rr");  // the module default
  CHECK(s.find_bond("beta", "bond0")->params.i("miimon") == 0);
  CHECK(s.bond_of_port("alpha", "eth1", 1) == b);
  CHECK(s.bond_of_port("alpha", "eth2", 0) == nullptr);
  CHECK(s.find_host("alpha")->sysctl.i("net.ipv4.tcp_reordering") == 10);
  CHECK(s.find_host("beta")->sysctl.i("net.ipv4.tcp_reordering") == 127);
  CHECK(s.find_host("beta")->sysctl.i("net.ipv4.tcp_sack") == 1);
  // Both slave ports are one interface: the bond.
  CHECK(interface_of(s, "alpha.eth1:1") == "alpha.bond0:0");
  CHECK(interface_of(s, "alpha.eth1:0") == "alpha.bond0:0");
  CHECK(s.to_json()["hosts"]["alpha"]["bonds"]["bond0"]["slaves"][1] == "eth1:1");
}

TEST_CASE("scenario bonds: bad modes, slaves and sysctls are load errors naming the key", "[scenario][bonding]") {
  CHECK_THAT(bonds_error_of(edit("mode = 0", "mode = \"802.3ad\"")),
             Catch::Contains("b.toml:9:8: key 'hosts.alpha.bonds.bond0.mode'") &&
                 Catch::Contains("not in Linux 2.4.20's bonding.c"));
  CHECK_THAT(bonds_error_of(edit("mode = 0", "mode = \"balance-r\"")), Catch::Contains("(did you mean 'balance-rr'?)"));
  CHECK_THAT(bonds_error_of(edit("miimon = 100", "miimom = 100")),
             Catch::Contains("unknown parameter of the bonding driver (did you mean 'miimon'?)"));
  CHECK_THAT(bonds_error_of(edit("slaves = [\"eth1\", \"eth1:1\"]", "slaves = [\"eth2\"]")),
             Catch::Contains("key 'hosts.alpha.bonds.bond0.slaves.0': host alpha has no NIC 'eth2' (did you mean 'eth1'?)"));
  CHECK_THAT(bonds_error_of(edit("slaves = [\"eth1\", \"eth1:1\"]", "slaves = [\"eth1\", \"eth1:2\"]")),
             Catch::Contains("device 82546EB has 2 Ethernet ports; port 2 does not exist"));
  CHECK_THAT(bonds_error_of(edit("slaves = [\"eth1\", \"eth1:1\"]", "slaves = [\"eth1\", \"eth1\"]")),
             Catch::Contains("eth1 is already a slave of hosts.alpha.bonds.bond0"));
  CHECK_THAT(bonds_error_of(edit("\"net.ipv4.tcp_reordering\" = 10", "\"net.ipv4.tcp_reordering\" = 200")),
             Catch::Contains("key 'hosts.alpha.sysctl.net.ipv4.tcp_reordering'") && Catch::Contains("maximum 127"));
  CHECK_THAT(bonds_error_of(edit("\"net.ipv4.tcp_reordering\" = 10", "\"net.ipv4.tcp_reordering\" = 2")),
             Catch::Contains("minimum 3"));
  CHECK_THAT(bonds_error_of(edit("tcp_reordering = 127", "tcp_reorder = 127")),
             Catch::Contains("key 'hosts.beta.sysctl.net.ipv4.tcp_reorder'") &&
                 Catch::Contains("(did you mean 'net.ipv4.tcp_reordering'?)"));
  // A workload names the bond, not its slaves; a cable plugs into a slave's port, not the bond.
  CHECK_THAT(bonds_error_of(edit("transmitter = \"alpha.bond0\"", "transmitter = \"alpha.eth1:1\"")),
             Catch::Contains("alpha.eth1:1 is a slave of alpha.bond0") && Catch::Contains("name the bond \"alpha.bond0\""));
  CHECK_THAT(bonds_error_of(edit("transmitter = \"alpha.bond0\"", "transmitter = \"alpha.bond1\"")),
             Catch::Contains("host alpha has no NIC or bond 'bond1' (did you mean 'bond0'?)"));
  CHECK_THAT(bonds_error_of(edit("a = \"alpha.eth1:1\"", "a = \"alpha.bond0\"")),
             Catch::Contains("bond0 is a bond of host alpha: a cable plugs into one of its slaves' ports"));
  // Without the bond, two cabled ports on one host are still refused, now pointing at bonding.
  std::string unbonded = edit("[hosts.alpha.bonds.bond0]\nmode = 0\nmiimon = 100\nslaves = [\"eth1\", \"eth1:1\"]\n", "");
  unbonded = edit("transmitter = \"alpha.bond0\"", "transmitter = \"alpha.eth1\"", unbonded);
  CHECK_THAT(bonds_error_of(unbonded), Catch::Contains("host alpha already has a cabled port") &&
                                     Catch::Contains("enslave the ports to one bond"));
}

TEST_CASE("scenario bonds: a bond whose slaves are cabled to two different hosts is a load error", "[scenario][bonding]") {
  // Found by the breaker: it loaded, and the third host dropped half the stream (rx_filtered).
  std::string text = edit("b = \"beta.eth1:1\"", "b = \"gamma.eth1\"");
  text = edit("[[links]]\na = \"alpha.eth1\"",
              "[hosts.gamma]\nplatform = \"supermicro-p4dpr-6gm+\"\n[hosts.gamma.nics.eth1]\ndevice = \"82546EB\"\n"
              "slot = \"pcix\"\ndriver = \"e1000-4.4.12-k1\"\n[[links]]\na = \"alpha.eth1\"",
              text);
  CHECK_THAT(bonds_error_of(text), Catch::Contains("key 'links.1.a'") &&
                                 Catch::Contains("alpha.eth1:1 is a slave of alpha.bond0, whose other slaves are cabled to "
                                                 "host beta (links.0); this cable goes to host gamma"));
}

TEST_CASE("scenario bonds: one sysctl in two spellings, updelay against miimon and IFNAMSIZ are load errors",
          "[scenario][bonding]") {
  // The quoted and the dotted spelling of one sysctl in one host: refused, naming the second.
  CHECK_THAT(bonds_error_of(edit("\"net.ipv4.tcp_reordering\" = 10", "\"net.ipv4.tcp_reordering\" = 10\nnet.ipv4.tcp_reordering = 20")),
             Catch::Contains("key 'hosts.alpha.sysctl.net.ipv4.tcp_reordering'") &&
                 Catch::Contains("is already set by hosts.alpha.sysctl.net.ipv4.tcp_reordering") &&
                 Catch::Contains("keep one"));
  // bond_init rounds updelay down to a multiple of miimon: said at load, with both nearest values.
  CHECK_THAT(bonds_error_of(edit("miimon = 100", "miimon = 100\nupdelay = 250")),
             Catch::Contains("key 'hosts.alpha.bonds.bond0.updelay'") &&
                 Catch::Contains("250 ms is not a multiple of miimon = 100 ms: bonding.c would round it down to 200 ms") &&
                 Catch::Contains("write 200 or 300"));
  CHECK_THAT(bonds_error_of(edit("miimon = 100", "miimon = 0\ndowndelay = 200")),
             Catch::Contains("key 'hosts.alpha.bonds.bond0.downdelay'") && Catch::Contains("no effect without miimon"));
  CHECK(bonds_error_of(edit("miimon = 100", "miimon = 100\nupdelay = 300\ndowndelay = 200")) == "(loaded)");
  CHECK_THAT(bonds_error_of(edit("miimon = 100", "miimon = 100\nupdelay = -100")), Catch::Contains("below the minimum 0"));
  // IFNAMSIZ 16: at most 15 characters.
  std::string longname = edit("[hosts.alpha.bonds.bond0]", "[hosts.alpha.bonds.bond0123456789ab]");
  longname = edit("transmitter = \"alpha.bond0\"", "transmitter = \"alpha.bond0123456789ab\"", longname);
  CHECK_THAT(bonds_error_of(longname), Catch::Contains("key 'hosts.alpha.bonds.bond0123456789ab'") &&
                                     Catch::Contains("16 characters: an interface name has at most 15 (IFNAMSIZ 16)"));
}

TEST_CASE("scenario: --set of a sysctl creates the host's sysctl table when the file has none", "[scenario][bonding]") {
  std::string text = edit("[hosts.beta.sysctl.net.ipv4]\ntcp_reordering = 127\n", "");
  text = edit("[hosts.alpha.sysctl]\n\"net.ipv4.tcp_reordering\" = 10\n", "", text);
  Scenario s = load_scenario_text(text, "b.toml", {"hosts.beta.sysctl.net.ipv4.tcp_reordering=64"});
  CHECK(s.find_host("beta")->sysctl.i("net.ipv4.tcp_reordering") == 64);
  CHECK(s.find_host("alpha")->sysctl.i("net.ipv4.tcp_reordering") == 3);
  s = load_scenario_text(text, "b.toml", {"hosts.*.sysctl.net.ipv4.tcp_reordering=10"});
  CHECK(s.find_host("alpha")->sysctl.i("net.ipv4.tcp_reordering") == 10);
  CHECK(s.find_host("beta")->sysctl.i("net.ipv4.tcp_reordering") == 10);
  // A misspelt sysctl given by --set is the loader's usual message, blamed on --set.
  try {
    load_scenario_text(text, "b.toml", {"hosts.beta.sysctl.net.ipv4.tcp_reorderin=64"});
    FAIL("loaded");
  } catch (const ScenarioError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("--set") && Catch::Contains("did you mean 'net.ipv4.tcp_reordering'?"));
  }
}

TEST_CASE("scenario: --set of a sysctl the file gives in the quoted spelling overrides it (bug: refused as two "
          "spellings of one sysctl)",
          "[scenario][bonding]") {
  // alpha's file has "net.ipv4.tcp_reordering" = 10 (quoted); --set writes the dotted path.
  Scenario s = load_scenario_text(kBonded, "b.toml", {"hosts.alpha.sysctl.net.ipv4.tcp_reordering=3"});
  CHECK(s.find_host("alpha")->sysctl.i("net.ipv4.tcp_reordering") == 3);
  s = load_scenario_text(kBonded, "b.toml", {"hosts.*.sysctl.net.ipv4.tcp_reordering=5"});
  CHECK(s.find_host("alpha")->sysctl.i("net.ipv4.tcp_reordering") == 5);
  CHECK(s.find_host("beta")->sysctl.i("net.ipv4.tcp_reordering") == 5);
  // The file alone with both spellings is still refused.
  CHECK_THAT(bonds_error_of(edit("\"net.ipv4.tcp_reordering\" = 10", "\"net.ipv4.tcp_reordering\" = 10\nnet.ipv4.tcp_reordering = 20")),
             Catch::Contains("keep one"));
}

TEST_CASE("scenario bonds: a second cabled port beside a bond names the slave port, not the bond", "[scenario][bonding]") {
  // Found by the breaker: the message named "alpha.bond0:0", which is no port.
  const std::string lom = "device = \"82544GC\"\nslot = \"onboard-gbe\"\ndriver = \"e1000-4.4.12-k1\"\n";
  std::string text = edit("[hosts.alpha.bonds.bond0]", "[hosts.alpha.nics.eth0]\n" + lom + "[hosts.alpha.bonds.bond0]");
  text = edit("[hosts.beta.bonds.bond0]", "[hosts.beta.nics.eth0]\n" + lom + "[hosts.beta.bonds.bond0]", text);
  text = edit("[workload]", "[[links]]\na = \"alpha.eth0\"\nb = \"beta.eth0\"\n[workload]", text);
  CHECK_THAT(bonds_error_of(text), Catch::Contains("key 'links.2.a': host alpha already has a cabled port (alpha.eth1:0 in "
                                             "links.0, a slave of alpha.bond0)"));
}

TEST_CASE("scenario bonds: active-backup without miimon whose first slave has no cable is a load error (bug: the run "
          "never failed over and stalled until time_limit_s)",
          "[scenario][bonding]") {
  // alpha's bond0 in active-backup, the first slave's (eth1, port 0) cable removed.
  std::string text = edit("[[links]]\na = \"alpha.eth1\"\nb = \"beta.eth1\"\n", "");
  text = edit("mode = 0\nmiimon = 100", "mode = \"active-backup\"", text);
  CHECK_THAT(bonds_error_of(text), Catch::Contains("key 'hosts.alpha.bonds.bond0.miimon'") &&
                                 Catch::Contains("active-backup bond bond0 has miimon = 0 and its first slave eth1 has no "
                                                 "cable") &&
                                 Catch::Contains("set miimon (e.g. 100) so bond_mii_monitor fails over to eth1:1, or "
                                                 "cable eth1"));
  // With the monitor, bond_enslave finds eth1's link down and eth1:1 becomes the active slave: loads.
  CHECK(bonds_error_of(edit("mode = \"active-backup\"", "mode = \"active-backup\"\nmiimon = 100", text)) == "(loaded)");
  // Round-robin and XOR skip a slave without carrier (IS_UP) even without the monitor: loads.
  CHECK(bonds_error_of(edit("mode = \"active-backup\"", "mode = \"balance-rr\"", text)) == "(loaded)");
  CHECK(bonds_error_of(edit("mode = \"active-backup\"", "mode = \"balance-xor\"", text)) == "(loaded)");
  // The first slave cabled, the second not: active-backup without miimon uses the first: loads.
  std::string second = edit("[[links]]\na = \"alpha.eth1:1\"\nb = \"beta.eth1:1\"\n", "");
  CHECK(bonds_error_of(edit("mode = 0\nmiimon = 100", "mode = \"active-backup\"", second)) == "(loaded)");
}

TEST_CASE("scenario bonds: active-backup with miimon 100 over e1000 fails over from an uncabled first slave (bug: e1000 "
          "answered no link ioctl, bond_check_dev_link spoofed link up and the run stalled until time_limit_s)",
          "[scenario][bonding]") {
  // 2.4.20 bond_check_dev_link asks ETHTOOL_GLINK first; e1000_ethtool_ioctl answers netif_carrier_ok, which
  // e1000_watchdog never turns on for the port without a cable. eth1:1 must carry every frame.
  std::string text = edit("[[links]]\na = \"alpha.eth1\"\nb = \"beta.eth1\"\n", "");
  text = edit("mode = 0\nmiimon = 100", "mode = \"active-backup\"\nmiimon = 100", text);
  text = edit("upper = 65536\n", "upper = 65536\ntrials = 1\ntime_limit_s = 5\n", text);
  const test::ScenarioRun r = test::run_in_process(load_scenario_text(text, "b.toml"));
  REQUIRE(r.rc == 0);
  const nlohmann::json c = sim().counters.to_json("alpha.bond0.");
  INFO(c.dump());
  REQUIRE(c.contains("alpha.bond0.eth1.tx_packets"));
  REQUIRE(c.contains("alpha.bond0.eth1:1.tx_packets"));
  CHECK(c["alpha.bond0.eth1:1.tx_packets"].get<uint64_t>() > 0);
  CHECK(c["alpha.bond0.eth1.tx_packets"].get<uint64_t>() == 0);
  // The run starts once the bond has a usable slave (host_software.cpp ifup): eth1:1 is enslaved
  // before its first watchdog run saw link, so its link is BOND_LINK_DOWN until the next monitor run;
  // a SYN sent before that was freed ("no suitable interface") and cost a 3 s SYN timeout.
  CHECK(c["alpha.bond0.tx_no_slave"].get<uint64_t>() == 0);
  CHECK(sc_core::sc_time_stamp() < sc_core::sc_time(5, sc_core::SC_SEC));  // finished, not stopped by the limit
}

}  // namespace scenario_bonds_test
