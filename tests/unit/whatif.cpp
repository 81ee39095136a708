// `nicsim explain --what-if` (cli/whatif.h): the knobs a scenario's schemas give, their alternatives,
// and the ranking of a what-if sweep, with a fake runner (no simulation).
#include "cli/whatif.h"
#include "core/params.h"
#include "tests/support/sweep_check.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace whatif_test {
using namespace nicsim;
using namespace nicsim::test;

using nlohmann::json;

namespace {

// Seed 000's 82546EB pair with e1000 5.0.43-k1, whose InterruptThrottleRate is a module parameter
// (4.4.12-k1 hardcodes it). Loaded only: the runner is a fake.
const char* kWhatifScenario = "scenarios/seed000/82546eb-pcix100-e1000-5.toml";

const Knob* find_knob(const std::vector<Knob>& ks, const std::string& name) {
  for (auto& k : ks)
    if (k.name == name) return &k;
  return nullptr;
}

std::vector<std::string> values(const Knob& k) {
  std::vector<std::string> v;
  for (auto& a : k.alts) v.push_back(a.value);
  return v;
}

/// Stands in for `nicsim run`: one_way_us.1B is 60, 30 with the interrupt throttle off on both NICs,
/// 59 with tcp_sack off, 61 with RxDescriptors changed; a run with the slot changed fails.
struct WhatIfRunner {
  std::atomic<int> calls{0};
  Runner runner() {
    return [this](const RunJob& j) -> RunOutcome {
      ++calls;
      double m = 60;
      size_t itr_off = 0;
      for (auto& s : j.sets) {
        if (s.find(".InterruptThrottleRate=0") != std::string::npos) ++itr_off;
        if (s.find("net.ipv4.tcp_sack=0") != std::string::npos) m = 59;
        if (s.find(".RxDescriptors=") != std::string::npos) m = 61;
        if (s.find(".slot=") != std::string::npos) return {1, "boom: no such slot in the fake"};
      }
      if (itr_off == 2) m = 30;  // only when the knob sets it on both ends of the cable
      json r = results_envelope(j.scenario.string(), j.seed.value_or(1), json::object());
      r["metrics"] = {{"one_way_us.1B", m}};
      write_json_atomic(j.out_dir / "result.json", r);
      return {0, ""};
    };
  }
};

/// What-if whatif_options on kWhatifScenario's one_way_us.1B, into TMP/wi, two jobs.
WhatIfOptions whatif_options(const TempDir& tmp) {
  WhatIfOptions o;
  o.scenario = kWhatifScenario;
  o.metric = "one_way_us.1B";
  o.out = tmp / "wi";
  o.jobs = 2;
  return o;
}

}  // namespace

TEST_CASE("what-if alternatives: the other boolean, listed values, half and double within range, not validated-only", "[whatif]") {
  CHECK(knob_alternatives(bool_param("b", true, "doc"), true) == std::vector<std::string>{"false"});
  CHECK(knob_alternatives(string_param("m", "a", {"a", "b", "c"}, "doc"), std::string("a")) ==
        std::vector<std::string>{"b", "c"});
  CHECK(knob_alternatives(int_param("x", 1, 0, 1, "0/1", "doc"), int64_t{1}) == std::vector<std::string>{"0"});
  CHECK(knob_alternatives(int_param("fc", 255, 0, 255, "0-3, 255", "doc"), int64_t{255}) ==
        std::vector<std::string>{"0", "1", "2", "3"});
  // Half, double and the range's ends, ascending; 2x beyond the maximum is left out.
  CHECK(knob_alternatives(int_param("itr", 8000, 0, 100000, "interrupts/s", "doc"), int64_t{8000}) ==
        std::vector<std::string>{"0", "4000", "16000", "100000"});
  CHECK(knob_alternatives(int_param("d", 40000, 100, 65535, "units", "doc"), int64_t{40000}) ==
        std::vector<std::string>{"100", "20000", "65535"});
  CHECK(knob_alternatives(int_param("reordering", 3, 3, 127, "segments", "doc"), int64_t{3}) ==
        std::vector<std::string>{"6", "127"});
  CHECK(knob_alternatives(int_param("z", 0, 0, 10, "units", "doc"), int64_t{0}) == std::vector<std::string>{"1", "10"});
  CHECK(knob_alternatives(real_param("r", 2.0, 1.0, 3.0, "ns", "doc"), 2.0) == std::vector<std::string>{"1", "3"});
  // Not knobs: validated-only parameters, bit masks, the model's own what-ifs.
  CHECK(knob_alternatives(int_param("Speed", 0, 0, 1000, "Mb/s", "forced speed; validated only"), int64_t{0}).empty());
  CHECK(knob_alternatives(int_param("AutoNeg", 0x2F, 1, 0x2F, "bit mask", "doc"), int64_t{0x2F}).empty());
  CHECK(knob_alternatives(int_param("prefetch", 1, 0, 1, "0/1", "what-if, not a module parameter of the real driver"),
                          int64_t{1})
            .empty());
}

