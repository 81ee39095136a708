#include "cli/report.h"
#include "cli/fidelity_option.h"
#include "platforms/calibration_fit.h"
#include "cli/progress.h"
#include "cli/svg_plot.h"
#include "cli/verbs.h"
#include "core/breakdown.h"
#include "core/fidelity_compare.h"
#include "core/results.h"
#include "core/transfer_report.h"
#include "platforms/testbed.h"
#include <boost/program_options.hpp>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <thread>

namespace nicsim {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string esc(const std::string& s) { return xml_escape(s); }

/// "one_way_us.24B" -> ("one_way_us", 24); nullopt for a name without a size suffix.
std::optional<std::pair<std::string, double>> sized_metric(const std::string& name) {
  static const std::regex re(R"(^(.+)\.([0-9]+)B$)");
  std::smatch m;
  if (!std::regex_match(name, m, re)) return std::nullopt;
  return std::pair{m[1].str(), std::stod(m[2].str())};
}

/// The unit a metric's name ends in, for axis titles: "_us" µs, "_ms" ms, "_s" s, "mbps" Mb/s,
/// "_pct" %, "kpps" kpps, "pps" packets/s, "" when the name says none.
std::string unit_of(const std::string& family) {
  auto ends = [&](const std::string& suf) {
    return family.size() >= suf.size() && family.compare(family.size() - suf.size(), suf.size(), suf) == 0;
  };
  std::string f = family;
  for (auto& c : f) c = char(std::tolower(static_cast<unsigned char>(c)));
  auto fends = [&](const std::string& suf) { return f.size() >= suf.size() && f.compare(f.size() - suf.size(), suf.size(), suf) == 0; };
  (void)ends;
  if (fends("_us")) return "µs";
  if (fends("_ns")) return "ns";
  if (fends("_ms")) return "ms";
  if (fends("mbps")) return "Mb/s";
  if (fends("_pct")) return "%";
  if (fends("kpps")) return "kpps";
  if (fends("pps")) return "packets/s";
  if (fends("_s")) return "s";
  return "";
}

std::string with_unit(const std::string& name, const std::string& unit) {
  return unit.empty() ? name : fmt::format("{} ({})", name, unit);
}

std::string report_num(double v) {
  if (v != 0 && (std::fabs(v) >= 1e6 || std::fabs(v) < 1e-3)) return fmt::format("{:.4g}", v);
  return fmt::format("{:.4g}", v);
}

/// The reference's band and the point drawn for it (a range's middle).
PlotPoint ref_point(const Reference& r, double x) {
  PlotPoint p;
  p.x = x;
  if (r.range) {
    p.lo = r.range->first;
    p.hi = r.range->second;
    p.y = (r.range->first + r.range->second) / 2;
  } else if (r.expected) {
    p.y = *r.expected;
    const double tol = r.tolerance ? *r.tolerance * std::fabs(*r.expected) : r.tolerance_abs.value_or(0);
    p.lo = p.y - tol;
    p.hi = p.y + tol;
  }
  return p;
}

std::string stem_of(const fs::path& p) { return p.stem().string(); }

std::string id_of(const std::string& s) {
  std::string r;
  for (char c : s) r += std::isalnum(static_cast<unsigned char>(c)) ? char(std::tolower(static_cast<unsigned char>(c))) : '-';
  return r;
}

const char* verdict_class(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "pass";
    case Verdict::KnownMiss: return "miss";
    case Verdict::Fail: return "fail";
    case Verdict::Error: return "error";
  }
  return "error";
}

struct Counts {
  size_t pass = 0, miss = 0, fail = 0, error = 0;
  void add(Verdict v) {
    if (v == Verdict::Pass) ++pass;
    else if (v == Verdict::KnownMiss) ++miss;
    else if (v == Verdict::Fail) ++fail;
    else ++error;
  }
};

// --- hardware --------------------------------------------------------------------------------

/// "k=v, k=v" of a JSON object's members.
std::string key_values(const json& o) {
  std::string r;
  if (o.is_object())
    for (auto& [k, v] : o.items()) r += (r.empty() ? "" : ", ") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  return r;
}

