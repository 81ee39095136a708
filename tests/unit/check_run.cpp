// `nicsim check` end to end with a fake runner (no models): exit codes, table, JUnit file, --fast.
#include "cli/check.h"
#include "tests/support/sweep_check.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace check_run_test {
using namespace nicsim;
using namespace nicsim::test;

namespace {
/// Two scenarios: pass.toml (y = 2*x with x=21 -> 42; reference 42 ± 5 %) and drift.toml
/// (reference 30 ± 10 %: the fake's 42 is 40 % off). Only pass.ref.toml is fast.
void write_scenarios(const fs::path& dir) {
  write_text(dir / "pass.toml", "name = \"pass\"\n");
  write_text(dir / "pass.ref.toml", R"(fast = true
[[reference]]
metric = "y"
expected = 42.0
tolerance = 0.05
source = "test: 2 * 21"
[[reference]]
metric = "z"
range = [5, 9]
source = "test: fake constant 7"
)");
  write_text(dir / "sub/drift.toml", "name = \"drift\"\n");
  write_text(dir / "sub/drift.ref.toml", R"([[reference]]
metric = "y"
expected = 30.0
tolerance = 0.10
source = "test: deliberately wrong"
)");
}

CheckOptions opts(const fs::path& dir) {
  CheckOptions o;
  o.paths = {dir};
  o.sets = {"x=21"};
  o.jobs = 2;
  return o;
}
}  // namespace

TEST_CASE("check: passing and deliberately failing references give exit 1, a table and JUnit", "[check]") {
  TempDir tmp;
  write_scenarios(tmp / "sc");
  FakeRunner fake;
  auto o = opts(tmp / "sc");
  o.junit = tmp / "out" / "junit.xml";
  std::vector<RefCheck> checks;
  CHECK(run_check(o, fake.runner(), &checks) == kExitRunFailed);
  CHECK(fake.calls == 2);  // one run per scenario, not per reference
  REQUIRE(checks.size() == 3);
  CHECK(checks[0].verdict == Verdict::Pass);
  CHECK(checks[1].verdict == Verdict::Pass);
  CHECK(checks[2].verdict == Verdict::Fail);
  CHECK(checks[2].message == "y: simulated 42, expected 30 ±10% (error +40.0%, allowed ±3)");
  std::map<std::string, int> counts;
  std::string x = read_text(*o.junit);
  CHECK(xml_problem(x, &counts) == "");
  CHECK(counts["testcase"] == 3);
  CHECK(counts["failure"] == 1);
  CHECK(counts.count("error") == 0);

  // --fast keeps only pass.ref.toml: everything passes.
  o.fast = true;
  o.junit.reset();
  FakeRunner fast;
  CHECK(run_check(o, fast.runner()) == kExitOk);
  CHECK(fast.calls == 1);
}

TEST_CASE("check: a failed run fails its references -- a malformed file stops before running", "[check]") {
  TempDir tmp;
  write_scenarios(tmp / "sc");
  FakeRunner fake;
  fake.fail_x = {"13"};
  auto o = opts(tmp / "sc" / "pass.toml");
  o.sets = {"x=13"};
  o.out = tmp / "runs";
  std::vector<RefCheck> checks;
  CHECK(run_check(o, fake.runner(), &checks) == kExitRunFailed);
  REQUIRE(checks.size() == 2);
  for (auto& c : checks) {
    CHECK(c.verdict == Verdict::Error);
    CHECK(c.message == "nicsim run failed (exit 1): boom: x=13 is unlucky");
  }
  CHECK(fs::exists(tmp / "runs" / "000-pass" / "error.json"));  // --out keeps the runs

  write_text(tmp / "sc" / "sub" / "drift.ref.toml", "[[reference]]\nmetric = \"y\"\nexpectd = 30\n");
  FakeRunner never;
  CHECK(run_check(opts(tmp / "sc"), never.runner()) == kExitUsage);
  CHECK(never.calls == 0);

  write_text(tmp / "lonely" / "x.ref.toml", "[[reference]]\nmetric = \"y\"\nrange = [1, 2]\nsource = \"s\"\n");
  CHECK(run_check(opts(tmp / "lonely"), never.runner()) == kExitUsage);  // no x.toml beside it
  fs::create_directories(tmp / "empty");
  CHECK(run_check(opts(tmp / "empty"), never.runner()) == kExitUsage);
  CHECK(never.calls == 0);
}

