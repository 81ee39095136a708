// `nicsim report`'s page (cli/report.h) and its charts (cli/svg_plot.h), built from hand-made results:
// no simulation runs here (tests/report/browser_test.sh renders a real report in Chromium).
#include "cli/report.h"
#include "cli/svg_plot.h"
#include "tests/support/sweep_check.h"
#include <catch2/catch.hpp>
#include <regex>

// This file's own names, apart from the other files of a unity batch.
namespace report_page_test {
using namespace nicsim;

using nlohmann::json;

namespace {

size_t count_in_page(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

Reference ref(const std::string& metric, double expected, double tol) {
  Reference r;
  r.metric = metric;
  r.expected = expected;
  r.tolerance = tol;
  r.source = "test <source> & co";
  return r;
}

RefCheck check(const std::string& scenario, const Reference& r, std::optional<double> sim, Verdict v) {
  RefCheck c;
  c.ref = r;
  c.scenario = scenario;
  c.simulated = sim;
  c.verdict = v;
  if (v == Verdict::Fail) c.message = "simulated far off";
  return c;
}

/// A result.json as `nicsim run` writes one, reduced to what the page reads.
json result(const std::string& device, double scale) {
  json r;
  r["params"] = {{"name", "test-" + device},
                 {"description", "two <hosts> & a cable"},
                 {"hosts",
                  {{"alpha",
                    {{"platform", "supermicro-p4dpr-6gm+"},
                     {"params", {{"cpus", 2}, {"cpu_mhz", 2000}}},
                     {"nics",
                      {{"eth1",
                        {{"device", device},
                         {"slot", "pcix"},
                         {"driver", "e1000-4.4.12-k1"},
                         {"driver_params", {{"InterruptThrottleRate", 8000}}}}}}}}}}},
                 {"workload", {{"type", "netpipe"}, {"params", {{"upper", 1024}}}}}};
  json m = json::object();
  for (int s : {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}) m[fmt::format("one_way_us.{}B", s)] = scale * (30 + s / 50.0);
  m["max_mbps"] = 400 * scale;
  r["metrics"] = m;
  return r;
}

ReportPage page() {
  ReportPage p;
  p.generated = "generated 2026-12-06 20:00:00 UTC by nicsim test";
  ReportGroup g;
  g.dir = "scenarios/seedX";
  for (auto [name, device, scale] : {std::tuple{"a.toml", "82544GC", 1.0}, std::tuple{"b.toml", "82546EB", 2.0}}) {
    ReportScenario s;
    s.scenario = std::string("scenarios/seedX/") + name;
    s.result = result(device, scale);
    s.checks.push_back(check(s.scenario.string(), ref("one_way_us.1B", 30 * scale, 0.1), 30 * scale, Verdict::Pass));
    s.checks.push_back(check(s.scenario.string(), ref("one_way_us.1024B", 50 * scale, 0.1), 51 * scale, Verdict::Pass));
    Reference miss = ref("max_mbps", 900, 0.1);
    miss.known_miss = "the model's bus is slower: stated reason";
    s.checks.push_back(check(s.scenario.string(), miss, 400 * scale, Verdict::KnownMiss));
    s.fidelity = "none";
    s.fidelity_text = "no baseline";
    g.scenarios.push_back(s);
  }
  g.scenarios[1].checks.push_back(check("scenarios/seedX/b.toml", ref("one_way_us.64B", 10, 0.1), 62.6, Verdict::Fail));
  p.groups.push_back(g);
  return p;
}

}  // namespace

TEST_CASE("report page: summary, one section per directory with its four parts, verdicts, no script", "[report]") {
  const std::string h = report_html(page());
  CHECK(h.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(count_in_page(h, "<section id=\"summary\">") == 1);
  CHECK(count_in_page(h, "<section class=\"seed\" id=\"seed-scenarios-seedx\">") == 1);
  for (const char* part : {"hardware", "references", "plots", "gaps"})
    CHECK(count_in_page(h, fmt::format("<div class=\"{}\">", part)) == 1);
  // Summary row: 7 references, 4 pass, 2 known misses, 1 fail.
  CHECK(h.find("In all: 4 references pass, 2 are known misses, 1 fail, 0 could not be checked") != std::string::npos);
  CHECK(count_in_page(h, "<tr class=\"pass\">") == 4);
  CHECK(count_in_page(h, "<tr class=\"miss\">") == 2);
  CHECK(count_in_page(h, "<tr class=\"fail\">") == 1);
  CHECK(h.find("known miss: the model&apos;s bus is slower") != std::string::npos);
  CHECK(h.find("simulated far off") != std::string::npos);  // a FAIL shows why
  // Hardware from the result: platform, NIC, slot, driver and its parameters.
  CHECK(h.find("supermicro-p4dpr-6gm+") != std::string::npos);
  CHECK(h.find("eth1 82546EB (pcix)") != std::string::npos);
  CHECK(h.find("InterruptThrottleRate=8000") != std::string::npos);
  // Text from files is escaped; the page needs no script and loads nothing.
  CHECK(h.find("two &lt;hosts&gt; &amp; a cable") != std::string::npos);
  CHECK(h.find("<hosts>") == std::string::npos);
  CHECK(h.find("<script") == std::string::npos);
  CHECK(h.find("src=") == std::string::npos);
  CHECK(h.find("href=\"http") == std::string::npos);
  // Same page, same bytes.
  CHECK(report_html(page()) == h);
}

TEST_CASE("report page: a sized metric family is a log-size plot with reference points and the model's line", "[report]") {
  const std::string h = report_html(page());
  CHECK(h.find("seedX: one_way_us against message size") != std::string::npos);
  CHECK(h.find("message size (bytes, log scale)") != std::string::npos);
  CHECK(h.find("one_way_us (µs)") != std::string::npos);  // the unit on the y axis
  CHECK(count_in_page(h, "data-kind=\"reference\"") >= 2);
  CHECK(count_in_page(h, "data-kind=\"model\"") >= 2);
  CHECK(count_in_page(h, "<polyline") >= 2);  // a line per scenario
  // max_mbps is a plain metric: a bar chart in Mb/s.
  CHECK(h.find("reference and model (Mb/s)") != std::string::npos);
  // Both scenarios run NetPIPE with the same referenced metrics... but b has one more: no gap pair.
  CHECK(h.find("no two scenarios here answer the same question") != std::string::npos);
}

TEST_CASE("report page: scenarios that answer the same question get an explain gap table", "[report]") {
  ReportPage p = page();
  p.groups[0].scenarios[1].checks.pop_back();  // now a and b reference the same metrics
  for (auto* s : {&p.groups[0].scenarios[0], &p.groups[0].scenarios[1]}) {
    const double w = s == &p.groups[0].scenarios[0] ? 10 : 14;
    s->result["explain"] = {{"journeys", 20},
                            {"mean_total_us", w + 5},
                            {"stages", json::array({{{"stage", "wire"}, {"cause", ""}, {"mean_us", 5.0}, {"count", 20}},
                                                    {{"stage", "moderation wait"}, {"cause", "ITR"}, {"mean_us", w}, {"count", 20}}})}};
  }
  const std::string h = report_html(p);
  INFO(h.substr(h.find("<div class=\"gaps\">"), 1500));
  CHECK(h.find("<h4>a (A) vs b (B)</h4>") != std::string::npos);
  CHECK(h.find("<table class=\"gap\">") != std::string::npos);
}

TEST_CASE("report page: fidelity guard state of a scenario outside scenarios/ is 'none', of a failed run 'skipped'", "[report]") {
  ReportScenario s;
  s.scenario = "tests/report/tiny/82546eb-pcix100.toml";
  s.result = result("82546EB", 1);
  s.result["params"]["overrides"] = json::array();
  fidelity_state(s);
  CHECK(s.fidelity == "none");
  ReportScenario f;
  f.scenario = "scenarios/seed000/82546eb-pcix100.toml";
  fidelity_state(f);
  CHECK(f.fidelity == "skipped");
}

TEST_CASE("svg line plot: log x axis in decades, points at x <= 0 left out, same input same bytes", "[report]") {
  LinePlot p;
  p.id = "t";
  p.title = "a < b";
  p.x_label = "message size (bytes, log scale)";
  p.y_label = "one-way (µs)";
  PlotSeries ref{"ref", true, 0, {{1, 30, 27, 33}, {1000, 60, 54, 66}, {0, 50, {}, {}}}};
  PlotSeries model{"model", false, 0, {{1000, 58, {}, {}}, {1, 31, {}, {}}, {100, 40, {}, {}}}};
  p.series = {ref, model};
  const std::string s = svg_line_plot(p);
  CHECK(s == svg_line_plot(p));
  CHECK(s.find("aria-label=\"a &lt; b\"") != std::string::npos);
  CHECK(count_in_page(s, "<rect class=\"band\"") == 2);                 // the x = 0 point is not drawable on a log axis
  CHECK(count_in_page(s, "r=\"4\" fill=\"#ffffff\"") == 2 + 1);         // two reference points + the legend's mark
  CHECK(count_in_page(s, "<polyline") == 1);
  // Decade ticks 1, 10, 100, 1000 on the x axis.
  for (const char* t : {">1<", ">10<", ">100<", ">1000<"}) CHECK(s.find(t) != std::string::npos);
  // The model's line goes left to right (sorted by size) however the points came.
  std::smatch m;
  REQUIRE(std::regex_search(s, m, std::regex("<polyline points=\"([0-9.]+),[0-9.]+ ([0-9.]+),[0-9.]+ ([0-9.]+),")));
  CHECK(std::stod(m[1]) < std::stod(m[2]));
  CHECK(std::stod(m[2]) < std::stod(m[3]));
}

TEST_CASE("svg tornado: one row per knob in the given order, a bar per alternative from the base", "[report]") {
  TornadoChart c;
  c.id = "tornado";
  c.title = "what if";
  c.x_label = "one_way_us.1B";
  c.base = 60;
  c.rows = {{"InterruptThrottleRate", {{"0", 30}, {"16000", 55}}}, {"tcp_reordering", {{"6", 61}}}};
  const std::string s = svg_tornado(c);
  CHECK(count_in_page(s, "data-kind=\"bar\"") == 2);
  CHECK(s.find("InterruptThrottleRate") < s.find("tcp_reordering"));
  CHECK(count_in_page(s, "fill-opacity=\"0.8\"") == 3);
  CHECK(count_in_page(s, "<line class=\"base\"") == 1);
  CHECK(s == svg_tornado(c));
}

}  // namespace report_page_test