TEST_CASE("what-if knobs of seed 000's 82546EB pair: driver parameters on both NICs, sysctls, placement, slot", "[whatif]") {
  const Scenario s = load_scenario(kWhatifScenario, {});
  const std::vector<Knob> ks = enumerate_knobs(s, {});
  const Knob* itr = find_knob(ks, "InterruptThrottleRate [e1000-5.0.43-k1]");
  REQUIRE(itr);
  CHECK(itr->kind == "driver parameter");
  CHECK(itr->keys == std::vector<std::string>{"hosts.alpha.nics.eth1.InterruptThrottleRate",
                                              "hosts.beta.nics.eth1.InterruptThrottleRate"});
  const std::vector<std::string> itr_values = values(*itr);
  CHECK(std::find(itr_values.begin(), itr_values.end(), "0") != itr_values.end());  // the throttle off
  CHECK(std::find(itr_values.begin(), itr_values.end(), itr->current) == itr_values.end());
  for (auto& a : itr->alts) CHECK(a.sets.size() == 2);
  const Knob* sack = find_knob(ks, "net.ipv4.tcp_sack");
  REQUIRE(sack);
  CHECK(sack->kind == "sysctl");
  CHECK(values(*sack) == std::vector<std::string>{"0"});
  CHECK(sack->keys.size() == 2);
  CHECK(find_knob(ks, "net.ipv4.tcp_reordering"));
  // Speed is a knob: a forced speed is resolved with the link partner at load, so 10 and 100 Mb/s run.
  const Knob* speed = find_knob(ks, "Speed [e1000-5.0.43-k1]");
  REQUIRE(speed);
  CHECK(values(*speed) == std::vector<std::string>{"10", "100", "1000"});
  // A short accepted set offers every member but the current one (FlowControl 255 = the EEPROM's).
  const Knob* fc = find_knob(ks, "FlowControl [e1000-5.0.43-k1]");
  REQUIRE(fc);
  CHECK(values(*fc) == std::vector<std::string>{"0", "1", "2", "3"});
  // Not a knob: AutoNeg (a bit mask).
  CHECK_FALSE(find_knob(ks, "AutoNeg [e1000-5.0.43-k1]"));
  // Every alternative loads (the enumeration dropped those that do not).
  for (auto& k : ks)
    for (auto& a : k.alts) {
      INFO(k.name << " = " << a.value);
      CHECK_NOTHROW(load_scenario(kWhatifScenario, a.sets));
    }
  // CPU placement on the two-CPU hosts: cpus_allowed 1 and 2 (CPU 0 only, CPU 1 only).
  if (const Knob* cpus = find_knob(ks, "alpha cpus_allowed")) {
    CHECK(cpus->kind == "CPU placement");
    CHECK(values(*cpus) == std::vector<std::string>{"1", "2"});
  }
}

