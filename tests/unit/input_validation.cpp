// Bad input gets a clear usage/scenario error (exit 2, naming the file or option, the key, and the
// nearest valid name) before anything runs, and loses nothing: sweep pre-validation, --metric
// names, unwritable --out, extreme --vary/--jobs/--seed values, corrupt result.json on resume,
// and workload/platform combinations the models cannot run (load-time scenario errors).
#include "cli/sweep.h"
#include "cli/verbs.h"
#include "drivers-sim/kernel/costs.h"
#include "models/ether/frame.h"
#include "platforms/busbench.h"
#include "platforms/scenario.h"
#include "tests/support/run_nicsim.h"
#include "tests/support/sweep_check.h"
#include <catch2/catch.hpp>
#include <cstdio>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/wait.h>

// This file's own names, apart from the other files of a unity batch.
namespace input_validation_test {
using namespace nicsim;
using namespace nicsim::test;

namespace {

/// Run the real nicsim binary with `args`; stdout/stderr captured in `tmp`.
BinResult run_bin(const TempDir& tmp, const std::vector<std::string>& args) { return run_nicsim_bin(tmp.path, args); }

/// The seed-000 82544GC scenario (real registries): a valid base for the CLI checks.
const std::string kScenario = "scenarios/seed000/82544gc-pci66.toml";

/// Everything `f` prints to a FILE*, as a string.
template <typename F>
std::string captured(F&& f) {
  std::FILE* t = std::tmpfile();
  REQUIRE(t);
  f(t);
  std::fflush(t);
  std::rewind(t);
  std::string s;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, t)) > 0) s.append(buf, n);
  std::fclose(t);
  return s;
}

size_t count_in(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("sweep: the scenario and every --vary key and value are checked before any point runs", "[sweep][validation]") {
  TempDir tmp;
  const std::string out = (tmp / "sw").string();
  // A misspelt key: one usage error with the loader's suggestion, not one failed run per point.
  auto r = run_bin(tmp, {"sweep", kScenario, "--vary", "workload.uper=24,48", "--metric", "latency_us", "--out", out});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--vary workload.uper=24: key 'workload.uper': unknown parameter of workload "
                                    "netpipe (did you mean 'upper'?)"));
  CHECK_FALSE(fs::exists(tmp / "sw" / "points"));
  // A value of the wrong type or out of range, anywhere in the list (here the last one).
  r = run_bin(tmp, {"sweep", kScenario, "--vary", "workload.upper=24,48,big", "--metric", "latency_us", "--out", out});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--vary workload.upper=big: key 'workload.upper': wrong type: expected integer"));
  r = run_bin(tmp, {"sweep", kScenario, "--vary", "workload.upper=1:2000000000:1000000", "--metric", "latency_us",
                       "--out", out});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--vary workload.upper=1999000001: key 'workload.upper': value 1999000001 is "
                                    "above the maximum 1073741824"));
  // A wildcard that matches nothing in this scenario.
  r = run_bin(tmp, {"sweep", kScenario, "--vary", "hosts.*.nics.eth1.RxIntDelay=0,8", "--metric", "latency_us",
                       "--out", out});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--vary hosts.*.nics.eth1.RxIntDelay=0: "));
  CHECK_THAT(r.err, Catch::Contains("matches nothing"));
  // A broken scenario file: its own file:line message.
  std::string bad = (tmp / "bad.toml").string();
  write_text(bad, "frobnicate = 1\n" + read_text(kScenario));
  r = run_bin(tmp, {"sweep", bad, "--vary", "workload.upper=24", "--metric", "latency_us", "--out", out});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains(bad + ":"));
  CHECK_THAT(r.err, Catch::Contains("key 'frobnicate': unknown top-level key"));
  CHECK_FALSE(fs::exists(tmp / "sw" / "points"));
  // A good plan passes (dry run: nothing runs).
  r = run_bin(tmp, {"sweep", kScenario, "--vary", "workload.upper=24,48", "--vary", "hosts.*.nics.eth0.RxIntDelay=0:8:4",
                       "--metric", "latency_us", "--out", out, "--dry-run"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("6 points"));
}