TEST_CASE("check: the end-to-end helper runs a real child process per scenario", "[check]") {
  // With a fake nicsim executable standing in for the real binary (the real one needs workloads).
  TempDir tmp;
  write_scenarios(tmp / "sc");
  fs::path bin = write_fake_nicsim(tmp.path);
  std::vector<RefCheck> checks;
  // The fake script writes y and seed only: z is missing, so the range reference fails.
  CHECK(e2e_check(tmp / "sc" / "pass.toml", &checks, {"x=21"}, bin) == kExitRunFailed);
  REQUIRE(checks.size() == 2);
  CHECK(checks[0].verdict == Verdict::Pass);
  CHECK(*checks[0].simulated == 42.0);
  CHECK(checks[1].verdict == Verdict::Fail);
  CHECK_THAT(checks[1].message, Catch::Contains("'z' is not in the run's result.json"));

  CHECK(e2e_sweep(tmp / "sc" / "pass.toml", {parse_vary("x=1:3:1")}, {"y"}, tmp / "sw", bin) == kExitOk);
  auto j = nlohmann::json::parse(read_text(tmp / "sw" / "sweep.json"));
  CHECK(j["counts"]["ok"] == 3);
  CHECK(j["points"][2]["metrics"]["y"] == 6);
}

TEST_CASE("check: a failing known_miss reference exits 0 and is listed -- a passing one is a pass with a note",
          "[check]") {
  TempDir tmp;
  // The fake runner gives y = 2*x = 42 and z = 7.
  write_text(tmp / "sc/k.toml", "name = \"k\"\n");
  write_text(tmp / "sc/k.ref.toml", R"([[reference]]
metric = "y"
expected = 30.0
tolerance = 0.10
source = "test: 42 is 40 % off"
known_miss = "the fake doubles x"
[[reference]]
metric = "z"
range = [5, 9]
source = "test: fake constant 7"
known_miss = "stale: 7 is inside"
)");
  FakeRunner fake;
  auto o = opts(tmp / "sc");
  o.junit = tmp / "junit.xml";
  std::string table_path = (tmp / "table.txt").string();
  o.table = std::fopen(table_path.c_str(), "w");
  REQUIRE(o.table);
  std::vector<RefCheck> checks;
  int rc = run_check(o, fake.runner(), &checks);
  std::fclose(o.table);
  CHECK(rc == kExitOk);
  REQUIRE(checks.size() == 2);
  CHECK(checks[0].verdict == Verdict::KnownMiss);
  CHECK(checks[1].verdict == Verdict::Pass);
  std::string t = read_text(table_path);
  CHECK_THAT(t, Catch::Contains("MISS (known)") && Catch::Contains("known miss: the fake doubles x"));
  CHECK_THAT(t, Catch::Contains("pass (known_miss can be removed)"));
  CHECK_THAT(t, Catch::EndsWith("2 references: 1 passed, 1 known misses, 0 failed, 0 not run (run failed or interrupted)\n"));
  std::map<std::string, int> counts;
  std::string x = read_text(*o.junit);
  CHECK(xml_problem(x, &counts) == "");
  CHECK(counts["skipped"] == 1);
  CHECK(counts.count("failure") == 0);
  CHECK_THAT(x, Catch::Contains("<skipped message=\"known miss: the fake doubles x\"/>"));

  // Without known_miss the same value is a failure again.
  write_text(tmp / "sc/k.ref.toml", "[[reference]]\nmetric = \"y\"\nexpected = 30.0\ntolerance = 0.10\nsource = \"t\"\n");
  FakeRunner again;
  o.junit.reset();
  o.table = std::fopen("/dev/null", "w");
  CHECK(run_check(o, again.runner()) == kExitRunFailed);
  std::fclose(o.table);
}

