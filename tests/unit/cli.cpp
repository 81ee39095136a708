// CLI: exit codes and messages of the real `nicsim` binary (NICSIM_BIN) on small scenario files,
// and `run` end to end in-process on the test- registry entries (tests/unit/fake_entries.cpp),
// which the real binary does not contain.
//
// The binary tests only use error paths that do not depend on which real platforms exist, so they
// keep passing as models land.
#include "cli/verbs.h"
#include "core/sim_context.h"
#include "tests/unit/fake_entries.h"
#include "tests/support/run_nicsim.h"
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

// This file's own names, apart from the other files of a unity batch.
namespace cli_test {
using namespace nicsim;

namespace fs = std::filesystem;

namespace {

/// A temporary directory removed at scope exit.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("nicsim-cli-" + std::to_string(::getpid()));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

using test::slurp;
using Result = test::BinResult;

/// Run the nicsim binary with `args` (each shell-quoted); capture exit code, stdout, stderr.
Result nicsim_bin(const TempDir& dir, const std::vector<std::string>& args) { return test::run_nicsim_bin(dir.path, args); }

const char* kScenarioHead = "name = \"cli\"\nseed = 1\n\n[hosts.alpha]\nplatform = \"no-such-board\"\n\n[workload]\ntype = \"x\"\n";

}  // namespace

TEST_CASE("cli: top-level help, version, unknown verbs, no SystemC banner", "[cli]") {
  TempDir d;
  auto r = nicsim_bin(d, {});
  CHECK(r.code == 2);
  r = nicsim_bin(d, {"--help"});
  CHECK(r.code == 0);
  for (const char* verb : {"run", "list", "describe", "sweep", "check", "explain", "report"})
    CHECK_THAT(r.out, Catch::Contains(std::string("  ") + verb));
  r = nicsim_bin(d, {"--version"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("nicsim "));
  CHECK_THAT(r.out + r.err, !Catch::Contains("Copyright"));
  r = nicsim_bin(d, {"rnu"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::StartsWith("nicsim: unknown verb 'rnu' (did you mean 'run'?)"));
  for (const char* verb : {"run", "list", "describe"}) {
    r = nicsim_bin(d, {verb, "--help"});
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::StartsWith(std::string("usage: nicsim ") + verb));
  }
}

TEST_CASE("cli: run usage errors exit 2", "[cli]") {
  TempDir d;
  std::string good_syntax = d.write("s.toml", kScenarioHead);
  auto r = nicsim_bin(d, {"run"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("'--scenario' is required"));
  CHECK(nicsim_bin(d, {"run", good_syntax, "--frobnicate"}).code == 2);
  r = nicsim_bin(d, {"run", good_syntax, "--format", "yaml"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::StartsWith("nicsim run: --format must be text or json, not 'yaml'"));
  r = nicsim_bin(d, {"run", good_syntax, "--seed", "-1"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::StartsWith("nicsim run: --seed must be an integer from 0 to 18446744073709551615, not '-1'"));
  CHECK(nicsim_bin(d, {"run", good_syntax, "--seed", "12x"}).code == 2);
}

TEST_CASE("cli: scenario errors exit 2 with file, line, key and message", "[cli]") {
  TempDir d;
  std::string missing = (d.path / "missing.toml").string();
  auto r = nicsim_bin(d, {"run", missing});
  CHECK(r.code == 2);
  CHECK(r.err == missing + ": cannot read scenario file: no such file\n");

  std::string syntax = d.write("syntax.toml", "name = \"x\"\nseed = 1\nhosts = [\n");
  r = nicsim_bin(d, {"run", syntax});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::StartsWith(syntax + ":"));
  CHECK_THAT(r.err, Catch::Contains("TOML syntax error"));

  std::string typo = d.write("typo.toml", std::string("nmae = \"cli\"\n") + kScenarioHead);
  r = nicsim_bin(d, {"run", typo});
  CHECK(r.code == 2);
  CHECK(r.err == typo + ":1:1: key 'nmae': unknown top-level key (did you mean 'name'?)\n");

  std::string type = d.write("type.toml", "name = \"cli\"\nseed = \"one\"\n");
  r = nicsim_bin(d, {"run", type});
  CHECK(r.code == 2);
  CHECK(r.err == type + ":2:8: key 'seed': wrong type: expected integer, got string \"one\"\n");

  std::string plat = d.write("plat.toml", kScenarioHead);
  r = nicsim_bin(d, {"run", plat});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::StartsWith(plat + ":5:12: key 'hosts.alpha.platform': unknown platform 'no-such-board'"));
}

TEST_CASE("cli: --set errors exit 2 and name --set", "[cli]") {
  TempDir d;
  std::string s = d.write("s.toml", kScenarioHead);
  auto r = nicsim_bin(d, {"run", s, "--set", "seed"});
  CHECK(r.code == 2);
  CHECK(r.err == "--set: 'seed': expected PATH=VALUE (e.g. workload.upper=1024)\n");
  r = nicsim_bin(d, {"run", s, "--set", "seed=abc"});
  CHECK(r.code == 2);
  CHECK(r.err == "--set: key 'seed': wrong type: expected integer, got string \"abc\"\n");
  r = nicsim_bin(d, {"run", s, "--set", "hosts.alhpa.cpu_mhz=2"});
  CHECK(r.code == 2);
  CHECK(r.err == "--set: key 'hosts.alhpa': no such table in the scenario (did you mean 'alpha'?)\n");
  r = nicsim_bin(d, {"run", s, "--set", "seed=2", "--set", "nmae=x"});
  CHECK(r.code == 2);
  CHECK(r.err == "--set: key 'nmae': unknown top-level key (did you mean 'name'?)\n");
}

TEST_CASE("cli: list and describe exit codes", "[cli]") {
  TempDir d;
  auto r = nicsim_bin(d, {"list"});
  CHECK(r.code == 0);
  for (const char* c : {"platforms:", "devices:", "drivers:", "workloads:", "links:"}) CHECK_THAT(r.out, Catch::Contains(c));
  CHECK(nicsim_bin(d, {"list", "platforms", "--verbose"}).code == 0);
  r = nicsim_bin(d, {"list", "platfroms"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::StartsWith("nicsim list: unknown category 'platfroms' (did you mean 'platforms'?)"));
  CHECK(nicsim_bin(d, {"describe"}).code == 2);
  r = nicsim_bin(d, {"describe", "no-such-board"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::StartsWith("nicsim describe: unknown platform 'no-such-board'"));
}

namespace {

const std::string kRunHosts = R"(name = "run"
seed = 5
[hosts.alpha]
platform = "test-p4dpr-6gm+"
[hosts.alpha.nics.eth1]
device = "test-nic"
slot = "pcix"
driver = "test-drv"
)";

/// Call the registered verb in this process; returns its exit code, captures std::cout.
int verb(const std::vector<std::string>& args, std::string& out) {
  std::vector<std::string> a = args;
  std::vector<char*> argv;
  for (auto& s : a) argv.push_back(s.data());
  std::ostringstream cap;
  auto* old = std::cout.rdbuf(cap.rdbuf());
  int rc = Registry<VerbEntry>::instance().find(a[0])->main(static_cast<int>(argv.size()), argv.data());
  std::cout.rdbuf(old);
  out = cap.str();
  return rc;
}

}  // namespace

TEST_CASE("cli: run builds the testbed, runs the workload and writes result.json", "[cli]") {
  TempDir d;
  std::string s = d.write("run.toml", kRunHosts + "[workload]\ntype = \"test-pingpong\"\nupper = 64\n");
  std::string out;
  REQUIRE(verb({"run", s, "--set", "workload.upper=128", "--seed", "9", "--out", (d.path / "res").string()}, out) == 0);
  CHECK(out == "test-pingpong on 1 hosts, upper 128\n");
  auto j = nlohmann::json::parse(slurp(d.path / "res" / "result.json"));
  CHECK(j["status"] == "ok");
  CHECK(j["seed"] == 9);
  CHECK(j["scenario"] == s);
  CHECK(j["params"]["workload"]["params"]["upper"] == 128);
  CHECK(j["params"]["overrides"] == nlohmann::json::array({"workload.upper=128"}));
  CHECK(j["params"]["hosts"]["alpha"]["nics"]["eth1"]["driver_params"]["InterruptThrottleRate"] == 8000);
  CHECK(j["metrics"]["ran"] == true);
  CHECK(j["counters"]["test.runs"] == 1);
  CHECK(j["output"] == out);
  CHECK(j["hardware"]["alpha"]["cpu_mhz"] == 2400);
  CHECK(j["nicsim_version"] == NICSIM_VERSION);
  CHECK_FALSE(fs::exists(d.path / "res" / ("result.json.tmp." + std::to_string(::getpid()))));

  // --format json: stdout is exactly the result JSON (the workload text is inside it).
  REQUIRE(verb({"run", s, "--format", "json"}, out) == 0);
  auto j2 = nlohmann::json::parse(out);
  CHECK(j2["status"] == "ok");
  CHECK(j2["seed"] == 5);
  CHECK(j2["output"] == "test-pingpong on 1 hosts, upper 64\n");
}

TEST_CASE("cli: a failed run or a model error exits 1 and records the failure", "[cli]") {
  TempDir d;
  std::string fail = d.write("fail.toml", kRunHosts + "[workload]\ntype = \"test-fail\"\n");
  std::string out;
  CHECK(verb({"run", fail, "--out", (d.path / "f").string()}, out) == 1);
  CHECK(out == "about to fail\n");
  auto j = nlohmann::json::parse(slurp(d.path / "f" / "result.json"));
  CHECK(j["status"] == "failed");
  CHECK(j["error"] == "the workload reported a failed run");

  std::string thr = d.write("throws.toml", kRunHosts + "[workload]\ntype = \"test-throws\"\n");
  CHECK(verb({"run", thr, "--format", "json"}, out) == 1);
  auto j2 = nlohmann::json::parse(out);
  CHECK(j2["status"] == "failed");
  CHECK_THAT(j2["error"].get<std::string>(), Catch::Contains("model exploded"));
}

TEST_CASE("cli: list --verbose and describe answer from the registries", "[cli]") {
  std::string out;
  REQUIRE(verb({"list", "drivers", "--verbose"}, out) == 0);
  CHECK_THAT(out, Catch::StartsWith("drivers:\n"));
  CHECK_THAT(out, Catch::Contains("  test-drv "));
  CHECK_THAT(out, Catch::Contains("binds: test-nic, test-dual, test-nic32, test-lom, test-broken\n"));
  CHECK_THAT(out, Catch::Contains("RxIntDelay: integer, default 0, range [0, 65535], unit 1.024 µs units\n"));
  CHECK_THAT(out, Catch::Contains("FlowControl: string, default \"full\", one of none|rx|tx|full\n"));
  // An integer accepted only in a set prints the set, not a wider range (e1000 FlowControl).
  CHECK_THAT(out, Catch::Contains("FlowControl: integer, default 255, one of 0-3, 255, unit mode\n"));
  CHECK_THAT(out, !Catch::Contains("platforms:"));
  REQUIRE(verb({"list", "platforms", "--verbose"}, out) == 0);
  CHECK_THAT(out, Catch::Contains("slot lan: test segment — test slot (onboard: test-lom)\n"));
  CHECK_THAT(out, Catch::Contains("cpu_mhz: integer, default 2400, range [100, 4000], unit MHz\n"));
  REQUIRE(verb({"list", "devices", "-v"}, out) == 0);
  CHECK_THAT(out, Catch::Contains("64-bit, PCI-X, up to 133 MHz, 2 functions, 2 Ethernet ports\n"));
  REQUIRE(verb({"describe", "test-p4dpr-6gm+"}, out) == 0);
  CHECK(out == "test board at 2400 MHz\n");
  CHECK(verb({"describe", "test-p4dpr-6gm"}, out) == 2);  // stderr: did you mean 'test-p4dpr-6gm+'
}

}  // namespace cli_test
