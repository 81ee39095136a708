// Pure sweep logic: --vary parsing, ranges, product order, point ids, shards, jobs, summaries, plots.
#include "cli/executor.h"
#include "cli/sweep_plan.h"
#include "cli/sweep_plot.h"
#include <catch2/catch.hpp>
#include <set>

// This file's own names, apart from the other files of a unity batch.
namespace sweep_plan_test {
using namespace nicsim;

using V = std::vector<std::string>;

TEST_CASE("sweep: integer ranges include STOP and follow the step sign", "[sweep]") {
  CHECK(parse_range("0:20000:5000") == V{"0", "5000", "10000", "15000", "20000"});
  CHECK(parse_range("0:10:3") == V{"0", "3", "6", "9"});  // 12 would pass STOP
  CHECK(parse_range("10:0:-5") == V{"10", "5", "0"});
  CHECK(parse_range("7:7:1") == V{"7"});
  CHECK(parse_range(" -4 : 4 : 4 ") == V{"-4", "0", "4"});
}

TEST_CASE("sweep: decimal ranges print the decimals written, without float noise", "[sweep]") {
  // 0.3/0.1 is 2.9999999999999996 in binary: STOP must still be included.
  CHECK(parse_range("0:0.3:0.1") == V{"0.0", "0.1", "0.2", "0.3"});
  CHECK(parse_range("1:2:0.25") == V{"1.00", "1.25", "1.50", "1.75", "2.00"});
  CHECK(parse_range("-0.2:0.2:0.1") == V{"-0.2", "-0.1", "0.0", "0.1", "0.2"});
  CHECK(parse_range("1e-3:3e-3:1e-3") == V{"0.001", "0.002", "0.003"});
  CHECK(parse_range("2.5:1.5:-0.5") == V{"2.5", "2.0", "1.5"});
}

TEST_CASE("sweep: --vary lists mix values and ranges", "[sweep]") {
  Axis a = parse_vary(" hosts.*.nics.eth1.InterruptThrottleRate = 0, 4000:12000:4000 ,20000");
  CHECK(a.key == "hosts.*.nics.eth1.InterruptThrottleRate");
  CHECK(a.values == V{"0", "4000", "8000", "12000", "20000"});
  CHECK(parse_vary("workload.type=netpipe,netperf").values == V{"netpipe", "netperf"});
  CHECK(parse_vary("a.link=alpha.eth1:1").values == V{"alpha.eth1:1"});  // one colon, not numeric: a value
  CHECK(parse_vary("seed=1:4:1").values == V{"1", "2", "3", "4"});
}

TEST_CASE("sweep: bad --vary and --shard syntax is rejected with a message naming the problem", "[sweep]") {
  auto msg = [](const char* spec) {
    try {
      parse_vary(spec);
    } catch (const SweepUsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(msg("x"), Catch::Contains("KEY=LIST"));
  CHECK_THAT(msg("=1,2"), Catch::Contains("key before '=' is empty"));
  CHECK_THAT(msg("x="), Catch::Contains("no values"));
  CHECK_THAT(msg("x=1,,2"), Catch::Contains("empty value"));
  CHECK_THAT(msg("x=0:10"), Catch::Contains("START:STOP:STEP"));
  CHECK_THAT(msg("x=0:10:0"), Catch::Contains("STEP must not be 0"));
  CHECK_THAT(msg("x=0:10:-1"), Catch::Contains("use a positive step"));
  CHECK_THAT(msg("x=10:0:1"), Catch::Contains("use a negative step"));
  CHECK_THAT(msg("x=a:b:c"), Catch::Contains("must be numbers"));
  CHECK_THAT(msg("x=0:1e9:1"), Catch::Contains("limit"));
  CHECK_THAT(msg("x=1,2,1"), Catch::Contains("appears twice"));
  CHECK_THAT(msg("x=0:4:2,2"), Catch::Contains("appears twice"));
  CHECK_THAT(msg("seed=1.5"), Catch::Contains("not a seed (an integer from 0 to 18446744073709551615)"));
  CHECK_THAT(msg("seed=-1"), Catch::Contains("not a seed (an integer from 0 to 18446744073709551615)"));

  CHECK(parse_shard("3/16").index == 3);
  CHECK(parse_shard("3/16").count == 16);
  for (const char* bad : {"16/16", "1/0", "a/2", "1", "-1/2", "1/2/3", "/2", "1/"})
    CHECK_THROWS_AS(parse_shard(bad), SweepUsageError);
}

TEST_CASE("sweep: the product has the right size and nested-loop order", "[sweep]") {
  std::vector<Axis> axes = {{"a", {"1", "2", "3"}}, {"b", {"x", "y"}}, {"c", {"0.5", "1.5"}}};
  auto pts = cartesian(axes);
  REQUIRE(pts.size() == 3 * 2 * 2);
  std::set<std::string> ids;
  for (size_t i = 0; i < pts.size(); ++i) {
    CHECK(pts[i].index == i);
    // First axis slowest, last fastest: index = a*4 + b*2 + c.
    CHECK(pts[i].values == V{axes[0].values[i / 4], axes[1].values[(i / 2) % 2], axes[2].values[i % 2]});
    ids.insert(pts[i].id);
  }
  CHECK(ids.size() == pts.size());
  auto one = cartesian({});
  REQUIRE(one.size() == 1);
  CHECK(one[0].id == "base");
  CHECK_THROWS_AS(cartesian({{"a", {"1"}}, {"a", {"2"}}}), SweepUsageError);
  std::vector<Axis> huge(4, Axis{"k", V(100, "v")});
  for (size_t i = 0; i < huge.size(); ++i) huge[i].key += std::to_string(i);
  CHECK_THROWS_AS(cartesian(huge), SweepUsageError);  // 1e8 points
}

TEST_CASE("sweep: point ids depend only on the values, not on flag order or other points", "[sweep]") {
  std::vector<Axis> ab = {{"hosts.*.nics.eth1.InterruptThrottleRate", {"0", "8000"}}, {"seed", {"1", "2"}}};
  std::vector<Axis> ba = {{"seed", {"1", "2"}}, {"hosts.*.nics.eth1.InterruptThrottleRate", {"0", "8000"}}};
  std::string id = point_id(ab, {"8000", "2"});
  CHECK(id == point_id(ba, {"2", "8000"}));
  CHECK(id.rfind("InterruptThrottleRate=8000--seed=2--", 0) == 0);
  std::vector<Axis> longer = {{"hosts.*.nics.eth1.InterruptThrottleRate", {"0", "4000", "8000"}}, {"seed", {"1", "2", "3"}}};
  CHECK(point_id(longer, {"8000", "2"}) == id);
  CHECK(point_id(ab, {"8000", "1"}) != id);
  // Same last segment on two keys: still distinct ids.
  std::vector<Axis> twins = {{"hosts.alpha.cpu_mhz", {"1"}}, {"hosts.beta.cpu_mhz", {"1"}}};
  CHECK(point_id(twins, {"1", "2"}) != point_id(twins, {"2", "1"}));
  for (char c : point_id({{"k", {}}}, {"\"a b/c\""}))
    CHECK((std::isalnum(static_cast<unsigned char>(c)) || std::string("._=+-").find(c) != std::string::npos));
}

TEST_CASE("sweep: shards are disjoint, complete and balanced", "[sweep]") {
  auto pts = cartesian({{"a", parse_range("0:22:1")}});  // 23 points
  REQUIRE(pts.size() == 23);
  for (unsigned n = 1; n <= 7; ++n) {
    std::multiset<size_t> seen;
    size_t lo = SIZE_MAX, hi = 0;
    for (unsigned i = 0; i < n; ++i) {
      auto s = shard_points(pts, {i, n});
      lo = std::min(lo, s.size());
      hi = std::max(hi, s.size());
      for (auto& p : s) seen.insert(p.index);
    }
    CHECK(seen.size() == pts.size());                      // complete...
    CHECK(std::set<size_t>(seen.begin(), seen.end()).size() == pts.size());  // ...and disjoint
    CHECK(hi - lo <= 1);
  }
}

TEST_CASE("sweep: a point's job sets the varied keys and maps seed to --seed", "[sweep]") {
  SweepPlan plan;
  plan.scenario = "/s/x.toml";
  plan.sets = {"workload.upper=24"};
  plan.axes = {{"hosts.*.nics.eth1.InterruptThrottleRate", {"8000"}}, {"seed", {"3"}}};
  auto p = cartesian(plan.axes).at(0);
  RunJob j = job_for(plan, p, "/d");
  CHECK(j.sets == V{"workload.upper=24", "hosts.*.nics.eth1.InterruptThrottleRate=8000"});
  REQUIRE(j.seed);
  CHECK(*j.seed == 3);
  CHECK(j.out_dir == std::filesystem::path("/d/points") / p.id);
  CHECK(run_arguments(j) == V{"run", "/s/x.toml", "--out", j.out_dir.string(), "--seed", "3", "--set",
                              "workload.upper=24", "--set", "hosts.*.nics.eth1.InterruptThrottleRate=8000"});
}

TEST_CASE("sweep: CSV and JSON summaries list every point with status and metrics", "[sweep]") {
  SweepPlan plan;
  plan.scenario = "/s/x.toml";
  plan.axes = {{"x", {"1", "2"}}, {"label", {"a,b"}}};
  plan.metrics = {"y", "m"};
  std::vector<PointRow> rows;
  for (auto& p : cartesian(plan.axes)) rows.push_back({p, "missing", {std::nullopt, std::nullopt}, {}, "", {}});
  rows[0].status = "ok";
  rows[0].metrics = {2.5, std::nullopt};
  rows[1].status = "failed";
  rows[1].exit_code = 1;
  rows[1].error = "boom";
  std::string csv = summary_csv(plan, rows);
  CHECK(csv.rfind("index,id,x,label,status,y,m\n", 0) == 0);
  CHECK(csv.find("0," + rows[0].point.id + ",1,\"a,b\",ok,2.5,\n") != std::string::npos);
  CHECK(csv.find("1," + rows[1].point.id + ",2,\"a,b\",failed,,\n") != std::string::npos);
  auto j = summary_json(plan, rows);
  CHECK(j["counts"]["ok"] == 1);
  CHECK(j["counts"]["failed"] == 1);
  CHECK(j["counts"]["missing"] == 0);
  CHECK(j["points"][0]["values"]["x"] == 1);  // typed: an integer, not "1"
  CHECK(j["points"][0]["values"]["label"] == "a,b");
  CHECK(j["points"][0]["metrics"]["y"] == 2.5);
  CHECK(j["points"][0]["metrics"]["m"].is_null());
  CHECK(j["points"][1]["exit_code"] == 1);
  CHECK(j["points"][1]["error"] == "boom");
  CHECK(value_json("2.5") == 2.5);
  CHECK(value_json("true") == true);
  CHECK(value_json("\"q\"") == "q");
}

TEST_CASE("sweep: gnuplot script has one line per combination of the other keys", "[sweep]") {
  SweepPlan plan;
  plan.axes = {{"hosts.*.nics.eth1.InterruptThrottleRate", {"0", "8000", "16000"}}, {"seed", {"1", "2"}}};
  plan.metrics = {"one_way_us.1B", "absent"};
  std::vector<PointRow> rows;
  for (auto& p : cartesian(plan.axes)) {
    PointRow r{p, "ok", {std::stod(p.values[0]) / 100 + std::stod(p.values[1]), std::nullopt}, {}, "", {}};
    rows.push_back(r);
  }
  rows[5].status = "failed";  // ITR=16000, seed=2: left out of the plot
  auto s = gnuplot_script(plan, rows, 0, "out.svg");
  REQUIRE(s);
  CHECK(s->find("set terminal svg") != std::string::npos);
  CHECK(s->find("noenhanced") != std::string::npos);  // '_' in metric names is not a subscript
  CHECK(s->find("set output \"out.svg\"") != std::string::npos);
  CHECK(s->find("$s0 << EOD\n0 1\n8000 81\n16000 161\nEOD") != std::string::npos);
  CHECK(s->find("$s1 << EOD\n0 2\n8000 82\nEOD") != std::string::npos);
  CHECK(s->find("title \"seed=1\"") != std::string::npos);
  CHECK(s->find("title \"seed=2\"") != std::string::npos);
  CHECK_FALSE(gnuplot_script(plan, rows, 1, "out.svg"));  // no point has "absent"

  plan.axes = {{"workload.type", {"netpipe", "netperf"}}};
  plan.metrics = {"m"};
  rows.clear();
  for (auto& p : cartesian(plan.axes)) rows.push_back({p, "ok", {double(p.index + 1)}, {}, "", {}});
  auto t = gnuplot_script(plan, rows, 0, "o.svg");
  REQUIRE(t);
  CHECK(t->find("xticlabels(2)") != std::string::npos);
  CHECK(t->find("0 \"netpipe\" 1\n1 \"netperf\" 2\n") != std::string::npos);
  CHECK(t->find("notitle") != std::string::npos);
  CHECK(metric_file_stem("one_way_us.1B") == "one_way_us.1B");
  CHECK(metric_file_stem("a/b c") == "a_b_c");
}

TEST_CASE("sweep: tails and durations for messages", "[sweep]") {
  CHECK(tail_of("a\nb\nc\n", 2) == "b\nc");
  CHECK(tail_of("only", 5) == "only");
  CHECK(tail_of("", 5) == "");
  CHECK(tail_of("0123456789", 5, 4) == "...6789");
  CHECK(format_duration(42) == "42s");
  CHECK(format_duration(187) == "3m07s");
  CHECK(format_duration(7500) == "2h05m");
}

}  // namespace sweep_plan_test
