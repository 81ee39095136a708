// `nicsim calibrate` with a fake model (a runner computing metrics from the values it is given):
// the calibration file's errors, each refusal, the fit, the at-bound failure, resume and rerun,
// the fit file's round trip, a scenario using a fit, and check's train/validate/uncalibrated tags.
#include "cli/calibrate.h"
#include "cli/calibration_file.h"
#include "cli/check.h"
#include "cli/dir_lock.h"
#include "core/calib.h"
#include "core/results.h"
#include "platforms/calibration_fit.h"
#include "platforms/scenario.h"
#include "platforms/testbed.h"
#include "tests/support/sweep_check.h"
#include <catch2/catch.hpp>
#include <cmath>

// This file's own names, apart from the other files of a unity batch.
namespace calibrate_test {
using namespace nicsim;
using namespace nicsim::test;

namespace {

/// Two P4DPR-6GM+ hosts (both calibrated), as seed 000's scenario has them.
std::string scenario_text(const std::string& name, const std::string& extra = "") {
  return "name = \"" + name + "\"\n" + extra + R"(
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
[[links]]
a = "alpha.eth1"
b = "beta.eth1"
[workload]
type = "netpipe"
transmitter = "alpha.eth1"
receiver = "beta.eth1"
upper = 24
)";
}

/// The fake model's value of `key` in a job (the platform default when the calibration gave none).
double value_of(const RunJob& j, const std::string& key, double def) {
  const std::string v = set_value(j, "hosts.alpha." + key);
  return v.empty() ? def : std::stod(v);
}

/// The fake model. Scenario "lin": a, c, e move with hub_crossing_ns only. Scenario "col": p1..p6
/// move with hub_crossing_ns + p64h2_mr_fetch_bytes, both in the same proportion.
std::map<std::string, double> fake_metrics(const std::string& stem, double hub, double mr) {
  if (stem == "col")
    return {{"p1", 1 + hub + mr},      {"p2", 5 + 2 * (hub + mr)}, {"p3", 9 + 3 * (hub + mr)},
            {"p4", 2 + 4 * (hub + mr)}, {"p5", 7 + 5 * (hub + mr)}, {"p6", 3 + 6 * (hub + mr)}};
  return {{"a", 10 + 0.1 * hub}, {"c", 5 + 0.02 * hub}, {"e", 40 - 0.1 * hub}, {"flat", 3.0}};
}

struct Fake {
  std::atomic<int> calls{0};
  std::atomic<bool>* stop_after = nullptr;  ///< set true once `stop_at` runs have finished
  int stop_at = 0;
  Runner runner() {
    return [this](const RunJob& j) -> RunOutcome {
      const double hub = value_of(j, "hub_crossing_ns", 100), mr = value_of(j, "p64h2_mr_fetch_bytes", 8);
      nlohmann::json r = results_envelope(j.scenario.string(), j.seed.value_or(1), nlohmann::json::object());
      r["metrics"] = nlohmann::json::object();
      for (auto& [k, v] : fake_metrics(j.scenario.stem().string(), hub, mr)) r["metrics"][k] = v;
      write_json_atomic(j.out_dir / "result.json", r);
      if (++calls >= stop_at && stop_after) *stop_after = true;
      return {0, ""};
    };
  }
};

/// A reference file for scenario `stem` with the fake's values at `hub` (tolerance 5 %).
void write_refs(const fs::path& dir, const std::string& stem, double hub, double mr = 8) {
  std::string t;
  for (auto& [k, v] : fake_metrics(stem, hub, mr))
    if (k != "flat")
      t += fmt::format("[[reference]]\nmetric = \"{}\"\nexpected = {}\ntolerance = 0.05\nsource = \"fake model at "
                       "hub_crossing_ns {}\"\n",
                       k, v, hub);
  write_text(dir / (stem + ".ref.toml"), t);
  write_text(dir / (stem + ".toml"), scenario_text(stem));
}

CalibrateOptions options(const fs::path& file, const fs::path& out) {
  CalibrateOptions o;
  o.file = file;
  o.out = out;
  o.jobs = 2;
  o.max_evals = 24;
  o.binary = NICSIM_BIN;
  static std::FILE* null_out = std::fopen("/dev/null", "w");
  o.out_text = null_out;
  o.log = null_out;
  return o;
}

const char* kHub = "[[parameter]]\nset = \"hosts.*.hub_crossing_ns\"\n";

std::string load_error(const fs::path& file) {
  try {
    load_calibration_file(file);
  } catch (const RefFileError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("calibratable parameters are estimates with bounds inside their range", "[calibrate]") {
  size_t n = 0;
  auto check = [&](const ParamSchema& s) {
    for (auto& p : s)
      if (const CalibBounds* c = calib_bounds(p)) {
        ++n;
        INFO(p.name);
        CHECK(p.source.rfind("estimate", 0) == 0);
        const double def = p.kind == ParamKind::Int ? double(std::get<int64_t>(p.def)) : std::get<double>(p.def);
        CHECK(c->lo <= def);
        CHECK(def <= c->hi);
        CHECK(!c->lo_why.empty());
        CHECK(!c->hi_why.empty());
        CHECK(!c->mechanism.empty());
      }
  };
  for (auto& [_, e] : Registry<PlatformEntry>::instance().all()) check(e.params);
  for (auto& [_, e] : Registry<DeviceEntry>::instance().all()) check(e.params);
  for (auto& [_, e] : Registry<DriverEntry>::instance().all()) check(e.params);
  CHECK(n >= 4);
  // A sourced constant cannot be declared calibratable.
  CHECK_THROWS_WITH(calibratable(real_param("x", 1, 0, 2, "ns", "doc", "datasheet 3.1"), 0.5, "a", 1.5, "b", "m"),
                    Catch::Contains("sourced constants are never fitted"));
  CHECK_THROWS(calibratable(real_param("x", 1, 0, 2, "ns", "doc", "estimate: x"), 1.5, "a", 1.8, "b", "m"));
}

TEST_CASE("a calibration file's errors name file, line and key with a suggestion", "[calibrate]") {
  TempDir tmp;
  write_refs(tmp / "sc", "lin", 100);
  const std::string head = "platform = \"supermicro-p4dpr-6gm+\"\n";
  const std::string train = "[[train]]\nref = \"../sc/lin.ref.toml\"\n";
  auto file = tmp / "cal" / "x.toml";
  write_text(file, "platfrom = \"supermicro-p4dpr-6gm+\"\n" + std::string(kHub) + train);
  CHECK_THAT(load_error(file), Catch::Contains("x.toml:1:1: key 'platfrom'") && Catch::Contains("did you mean 'platform'"));
  write_text(file, "platform = \"supermicro-p4dpr\"\n" + std::string(kHub) + train);
  CHECK_THAT(load_error(file), Catch::Contains("unknown platform") && Catch::Contains("supermicro-p4dpr-6gm+"));
  write_text(file, head + "[[parameter]]\nset = \"hosts.*.cpu_mhz\"\n" + train);
  CHECK_THAT(load_error(file), Catch::Contains(":3:7: key 'parameter[0].set'") &&
                                   Catch::Contains("is a sourced constant") && Catch::Contains("never fitted"));
  write_text(file, head + "[[parameter]]\nset = \"hosts.*.dram_mb\"\n" + train);
  CHECK_THAT(load_error(file), Catch::Contains("estimate without declared calibration bounds"));
  write_text(file, head + "[[parameter]]\nset = \"hosts.*.hub_crosing_ns\"\n" + train);
  CHECK_THAT(load_error(file), Catch::Contains("did you mean 'hub_crossing_ns'"));
  write_text(file, head + kHub + "bounds = [40.0, 150.0]\n" + train);
  CHECK_THAT(load_error(file), Catch::Contains("bounds may only narrow the declared [50, 150]"));
  write_text(file, head + kHub + train + "metrics = [\"aa\"]\n");
  CHECK_THAT(load_error(file), Catch::Contains("train[0].metrics[0]") && Catch::Contains("did you mean 'a'"));
  write_text(file, head + kHub + "[[train]]\nref = \"../sc/nothere.ref.toml\"\n");
  CHECK_THAT(load_error(file), Catch::Contains("no such file"));
  write_text(file, head + kHub + train + "metrics = [\"a\", \"c\"]\n");
  CalibrationFile cf = load_calibration_file(file);
  CHECK(cf.train.at(0).selected.size() == 2);
  CHECK(cf.train.at(0).group == "sc");
  CHECK(cf.params.at(0).lo == 50);
  CHECK(cf.train.at(0).file.scenario == tmp / "sc" / "lin.toml");  // X.ref.toml -> X.toml
  // `short` runs NAME.toml for NAME.full.toml's figures (the file's own scenario and its vs runs).
  write_text(tmp / "sc" / "m.full.ref.toml",
             "[[reference]]\nmetric = \"a\"\nexpected = 1\ntolerance = 0.1\nsource = \"s\"\n"
             "[[reference]]\nmetric = \"a\"\nvs = \"n.full.toml\"\nexpected = 1\ntolerance = 0.1\nsource = \"s\"\n");
  for (const char* n : {"m.full", "m", "n.full", "n"}) write_text(tmp / "sc" / (std::string(n) + ".toml"), scenario_text(n));
  const std::string shortsel = "[[train]]\nref = \"../sc/m.full.ref.toml\"\nshort = true\n";
  write_text(file, head + kHub + shortsel);
  const CalibrationFile sh = load_calibration_file(file);
  CHECK(sh.train.at(0).file.scenario == tmp / "sc" / "m.toml");
  CHECK(sh.train.at(0).file.refs.at(1).vs == tmp / "sc" / "n.toml");
  // `metrics` names a difference as check does: "a" is the plain reference only.
  write_text(file, head + kHub + shortsel + "metrics = [\"a\"]\n");
  CHECK(load_calibration_file(file).train.at(0).selected == std::vector<size_t>{0});
  write_text(file, head + kHub + shortsel + "metrics = [\"a - [n.full]\"]\n");
  CHECK(load_calibration_file(file).train.at(0).selected == std::vector<size_t>{1});
  fs::remove(tmp / "sc" / "n.toml");
  CHECK_THAT(load_error(file), Catch::Contains("x.toml:6:9: key 'train[0].short'") && Catch::Contains("no short variant"));
  write_text(file, head + kHub + train + "short = true\n");  // lin.ref.toml's scenario is no .full
  CHECK_THAT(load_error(file), Catch::Contains("is not a NAME.full.toml scenario"));
  write_text(file, head + kHub + train + "shrt = true\n");
  CHECK_THAT(load_error(file), Catch::Contains("did you mean 'short'"));
}

TEST_CASE("calibrate refuses before running: a reference in both sets, too many parameters", "[calibrate]") {
  TempDir tmp;
  write_refs(tmp / "sc", "lin", 100);
  Fake fake;
  auto file = tmp / "cal" / "x.toml";
  const std::string head = "platform = \"supermicro-p4dpr-6gm+\"\n";
  write_text(file, head + kHub + "[[train]]\nref = \"../sc/lin.ref.toml\"\n[[validate]]\nref = \"../sc/lin.ref.toml\"\n"
                                 "metrics = [\"c\"]\n");
  CHECK(run_calibrate(options(file, tmp / "runs"), fake.runner()) == kExitUsage);
  write_text(file, head + kHub + "[[parameter]]\nset = \"hosts.*.p64h2_mr_fetch_bytes\"\n[[train]]\nref = \"../sc/lin.ref.toml\"\n");
  CHECK(run_calibrate(options(file, tmp / "runs"), fake.runner()) == kExitUsage);  // 2 parameters, 3 figures
  CHECK(fake.calls == 0);
  // A run directory another calibration holds (its calibrate.lock) is refused, and nothing runs.
  write_text(file, head + kHub + "[[train]]\nref = \"../sc/lin.ref.toml\"\n");
  {
    DirLock other(tmp / "runs", std::nullopt, "calibrate");
    std::FILE* log = std::tmpfile();
    CalibrateOptions o = options(file, tmp / "runs");
    o.log = log;
    CHECK(run_calibrate(o, fake.runner()) == kExitUsage);
    std::rewind(log);
    char text[512] = {};
    CHECK_THAT(std::string(text, std::fread(text, 1, sizeof text - 1, log)),
               Catch::Contains("another nicsim calibrate") && Catch::Contains("calibrate.lock"));
    std::fclose(log);
  }
  CHECK(fake.calls == 0);
}

TEST_CASE("calibrate refuses a parameter that moves nothing and two that move the same figures alike", "[calibrate]") {
  TempDir tmp;
  write_refs(tmp / "sc", "lin", 100);
  write_refs(tmp / "sc", "col", 100);
  Fake fake;
  auto file = tmp / "cal" / "x.toml";
  const std::string head = "platform = \"supermicro-p4dpr-6gm+\"\n";
  write_text(file, head + "[[parameter]]\nset = \"hosts.*.p64h2_mr_fetch_bytes\"\n[[train]]\nref = \"../sc/lin.ref.toml\"\n");
  CHECK(run_calibrate(options(file, tmp / "runs"), fake.runner()) == kExitUsage);
  CHECK(fake.calls == 2);  // the sensitivity runs: nominal (8 B, also the low bound) and the high bound
  write_text(file, head + kHub + "[[parameter]]\nset = \"hosts.*.p64h2_mr_fetch_bytes\"\n"
                                 "[[train]]\nref = \"../sc/col.ref.toml\"\n");
  CHECK(run_calibrate(options(file, tmp / "runs"), fake.runner()) == kExitUsage);
  CHECK(fake.calls == 2 + 4);  // nominal, and each parameter at its two bounds (the low mr is nominal)
}

TEST_CASE("calibrate recovers the value its references were made at and a rerun runs nothing", "[calibrate]") {
  TempDir tmp;
  write_refs(tmp / "sc", "lin", 123.4);
  write_refs(tmp / "val", "col", 123.4);
  auto file = tmp / "cal" / "fake-hub.toml";
  write_text(file, "platform = \"supermicro-p4dpr-6gm+\"\nseeds = [1]\n" + std::string(kHub) +
                       "[[train]]\nref = \"../sc/lin.ref.toml\"\n[[validate]]\nref = \"../val/col.ref.toml\"\n");
  // Interrupted after 5 runs: the finished ones are kept.
  std::atomic<bool> stop{false};
  Fake first;
  first.stop_after = &stop;
  first.stop_at = 5;
  auto o = options(file, tmp / "runs");
  o.stop = &stop;
  CHECK(run_calibrate(o, first.runner()) == 130);
  CHECK_FALSE(fs::exists(tmp / "cal" / "fake-hub.fit.toml"));
  // Resumed: it runs only what is missing.
  Fake second;
  CalibrateStats s2;
  REQUIRE(run_calibrate(options(file, tmp / "runs"), second.runner(), &s2) == kExitOk);
  CHECK(s2.runs_reused >= 5);
  const FitFile fit = read_fit_file(tmp / "cal" / "fake-hub.fit.toml");
  REQUIRE(fit.params.size() == 1);
  CHECK(fit.ok);
  CHECK(fit.params[0].fitted == Approx(123.4).epsilon(0.02));
  CHECK(fit.train.count == 3);
  CHECK(fit.train.within == 3);
  CHECK(fit.validate.count == 6);
  CHECK(fit.calibration_hash == file_hash(file));
  REQUIRE(fit.sensitivity.size() == 1);
  CHECK(fit.sensitivity[0].size() == 3);
  const std::string text = read_text(tmp / "cal" / "fake-hub.fit.toml");
  // A rerun of the same file on the same binary runs nothing and writes the same fit.
  Fake third;
  CalibrateStats s3;
  CHECK(run_calibrate(options(file, tmp / "runs"), third.runner(), &s3) == kExitOk);
  CHECK(third.calls == 0);
  CHECK(s3.runs_started == 0);
  CHECK(read_text(tmp / "cal" / "fake-hub.fit.toml") == text);
  // Deterministic: a fresh directory gives the same fit, with as many runs as the two runs above.
  Fake fourth;
  CHECK(run_calibrate(options(file, tmp / "runs2"), fourth.runner()) == kExitOk);
  CHECK(read_text(tmp / "cal" / "fake-hub.fit.toml") == text);
  CHECK(fourth.calls == first.calls + second.calls);
}

TEST_CASE("a fit at a bound fails the calibration, names the mechanism and is refused by scenarios", "[calibrate]") {
  TempDir tmp;
  write_refs(tmp / "sc", "lin", 190);  // beyond the declared 150 ns
  auto file = tmp / "calibrations" / "hub.toml";
  write_text(file, "platform = \"supermicro-p4dpr-6gm+\"\n" + std::string(kHub) + "[[train]]\nref = \"../sc/lin.ref.toml\"\n");
  Fake fake;
  CHECK(run_calibrate(options(file, tmp / "runs"), fake.runner()) == kExitRunFailed);
  const FitFile fit = read_fit_file(tmp / "calibrations" / "hub.fit.toml");
  CHECK_FALSE(fit.ok);
  CHECK(fit.params.at(0).at_bound);
  CHECK(fit.params.at(0).fitted > 145);
  CHECK_THAT(fit.failure, Catch::Contains("upper bound 150") && Catch::Contains("Hub Interface 2.0 crossing") &&
                              Catch::Contains("mechanism the model lacks"));
  write_text(tmp / "sc" / "uses.toml", scenario_text("uses", "calibration = \"hub\"\n"));
  CHECK_THROWS_WITH(load_scenario((tmp / "sc" / "uses.toml").string()), Catch::Contains("failed, its values are not to be used"));
}

TEST_CASE("a scenario naming a calibration gets its values, a --set wins, a changed file is refused", "[calibrate]") {
  TempDir tmp;
  write_refs(tmp / "sc", "lin", 123.4);
  auto file = tmp / "calibrations" / "hub.toml";
  write_text(file, "platform = \"supermicro-p4dpr-6gm+\"\n" + std::string(kHub) + "[[train]]\nref = \"../sc/lin.ref.toml\"\n");
  Fake fake;
  REQUIRE(run_calibrate(options(file, tmp / "runs"), fake.runner()) == kExitOk);
  const double fitted = read_fit_file(tmp / "calibrations" / "hub.fit.toml").params.at(0).fitted;
  const fs::path sc = tmp / "sc" / "uses.toml";
  write_text(sc, scenario_text("uses", "calibration = \"hub\"\n"));
  Scenario s = load_scenario(sc.string());
  CHECK(s.find_host("alpha")->params.r("hub_crossing_ns") == fitted);
  CHECK(s.find_host("beta")->params.r("hub_crossing_ns") == fitted);
  REQUIRE(s.calibration);
  CHECK(s.calibration->applied.size() == 2);
  CHECK(s.to_json()["calibration"]["applied"]["hosts.alpha.hub_crossing_ns"] == fitted);
  Scenario w = load_scenario(sc.string(), {"hosts.alpha.hub_crossing_ns=70"});
  CHECK(w.find_host("alpha")->params.r("hub_crossing_ns") == 70);
  CHECK(w.find_host("beta")->params.r("hub_crossing_ns") == fitted);
  CHECK(w.calibration->given == std::vector<std::string>{"hosts.alpha.hub_crossing_ns"});
  // The same through --set calibration=NAME on a scenario that names none; without it, the default.
  write_text(tmp / "sc" / "plain.toml", scenario_text("plain"));
  CHECK(load_scenario((tmp / "sc" / "plain.toml").string(), {"calibration=hub"}).find_host("alpha")->params.r("hub_crossing_ns") == fitted);
  CHECK(load_scenario((tmp / "sc" / "plain.toml").string()).find_host("alpha")->params.r("hub_crossing_ns") == 100);
  CHECK_FALSE(load_scenario((tmp / "sc" / "plain.toml").string()).to_json().contains("calibration"));
  CHECK_THROWS_WITH(load_scenario((tmp / "sc" / "plain.toml").string(), {"calibration=nosuch"}),
                    Catch::Contains("no calibrations/nosuch.fit.toml"));
  write_text(file, read_text(file) + "# edited\n");
  CHECK_THROWS_WITH(load_scenario(sc.string()), Catch::Contains("changed since its fit") && Catch::Contains("refit or revert"));
}

TEST_CASE("a fit file reads back as it was written", "[calibrate]") {
  FitFile f;
  f.name = "n";
  f.platform = "supermicro-p4dpr-6gm+";
  f.kernel_profile = "linux-2.4.20-i386";
  f.calibration_file = "n.toml";
  f.calibration_hash = content_hash("x");
  f.nicsim_version = "0.1.0";
  f.binary_hash = content_hash("y");
  f.ok = false;
  f.failure = "a \"quoted\" reason";
  f.objective = 0.0123456789012345;
  f.nominal_objective = 1.0 / 3.0;
  f.evaluations = 17;
  f.seeds = {1, 7};
  f.params.push_back({"hosts.*.hub_crossing_ns", false, 123.456789, 100, 60, 140, 50, 150, "ns", "m", false});
  f.params.push_back({"hosts.*.p64h2_mr_fetch_bytes", true, 64, 8, 8, 128, 8, 128, "bytes", "m2", true});
  f.refs.push_back({"train", "../a.ref.toml", "x - [b]", "g", "28 ±15%", 27.5, -0.0178, false, true});
  f.refs.push_back({"validate", "../c.ref.toml", "y", "h", "[1, 2]", std::nullopt, 0, false, false});
  f.train = {1, 1, 0.0178, -0.0178, -0.0178, "../a.ref.toml: x - [b]"};
  f.cv_mean_abs = 0.05;
  f.cv.push_back({"g", {120.0, 64.0}, 2, 0.05});
  f.sensitivity_figures = {"../a.ref.toml: x - [b]"};
  f.sensitivity = {{0.1}, {-0.2}};
  const std::string t = fit_file_text(f);
  const FitFile g = parse_fit_text(t, "n.fit.toml");
  CHECK(fit_file_text(g) == t);
  CHECK(g.objective == f.objective);
  CHECK(g.nominal_objective == f.nominal_objective);
  CHECK(g.params.at(0).fitted == 123.456789);
  CHECK(g.params.at(1).integer);
  CHECK(g.refs.at(0).simulated == 27.5);
  CHECK_FALSE(g.refs.at(1).simulated);
  CHECK(g.failure == f.failure);
  CHECK(g.seeds == f.seeds);
  CHECK_THROWS_WITH(parse_fit_text("calibration = 3\n", "bad.fit.toml"), Catch::Contains("bad.fit.toml: key 'calibration'"));
}

TEST_CASE("check tags references train validate or uncalibrated and summarizes each set", "[calibrate]") {
  TempDir tmp;
  write_refs(tmp / "sc", "lin", 123.4);
  write_refs(tmp / "val", "col", 123.4);
  auto file = tmp / "calibrations" / "hub.toml";
  write_text(file, "platform = \"supermicro-p4dpr-6gm+\"\n" + std::string(kHub) +
                       "[[train]]\nref = \"../sc/lin.ref.toml\"\nmetrics = [\"a\", \"c\", \"e\"]\n");
  Fake fake;
  REQUIRE(run_calibrate(options(file, tmp / "runs"), fake.runner()) == kExitOk);
  // The runs load their scenario as nicsim run does (the calibration's values included) and record
  // it in result.json's params.
  Runner with_params = [&](const RunJob& j) -> RunOutcome {
    const Scenario s = load_scenario(j.scenario.string(), j.sets);
    const ParamValues& hp = s.find_host("alpha")->params;
    nlohmann::json r = results_envelope(j.scenario.string(), j.seed.value_or(1), s.to_json());
    r["metrics"] = nlohmann::json::object();
    for (auto& [k, v] : fake_metrics(j.scenario.stem().string(), hp.r("hub_crossing_ns"), hp.r("p64h2_mr_fetch_bytes")))
      r["metrics"][k] = v;
    write_json_atomic(j.out_dir / "result.json", r);
    return RunOutcome{0, ""};
  };
  // The same scenarios named by their calibration through --set calibration=hub.
  CheckOptions co;
  co.paths = {tmp / "sc", tmp / "val"};
  co.sets = {"calibration=hub"};
  static std::FILE* null_out = std::fopen("/dev/null", "w");
  co.table = null_out;
  co.log = null_out;
  std::vector<RefCheck> checks;
  run_check(co, with_params, &checks);
  REQUIRE(checks.size() == 9);
  std::map<std::string, int> sets;
  for (auto& c : checks) ++sets[c.set];
  CHECK(sets["train"] == 3);
  CHECK(sets["validate"] == 6);
  const std::string table = format_table(checks);
  CHECK_THAT(table, Catch::Contains("train: 3 references, 3 passed") && Catch::Contains("no evidence of validity") &&
                        Catch::Contains("validate: 6 references, 6 passed (100% within tolerance)"));
  co.sets.clear();
  run_check(co, with_params, &checks);
  for (auto& c : checks) CHECK(c.set == "uncalibrated");
  CHECK(set_summaries(checks).empty());
}

TEST_CASE("check's per-set summary: signed and worst error, and the held-out target on the validation set", "[calibrate]") {
  auto ref_check = [](const char* set, double expected, double simulated, Verdict v) {
    RefCheck c;
    c.set = set;
    c.scenario = "s.toml";
    c.ref.metric = "m";
    c.ref.expected = expected;
    c.ref.tolerance = 0.10;
    c.simulated = simulated;
    c.verdict = v;
    return c;
  };
  // Validation: 4 of 5 within (80 %), errors +5, -5, +5, -5, +20 %: mean |error| 8 % -> met.
  std::vector<RefCheck> v{ref_check("validate", 100, 105, Verdict::Pass), ref_check("validate", 100, 95, Verdict::Pass),
                          ref_check("validate", 100, 105, Verdict::Pass), ref_check("validate", 100, 95, Verdict::Pass),
                          ref_check("validate", 100, 120, Verdict::KnownMiss), ref_check("train", 10, 10, Verdict::Pass)};
  std::string s = set_summaries(v);
  CHECK_THAT(s, Catch::Contains("validate: 5 references, 4 passed (80% within tolerance), mean |error| 8.0% (signed +4.0%, "
                                "worst +20.0% s.toml: m)") &&
                    Catch::Contains("held-out target (mean |error| <= 10%, >= 80% within tolerance): met") &&
                    Catch::Contains("train: 1 references, 1 passed (100% within tolerance)"));
  // One more miss: 4 of 6 within, mean |error| 10.0 % -> not met on the share.
  v.push_back(ref_check("validate", 100, 120, Verdict::KnownMiss));
  CHECK_THAT(set_summaries(v), Catch::Contains("4 passed (67% within tolerance)") && Catch::Contains("): not met"));
}

}  // namespace calibrate_test
