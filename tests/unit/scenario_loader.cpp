// Scenario loader: a good file resolves to full parameter sets; each class of bad file gives its
// exact message with file, line, column, key path and suggestion. Uses the test- registry entries
// of tests/unit/fake_entries.cpp.
#include "platforms/scenario.h"
#include "tests/unit/fake_entries.h"
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <unistd.h>

// This file's own names, apart from the other files of a unity batch.
namespace scenario_loader_test {
using namespace nicsim;

namespace {

// Line numbers matter: the expected messages below cite them.
const std::string kGoodScenario = R"(name = "t"
description = "two test boards"
seed = 7

[hosts.alpha]
platform = "test-p4dpr-6gm+"
cpu_mhz = 2000

[hosts.alpha.nics.eth1]
device = "test-dual"
slot = "pcix"
driver = "test-drv"
RxIntDelay = 8
clock_ppm = 20

[hosts.alpha.nics.eth0]
device = "test-lom"
slot = "lan"
driver = "test-drv"

[hosts.beta]
platform = "test-p4dpr-6gm+"

[hosts.beta.nics.eth1]
device = "test-dual"
slot = "pcix"
driver = "test-drv"

[[links]]
type = "test-cable"
a = "alpha.eth1"
b = "beta.eth1:1"
length_m = 5

[workload]
type = "test-pingpong"
transmitter = "alpha.eth1"
receiver = "beta.eth1"
upper = 24
)";

/// kGoodScenario with the first occurrence of `from` replaced by `to` (which must exist).
std::string edit_good(const std::string& from, const std::string& to, std::string text = kGoodScenario) {
  auto pos = text.find(from);
  REQUIRE(pos != std::string::npos);
  return text.replace(pos, from.size(), to);
}

/// The error message loading `text` (as "t.toml") gives, or "no error".
std::string error_of(const std::string& text, const std::vector<std::string>& sets = {}) {
  try {
    load_scenario_text(text, "t.toml", sets);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("scenario: a good file resolves every value, defaults included", "[scenario]") {
  Scenario s = load_scenario_text(kGoodScenario, "t.toml");
  CHECK(s.path == "t.toml");
  CHECK(s.name == "t");
  CHECK(s.description == "two test boards");
  CHECK(s.seed == 7);
  REQUIRE(s.hosts.size() == 2);
  const HostConfig& a = s.hosts[0];
  CHECK(a.name == "alpha");
  CHECK(a.platform == "test-p4dpr-6gm+");
  CHECK(a.params.i("cpu_mhz") == 2000);
  CHECK(a.params.i("memory_mb") == 1024);  // schema default
  CHECK(a.loc.line == 5);
  REQUIRE(a.nics.size() == 2);
  const NicConfig* e1 = s.find_nic("alpha", "eth1");
  REQUIRE(e1);
  CHECK(e1->device == "test-dual");
  CHECK(e1->slot == "pcix");
  CHECK(e1->driver == "test-drv");
  CHECK(e1->driver_params.i("RxIntDelay") == 8);
  CHECK(e1->driver_params.i("InterruptThrottleRate") == 8000);  // default
  CHECK(e1->driver_params.s("FlowControl") == "full");
  CHECK(e1->device_params.r("clock_ppm") == 20.0);  // integer literal accepted for a real
  CHECK_FALSE(e1->driver_params.has("clock_ppm"));
  CHECK(s.find_nic("beta", "eth1")->driver_params.i("RxIntDelay") == 0);
  CHECK(s.find_nic("beta", "eth0") == nullptr);

  REQUIRE(s.links.size() == 1);
  CHECK(s.links[0].a == "alpha.eth1");
  CHECK(s.links[0].b == "beta.eth1:1");
  CHECK(s.links[0].type == "test-cable");
  CHECK(s.links[0].length_m == 5.0);
  CHECK(s.links[0].speed_mbps == 1000);
  CHECK(s.links[0].params.r("skew_ns") == 0.0);
  CHECK(s.links[0].loc.line == 29);

  CHECK(s.workload.type == "test-pingpong");
  CHECK(s.workload.params.i("upper") == 24);
  CHECK(s.workload.params.b("tcp") == true);
  CHECK(s.workload.params.s("receiver") == "beta.eth1");

  auto j = s.to_json();
  CHECK(j["seed"] == 7);
  CHECK(j["hosts"]["alpha"]["params"]["memory_mb"] == 1024);
  CHECK(j["hosts"]["alpha"]["nics"]["eth1"]["driver_params"]["InterruptThrottleRate"] == 8000);
  CHECK(j["hosts"]["alpha"]["nics"]["eth0"]["slot"] == "lan");
  CHECK(j["links"][0]["b"] == "beta.eth1:1");
  CHECK(j["links"][0]["length_m"] == 5.0);
  CHECK(j["workload"]["params"]["tcp"] == true);
}

TEST_CASE("scenario: load_scenario reads a file and --seed overrides the file's seed", "[scenario]") {
  auto dir = std::filesystem::temp_directory_path() / ("nicsim-loader-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto path = (dir / "s.toml").string();
  std::ofstream(path) << kGoodScenario;
  CHECK(load_scenario(path).seed == 7);
  CHECK(load_scenario(path, {}, 42).seed == 42);
  CHECK(load_scenario(path, {"seed=3"}, 42).seed == 42);
  CHECK(load_scenario(path, {"seed=3"}).seed == 3);
  std::string missing = (dir / "nope.toml").string();
  try {
    load_scenario(missing);
    FAIL("no error");
  } catch (const ScenarioError& e) {
    CHECK(std::string(e.what()) == missing + ": cannot read scenario file: no such file");
    CHECK(e.line == 0);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("scenario: --set overrides with exact paths, wildcards and array indices", "[scenario]") {
  Scenario s = load_scenario_text(kGoodScenario, "t.toml",
                                  {"hosts.*.nics.eth1.RxIntDelay=16", "links.0.length_m=10.5", "workload.upper=1024",
                                   "description=hello world", "workload.transmitter=beta.eth1",
                                   "workload.receiver=\"alpha.eth1\"", "hosts.beta.nics.eth1.FlowControl=rx",
                                   "workload.tcp=false", "hosts.*.memory_mb=2048"});
  CHECK(s.find_nic("alpha", "eth1")->driver_params.i("RxIntDelay") == 16);
  CHECK(s.find_nic("beta", "eth1")->driver_params.i("RxIntDelay") == 16);
  CHECK(s.find_nic("alpha", "eth0")->driver_params.i("RxIntDelay") == 0);  // not named eth1
  CHECK(s.links[0].length_m == 10.5);
  CHECK(s.workload.params.i("upper") == 1024);
  CHECK(s.description == "hello world");
  CHECK(s.workload.params.s("transmitter") == "beta.eth1");
  CHECK(s.workload.params.s("receiver") == "alpha.eth1");
  CHECK(s.find_nic("beta", "eth1")->driver_params.s("FlowControl") == "rx");
  CHECK(s.workload.params.b("tcp") == false);
  CHECK(s.hosts[0].params.i("memory_mb") == 2048);
  CHECK(s.hosts[1].params.i("memory_mb") == 2048);
  CHECK(s.overrides.size() == 9);
  // A wildcard that reaches a NIC only some hosts have skips the others.
  Scenario s2 = load_scenario_text(kGoodScenario, "t.toml", {"hosts.*.nics.eth0.RxIntDelay=4"});
  CHECK(s2.find_nic("alpha", "eth0")->driver_params.i("RxIntDelay") == 4);
  CHECK(s2.find_nic("alpha", "eth1")->driver_params.i("RxIntDelay") == 8);
}

TEST_CASE("scenario: bad --set arguments name --set, the key and the nearest name", "[scenario]") {
  CHECK(error_of(kGoodScenario, {"workload.upper"}) ==
        "--set: 'workload.upper': expected PATH=VALUE (e.g. workload.upper=1024)");
  CHECK(error_of(kGoodScenario, {"=3"}) == "--set: '=3': empty key path before '='");
  CHECK(error_of(kGoodScenario, {"hosts..cpu_mhz=3"}) == "--set: 'hosts..cpu_mhz=3': empty segment in key path 'hosts..cpu_mhz'");
  CHECK(error_of(kGoodScenario, {"hosts.alpah.cpu_mhz=3"}) ==
        "--set: key 'hosts.alpah': no such table in the scenario (did you mean 'alpha'?)");
  CHECK(error_of(kGoodScenario, {"hosts.*.nics.eth9.RxIntDelay=3"}) ==
        "--set: 'hosts.*.nics.eth9.RxIntDelay=3': the key path matches nothing in the scenario");
  CHECK(error_of(kGoodScenario, {"links.3.length_m=3"}) == "--set: key 'links.3': no such table in the scenario");
  CHECK(error_of(kGoodScenario, {"seed.x=3"}) == "--set: key 'seed': is integer 7, not a table");
  // Values are validated like file values, located at --set.
  CHECK(error_of(kGoodScenario, {"hosts.alpha.nics.eth1.RxIntDelay=abc"}) ==
        "--set: key 'hosts.alpha.nics.eth1.RxIntDelay': wrong type: expected integer, got string \"abc\"");
  CHECK(error_of(kGoodScenario, {"hosts.*.nics.eth1.RxIntDelya=8"}) ==
        "--set: key 'hosts.alpha.nics.eth1.RxIntDelya': unknown parameter of driver test-drv (did you mean "
        "'RxIntDelay'?)");
  CHECK(error_of(kGoodScenario, {"seed=-1"}) == "--set: key 'seed': value -1 is below the minimum 0");
  CHECK(error_of(kGoodScenario, {"nmae=x"}) == "--set: key 'nmae': unknown top-level key (did you mean 'name'?)");
}

TEST_CASE("scenario: TOML syntax errors give file, line and column", "[scenario]") {
  std::string e = error_of(edit_good("cpu_mhz = 2000", "cpu_mhz = "));
  CHECK_THAT(e, Catch::StartsWith("t.toml:7:"));
  CHECK_THAT(e, Catch::Contains("TOML syntax error"));
}

TEST_CASE("scenario: unknown keys suggest the nearest valid name", "[scenario]") {
  CHECK(error_of(edit_good("name = \"t\"", "nmae = \"t\"")) ==
        "t.toml:1:1: key 'nmae': unknown top-level key (did you mean 'name'?)");
  CHECK(error_of(edit_good("RxIntDelay = 8", "RxIntDelya = 8")) ==
        "t.toml:13:1: key 'hosts.alpha.nics.eth1.RxIntDelya': unknown parameter of driver test-drv (did you mean "
        "'RxIntDelay'?)");
  CHECK(error_of(edit_good("clock_ppm = 20", "clock_pmm = 20")) ==
        "t.toml:14:1: key 'hosts.alpha.nics.eth1.clock_pmm': unknown parameter of device test-dual (did you mean "
        "'clock_ppm'?)");
  CHECK(error_of(edit_good("slot = \"pcix\"", "slto = \"pcix\"")) ==
        "t.toml:11:1: key 'hosts.alpha.nics.eth1.slto': unknown key (did you mean 'slot'?)");
  CHECK(error_of(edit_good("clock_ppm = 20", "frobnicate = 20")) ==
        "t.toml:14:1: key 'hosts.alpha.nics.eth1.frobnicate': unknown key: not a NIC key (device, slot, driver) nor "
        "a parameter of driver test-drv or device test-dual");
  CHECK(error_of(edit_good("cpu_mhz = 2000", "cpu_mz = 2000")) ==
        "t.toml:7:1: key 'hosts.alpha.cpu_mz': unknown parameter of platform test-p4dpr-6gm+ (did you mean "
        "'cpu_mhz'?)");
  CHECK(error_of(edit_good("upper = 24", "uper = 24")) ==
        "t.toml:39:1: key 'workload.uper': unknown parameter of workload test-pingpong (did you mean 'upper'?)");
  CHECK(error_of(edit_good("length_m = 5", "lenght_m = 5")) ==
        "t.toml:33:1: key 'links.0.lenght_m': unknown key of a link (did you mean 'length_m'?)");
  CHECK(error_of(edit_good("length_m = 5", "skew_n = 5")) ==
        "t.toml:33:1: key 'links.0.skew_n': unknown parameter of link type test-cable (did you mean 'skew_ns'?)");
}

TEST_CASE("scenario: missing required keys name the table that lacks them", "[scenario]") {
  CHECK(error_of(edit_good("name = \"t\"\n", "")) == "t.toml:1:1: key 'name': missing (the scenario's name)");
  CHECK(error_of(edit_good("driver = \"test-drv\"\nRxIntDelay", "RxIntDelay")) ==
        "t.toml:9:1: key 'hosts.alpha.nics.eth1.driver': missing (driver name)");
  CHECK(error_of(edit_good("[workload]\ntype = \"test-pingpong\"\n", "[workload]\n")) ==
        "t.toml:35:1: key 'workload.type': missing (workload name)");
  CHECK(error_of(edit_good("a = \"alpha.eth1\"\n", "")) ==
        "t.toml:29:1: key 'links.0.a': missing (a port: \"host.nic\" or \"host.nic:port\")");
}

TEST_CASE("scenario: wrong types and out-of-range values", "[scenario]") {
  CHECK(error_of(edit_good("seed = 7", "seed = \"7\"")) ==
        "t.toml:3:8: key 'seed': wrong type: expected integer, got string \"7\"");
  CHECK(error_of(edit_good("cpu_mhz = 2000", "cpu_mhz = 2.5")) ==
        "t.toml:7:11: key 'hosts.alpha.cpu_mhz': wrong type: expected integer, got number 2.5");
  // A float that happens to be whole keeps its point (bug: "expected integer, got number 2000").
  CHECK(error_of(edit_good("cpu_mhz = 2000", "cpu_mhz = 2000.0")) ==
        "t.toml:7:11: key 'hosts.alpha.cpu_mhz': wrong type: expected integer, got number 2000.0");
  CHECK(error_of(edit_good("RxIntDelay = 8", "RxIntDelay = 70000")) ==
        "t.toml:13:14: key 'hosts.alpha.nics.eth1.RxIntDelay': value 70000 is above the maximum 65535 [1.024 µs "
        "units]");
  CHECK(error_of(edit_good("clock_ppm = 20", "clock_ppm = -150")) ==
        "t.toml:14:13: key 'hosts.alpha.nics.eth1.clock_ppm': value -150 is below the minimum -100 [ppm]");
  CHECK(error_of(edit_good("RxIntDelay = 8", "FlowControl = \"ful\"")) ==
        "t.toml:13:15: key 'hosts.alpha.nics.eth1.FlowControl': 'ful' is not one of: none, rx, tx, full (did you "
        "mean 'full'?)");
  CHECK(error_of(edit_good("upper = 24", "tcp = 1")) ==
        "t.toml:39:7: key 'workload.tcp': wrong type: expected boolean, got integer 1");
  CHECK(error_of(edit_good("length_m = 5", "speed_mbps = 500")) ==
        "t.toml:33:14: key 'links.0.speed_mbps': value 500 is not one of: 10, 100, 1000");
  CHECK(error_of(edit_good("[[links]]", "[links]")) ==
        "t.toml:29:1: key 'links': wrong type: expected an array of [[links]] tables, got a table");
  CHECK(error_of(edit_good("[hosts.beta]\nplatform = \"test-p4dpr-6gm+\"\n", "[hosts.beta]\nplatform = 5.5\n")) ==
        "t.toml:22:12: key 'hosts.beta.platform': wrong type: expected string, got number 5.5");
  // A number where a name is expected is that name's text (part numbers such as 82559).
  CHECK(error_of(edit_good("[hosts.beta]\nplatform = \"test-p4dpr-6gm+\"\n", "[hosts.beta]\nplatform = 5\n")) ==
        "t.toml:22:12: key 'hosts.beta.platform': unknown platform '5'");
}

TEST_CASE("scenario: unknown registry names suggest the nearest registered one", "[scenario]") {
  CHECK(error_of(edit_good("platform = \"test-p4dpr-6gm+\"", "platform = \"test-p4dpr-6gm\"")) ==
        "t.toml:6:12: key 'hosts.alpha.platform': unknown platform 'test-p4dpr-6gm' (did you mean "
        "'test-p4dpr-6gm+'?)");
  CHECK(error_of(edit_good("device = \"test-dual\"", "device = \"test-duel\"")) ==
        "t.toml:10:10: key 'hosts.alpha.nics.eth1.device': unknown device 'test-duel' (did you mean 'test-dual'?)");
  CHECK(error_of(edit_good("driver = \"test-drv\"", "driver = \"test-dvr\"")) ==
        "t.toml:12:10: key 'hosts.alpha.nics.eth1.driver': unknown driver 'test-dvr' (did you mean 'test-drv'?)");
  CHECK(error_of(edit_good("type = \"test-pingpong\"", "type = \"test-pinpong\"")) ==
        "t.toml:36:8: key 'workload.type': unknown workload 'test-pinpong' (did you mean 'test-pingpong'?)");
  CHECK(error_of(edit_good("type = \"test-cable\"", "type = \"test-cabel\"")) ==
        "t.toml:30:8: key 'links.0.type': unknown link type 'test-cabel' (did you mean 'test-cable'?)");
}

TEST_CASE("scenario: slots, devices and drivers must fit together", "[scenario]") {
  // A slot the platform lacks.
  CHECK(error_of(edit_good("slot = \"pcix\"", "slot = \"pci-x\"")) ==
        "t.toml:11:8: key 'hosts.alpha.nics.eth1.slot': platform test-p4dpr-6gm+ has no slot 'pci-x' (its slots: "
        "lan, pci66, pcix) (did you mean 'pcix'?)");
  // A device the slot refuses (the platform's rule), at an onboard position, or an onboard-only part.
  CHECK(error_of(edit_good("device = \"test-dual\"", "device = \"test-nic32\"")) ==
        "t.toml:11:8: key 'hosts.alpha.nics.eth1.slot': device test-nic32 cannot sit in slot 'pcix': test: "
        "64-bit-only slot");
  CHECK(error_of(edit_good("slot = \"pcix\"", "slot = \"lan\"")) ==
        "t.toml:11:8: key 'hosts.alpha.nics.eth1.slot': slot 'lan' is an onboard position of test-lom; device "
        "test-dual cannot sit there");
  CHECK(error_of(edit_good("slot = \"lan\"", "slot = \"pci66\"")) ==
        "t.toml:18:8: key 'hosts.alpha.nics.eth0.slot': device test-lom is a LAN-on-motherboard part and cannot sit "
        "in add-in slot 'pci66' (its onboard position: 'lan')");
  // Two devices in one slot (eth0 is read first: NICs load in name order).
  CHECK(error_of(edit_good("slot = \"lan\"", "slot = \"pcix\"", edit_good("device = \"test-lom\"", "device = \"test-nic\""))) ==
        "t.toml:11:8: key 'hosts.alpha.nics.eth1.slot': slot 'pcix' already holds hosts.alpha.nics.eth0");
  // A driver that does not bind the device.
  CHECK(error_of(edit_good("driver = \"test-drv\"", "driver = \"test-drv-other\"")) ==
        "t.toml:12:10: key 'hosts.alpha.nics.eth1.driver': driver test-drv-other does not support device test-dual "
        "(it binds: test-other)");
}

TEST_CASE("scenario: link ends and workload endpoints must exist", "[scenario]") {
  CHECK(error_of(edit_good("b = \"beta.eth1:1\"", "b = \"betta.eth1\"")) ==
        "t.toml:32:5: key 'links.0.b': no host 'betta' in this scenario (did you mean 'beta'?)");
  CHECK(error_of(edit_good("b = \"beta.eth1:1\"", "b = \"beta.eth2\"")) ==
        "t.toml:32:5: key 'links.0.b': host beta has no NIC 'eth2' (did you mean 'eth1'?)");
  CHECK(error_of(edit_good("b = \"beta.eth1:1\"", "b = \"beta.eth1:2\"")) ==
        "t.toml:32:5: key 'links.0.b': device test-dual has 2 Ethernet ports (0..1); port 2 does not exist");
  CHECK(error_of(edit_good("b = \"beta.eth1:1\"", "b = \"alpha.eth0:1\"")) ==
        "t.toml:32:5: key 'links.0.b': device test-lom has 1 Ethernet port (0); port 1 does not exist");
  CHECK(error_of(edit_good("b = \"beta.eth1:1\"", "b = \"beta\"")) ==
        "t.toml:32:5: key 'links.0.b': expected \"host.nic\" or \"host.nic:port\", got \"beta\"");
  CHECK(error_of(edit_good("b = \"beta.eth1:1\"", "b = \"alpha.eth1:0\"")) ==
        "t.toml:32:5: key 'links.0.b': a link cannot join a port to itself");
  CHECK(error_of(edit_good("[workload]", "[[links]]\ntype = \"test-cable\"\na = \"beta.eth1\"\nb = \"alpha.eth1\"\n\n[workload]")) ==
        "t.toml:38:5: key 'links.1.b': port alpha.eth1:0 is already linked by links.0");
  CHECK(error_of(edit_good("receiver = \"beta.eth1\"", "receiver = \"beta.eth3\"")) ==
        "t.toml:38:12: key 'workload.receiver': host beta has no NIC 'eth3' (did you mean 'eth1'?)");
}

TEST_CASE("scenario: parse_endpoint", "[scenario]") {
  auto e = parse_endpoint("alpha.eth1:1");
  REQUIRE(e);
  CHECK(e->host == "alpha");
  CHECK(e->nic == "eth1");
  CHECK(e->port == 1);
  CHECK(parse_endpoint("alpha.eth1")->port == 0);
  CHECK_FALSE(parse_endpoint("alpha"));
  CHECK_FALSE(parse_endpoint("alpha.eth1:"));
  CHECK_FALSE(parse_endpoint("alpha.eth1:x"));
  CHECK_FALSE(parse_endpoint(".eth1"));
  CHECK_FALSE(parse_endpoint("a.b.c"));
}

}  // namespace scenario_loader_test