/// The group's scenarios: one row each (name, file, description, workload, fidelity guard).
std::string scenarios_table(const ReportGroup& g) {
  std::string h =
      "<table class=\"scenarios\"><thead><tr><th>scenario</th><th>what it is</th><th>workload</th>"
      "<th>fidelity guard</th></tr></thead><tbody>\n";
  for (auto& s : g.scenarios) {
    std::string desc, name = stem_of(s.scenario), wl = "-";
    if (s.result.is_object()) {
      const json& params = s.result["params"];
      desc = params.value("description", "");
      if (!params.value("name", "").empty()) name = params.value("name", "");
      const json w = params.value("workload", json::object());
      wl = "<b>" + esc(w.value("type", "")) + "</b> <span class=\"small\">" + esc(key_values(w.value("params", json::object()))) +
           "</span>";
    }
    h += fmt::format("<tr id=\"scn-{}\"><td>{}<br><span class=\"small\">{}</span></td><td>{}</td><td>{}</td>"
                     "<td class=\"{} small\">{}</td></tr>\n",
                     id_of(s.scenario.string()), esc(name), esc(s.scenario.string()),
                     desc.empty() ? "<span class=\"note\">(the run failed)</span>" : esc(desc), wl, esc(s.fidelity),
                     esc(s.fidelity_text));
  }
  return h + "</tbody></table>\n";
}

/// The group's hardware: one row per NIC of every host of every scenario (platform, CPUs, kernel
/// profile, NIC and slot, driver and its parameters).
std::string hardware_table(const ReportGroup& g) {
  std::string h =
      "<table class=\"hw\"><thead><tr><th>scenario</th><th>host</th><th>platform</th><th>CPUs</th>"
      "<th>kernel profile</th><th>NIC (slot)</th><th>driver</th><th>driver parameters</th></tr></thead><tbody>\n";
  for (auto& s : g.scenarios) {
    if (!s.result.is_object() || !s.result.contains("params")) continue;
    const json hosts = s.result["params"].value("hosts", json::object());  // a local: items() of a temporary dangles
    const json hw = s.result.value("hardware", json::object());
    for (auto& [host, hc] : hosts.items()) {
      const json hp = hc.value("params", json::object());
      const json hh = hw.value(host, json::object());
      std::string cpus = "-";
      if (hp.contains("cpus") || hp.contains("cpu_mhz"))
        cpus = fmt::format("{} × {} MHz{}", hp.value("cpus", json(1)).dump(), hp.value("cpu_mhz", json("?")).dump(),
                           hh.contains("cpu_profile") ? " (" + hh["cpu_profile"].get<std::string>() + ")" : "");
      const std::string kernel = hh.contains("kernel_profile") ? hh["kernel_profile"].get<std::string>() : "-";
      const std::string head = fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>",
                                           esc(stem_of(s.scenario)), esc(host), esc(hc.value("platform", "")),
                                           esc(cpus), esc(kernel));
      const json nics = hc.value("nics", json::object());
      if (nics.empty()) h += head + "<td>-</td><td>-</td><td></td></tr>\n";
      for (auto& [nic, nc] : nics.items())
        h += head + fmt::format("<td>{} {} ({})</td><td>{}</td><td class=\"small\">{}</td></tr>\n", esc(nic),
                                esc(nc.value("device", "")), esc(nc.value("slot", "")), esc(nc.value("driver", "")),
                                esc(key_values(nc.value("driver_params", json::object()))));
    }
  }
  return h + "</tbody></table>\n";
}

/// The topology of every platform the group's hosts use (`nicsim describe`), once each.
std::string platform_trees(const ReportGroup& g) {
  std::set<std::string> names;
  for (auto& s : g.scenarios)
    if (s.result.is_object()) {
      const json hosts = s.result["params"].value("hosts", json::object());
      for (auto& [host, hc] : hosts.items()) names.insert(hc.value("platform", ""));
    }
  std::string h;
  for (auto& n : names) {
    const PlatformEntry* p = Registry<PlatformEntry>::instance().find(n);
    if (!p) continue;
    std::string tree = p->describe ? p->describe(ParamValues(p->params)) : p->summary;
    h += fmt::format("<details class=\"describe\"><summary>platform {} (nicsim describe {})</summary><pre>{}</pre></details>\n",
                     esc(n), esc(n), esc(tree));
  }
  return h;
}

// --- references ------------------------------------------------------------------------------

std::string refs_table(const ReportGroup& g) {
  std::string h =
      "<table class=\"refs\"><thead><tr><th>set</th><th>scenario</th><th>metric</th><th>reference</th><th>model</th>"
      "<th>error</th><th>verdict</th><th>source and explanation</th></tr></thead><tbody>\n";
  for (auto& s : g.scenarios)
    for (auto& c : s.checks) {
      std::string expl = "<span class=\"source\">" + esc(c.ref.source) + "</span>";
      if (c.ref.known_miss) expl += "<br><span class=\"explain\">known miss: " + esc(*c.ref.known_miss) + "</span>";
      if (c.verdict == Verdict::Fail || c.verdict == Verdict::Error)
        expl += "<br><span class=\"explain\">" + esc(c.message) + "</span>";
      if (c.verdict == Verdict::Pass && c.ref.known_miss)
        expl += "<br><span class=\"explain\">(passes now: the known_miss can be removed)</span>";
      h += fmt::format(
          "<tr class=\"{}\"><td class=\"small\">{}</td><td>{}</td><td class=\"metric\">{}</td><td class=\"num\">{}</td>"
          "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"verdict\">{}</td><td class=\"small\">{}</td></tr>\n",
          verdict_class(c.verdict), esc(c.set), esc(stem_of(s.scenario)), esc(c.ref.metric), esc(expected_text(c.ref)),
          c.simulated ? report_num(*c.simulated) : "-", esc(c.error_text), esc(verdict_name(c.verdict)), expl);
    }
  h += "</tbody></table>\n";
  return h;
}