TEST_CASE("sweep: every point's own combination is loaded before any runs (bug: middle values and joint rules failed per point)",
          "[sweep][validation]") {
  TempDir tmp;
  const std::string out = (tmp / "sw").string();
  const std::string bonded = std::string(NICSIM_SOURCE_DIR) + "/scenarios/seed004/bonded-rr-64k.toml";
  // A middle value the extremes do not show: updelay 150 is not a multiple of miimon 100.
  auto r = run_bin(tmp, {"sweep", bonded, "--vary", "hosts.*.bonds.bond0.updelay=0,150,200", "--metric", "latency_us",
                            "--out", out, "--dry-run"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--vary point hosts.*.bonds.bond0.updelay=150: "));
  CHECK_THAT(r.err, Catch::Contains("multiple of miimon"));
  CHECK_FALSE(fs::exists(tmp / "sw" / "points"));
  // A rule joining two axes, whatever their order on the command line: rx-usecs and rx-frames both 0.
  for (auto order : {0, 1}) {
    std::vector<std::string> args = {"sweep", bonded, "--set", "hosts.*.nics.*.adaptive-rx=false"};
    std::vector<std::string> a1 = {"--vary", "hosts.*.nics.*.rx-usecs=10,0"}, a2 = {"--vary", "hosts.*.nics.*.rx-frames=0,1"};
    for (auto& x : order ? a2 : a1) args.push_back(x);
    for (auto& x : order ? a1 : a2) args.push_back(x);
    for (auto x : {"--metric", "latency_us", "--out", out.c_str(), "--dry-run"}) args.push_back(x);
    r = run_bin(tmp, args);
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("rx-usecs") && Catch::Contains("rx-frames"));
    CHECK_FALSE(fs::exists(tmp / "sw" / "points"));
  }
}

TEST_CASE("sweep: representative values cover each form's extremes and every non-number", "[sweep][validation]") {
  using V = std::vector<std::string>;
  CHECK(representative_values(Axis{"k", {"5", "1", "9", "3"}}) == V{"1", "9"});
  CHECK(representative_values(Axis{"k", {"0.5", "2", "x", "0.1", "7", "\"s\""}}) == V{"0.5", "2", "x", "0.1", "7", "\"s\""});
  CHECK(representative_values(Axis{"k", {"0.5", "0.2", "0.9", "0.3"}}) == V{"0.2", "0.9"});
  CHECK(representative_values(Axis{"k", {"4"}}) == V{"4"});
}

TEST_CASE("sweep: a --metric that names nothing warns after the first point and fails the sweep at the end",
          "[sweep][validation]") {
  TempDir tmp;
  SweepRunOptions o;
  o.plan.scenario = "/nonexistent/scenario.toml";  // the fake runner does not read it
  o.plan.axes = {{"x", parse_range("0:3:1")}};
  o.plan.metrics = {"y", "zz"};  // the fake runner writes y, seed and z
  o.dir = tmp / "sw";
  o.jobs = 1;
  o.plots = false;
  FakeRunner fr;
  int rc = -1;
  std::string log = captured([&](std::FILE* f) {
    o.log = f;
    rc = run_sweep(o, fr.runner());
  });
  CHECK(rc == 2);
  CHECK(fr.ran.size() == 4);  // the points still run and are kept
  CHECK(count_in(log, "WARNING: --metric 'zz' names no metric of result.json (did you mean 'z'?); its numeric "
                      "metrics: ") == 1);
  CHECK_THAT(log, Catch::Contains("error: --metric 'zz' names no metric of result.json (did you mean 'z'?)"));
  CHECK_THAT(log, Catch::Contains("(none of the 4 finished points has it)"));
  CHECK_THAT(read_text(o.dir / "sweep.csv"), Catch::StartsWith("index,id,x,status,y,zz\n"));
  // Fixing the name reuses every point.
  o.plan.metrics = {"y", "z"};
  FakeRunner again;
  log = captured([&](std::FILE* f) {
    o.log = f;
    rc = run_sweep(o, again.runner());
  });
  CHECK(rc == 0);
  CHECK(again.ran.empty());
  CHECK_THAT(log, !Catch::Contains("WARNING"));
  // A metric that only some points have (e.g. a message size beyond another point's upper) is no
  // error: the first point warns, the rest fill the column.
  TempDir tmp2;
  o.dir = tmp2 / "sw";
  o.plan.metrics = {"big"};
  Runner partial = [](const RunJob& j) -> RunOutcome {
    int x = std::stoi(set_value(j, "x"));
    nlohmann::json r = results_envelope(j.scenario.string(), 1, nlohmann::json::object());
    r["metrics"] = {{"small", x}};
    if (x >= 2) r["metrics"]["big"] = 10 * x;
    write_json_atomic(j.out_dir / "result.json", r);
    return {0, ""};
  };
  log = captured([&](std::FILE* f) {
    o.log = f;
    rc = run_sweep(o, partial);
  });
  CHECK(rc == 0);
  CHECK_THAT(log, Catch::Contains("WARNING: --metric 'big' names no metric of result.json"));
  CHECK_THAT(log, !Catch::Contains("error:"));
  // A metric that is there but not a number.
  TempDir tmp3;
  o.dir = tmp3 / "sw";
  o.plan.metrics = {"small", "obj"};
  Runner objects = [](const RunJob& j) -> RunOutcome {
    nlohmann::json r = results_envelope(j.scenario.string(), 1, nlohmann::json::object());
    r["metrics"] = {{"small", 1}, {"obj", {{"a", 1}}}};
    write_json_atomic(j.out_dir / "result.json", r);
    return {0, ""};
  };
  log = captured([&](std::FILE* f) {
    o.log = f;
    rc = run_sweep(o, objects);
  });
  CHECK(rc == 2);
  CHECK_THAT(log, Catch::Contains("error: --metric 'obj' is not a number in result.json (it is an object)"));
}

TEST_CASE("cli: an unwritable --out or --trace is a usage error before anything runs", "[cli][validation]") {
  TempDir tmp;
  write_text(tmp / "file", "x");
  const std::string under_file = (tmp / "file" / "sub").string();  // a regular file as a directory
  auto r = run_bin(tmp, {"sweep", kScenario, "--vary", "workload.upper=24", "--metric", "latency_us", "--out",
                            under_file});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("nicsim sweep: --out: cannot create directory '" + under_file + "'"));
  r = run_bin(tmp, {"sweep", "--merge", (tmp / "nothing").string(), "--out", under_file});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--out: cannot create directory"));
  r = run_bin(tmp, {"run", kScenario, "--out", under_file});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("nicsim run: --out: cannot create directory '" + under_file + "'"));
  CHECK(r.out.empty());  // nothing ran
  r = run_bin(tmp, {"run", kScenario, "--trace", (tmp / "file" / "t.json").string()});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("nicsim run: --trace: cannot write"));
  r = run_bin(tmp, {"run", kScenario, "--out", (tmp / "file").string()});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("exists and is not a directory"));
  r = run_bin(tmp, {"check", "scenarios/seed000", "--out", under_file});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("nicsim check: --out: cannot create directory"));
  // A good --out is created up front.
  CHECK(out_dir_problem(tmp / "new" / "deep").empty());
  CHECK(fs::is_directory(tmp / "new" / "deep"));
  CHECK(fs::is_empty(tmp / "new" / "deep"));  // the probe file is gone
}