TEST_CASE("what-if run: ranks the knobs by their effect, writes CSV, JSON and the tornado, resumes", "[whatif]") {
  TempDir tmp;
  WhatIfOptions o = whatif_options(tmp);
  o.format = "json";
  WhatIfRunner fake;
  CHECK(run_whatif(o, fake.runner()) == kExitOk);
  const int ran = fake.calls.load();
  CHECK(ran > 10);
  const json j = json::parse(read_text(tmp / "wi" / "whatif.json"));
  CHECK(j["base"] == 60.0);
  REQUIRE(j["ranking"].size() >= 3);
  CHECK(j["ranking"][0]["knob"] == "InterruptThrottleRate [e1000-5.0.43-k1]");
  CHECK(j["ranking"][0]["best"] == "0");
  CHECK(j["ranking"][0]["effect"] == -30.0);
  // RxDescriptors (+1) ties with tcp_sack (-1): a tie keeps the enumeration's order, drivers first.
  CHECK(j["ranking"][1]["knob"] == "RxDescriptors [e1000-5.0.43-k1]");
  CHECK(j["ranking"][1]["effect"] == 1.0);
  CHECK(j["ranking"][2]["knob"] == "net.ipv4.tcp_sack");
  CHECK(j["ranking"][2]["effect"] == -1.0);
  // Knobs whose every alternative failed (the slot) rank last, with their runs marked failed.
  const json& last = j["ranking"].back();
  if (last["knob"].get<std::string>().find(" slot") != std::string::npos) {
    CHECK(last["best"].is_null());
    CHECK(last["alternatives"][0]["status"] == "failed");
  }
  const std::string csv = read_text(tmp / "wi" / "whatif.csv");
  CHECK(csv.rfind("rank,knob,kind,current,value,metric,delta,delta_pct,status,keys\n", 0) == 0);
  CHECK(csv.find("1,InterruptThrottleRate [e1000-5.0.43-k1],driver parameter,") != std::string::npos);
  // Point directories name the knob and the value.
  CHECK(fs::is_regular_file(tmp / "wi" / j["ranking"][0]["alternatives"][0]["result"].get<std::string>()));
  CHECK(j["ranking"][0]["alternatives"][0]["result"].get<std::string>().rfind("points/InterruptThrottleRate__e1000-5_0_43-k1_=0--", 0) == 0);
  const std::string svg = read_text(tmp / "wi" / "tornado.svg");
  CHECK(svg.find("data-series=\"InterruptThrottleRate [e1000-5.0.43-k1]\"") != std::string::npos);

  // Resumable: a second what-if in the same directory runs nothing and ranks the same.
  WhatIfRunner again;
  CHECK(run_whatif(o, again.runner()) == kExitOk);
  CHECK(again.calls == 0);
  CHECK(json::parse(read_text(tmp / "wi" / "whatif.json")) == j);

  // Another scenario's what-if in that directory is refused (usage).
  WhatIfOptions other = o;
  other.scenario = "tests/report/tiny/82544gc-pci66.toml";
  WhatIfRunner none;
  CHECK(run_whatif(other, none.runner()) == kExitUsage);
  CHECK(none.calls == 0);
}

TEST_CASE("what-if run: a metric the base run does not have is a usage error naming it, before the alternatives run", "[whatif]") {
  TempDir tmp;
  WhatIfOptions o = whatif_options(tmp);
  o.metric = "one_way_us.7B";
  o.log = std::tmpfile();
  WhatIfRunner fake;
  CHECK(run_whatif(o, fake.runner()) == kExitUsage);
  CHECK(fake.calls == 1);  // the base run only: the alternatives are not run for a metric it lacks
  std::rewind(o.log);
  char buf[4096] = {};
  const size_t n = std::fread(buf, 1, sizeof buf - 1, o.log);
  std::fclose(o.log);
  const std::string log(buf, n);
  CHECK(log.find("metric 'one_way_us.7B' is not in the run's result.json") != std::string::npos);
  CHECK(log.find("did you mean 'one_way_us.1B'?") != std::string::npos);
}

TEST_CASE("what-if run: --knob keeps the matching knobs, and a later what-if in the same directory reuses their points", "[whatif]") {
  TempDir tmp;
  WhatIfOptions o = whatif_options(tmp);
  o.format = "json";
  o.knobs = {"sysctl", "InterruptThrottleRate"};
  WhatIfRunner fake;
  CHECK(run_whatif(o, fake.runner()) == kExitOk);
  const json j = json::parse(read_text(tmp / "wi" / "whatif.json"));
  REQUIRE(j["ranking"].size() == 6);  // InterruptThrottleRate and the five TCP sysctls
  CHECK(j["ranking"][0]["knob"] == "InterruptThrottleRate [e1000-5.0.43-k1]");
  for (size_t i = 1; i < j["ranking"].size(); ++i) CHECK(j["ranking"][i]["kind"] == "sysctl");
  const int first = fake.calls.load();
  // Every knob now: the base and the sysctl and throttle points are not run again.
  o.knobs.clear();
  WhatIfRunner all;
  CHECK(run_whatif(o, all.runner()) == kExitOk);
  const json k = json::parse(read_text(tmp / "wi" / "whatif.json"));
  size_t alts = 0;
  for (auto& r : k["ranking"]) alts += r["alternatives"].size();
  CHECK(all.calls == int(alts + 1) - first);
  // A filter that matches nothing is a usage error, before anything runs.
  o.knobs = {"no such knob"};
  WhatIfRunner none;
  o.log = std::tmpfile();
  CHECK(run_whatif(o, none.runner()) == kExitUsage);
  std::fclose(o.log);
  CHECK(none.calls == 0);
}

}  // namespace whatif_test