// --- plots -----------------------------------------------------------------------------------

/// The plots of a group: a log-size line plot per sized family that spans a factor >= 4 in the
/// model's sizes; bars per unit for the other plain (non-expression) metrics.
std::string plots(const ReportGroup& g) {
  // family -> (scenario index -> refs)
  std::map<std::string, std::map<size_t, std::vector<const RefCheck*>>> sized;
  std::map<std::string, std::vector<std::pair<size_t, const RefCheck*>>> plain;  // unit -> refs
  for (size_t i = 0; i < g.scenarios.size(); ++i)
    for (auto& c : g.scenarios[i].checks) {
      MetricExpr e;
      try {
        e = parse_metric_expr(c.ref.metric);
      } catch (const std::exception&) {
        continue;
      }
      if (!e.single_name()) continue;
      if (auto sm = sized_metric(c.ref.metric)) {
        sized[sm->first][i].push_back(&c);
        continue;
      }
      plain[unit_of(c.ref.metric)].push_back({i, &c});
    }
  std::string h;
  size_t plot_no = 0;
  const std::string gid = id_of(g.dir);
  for (auto& [family, by_scn] : sized) {
    // The model's series: every `family.<N>B` the run measured.
    LinePlot lp;
    double smin = 1e300, smax = 0;
    std::vector<PlotSeries> model, refs;
    for (auto& [i, cs] : by_scn) {
      const ReportScenario& s = g.scenarios[i];
      PlotSeries ms{stem_of(s.scenario) + " (model)", false, unsigned(i), {}};
      const json metrics = s.result.is_object() ? s.result.value("metrics", json::object()) : json::object();
      for (auto& [k, v] : metrics.items())
        if (auto sm = sized_metric(k); sm && sm->first == family && v.is_number()) {
          ms.points.push_back({sm->second, v.get<double>(), {}, {}});
          smin = std::min(smin, sm->second);
          smax = std::max(smax, sm->second);
        }
      PlotSeries rs{stem_of(s.scenario) + " (reference)", true, unsigned(i), {}};
      for (auto* c : cs) rs.points.push_back(ref_point(c->ref, sized_metric(c->ref.metric)->second));
      std::sort(ms.points.begin(), ms.points.end(), [](auto& a, auto& b) { return a.x < b.x; });
      refs.push_back(rs);
      model.push_back(ms);
    }
    if (smax < 4 * smin) {  // a few sizes around one value (NetPIPE's perturbations): bars instead
      for (auto& [i, cs] : by_scn)
        for (auto* c : cs) plain[unit_of(family)].push_back({i, c});
      continue;
    }
    const std::string unit = unit_of(family);
    lp.id = fmt::format("plot-{}-{}", gid, ++plot_no);
    lp.title = fmt::format("{}: {} against message size", g.dir, family);
    lp.x_label = "message size (bytes, log scale)";
    lp.y_label = with_unit(family, unit);
    lp.log_x = true;
    double ymin = 1e300, ymax = 0;
    for (auto* v : {&model, &refs})
      for (auto& se : *v)
        for (auto& q : se.points)
          if (q.y > 0) {
            ymin = std::min(ymin, q.y);
            ymax = std::max(ymax, q.y);
          }
    lp.log_y = ymax > 20 * ymin;
    if (lp.log_y) lp.y_label += ", log scale";
    for (size_t k = 0; k < model.size(); ++k) {
      lp.series.push_back(refs[k]);
      lp.series.push_back(model[k]);
    }
    h += "<figure>" + svg_line_plot(lp) +
         fmt::format("<figcaption>Reference (points, shaded band = tolerance) and model (line) per scenario; {} "
                     "at every size the model ran.</figcaption></figure>\n",
                     esc(family));
  }
  for (auto& [unit, list] : plain) {
    BarChart bc;
    bc.id = fmt::format("plot-{}-{}", gid, ++plot_no);
    bc.title = fmt::format("{}: reference and model{}", g.dir, unit.empty() ? "" : " (" + unit + ")");
    bc.y_label = unit.empty() ? "value" : unit;
    BarChart::Series rs{"reference (whisker = tolerance)", true, 0, {}}, ms{"model", false, 1, {}};
    std::set<size_t> seen;  // one reference per scenario: the scenario names the bar
    bool one_scn_per = true;
    for (auto& ic : list) one_scn_per = seen.insert(ic.first).second && one_scn_per;
    for (auto& [i, c] : list) {
      const std::string scn = stem_of(g.scenarios[i].scenario);
      bc.categories.push_back(one_scn_per ? scn : scn + " " + c->ref.metric);
      rs.values.push_back(ref_point(c->ref, 0));
      ms.values.push_back(c->simulated ? std::optional<PlotPoint>(PlotPoint{0, *c->simulated, {}, {}}) : std::nullopt);
    }
    bc.series = {rs, ms};
    h += "<figure>" + svg_bar_chart(bc) +
         "<figcaption>Reference (light bar, whisker = tolerance or range) and model (solid bar) per "
         "reference.</figcaption></figure>\n";
  }
  if (h.empty()) h = "<p class=\"note\">(no plain metric to plot: the references are expressions)</p>\n";
  return h;
}

