// Scenario syntax of [[faults]] (docs/faults.md): what loads, what --set reaches, and the message
// of each mistake (file:line:col, key, suggestion), with the real registry entries.
#include "platforms/scenario.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace scenario_faults_test {
using namespace nicsim;

namespace {

const std::string kBase = R"(name = "faults"
[hosts.alpha]
platform = "supermicro-p4dpr-6gm+"
[hosts.alpha.nics.eth1]
device = "82546EB"
slot = "pcix"
driver = "e1000-4.4.12-k1"
[hosts.alpha.bonds.bond0]
mode = "active-backup"
miimon = 100
slaves = ["eth1", "eth1:1"]
[hosts.beta]
platform = "supermicro-p4dpr-6gm+"
[hosts.beta.nics.eth1]
device = "82546EB"
slot = "pcix"
driver = "e1000-4.4.12-k1"
[hosts.beta.bonds.bond0]
mode = "active-backup"
miimon = 100
slaves = ["eth1", "eth1:1"]
[[links]]
a = "alpha.eth1"
b = "beta.eth1"
[[links]]
a = "alpha.eth1:1"
b = "beta.eth1:1"
[[faults]]
type = "cable_pull"
at_s = 2
link = 0
[[faults]]
type = "cable_replug"
at_s = 5
port = "beta.eth1"
[[faults]]
type = "frame_error_rate"
at_s = 0.5
port = "alpha.eth1:1"
rate = 1e-5
until_s = 4
[[faults]]
type = "partner_link_loss"
at_s = 1
port = "alpha.eth1:1"
[workload]
type = "tcp_stream"
transmitter = "alpha.bond0"
receiver = "beta.bond0"
)";

std::string edit(const std::string& from, const std::string& to, std::string text = kBase) {
  auto pos = text.find(from);
  REQUIRE(pos != std::string::npos);
  text.replace(pos, from.size(), to);
  return text;
}

std::string error_of(const std::string& text, const std::vector<std::string>& sets = {}) {
  try {
    load_scenario_text(text, "f.toml", sets);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "(loaded)";
}

}  // namespace

TEST_CASE("scenario faults: each type with its keys and the link found from a port", "[scenario][faults]") {
  Scenario s = load_scenario_text(kBase, "f.toml");
  REQUIRE(s.faults.size() == 4);
  CHECK(s.faults[0].type == "cable_pull");
  CHECK(s.faults[0].at_s == 2.0);
  CHECK(s.faults[0].link == 0);
  CHECK(s.faults[1].link == 0);
  CHECK(s.faults[1].side == 1);  // beta.eth1 is links.0's b
  CHECK(s.faults[2].link == 1);
  CHECK(s.faults[2].side == 0);
  CHECK(s.faults[2].rate == 1e-5);
  CHECK(s.faults[2].until_s == 4.0);
  CHECK(s.faults[3].silent_ms == 1250.0);  // break_link_timer default
  CHECK(s.faults[2].loc.line == 36);
  auto j = s.to_json();
  REQUIRE(j["faults"].size() == 4);
  CHECK(j["faults"][2]["rate"] == 1e-5);
  CHECK(s.faults[2].errors == "fcs");  // the default: errors the FCS catches (CRCERRS)
  CHECK(j["faults"][2]["errors"] == "fcs");
  s = load_scenario_text(edit("rate = 1e-5\n", "rate = 1e-5\nerrors = \"symbol\"\n"), "f.toml");
  CHECK(s.faults[2].errors == "symbol");
  CHECK_THAT(error_of(edit("rate = 1e-5\n", "rate = 1e-5\nerrors = \"symbols\"\n")),
             Catch::Contains("key 'faults.2.errors'") && Catch::Contains("did you mean 'symbol'?"));
  CHECK_THAT(error_of(edit("link = 0\n", "link = 0\nerrors = \"fcs\"\n")),
             Catch::Contains("key 'faults.0.errors'") && Catch::Contains("a cable_pull fault has no 'errors'"));
}

TEST_CASE("scenario faults: --set reaches the entries so a sweep can vary them", "[scenario][faults]") {
  Scenario s = load_scenario_text(kBase, "f.toml", {"faults.0.at_s=2.5", "faults.2.rate=0.001", "faults.*.at_s=3"});
  CHECK(s.faults[0].at_s == 3.0);
  CHECK(s.faults[2].rate == 0.001);
  s = load_scenario_text(kBase, "f.toml", {"faults.0.link=1"});
  CHECK(s.faults[0].link == 1);
  CHECK_THAT(error_of(kBase, {"faults.2.rate=2"}),
             Catch::StartsWith("--set: key 'faults.2.rate'") && Catch::Contains("above the maximum 1"));
  CHECK_THAT(error_of(kBase, {"faults.0.lnk=1"}),
             Catch::Contains("key 'faults.0.lnk'") && Catch::Contains("did you mean 'link'?"));
}

TEST_CASE("scenario faults: mistakes name file line and key with a suggestion", "[scenario][faults]") {
  CHECK_THAT(error_of(edit("type = \"cable_pull\"", "type = \"cable_pul\"")),
             Catch::StartsWith("f.toml:29:") && Catch::Contains("key 'faults.0.type'") &&
                 Catch::Contains("unknown fault type 'cable_pul'") && Catch::Contains("did you mean 'cable_pull'?"));
  CHECK_THAT(error_of(edit("at_s = 2\nlink = 0", "at_s = 2\nlnk = 0")),
             Catch::Contains("f.toml:31:") && Catch::Contains("key 'faults.0.lnk'") &&
                 Catch::Contains("did you mean 'link'?"));
  CHECK_THAT(error_of(edit("at_s = 2\nlink = 0", "at_s = 2\nlink = 2")),
             Catch::Contains("key 'faults.0.link'") && Catch::Contains("above the maximum 1"));
  CHECK_THAT(error_of(edit("at_s = 2\nlink = 0", "link = 0")),
             Catch::Contains("key 'faults.0.at_s'") && Catch::Contains("missing"));
  CHECK_THAT(error_of(edit("port = \"beta.eth1\"", "port = \"beta.eth2\"")),
             Catch::Contains("key 'faults.1.port'") && Catch::Contains("did you mean 'eth1'?"));
  CHECK_THAT(error_of(edit("link = 0\n", "link = 0\nrate = 0.1\n")),
             Catch::Contains("key 'faults.0.rate'") && Catch::Contains("a cable_pull fault has no 'rate'"));
  CHECK_THAT(error_of(edit("rate = 1e-5\n", "")),
             Catch::Contains("key 'faults.2.rate'") && Catch::Contains("missing"));
  CHECK_THAT(error_of(edit("until_s = 4", "until_s = 0.2")),
             Catch::Contains("key 'faults.2.until_s'") && Catch::Contains("not after it starts"));
  CHECK_THAT(error_of(edit("at_s = 2\nlink = 0", "at_s = 2\nlink = 1\nport = \"beta.eth1\"")),
             Catch::Contains("key 'faults.0.port'") && Catch::Contains("is not an end of links.1"));
  CHECK_THAT(error_of(edit("[workload]", "[faultz]\n[workload]")),
             Catch::Contains("unknown top-level key") && Catch::Contains("did you mean 'faults'?"));
}

}  // namespace scenario_faults_test