TEST_CASE("sweep: extreme --vary ranges are bounded and rejected with a message", "[sweep][validation]") {
  auto msg = [](const char* spec) {
    try {
      parse_vary(spec);
    } catch (const SweepUsageError& e) {
      return std::string(e.what());
    } catch (const std::exception& e) {
      return std::string("wrong exception: ") + e.what();
    }
    return std::string("no error");
  };
  // Exponents that ask for billions of decimals (was: a 2e9-digit format), or beyond an int.
  CHECK_THAT(msg("x=0e-2000000000:1:1"), Catch::Contains("0e-2000000000 has more than 15 decimal places"));
  CHECK_THAT(msg("x=1e-99999999999999999999:1:1"), Catch::Contains("has more than 15 decimal places"));
  CHECK_THAT(msg("x=0.5:1:1e-16"), Catch::Contains("1e-16 has more than 15 decimal places"));
  CHECK_THAT(msg("x=0.5:1e300:1e299"), Catch::Contains("1e300 is too large for a decimal range"));
  // Integer ranges at the int64 limits (was: signed overflow) and beyond them (was: std::stoll).
  CHECK_THAT(msg("x=-9223372036854775808:9223372036854775807:1"), Catch::Contains("has more than 100000 values"));
  CHECK_THAT(msg("x=9223372036854775807:-9223372036854775808:-1"), Catch::Contains("has more than 100000 values"));
  CHECK_THAT(msg("x=0:99999999999999999999:1"),
             Catch::Contains("99999999999999999999 is outside the integer range -9223372036854775808..18446744073709551615"));
  CHECK_THAT(msg("x=-9223372036854775809:0:1"), Catch::Contains("is outside the integer range"));
  CHECK_THAT(msg("x=0:1:340282366920938463463374607431768211457"), Catch::Contains("is outside the integer range"));
  CHECK(parse_vary("seed=18446744073709551613:18446744073709551615:1").values ==
        std::vector<std::string>{"18446744073709551613", "18446744073709551614", "18446744073709551615"});
  CHECK(parse_vary("x=9223372036854775806:9223372036854775807:1").values ==
        std::vector<std::string>{"9223372036854775806", "9223372036854775807"});
  CHECK(parse_vary("x=-9223372036854775808:9223372036854775807:9223372036854775807").values ==
        std::vector<std::string>{"-9223372036854775808", "-1", "9223372036854775806"});
  CHECK(parse_vary("x=+1:3:+1").values == std::vector<std::string>{"1", "2", "3"});
  CHECK(parse_vary("x=0:1e-15:1e-15").values == std::vector<std::string>{"0.000000000000000", "0.000000000000001"});
  // Seeds: the whole uint64 range, consistently with `run --seed`.
  CHECK(parse_vary("seed=18446744073709551615").values == std::vector<std::string>{"18446744073709551615"});
  CHECK_THAT(msg("seed=18446744073709551616"), Catch::Contains("is not a seed (an integer from 0 to 18446744073709551615)"));
  CHECK(value_json("18446744073709551615") == nlohmann::json(uint64_t{18446744073709551615ull}));
  std::string why;
  CHECK(parse_seed_arg("18446744073709551615", &why) == uint64_t{18446744073709551615ull});
  CHECK(parse_seed_arg("0", &why) == uint64_t{0});
  for (const char* bad : {"18446744073709551616", "-1", "", "1.5", "+3", " 3", "0x10"}) {
    CHECK_FALSE(parse_seed_arg(bad, &why));
    CHECK(why == fmt::format("--seed must be an integer from 0 to 18446744073709551615, not '{}'", bad));
  }
  CHECK(parse_jobs_arg("1", &why) == 1u);
  CHECK(parse_jobs_arg("1024", &why) == 1024u);
  for (const char* bad : {"0", "-1", "1025", "4294967295", "two", ""}) {
    CHECK_FALSE(parse_jobs_arg(bad, &why));
    CHECK(why == fmt::format("--jobs must be an integer from 1 to 1024, not '{}'", bad));
  }
}