// --- explain gap -----------------------------------------------------------------------------

/// Gap tables between scenarios answering the same question: same workload type and the same set
/// of referenced metrics; the first by path is A, each other one B.
std::string gaps(const ReportGroup& g) {
  std::map<std::string, std::vector<size_t>> question;
  for (size_t i = 0; i < g.scenarios.size(); ++i) {
    const ReportScenario& s = g.scenarios[i];
    if (!s.result.is_object()) continue;
    std::set<std::string> metrics;
    for (auto& c : s.checks) metrics.insert(c.ref.metric);
    std::string key = s.result["params"]["workload"].value("type", "");
    for (auto& m : metrics) key += "|" + m;
    question[key].push_back(i);
  }
  std::string h;
  for (auto& [key, idx] : question) {
    if (idx.size() < 2) continue;
    const ReportScenario& a = g.scenarios[idx[0]];
    const Breakdown ba = Breakdown::from_json(a.result.value("explain", json::object()));
    for (size_t k = 1; k < idx.size(); ++k) {
      const ReportScenario& b = g.scenarios[idx[k]];
      const Breakdown bb = Breakdown::from_json(b.result.value("explain", json::object()));
      const std::string an = stem_of(a.scenario), bn = stem_of(b.scenario);
      h += fmt::format("<h4>{} (A) vs {} (B)</h4>\n", esc(an), esc(bn));
      std::vector<std::string> words = transfer_gap_summary(a.result.value("transfer", json::object()),
                                                            b.result.value("transfer", json::object()));
      if (ba.journeys > 0 && bb.journeys > 0) {
        auto rows = gap(ba, bb);
        h += fmt::format(
            "<p class=\"small\">mean one-way time per traced message: A {:.2f} µs ({} messages), B {:.2f} µs ({} "
            "messages); the stages sum to it (nicsim explain {} --vs {}).</p>\n",
            ba.mean_total_us, ba.journeys, bb.mean_total_us, bb.journeys, esc(a.scenario.string()), esc(b.scenario.string()));
        h += "<table class=\"gap\"><thead><tr><th>stage</th><th>cause</th><th>where</th><th>A µs</th><th>B µs</th>"
             "<th>B − A µs</th></tr></thead><tbody>\n";
        size_t n = 0;
        for (auto& r : rows) {
          if (++n > 12) break;
          h += fmt::format("<tr><td>{}</td><td>{}</td><td class=\"small\">{}</td><td class=\"num\">{:.2f}</td>"
                           "<td class=\"num\">{:.2f}</td><td class=\"num\">{:+.2f}</td></tr>\n",
                           esc(r.stage), esc(r.cause), esc(r.where(an, bn)), r.a_us, r.b_us, r.delta_us);
        }
        h += "</tbody></table>\n";
        h += "<p class=\"summary\">" + esc(gap_summary(ba, bb, rows, an, bn)) + "</p>\n";
      } else if (words.empty()) {
        h += "<p class=\"note\">(no traced messages and no transfer change to compare)</p>\n";
      }
      for (auto& w : words) h += "<p class=\"summary\">" + esc(w) + "</p>\n";
    }
  }
  if (h.empty()) h = "<p class=\"note\">(no two scenarios here answer the same question: no gap to show)</p>\n";
  return h;
}