TEST_CASE("check: a vs reference checks the difference of two scenarios' runs, each run once", "[check]") {
  TempDir tmp;
  const fs::path d = tmp / "sc";
  write_text(d / "fast.toml", "name = \"fast\"\n");
  write_text(d / "slow.toml", "name = \"slow\"\n");
  write_text(d / "slow.ref.toml", "[[reference]]\nmetric = \"y\"\nexpected = 42\ntolerance = 0.1\nsource = \"test\"\n");
  write_text(d / "fast.ref.toml", R"([[reference]]
metric = "y"
vs = "slow.toml"
expected = 10
tolerance_abs = 1
source = "test: fast is 10 above slow"
[[reference]]
metric = "y"
vs = "slow.toml"
expected = -10
tolerance_abs = 1
source = "test: the wrong sign"
)");
  FakeRunner fake;
  fake.y_offset = {{"fast", 10.0}};
  auto o = opts(d);
  std::vector<RefCheck> checks;
  CHECK(run_check(o, fake.runner(), &checks) == kExitRunFailed);
  CHECK(fake.calls == 2);  // slow.toml runs once for its own reference and the two differences
  REQUIRE(checks.size() == 3);
  CHECK(checks[0].scenario == (d / "fast.toml").string());
  CHECK(checks[0].verdict == Verdict::Pass);
  CHECK(checks[0].simulated == Approx(10.0));
  CHECK(checks[1].verdict == Verdict::Fail);
  CHECK(checks[1].message == "y - [slow]: simulated 10, expected -10 ±1 (error +20, allowed ±1)");
  CHECK(checks[2].verdict == Verdict::Pass);
  CHECK(format_table(checks).find("y - [slow]") != std::string::npos);

  // Only the difference's file: the other scenario still runs (it has no reference of its own here).
  FakeRunner only;
  only.y_offset = {{"fast", 10.0}};
  o.paths = {d / "fast.ref.toml"};
  checks.clear();
  CHECK(run_check(o, only.runner(), &checks) == kExitRunFailed);
  CHECK(only.calls == 2);
  REQUIRE(checks.size() == 2);
  CHECK(checks[0].verdict == Verdict::Pass);

  // The other run fails: the difference is not run (an error naming the vs scenario), not a value.
  FakeRunner broken;
  broken.fail_stem = {"slow"};
  checks.clear();
  CHECK(run_check(o, broken.runner(), &checks) == kExitRunFailed);
  REQUIRE(checks.size() == 2);
  CHECK(checks[0].verdict == Verdict::Error);
  CHECK(checks[0].message.rfind("vs " + (d / "slow.toml").string() + ": nicsim run failed (exit 1)", 0) == 0);

  // A vs scenario that does not exist: exit 2 before anything runs, naming the file and line.
  write_text(d / "fast.ref.toml", "[[reference]]\nmetric = \"y\"\nvs = \"slwo.toml\"\nexpected = 1\n"
                                  "tolerance_abs = 1\nsource = \"test\"\n");
  FakeRunner none;
  std::FILE* log = std::tmpfile();
  o.log = log;
  CHECK(run_check(o, none.runner()) == kExitUsage);
  CHECK(none.calls == 0);
  std::rewind(log);
  char buf[512] = {};
  // The error points at the vs key itself (line 3, column 1), not at the [[reference]] header.
  const std::string logged(buf, std::fread(buf, 1, sizeof buf - 1, log));
  INFO(logged);
  CHECK(logged.find("fast.ref.toml:3:") != std::string::npos);
  CHECK(logged.find(": key 'vs': no scenario file '") != std::string::npos);
  CHECK(logged.find("slwo.toml'") != std::string::npos);
  std::fclose(log);
}

}  // namespace check_run_test