TEST_CASE("cli: --jobs 0 or negative and --seed out of range are usage errors", "[cli][validation]") {
  TempDir tmp;
  const std::string out = (tmp / "sw").string();
  for (const char* jobs : {"0", "-1"}) {
    auto r = run_bin(tmp, {"sweep", kScenario, "--vary", "workload.upper=24", "--metric", "latency_us", "--out", out,
                              "--dry-run", "--jobs", jobs});
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains(fmt::format("--jobs must be an integer from 1 to 1024, not '{}'", jobs)));
    r = run_bin(tmp, {"check", "scenarios/seed000", "--jobs", jobs});
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("--jobs must be an integer from 1 to 1024"));
  }
  auto r = run_bin(tmp, {"run", kScenario, "--seed", "18446744073709551616"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::StartsWith("nicsim run: --seed must be an integer from 0 to 18446744073709551615, not "
                                      "'18446744073709551616'"));
  // The largest seed is accepted: the run gets as far as the scenario (here a broken one).
  std::string bad = (tmp / "bad.toml").string();
  write_text(bad, "frobnicate = 1\n" + read_text(kScenario));
  r = run_bin(tmp, {"run", bad, "--seed", "18446744073709551615"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("unknown top-level key"));
  r = run_bin(tmp, {"sweep", kScenario, "--vary", "seed=18446744073709551614:18446744073709551615:1", "--metric",
                       "latency_us", "--out", out, "--dry-run"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("seed=18446744073709551615"));
}

TEST_CASE("sweep: a corrupt or truncated result.json is not a finished point: resume reruns it", "[sweep][validation]") {
  TempDir tmp;
  SweepRunOptions o;
  o.plan.scenario = "/nonexistent/scenario.toml";
  o.plan.axes = {{"x", parse_range("0:3:1")}};
  o.plan.metrics = {"y"};
  o.dir = tmp / "sw";
  o.jobs = 2;
  o.plots = false;
  auto pts = cartesian(o.plan.axes);
  write_plan(o.dir, o.plan);
  FakeRunner earlier;
  for (auto& p : pts) earlier.runner()(job_for(o.plan, p, o.dir));
  // Point 1 truncated mid-write, point 2 empty, point 3 valid JSON without metrics.
  std::string full = read_text(point_dir(o.dir, pts[1]) / "result.json");
  write_text(point_dir(o.dir, pts[1]) / "result.json", full.substr(0, full.size() / 2));
  write_text(point_dir(o.dir, pts[2]) / "result.json", "");
  write_text(point_dir(o.dir, pts[3]) / "result.json", "[1, 2]");
  CHECK(point_finished(o.dir, pts[0]));
  for (size_t i = 1; i < 4; ++i) CHECK_FALSE(point_finished(o.dir, pts[i]));
  CHECK(pending_points(o.dir, pts).size() == 3);
  // The summary before the rerun calls them failed (with the reason), not ok.
  auto rows = collect_rows(o.plan, {o.dir});
  CHECK(rows[0].status == "ok");
  for (size_t i = 1; i < 4; ++i) {
    CHECK(rows[i].status == "failed");
    CHECK_THAT(rows[i].error, Catch::StartsWith("unreadable result.json"));
  }
  // A merge does not take a corrupt result over a good one.
  TempDir other;
  write_plan(other.path, o.plan);
  FakeRunner good;
  good.runner()(job_for(o.plan, pts[1], other.path));
  TempDir merged;
  write_plan(merged.path, o.plan);
  write_text(point_dir(merged.path, pts[1]) / "result.json", "{\"metr");
  auto mrows = merge_dirs({o.dir, other.path}, merged.path, nullptr);
  CHECK(mrows[1].status == "ok");
  CHECK(mrows[1].metrics[0] == 2.0);
  // Resume reruns exactly the three.
  FakeRunner now;
  std::string log = captured([&](std::FILE* f) {
    o.log = f;
    CHECK(run_sweep(o, now.runner()) == kExitOk);
  });
  std::set<std::string> ran(now.ran.begin(), now.ran.end());
  CHECK(ran == std::set<std::string>{pts[1].id, pts[2].id, pts[3].id});
  CHECK_THAT(log, Catch::Contains("1 already finished; running 3"));
  auto j = nlohmann::json::parse(read_text(o.dir / "sweep.json"));
  CHECK(j["counts"]["ok"] == 4);
}

namespace {

// Two P4DPR-6GM+ boxes (real registries), line numbers cited below.
const std::string kTwoBoxes = R"(name = "v"

[hosts.alpha]
platform = "supermicro-p4dpr-6gm+"

[hosts.alpha.nics.eth0]
device = "82544GC"
slot = "onboard-gbe"
driver = "e1000-4.4.12-k1"

[hosts.alpha.nics.eth1]
device = "82546EB"
slot = "pcix"
driver = "e1000-4.4.12-k1"

[hosts.beta]
platform = "supermicro-p4dpr-6gm+"

[hosts.beta.nics.eth0]
device = "82544GC"
slot = "onboard-gbe"
driver = "e1000-4.4.12-k1"

[[links]]
a = "alpha.eth0"
b = "beta.eth0"

[workload]
type = "netpipe"
transmitter = "alpha.eth0"
receiver = "beta.eth0"
upper = 24
)";

std::string with(const std::string& from, const std::string& to, std::string text = kTwoBoxes) {
  auto pos = text.find(from);
  REQUIRE(pos != std::string::npos);
  return text.replace(pos, from.size(), to);
}

std::string load_error(const std::string& text, const std::vector<std::string>& sets = {}) {
  try {
    load_scenario_text(text, "v.toml", sets);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("scenario: workload and platform combinations the models cannot run are load-time errors",
          "[scenario][validation]") {
  REQUIRE(load_error(kTwoBoxes) == "no error");
  // NetPIPE sizes: lower above upper.
  CHECK(load_error(with("upper = 24", "upper = 24\nlower = 100")) ==
        "v.toml:33:9: key 'workload.lower': 100 bytes is above upper = 24 (NetPIPE starts at lower and stops at upper)");
  CHECK(load_error(kTwoBoxes, {"workload.lower=25"}) ==
        "--set: key 'workload.lower': 25 bytes is above upper = 24 (NetPIPE starts at lower and stops at upper)");
  CHECK(load_error(with("upper = 24", "upper = 24\nlower = 24")) == "no error");
  // Both ends on one host (the TCP/IP model has one address per host).
  CHECK(load_error(with("receiver = \"beta.eth0\"", "receiver = \"alpha.eth1\"")) ==
        "v.toml:31:12: key 'workload.receiver': alpha.eth1 is on host alpha, like the transmitter alpha.eth0: "
        "NetPIPE needs its two ends on different hosts");
  CHECK(load_error(with("type = \"netpipe\"", "type = \"tcp_stream\"", with("upper = 24\n", "", with("receiver = \"beta.eth0\"", "receiver = \"alpha.eth0\"")))) ==
        "v.toml:31:12: key 'workload.receiver': alpha.eth0 is on host alpha, like the transmitter alpha.eth0: "
        "netperf TCP_STREAM needs its two ends on different hosts");
  // An end without a cable.
  CHECK(load_error(with("transmitter = \"alpha.eth0\"", "transmitter = \"alpha.eth1\"")) ==
        "v.toml:30:15: key 'workload.transmitter': no [[links]] cable is plugged into alpha.eth1 (port 0), so "
        "NetPIPE cannot reach the receiver through it");
  // A bond end whose slaves have no cable names the slaves' ports (regression: it named "alpha.bond0
  // (port 0)", a port no bond has), and the host's cabled port that is not a slave.
  CHECK_THAT(load_error(with("transmitter = \"alpha.eth0\"", "transmitter = \"alpha.bond0\"",
                             with("[hosts.beta]", "[hosts.alpha.bonds.bond0]\nmode = \"balance-rr\"\nmiimon = 100\n"
                                                  "slaves = [\"eth1\", \"eth1:1\"]\n\n[hosts.beta]"))),
             Catch::EndsWith("key 'workload.transmitter': no [[links]] cable is plugged into any slave of alpha.bond0 "
                             "(alpha.eth1, alpha.eth1:1); alpha.eth0:0 in links.0 is cabled but is not its slave, so "
                             "NetPIPE cannot reach the receiver through it"));
  // A second cabled port on a host (the TCP/IP model gives a host one address and one route).
  CHECK(load_error(with("[workload]", "[[links]]\na = \"alpha.eth1:0\"\nb = \"alpha.eth1:1\"\n\n[workload]")) ==
        "v.toml:29:5: key 'links.1.a': host alpha already has a cabled port (alpha.eth0:0 in links.0): the TCP/IP "
        "model gives a host one address and one route, so NetPIPE cannot use a second; cable one port per host "
                  "(or enslave the ports to one bond, [hosts.alpha.bonds.bond0])");
  // The CPU that takes the IRQs (or runs the processes) must exist.
  CHECK(load_error(with("platform = \"supermicro-p4dpr-6gm+\"\n", "platform = \"supermicro-p4dpr-6gm+\"\ncpus = 1\nirq_dest_cpu = 1\n")) ==
        "v.toml:6:16: key 'hosts.alpha.irq_dest_cpu': CPU 1 does not exist: the host has cpus = 1 (CPUs 0..0)");
  CHECK(load_error(kTwoBoxes, {"hosts.beta.process_cpu=2"}) ==
        "--set: key 'hosts.beta.process_cpu': CPU 2 does not exist: the host has cpus = 2 (CPUs 0..1)");
  CHECK(load_error(kTwoBoxes, {"hosts.*.irq_dest_cpu=1"}) == "no error");
  // The taskset-like affinity: a mask naming a missing CPU, or the deprecated key with it.
  CHECK(load_error(kTwoBoxes, {"hosts.beta.cpus_allowed=4"}) ==
        "--set: key 'hosts.beta.cpus_allowed': mask 0x4 names a CPU that does not exist: the host has cpus = 2 "
        "(mask bits 0..1)");
  CHECK(load_error(kTwoBoxes, {"hosts.beta.cpus_allowed=2", "hosts.beta.process_cpu=1"}).find(
            "process_cpu is deprecated and conflicts with cpus_allowed") != std::string::npos);
  CHECK(load_error(kTwoBoxes, {"hosts.*.cpus_allowed=2"}) == "no error");
  // A LAN-on-motherboard part (variants.h: lom_only) in the add-in slot.
  CHECK(load_error(with("device = \"82546EB\"", "device = \"82544GC\"")) ==
        "v.toml:13:8: key 'hosts.alpha.nics.eth1.slot': device 82544GC is a LAN-on-motherboard part and cannot sit "
        "in add-in slot 'pcix' (its onboard position: 'onboard-gbe')");
  // A 32-bit PCI-66 add-in part in the PCI-X slot is fine (the segment runs conventional PCI).
  CHECK(load_error(with("device = \"82546EB\"", "device = \"82540EM\"")) == "no error");
  // Without the timer tick, Linux never advances jiffies: no kernel timer (e1000 watchdog, TCP,
  // schedule_timeout) ever fires.
  CHECK(load_error(kTwoBoxes, {"hosts.beta.hz_tick=false"}) ==
        "--set: key 'hosts.beta.hz_tick': netpipe runs Linux on host beta, which needs the timer tick: without it "
        "jiffies never advance, so no kernel timer fires (the e1000 watchdog that turns the link carrier on, "
        "TCP retransmits, schedule_timeout) and the run would hang until time_limit_s");
  CHECK(load_error(with("platform = \"supermicro-p4dpr-6gm+\"\n", "platform = \"supermicro-p4dpr-6gm+\"\nhz_tick = false\n")) ==
        "v.toml:5:11: key 'hosts.alpha.hz_tick': netpipe runs Linux on host alpha, which needs the timer tick: "
        "without it jiffies never advance, so no kernel timer fires (the e1000 watchdog that turns the link carrier "
        "on, TCP retransmits, schedule_timeout) and the run would hang until time_limit_s");
}

TEST_CASE("cli: run exits 2 (not 1 after simulating) for a workload the scenario cannot run", "[cli][validation]") {
  TempDir tmp;
  for (auto set : {"workload.lower=100", "hosts.alpha.hz_tick=false", "workload.receiver=alpha.eth0"}) {
    auto r = run_bin(tmp, {"run", kScenario, "--set", set});
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::StartsWith("--set: key '"));
    CHECK(r.out.empty());
  }
}

TEST_CASE("sweep: a failed run's result.json is not a finished point", "[sweep][validation]") {
  TempDir tmp;
  write_text(tmp / "ok.json", R"({"status": "ok", "metrics": {"y": 1}})");
  write_text(tmp / "failed.json", R"({"status": "failed", "metrics": {}, "error": "time limit"})");
  write_text(tmp / "old.json", R"({"metrics": {"y": 1}})");  // results without a status field
  CHECK(result_complete(tmp / "ok.json"));
  CHECK_FALSE(result_complete(tmp / "failed.json"));
  CHECK(result_complete(tmp / "old.json"));
}

TEST_CASE("scenario: a device or FIFO as the scenario file is refused, not read forever", "[validation]") {
  try {
    (void)load_scenario("/dev/zero", {});
    FAIL("/dev/zero was read as a scenario");
  } catch (const ScenarioError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("not a regular file"));
  }
  TempDir tmp;
  const std::string fifo = (tmp / "fifo.toml").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(load_scenario(fifo, {}), Catch::Contains("not a regular file"));
}

TEST_CASE("cli: check and explain validate --set/--vs/--vs-set before running anything", "[cli][validation]") {
  TempDir tmp;
  auto r = run_bin(tmp, {"check", "scenarios/seed000/82544gc-pci66.ref.toml", "--set", "workload.uper=3"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("did you mean 'upper'"));
  CHECK_THAT(r.err, !Catch::Contains("run failed"));
  r = run_bin(tmp, {"explain", kScenario, "--vs-set", "workload.uper=3"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::StartsWith("nicsim explain: --vs-set: key 'workload.uper': "));  // not "--vs-set: --set:"
  CHECK_THAT(r.err, Catch::Contains("did you mean 'upper'"));
  r = run_bin(tmp, {"explain", kScenario, "--vs", (tmp / "nonexistent.toml").string()});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--vs"));
}

TEST_CASE("cli: explain against a run with no traced messages is a usage error, not a gap table", "[cli][validation]") {
  TempDir tmp;
  auto r = run_bin(tmp, {"explain", kScenario, "--set", "workload.upper=1", "--set", "workload.runtm_s=0.01",
                            "--vs-set", "workload.journeys_per_size=0"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("no traced messages"));
  CHECK(r.out.find("Gap") == std::string::npos);
}

TEST_CASE("cli: a failed run's reason is on stderr and in result.json's error", "[cli][validation]") {
  TempDir tmp;
  auto r = run_bin(tmp, {"run", kScenario, "--set", "workload.time_limit_s=0.001", "--out", (tmp / "o").string()});
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("did not finish within time_limit_s"));
  auto j = nlohmann::json::parse(read_text(tmp / "o" / "result.json"));
  CHECK_THAT(j["error"].get<std::string>(), Catch::Contains("did not finish within time_limit_s"));
}

namespace {

// One P4DPR-6GM+ box running busbench (real registries), line numbers cited below.
const std::string kBusbench = R"(name = "b"

[hosts.alpha]
platform = "supermicro-p4dpr-6gm+"

[workload]
type = "busbench"
host = "alpha"
slot = "pcix"
sizes = "64,128"
)";

std::string bus_error(const std::vector<std::string>& sets) { return load_error(kBusbench, sets); }

}  // namespace

TEST_CASE("busbench: sizes and ops lists parse strictly", "[busbench][validation]") {
  std::vector<uint32_t> sz;
  CHECK(parse_busbench_sizes("64, 128,1518", sz) == "");
  CHECK(sz == std::vector<uint32_t>{64, 128, 1518});
  for (auto bad : {"zzz", "1e3", "64abc", "64,,128", "64,", "", "0", "1048577", "64,64", "-64", "99999999999"}) {
    INFO(bad);
    CHECK(parse_busbench_sizes(bad, sz) != "");
  }
  std::vector<bool> ops;
  std::string sugg;
  CHECK(parse_busbench_ops("write, read", ops) == "");
  CHECK(ops == std::vector<bool>{true, false});
  CHECK(parse_busbench_ops("wrte", ops, &sugg) == "op 'wrte' is not 'write' (DMA to memory) or 'read' (DMA from memory)");
  CHECK(sugg == "write");
  CHECK(parse_busbench_ops("write,write", ops) == "op 'write' is listed twice");
  CHECK(parse_busbench_ops("write,,read", ops) != "");
  // PCI-X MMRBC is a 2-bit field: 512 << n.
  for (int64_t v : {512, 1024, 2048, 4096}) CHECK(pci_master_param_problem("mmrbc_bytes", v) == "");
  for (int64_t v : {513, 1000, 3072}) CHECK(pci_master_param_problem("mmrbc_bytes", v) != "");
  CHECK(pci_master_param_problem("width_bits", 48) == "48 bits is not a PCI AD width: 32 or 64");
}

TEST_CASE("busbench: parameter problems are load-time scenario errors naming the key", "[busbench][validation]") {
  REQUIRE(bus_error({}) == "no error");
  CHECK(load_error(with("sizes = \"64,128\"", "sizes = \"64,,128\"", kBusbench)) ==
        "v.toml:10:9: key 'workload.sizes': '64,,128' has an empty entry: write sizes in bytes separated by single "
        "commas, e.g. \"64,128,1518\"");
  CHECK(bus_error({"workload.sizes=\"zzz\""}) == "--set: key 'workload.sizes': 'zzz' is not a whole number of bytes (1..1048576)");
  CHECK(bus_error({"workload.sizes=\"1e3\""}) == "--set: key 'workload.sizes': '1e3' is not a whole number of bytes (1..1048576)");
  CHECK(bus_error({"workload.sizes=\"64abc\""}) == "--set: key 'workload.sizes': '64abc' is not a whole number of bytes (1..1048576)");
  CHECK(bus_error({"workload.sizes=\"0\""}) == "--set: key 'workload.sizes': size 0 is out of range 1..1048576 bytes");
  CHECK(bus_error({"workload.host=\"alpah\""}) ==
        "--set: key 'workload.host': no host 'alpah' in the scenario (its host: alpha) (did you mean 'alpha'?)");
  CHECK_THAT(bus_error({"workload.slot=\"pcx\""}),
             Catch::StartsWith("--set: key 'workload.slot': platform supermicro-p4dpr-6gm+ has no slot 'pcx'") &&
                 Catch::EndsWith("(did you mean 'pcix'?)"));
  CHECK(bus_error({"workload.ops=\"wrte\""}) ==
        "--set: key 'workload.ops': op 'wrte' is not 'write' (DMA to memory) or 'read' (DMA from memory) (did you "
        "mean 'write'?)");
  CHECK(bus_error({"workload.ops=\"write,write\""}) == "--set: key 'workload.ops': op 'write' is listed twice");
  CHECK(bus_error({"workload.second_slot=\"pcix\""}) ==
        "--set: key 'workload.second_slot': 'pcix' is also slot: the second master needs another slot");
  CHECK(bus_error({"workload.width_bits=48"}) == "--set: key 'workload.width_bits': 48 bits is not a PCI AD width: 32 or 64");
  CHECK(bus_error({"workload.mmio_offset=3"}) ==
        "--set: key 'workload.mmio_offset': 3 is not a multiple of 4: the CPU accesses 32-bit registers at DWORD offsets");
  CHECK_THAT(bus_error({"workload.mmrbc_bytes=1000"}),
             Catch::StartsWith("--set: key 'workload.mmrbc_bytes': 1000 bytes is not a PCI-X Maximum Memory Read Byte Count"));
  // A slot holding a NIC.
  CHECK(load_error(with("[workload]", "[hosts.alpha.nics.eth1]\ndevice = \"82546EB\"\nslot = \"pcix\"\ndriver = \"e1000-4.4.12-k1\"\n\n[workload]", kBusbench)) ==
        "v.toml:14:8: key 'workload.slot': slot 'pcix' holds NIC eth1 (82546EB): busbench needs an empty slot for its "
        "test master (or one holding a bus-master test device)");
  // Two hosts: busbench has no CPU model for the second.
  CHECK(load_error(with("[workload]", "[hosts.beta]\nplatform = \"supermicro-p4dpr-6gm+\"\n\n[workload]", kBusbench)) ==
        "v.toml:10:8: key 'workload.type': busbench drives one host's front-side bus itself (no CPU model) and needs a "
        "scenario with exactly one host; this one has 2");
}

TEST_CASE("scenario: NIC mac_address must be a well-formed unique unicast station address", "[scenario][validation]") {
  CHECK(parse_mac_address("00:02:B3:0a:1:ff") == std::array<uint8_t, 6>{0x00, 0x02, 0xb3, 0x0a, 0x01, 0xff});
  for (auto bad : {"00:02:b3:12:34", "00:02:b3:12:34:56:78", "00:02:b3:12:34:5g", "00:02:b3:12:34:567", "00-02-b3-12-34-56",
                   "00:02:b3::34:56", "00:02:b3:12:34:56 "}) {
    INFO(bad);
    CHECK(!parse_mac_address(bad));
  }
  CHECK(load_error(kTwoBoxes, {"hosts.alpha.nics.eth0.mac_address=\"00:02:b3:12:34:56\""}) == "no error");
  CHECK(load_error(kTwoBoxes, {"hosts.alpha.nics.eth0.mac_address=\"00:02:b3:12:34\""}) ==
        "--set: key 'hosts.alpha.nics.eth0.mac_address': '00:02:b3:12:34' is not a MAC address of the form "
        "00:02:b3:12:34:56");
  CHECK(load_error(kTwoBoxes, {"hosts.alpha.nics.eth0.mac_address=\"01:00:5e:00:00:01\""}) ==
        "--set: key 'hosts.alpha.nics.eth0.mac_address': 01:00:5e:00:00:01 is a multicast address (bit 0 of the first "
        "octet, the I/G bit, is set): a station address must be unicast");
  CHECK(load_error(kTwoBoxes, {"hosts.alpha.nics.eth0.mac_address=\"ff:ff:ff:ff:ff:ff\""}) ==
        "--set: key 'hosts.alpha.nics.eth0.mac_address': ff:ff:ff:ff:ff:ff is the broadcast address, not a station "
        "address");
  CHECK(load_error(kTwoBoxes, {"hosts.alpha.nics.eth0.mac_address=\"00:00:00:00:00:00\""}) ==
        "--set: key 'hosts.alpha.nics.eth0.mac_address': 00:00:00:00:00:00 is the all-zero address, not a valid "
        "station address");
  CHECK(load_error(kTwoBoxes, {"hosts.*.nics.eth0.mac_address=\"00:02:b3:12:34:56\""}) ==
        "--set: key 'hosts.beta.nics.eth0.mac_address': 00:02:b3:12:34:56 is already the station address of "
        "hosts.alpha.nics.eth0 (each NIC needs its own unicast MAC address)");
  CHECK(load_error(kTwoBoxes, {"hosts.alpha.nics.eth0.mac_address=\"00:02:b3:12:34:56\"",
                               "hosts.beta.nics.eth0.mac_address=\"00:02:B3:12:34:56\""}) != "no error");
}

TEST_CASE("scenario: e1000 module and device parameters the driver or bus does not accept are load-time errors",
          "[scenario][validation]") {
  auto nic = [](const std::string& kv) { return load_error(kTwoBoxes, {"hosts.alpha.nics.eth0." + kv}); };
  for (auto ok : {"FlowControl=3", "FlowControl=255", "Speed=100", "AutoNeg=0x2F", "AutoNeg=0x0F", "AutoNeg=0x20",
                  "cache_line_bytes=128", "dma_read_burst_bytes=4096", "dma_write_burst_bytes=8"}) {
    INFO(ok);
    CHECK(nic(ok) == "no error");
  }
  // The schema's accepted sets are what e1000_check_options accepts (one source: the loader refuses
  // the rest, `list --verbose` prints the set, check_options falls back outside it).
  CHECK_THAT(nic("FlowControl=17"),
             Catch::StartsWith("--set: key 'hosts.alpha.nics.eth0.FlowControl': value 17 is not one of 0-3, 255 [mode] "
                               "(802.3x flow control: 0 none, 1 rx pause, 2 tx pause, 3 full, 255 (default)"));
  CHECK_THAT(nic("FlowControl=4"), Catch::Contains("value 4 is not one of 0-3, 255"));
  CHECK_THAT(nic("Speed=7"),
             Catch::StartsWith("--set: key 'hosts.alpha.nics.eth0.Speed': value 7 is not one of 0, 10, 100, 1000 [Mb/s] "
                               "(forced speed 0 (autonegotiate), 10, 100 or 1000 (e1000_check_copper_options)"));
  CHECK_THAT(nic("AutoNeg=16"),
             Catch::StartsWith("--set: key 'hosts.alpha.nics.eth0.AutoNeg': value 16 is not one of 1-15, 32-47"));
  CHECK_THAT(nic("AutoNeg=16"), Catch::Contains("bit 4 (1000/HD) is not supported by the 8254x"));
  CHECK_THAT(nic("cache_line_bytes=17"),
             Catch::StartsWith("--set: key 'hosts.alpha.nics.eth0.cache_line_bytes': 17 bytes is not a power of two"));
  CHECK_THAT(nic("dma_read_burst_bytes=24"),
             Catch::StartsWith("--set: key 'hosts.alpha.nics.eth0.dma_read_burst_bytes': 24 bytes is not a power of two"));
  // Below a quadword (the 64-bit bus's data phase) a burst is refused by the range before the power-of-two rule.
  CHECK_THAT(nic("dma_read_burst_bytes=5"),
             Catch::StartsWith("--set: key 'hosts.alpha.nics.eth0.dma_read_burst_bytes': value 5 is below the minimum 8"));
  CHECK_THAT(load_error(with("driver = \"e1000-4.4.12-k1\"\n\n[hosts.beta]", "driver = \"e1000-5.0.43-k1\"\n\n[hosts.beta]"),
                        {"hosts.alpha.nics.eth1.InterruptThrottleRate=50"}),
             Catch::StartsWith("--set: key 'hosts.alpha.nics.eth1.InterruptThrottleRate': value 50 is not one of 0-1, "
                               "100-100000"));
  // Platform: PCI-X clocks and the Cache Line Size register.
  CHECK(load_error(kTwoBoxes, {"hosts.alpha.pcix_slot_mhz=133"}) == "no error");
  CHECK(load_error(kTwoBoxes, {"hosts.alpha.pcix_slot_mhz=67"}) ==
        "--set: key 'hosts.alpha.pcix_slot_mhz': 67 MHz is not a PCI-X segment clock: 66, 100 or 133 (PCI-X 1.0)");
  CHECK(load_error(kTwoBoxes, {"hosts.beta.pcix_slot_mhz=99"}) != "no error");
  CHECK(load_error(kTwoBoxes, {"hosts.alpha.pci_cache_line_bytes=33"}) ==
        "--set: key 'hosts.alpha.pci_cache_line_bytes': 33 bytes is not a power of two: 32, 64 or 128 (PCI 2.2 §6.2.4 "
        "Cache Line Size)");
}

TEST_CASE("cli: busbench parameter problems exit 2 at load, not 1 after building", "[cli][validation]") {
  TempDir tmp;
  for (auto set : {"workload.sizes=\"zzz\"", "workload.host=\"alpah\"", "workload.ops=\"wrte\""}) {
    auto r = run_bin(tmp, {"run", "scenarios/busbench/segB-pcix100.toml", "--set", set});
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::StartsWith("--set: key 'workload."));
    CHECK(r.out.empty());
  }
}

TEST_CASE("validation: a host's kernel and CPU profile names are checked against the registries, with a suggestion",
          "[validation][profiles]") {
  CHECK(load_error(kTwoBoxes, {"hosts.beta.kernel_profile=linux-2.4.20-i368"}) ==
        "--set: key 'hosts.beta.kernel_profile': no kernel profile 'linux-2.4.20-i368' in this build (known: "
        "linux-2.4.16-ppc, linux-2.4.18-14-rh, linux-2.4.20-i386, linux-2.6.11-i386, linux-2.6.14-i386) (did you mean "
        "'linux-2.4.20-i386'?)");
  CHECK(load_error(kTwoBoxes, {"hosts.alpha.cpu_profile=xeon-prestonai"}) ==
        "--set: key 'hosts.alpha.cpu_profile': no CPU profile 'xeon-prestonai' in this build (known: ppc7450, "
        "xeon-prestonia, xeon-prestonia-ht) (did you mean 'xeon-prestonia'?)");
  CHECK(load_error(kTwoBoxes, {"hosts.*.kernel_profile=linux-2.4.20-i386", "hosts.*.cpu_profile=xeon-prestonia"}) ==
        "no error");
}

TEST_CASE("validation: threads_per_core needs a CPU profile with hyper-threading, CPU indexes count logical CPUs",
          "[validation][profiles][smt]") {
  CHECK(load_error(kTwoBoxes, {"hosts.alpha.cpu_profile=xeon-prestonia", "hosts.alpha.threads_per_core=2"}) ==
        "--set: key 'hosts.alpha.threads_per_core': the xeon-prestonia CPU profile has 1 logical processor per core "
        "(no hyper-threading); threads_per_core 2 needs a CPU profile with it (e.g. xeon-prestonia-ht)");
  // With HT the two packages are four logical CPUs: CPU 3 exists, CPU 4 does not.
  const std::vector<std::string> ht = {"hosts.alpha.cpu_profile=xeon-prestonia-ht",
                                       "hosts.alpha.kernel_profile=linux-2.6.14-i386"};
  auto with = [&](const std::string& s) {
    std::vector<std::string> v = ht;
    v.push_back(s);
    return v;
  };
  CHECK(load_error(kTwoBoxes, with("hosts.alpha.irq_dest_cpu=3")) == "no error");
  CHECK(load_error(kTwoBoxes, with("hosts.alpha.irq_dest_cpu=4")) ==
        "--set: key 'hosts.alpha.irq_dest_cpu': CPU 4 does not exist: the host has 4 logical CPUs (2 x 2 threads) "
        "(CPUs 0..3)");
  // Hyper-threading off on the HT profile: two CPUs again.
  CHECK(load_error(kTwoBoxes, {ht[0], ht[1], "hosts.alpha.threads_per_core=1", "hosts.alpha.irq_dest_cpu=2"}) ==
        "--set: key 'hosts.alpha.irq_dest_cpu': CPU 2 does not exist: the host has cpus = 2 (CPUs 0..1)");
}

TEST_CASE("validation: a host's cost_profile is checked against the registered cost tables, with a suggestion",
          "[validation][profiles]") {
  // The cost tables register from their own files (drivers-sim/kernel/costs_*.cpp): a check, not a
  // fixed choice list, so a new table needs no edit here.
  std::string known;
  for (auto& n : cost_profile_names()) known += (known.empty() ? "" : ", ") + n;
  CHECK(known.find("linux-2.4.20-p4xeon, linux-2.6-p4xeon") != std::string::npos);
  CHECK(load_error(kTwoBoxes, {"hosts.beta.cost_profile=linux-2.4.20-p4xoen"}) ==
        "--set: key 'hosts.beta.cost_profile': no cost profile 'linux-2.4.20-p4xoen' in this build (known: " + known +
            ") (did you mean 'linux-2.4.20-p4xeon'?)");
  CHECK(load_error(kTwoBoxes, {"hosts.beta.cost_profile=linux-2.6-p4xeon"}) == "no error");
  CHECK(load_error(kTwoBoxes, {"hosts.beta.cost_profile=\"\""}) == "no error");
}

TEST_CASE("cli: explain --kind names one kind: an exact or unique prefix, else the matching kinds are listed",
          "[cli][validation]") {
  TempDir tmp;
  const std::string s = std::string(NICSIM_SOURCE_DIR) + "/scenarios/seed002/e1000-82544gc-pci66.toml";
  const std::vector<std::string> base = {"explain", s, "--set", "workload.sizes=\"16,64,1024\"", "--set",
                                         "workload.duration_s=0.02", "--set", "workload.journeys_per_test=20"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    return run_bin(tmp, a);
  };
  auto r = with({"--kind", "TCP_RR"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("matches 3 kinds"));
  CHECK_THAT(r.err, Catch::Contains("TCP_RR 1024 B"));
  r = with({"--kind", "TCP_RR 1"});  // "TCP_RR 16 B" and "TCP_RR 1024 B"
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("matches 2 kinds"));
  r = with({"--kind", "TCP_RR 10"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("40 measured messages"));  // 20 transactions x (request + response)
  r = with({"--kind", "UDP_RR"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("no traced message of kind 'UDP_RR'"));
  // Without traced messages the run's TCP transfers are what explain can break down.
  r = with({"--set", "workload.journeys_per_test=0"});
  CHECK(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("traced no messages"));
  CHECK_THAT(r.out, Catch::Contains("sender") && Catch::Contains("receiver"));
}

TEST_CASE("lmbench: an unknown program or host is a scenario error with the usual (did you mean ...) form",
          "[lmbench][validation]") {
  const std::string up = read_text(std::string(NICSIM_SOURCE_DIR) + "/scenarios/lmbench/p4-2400-up.toml");
  REQUIRE(load_error(up) == "no error");
  CHECK_THAT(load_error(up, {"workload.tests=\"lat_tpc\""}),
             Catch::StartsWith("--set: key 'workload.tests': 'lat_tpc' is not an lmbench program (did you mean "
                               "'lat_tcp'?); the programs: lat_syscall, "));
  CHECK(load_error(up, {"workload.host=\"tonny\""}) ==
        "--set: key 'workload.host': no host 'tonny' in the scenario (did you mean 'tony'?); its hosts: tony");
}

TEST_CASE("scenario: a big integer out of range is printed as the integer written (bug: 9.223372036854776e+18)",
          "[scenario][validation]") {
  TempDir tmp;
  const std::string f = (tmp / "big.toml").string();
  write_text(f, read_text(kScenario) + "\n");
  auto r = run_bin(tmp, {"run", f, "--set", "workload.upper=9223372036854775807"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("value 9223372036854775807 is above the maximum 1073741824"));
  r = run_bin(tmp, {"run", f, "--set", "workload.upper=-9223372036854775807"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("value -9223372036854775807 is below the minimum"));
  CHECK_THAT(r.err, !Catch::Contains("e+18"));
}

TEST_CASE("busbench: the PE2650's fitted onboard BCM5701 positions are taken (bug: the test master was plugged in "
          "over the onboard NIC)",
          "[busbench][validation]") {
  const std::string pe = read_text("scenarios/busbench/pe2650-slot3-pcix133.toml");
  const std::string fitted = with("\nonboard_nics = false", "\nonboard_nics = true", pe);
  CHECK_THAT(load_error(fitted, {"workload.slot=\"onboard-nic1\""}),
             Catch::Contains("key 'workload.slot': slot 'onboard-nic1' is the board's onboard BCM5701 position, fitted "
                             "(hosts.alpha.onboard_nics = true): set hosts.alpha.onboard_nics = false to put the test "
                             "master in its place, or use an add-in slot (slot1, slot2, slot3)"));
  CHECK_THAT(load_error(fitted, {"workload.second_slot=\"onboard-nic2\""}),
             Catch::Contains("key 'workload.second_slot': slot 'onboard-nic2'"));
  // Left out, the position is free (the shipped scenario's board); the riser slots always are.
  CHECK(load_error(pe, {"workload.slot=\"onboard-nic1\""}) == "no error");
  CHECK(load_error(fitted) == "no error");
  // The P4DPR-6GM+ fits no onboard device by itself: its 82544GC position takes the test master.
  CHECK(load_error(read_text("scenarios/busbench/segA-pci66.toml")) == "no error");
}

TEST_CASE("cli: --plot-interval-ms below 1 µs or above 1e6 ms is a usage error (bug: 1e-9 ms was accepted and the "
          "run sampled every picosecond for hours)",
          "[cli][validation]") {
  TempDir tmp;
  const std::string plots = (tmp / "plots").string();
  for (const char* v : {"1e-9", "0.0009", "0", "2e6", "nan"}) {
    INFO("--plot-interval-ms " << v);
    auto r = run_bin(tmp, {"run", kScenario, "--plots", plots, "--plot-interval-ms", v});
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("--plot-interval-ms must be between 0.001 (1 µs) and 1e+06 ms"));
    CHECK(r.out.empty());  // nothing ran
  }
}

}  // namespace input_validation_test