const char* kCss = R"(body{font-family:sans-serif;margin:1.5em auto;padding:0 1em;max-width:1200px;color:#222;line-height:1.35}
h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:2px solid #0072b2;padding-bottom:.2em;margin-top:2em}
h3{margin-bottom:.3em}table{border-collapse:collapse;margin:.5em 0 1em 0;font-size:.9em}
th,td{border:1px solid #ccc;padding:3px 6px;vertical-align:top;text-align:left}th{background:#f0f4f8}
td.num{text-align:right;white-space:nowrap}td.metric{font-family:monospace;font-size:.95em;white-space:nowrap}
.small{font-size:.85em}.note{color:#666;font-style:italic}.generated{color:#666;font-size:.85em}
tr.pass td.verdict{background:#d4f4dd}tr.miss td.verdict{background:#fff1c2}tr.fail td.verdict,tr.error td.verdict{background:#ffd6d6;font-weight:bold}
td.ok{background:#d4f4dd}td.drift{background:#ffd6d6;font-weight:bold}td.none,td.skipped{background:#eeeeee}
td.cnt-fail{background:#ffd6d6;font-weight:bold}td.cnt-miss{background:#fff1c2}td.cnt-pass{background:#d4f4dd}
figure{margin:1em 0}figcaption{font-size:.85em;color:#555}svg.plot{border:1px solid #ddd;max-width:100%;height:auto}
details.describe pre{font-size:.8em;background:#f7f7f7;padding:.5em;overflow-x:auto}
.summary{background:#f7f9fc;border-left:3px solid #0072b2;padding:.4em .6em}
.explain{color:#444}.source{color:#555})";

}  // namespace

namespace {

/// One calibration of the page: its fitted values against nominal and bounds, and its per-set
/// errors as the fit file records them.
std::string calibration_section(const ReportCalibration& c) {
  const FitFile& f = c.fit;
  std::string h = fmt::format("<h3 id=\"calibration-{}\">{}</h3>\n<p>Platform {}{}{}; fit {} ({}), objective {:.5f} "
                              "(nominal values {:.5f}), {} evaluations; file <code>{}</code>.</p>\n",
                              id_of(f.name), esc(f.name), esc(f.platform),
                              f.kernel_profile.empty() ? "" : ", kernel profile " + esc(f.kernel_profile),
                              f.cpu_profile.empty() ? "" : ", CPU profile " + esc(f.cpu_profile),
                              f.ok ? "ok" : "<b>FAILED</b>", esc(f.ok ? "no value at a bound" : f.failure), f.objective,
                              f.nominal_objective, f.evaluations, esc(c.fit_file));
  h += "<table><thead><tr><th>parameter</th><th>fitted</th><th>nominal</th><th>bounds</th><th>declared bounds</th>"
       "<th>unit</th><th>mechanism</th></tr></thead><tbody>\n";
  for (auto& p : f.params)
    h += fmt::format("<tr{}><td><code>{}</code></td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">"
                     "[{}, {}]</td><td class=\"num\">[{}, {}]</td><td>{}</td><td class=\"small\">{}</td></tr>\n",
                     p.at_bound ? " class=\"fail\"" : "", esc(p.set), calibration_value_text(p.fitted, p.integer),
                     calibration_value_text(p.nominal, p.integer), calibration_value_text(p.lo, p.integer),
                     calibration_value_text(p.hi, p.integer), calibration_value_text(p.declared_lo, p.integer),
                     calibration_value_text(p.declared_hi, p.integer), esc(p.unit), esc(p.mechanism));
  h += "</tbody></table>\n<table><thead><tr><th>set</th><th>references</th><th>within tolerance</th><th>mean |error|</th>"
       "<th>mean error</th><th>worst</th></tr></thead><tbody>\n";
  auto row = [&](const char* name, const FitSummary& s) {
    h += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{:.1f}%</td>"
                     "<td class=\"num\">{:+.1f}%</td><td class=\"small\">{:+.1f}% {}</td></tr>\n",
                     name, s.count, s.within, 100 * s.mean_abs, 100 * s.mean_signed, 100 * s.worst, esc(s.worst_ref));
  };
  row("train", f.train);
  row("validate", f.validate);
  h += "</tbody></table>\n";
  h += f.cv_mean_abs ? fmt::format("<p>Leave one group out: mean |error| {:.1f}% on the held-out groups ({} groups).</p>\n",
                                   100 * *f.cv_mean_abs, f.cv.size())
                     : "<p>Leave one group out: " + esc(f.cv_note) + ".</p>\n";
  return h;
}

}  // namespace

std::string report_html(const ReportPage& page) {
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                  "<title>nicsim: model vs hardware</title>\n<style>\n";
  h += kCss;
  h += "\n</style>\n</head>\n<body>\n<header>\n<h1>nicsim: the model against the hardware it models</h1>\n";
  h += "<p>Each section is one directory of scenarios (a seed or a system): the hardware, every published "
       "reference the scenarios carry (X.ref.toml) against what the simulator gives, plots of both, and "
       "where the time goes between the scenarios that ask the same question (nicsim explain). A "
       "<b>known miss</b> is a reference the model misses for a reason stated with it; a <b>FAIL</b> is "
       "drift nobody has explained. The <b>fidelity guard</b> compares each run with the stored baseline "
       "(tests/fidelity) under its tolerance classes.</p>\n";
  if (!page.sets.empty()) {
    std::string s;
    for (auto& x : page.sets) s += (s.empty() ? "" : " ") + std::string("--set ") + x;
    h += "<p>Every run with: <code>" + esc(s) + "</code></p>\n";
  }
  h += "<p class=\"generated\">" + esc(page.generated) + "</p>\n</header>\n";

  // Summary
  h += "<section id=\"summary\">\n<h2>Summary</h2>\n<table class=\"summary-table\"><thead><tr><th>directory</th>"
       "<th>scenarios</th><th>references</th><th>pass</th><th>known miss</th><th>fail</th><th>error</th>"
       "<th>fidelity guard</th></tr></thead><tbody>\n";
  Counts total;
  size_t fid_ok = 0, fid_drift = 0, fid_none = 0;
  for (auto& g : page.groups) {
    Counts c;
    size_t nrefs = 0, ok = 0, drift = 0, none = 0;
    for (auto& s : g.scenarios) {
      for (auto& r : s.checks) {
        c.add(r.verdict);
        total.add(r.verdict);
        ++nrefs;
      }
      if (s.fidelity == "ok") ++ok;
      else if (s.fidelity == "drift") ++drift;
      else ++none;
    }
    fid_ok += ok;
    fid_drift += drift;
    fid_none += none;
    const char* fcls = drift ? "drift" : ok ? "ok" : "none";
    std::string ftext = fmt::format("{} of {} within tolerance", ok, g.scenarios.size());
    if (drift) ftext += fmt::format(", {} drifted", drift);
    if (none) ftext += fmt::format(", {} not compared", none);
    h += fmt::format(
        "<tr><td><a href=\"#{}\">{}</a></td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num{}\">{}</td><td class=\"num{}\">{}</td><td class=\"num{}\">{}</td><td class=\"num{}\">{}</td>"
        "<td class=\"{}\">{}</td></tr>\n",
        "seed-" + id_of(g.dir), esc(g.dir), g.scenarios.size(), nrefs, c.pass ? " cnt-pass" : "", c.pass,
        c.miss ? " cnt-miss" : "", c.miss, c.fail ? " cnt-fail" : "", c.fail, c.error ? " cnt-fail" : "", c.error,
        fcls, esc(ftext));
  }
  h += "</tbody></table>\n";
  h += fmt::format(
      "<p class=\"overall\">In all: {} references pass, {} are known misses, {} fail, {} could not be checked; "
      "fidelity guard: {} scenarios within tolerance of their baseline, {} drifted, {} not compared.</p>\n",
      total.pass, total.miss, total.fail, total.error, fid_ok, fid_drift, fid_none);
  if (!page.calibrations.empty()) {
    std::map<std::string, std::pair<size_t, size_t>> by_set;  // set -> (references, passes)
    for (auto& g : page.groups)
      for (auto& sc : g.scenarios)
        for (auto& r : sc.checks) {
          auto& [n, pass] = by_set[r.set];
          ++n;
          pass += r.verdict == Verdict::Pass;
        }
    std::vector<std::string> parts;
    for (const char* set : {kSetTrain, kSetValidate, kSetUncalibrated})
      if (by_set.count(set))
        parts.push_back(fmt::format("{} {} references, {} pass", set, by_set[set].first, by_set[set].second));
    h += "<p class=\"overall\">By set: " + esc(fmt::format("{}", fmt::join(parts, "; "))) +
         ". A training reference's pass is no evidence: the calibration was fitted on it.</p>\n";
  }
  h += "</section>\n";
  if (!page.calibrations.empty()) {
    h += "<section id=\"calibrations\">\n<h2>Calibrations</h2>\n<p>Estimates fitted to training references "
         "(docs/calibration.md); validation references are ones the fit never saw.</p>\n";
    for (auto& c : page.calibrations) h += calibration_section(c);
    h += "</section>\n";
  }

  for (auto& g : page.groups) {
    h += fmt::format("<section class=\"seed\" id=\"seed-{}\">\n<h2>{}</h2>\n", id_of(g.dir), esc(g.dir));
    h += "<div class=\"hardware\">\n<h3>Scenarios and hardware</h3>\n" + scenarios_table(g) + hardware_table(g);
    h += platform_trees(g);
    h += "</div>\n<div class=\"references\">\n<h3>Reference vs model</h3>\n" + refs_table(g) + "</div>\n";
    h += "<div class=\"plots\">\n<h3>Plots</h3>\n" + plots(g) + "</div>\n";
    h += "<div class=\"gaps\">\n<h3>Where the time goes (explain gap)</h3>\n" + gaps(g) + "</div>\n";
    h += "</section>\n";
  }
  h += "<footer class=\"small\"><p>Written by <code>nicsim report</code> (nicsim's docs/cli.md: &quot;The report page, what-if and "
       "packet captures&quot;). Self-contained: no script, no network.</p></footer>\n</body>\n</html>\n";
  return h;
}

void fidelity_state(ReportScenario& s) {
  if (!s.result.is_object()) {
    s.fidelity = "skipped";
    s.fidelity_text = "not compared (the run failed)";
    return;
  }
  if (!s.result["params"].value("overrides", json::array()).empty()) {
    s.fidelity = "skipped";
    s.fidelity_text = "not compared (the run had --set overrides; the baseline is of the shipped scenario)";
    return;
  }
  fs::path abs = fs::weakly_canonical(fs::absolute(s.scenario));
  fs::path dir = abs.parent_path(), root;
  for (fs::path d = dir; !d.empty() && d != d.root_path(); d = d.parent_path())
    if (d.filename() == "scenarios") {
      root = d.parent_path();
      break;
    }
  if (root.empty()) {
    s.fidelity = "none";
    s.fidelity_text = "no baseline (the scenario is not under a scenarios/ directory)";
    return;
  }
  fs::path rel = fs::relative(abs, root / "scenarios");
  fs::path base = root / "tests/fidelity/baseline" / rel;
  base.replace_extension(".json");
  fs::path tol = root / "tests/fidelity/tolerances.json";
  if (!fs::is_regular_file(base) || !fs::is_regular_file(tol)) {
    s.fidelity = "none";
    s.fidelity_text = "no baseline (" + fs::relative(base, root).string() + " is missing)";
    return;
  }
  try {
    std::ifstream bf(base), tf(tol);
    const json baseline = json::parse(bf), tolerances = json::parse(tf);
    const auto rep = fidelity::compare(baseline, s.result, fidelity::rules_from_json(tolerances));
    if (rep.ok()) {
      s.fidelity = "ok";
      s.fidelity_text = fmt::format("within tolerance of {} ({} values compared)", fs::relative(base, root).string(),
                                    rep.entries.size());
    } else {
      s.fidelity = "drift";
      std::string first;
      for (auto& e : rep.entries)
        if (!e.ok) {
          first = e.path;
          break;
        }
      s.fidelity_text = fmt::format("{} of {} values beyond tolerance of {} (first: {})", rep.failures(),
                                    rep.entries.size(), fs::relative(base, root).string(), first);
    }
  } catch (const std::exception& e) {
    s.fidelity = "none";
    s.fidelity_text = std::string("baseline unreadable: ") + e.what();
  }
}

namespace {

std::string generated_line() {
  std::time_t t = std::time(nullptr);
  if (const char* sde = std::getenv("SOURCE_DATE_EPOCH"); sde && *sde) t = static_cast<std::time_t>(std::strtoll(sde, nullptr, 10));
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return fmt::format("generated {} by nicsim {}", buf, version());
}

}  // namespace

int run_report(const ReportOptions& o, const Runner& runner) {
  CheckOptions co;
  co.verb = "report";
  co.paths = o.paths;
  co.sets = o.sets;
  co.fast = o.fast;
  co.jobs = o.jobs;
  co.out = o.out / "runs";
  co.stop = o.stop;
  co.log = o.log;
  co.table = o.log;
  co.tty = o.tty;
  co.validate_scenarios = true;
  co.reuse = true;
  co.reuse_from = o.reuse;
  std::vector<RefCheck> checks;
  std::vector<CheckRun> runs;
  const int rc = run_check(co, runner, &checks, &runs);
  if (rc == kExitUsage) return kExitUsage;
  if (o.stop && o.stop->load()) return rc;

  // Groups: the scenario's directory.
  std::map<std::string, ReportGroup> groups;
  bool failed = false;
  for (auto& r : runs) {
    ReportScenario s;
    s.scenario = r.scenario;
    for (auto& c : checks)
      if (c.scenario == r.scenario.string()) s.checks.push_back(c);
    if (s.checks.empty()) continue;  // run only as another reference's `vs` scenario
    if (r.ok) {
      try {
        std::ifstream f(r.result_json);
        s.result = json::parse(f);
      } catch (const std::exception&) {
        s.result = json();
      }
    }
    if (!s.result.is_object()) failed = true;
    fidelity_state(s);
    std::string dir = r.scenario.parent_path().lexically_normal().string();
    auto& g = groups[dir];
    g.dir = dir;
    g.scenarios.push_back(std::move(s));
  }
  ReportPage page;
  for (auto& [d, g] : groups) {
    std::sort(g.scenarios.begin(), g.scenarios.end(), [](auto& a, auto& b) { return a.scenario < b.scenario; });
    page.groups.push_back(std::move(g));
  }
  page.generated = generated_line();
  page.sets = o.sets;
  // Each calibration a run used, once, in file order.
  std::set<std::string> fit_files;
  for (auto& g : page.groups)
    for (auto& sc : g.scenarios)
      if (sc.result.is_object() && sc.result.contains("params") && sc.result["params"].contains("calibration"))
        fit_files.insert(sc.result["params"]["calibration"].value("fit_file", ""));
  for (auto& ff : fit_files) {
    if (ff.empty()) continue;
    try {
      page.calibrations.push_back({ff, read_fit_file(ff)});
    } catch (const std::exception& e) {
      fmt::print(o.log, "nicsim report: {}\n", e.what());
    }
  }
  try {
    write_file_atomic(o.out / "index.html", report_html(page));
  } catch (const std::exception& e) {
    fmt::print(o.log, "nicsim report: {}\n", e.what());
    return kExitRunFailed;
  }
  size_t nscn = 0;
  for (auto& g : page.groups) nscn += g.scenarios.size();
  fmt::print(o.log, "report: {} ({} directories, {} scenarios)\n", (o.out / "index.html").string(), page.groups.size(),
             nscn);
  return failed ? kExitRunFailed : kExitOk;
}

namespace {

namespace po = boost::program_options;

int report_main(int argc, char** argv) {
  unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  po::options_description opts(
      "usage: nicsim report [DIR ...] --out OUT [--jobs N] [--reuse DIR ...] [--set KEY=VALUE ...] [--fast]\n\n"
      "Runs every scenario X.toml with references X.ref.toml under the DIRs (default: scenarios/) and\n"
      "writes OUT/index.html: per directory (seed or system) the hardware (platform, CPUs, kernel,\n"
      "NICs, slots, drivers, the platform's topology), the reference vs model table with verdicts\n"
      "and explanations, plots of the references against the model (log message-size axes for\n"
      "per-size metrics), the explain gap between scenarios that answer the same question, and a\n"
      "summary with the fidelity guard's state. The page is self-contained (inline CSS and SVG, no\n"
      "script, no network); the same results give the same bytes apart from the 'generated' line.\n\n"
      "Runs go to OUT/runs (the layout of check --out) and are reused by the next report when the\n"
      "scenario and its values are unchanged, so an interrupted report resumes; --reuse DIR takes\n"
      "finished results from a check --out or sweep --out directory as well. See docs/cli.md, \"The\n"
      "report page, what-if and packet captures\".\n\n"
      "Exit: 0 page written, 1 written but a run failed, 2 usage or reference-file error.\n\noptions");
  opts.add_options()
      ("out", po::value<std::string>(), "write OUT/index.html (and keep the runs in OUT/runs)")
      ("jobs,j", po::value<std::string>()->default_value(std::to_string(hw)), "scenarios run in parallel, 1 to 1024")
      ("reuse", po::value<std::vector<std::string>>()->composing(), "take finished results from DIR (repeatable)")
      ("set", po::value<std::vector<std::string>>()->composing(), "KEY=VALUE applied to every run (repeatable)")
      ("fast", "only reference files with `fast = true`");
  add_calibration_option(opts);
  po::variables_map vm;
  std::vector<std::string> paths;
  if (auto rc = parse_verb_args_listing(argc, argv, "", opts, vm, &paths)) return *rc;
  const UsageError usage{"report"};
  ReportOptions o;
  if (!vm.count("out")) return usage("--out OUT is required");
  o.out = vm["out"].as<std::string>();
  if (auto w = out_dir_problem(o.out); !w.empty()) return usage("--out: " + w);
  if (!paths.empty()) o.paths.assign(paths.begin(), paths.end());
  if (vm.count("reuse"))
    for (auto& p : vm["reuse"].as<std::vector<std::string>>()) {
      if (!fs::is_directory(p)) return usage("--reuse: '" + p + "' is not a directory");
      o.reuse.emplace_back(p);
    }
  if (vm.count("set")) o.sets = vm["set"].as<std::vector<std::string>>();
  for (auto& s : o.sets)
    if (s.find('=') == std::string::npos) return usage("--set '" + s + "': write KEY=VALUE");
  if (auto w = apply_calibration_option(vm, o.sets); !w.empty()) return usage(w);
  o.fast = vm.count("fast") != 0;
  std::string why;
  auto jobs = parse_jobs_arg(vm["jobs"].as<std::string>(), &why);
  if (!jobs) return usage(why);
  o.jobs = *jobs;
  o.tty = Progress::is_tty(stderr);
  return run_interruptible("report", [&](const std::atomic<bool>* stop) {
    o.stop = stop;
    return run_report(o, process_runner(self_executable()));
  });
}

Registrar<VerbEntry> report_reg{VerbEntry{
    "report", "one self-contained HTML page: every seed's references against the model, plots, gaps", report_main}};

}  // namespace
}  // namespace nicsim
