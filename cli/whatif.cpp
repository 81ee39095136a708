#include "cli/whatif.h"
#include "cli/check_refs.h"
#include "cli/progress.h"
#include "cli/svg_plot.h"
#include "cli/sweep_plan.h"
#include "cli/verbs.h"
#include "core/breakdown.h"
#include "core/results.h"
#include "core/transfer_report.h"
#include "drivers-sim/driver_entry.h"
#include "drivers-sim/drivers/bonding/bonding.h"
#include "drivers-sim/net/tcp_sysctl.h"
#include "platforms/testbed.h"
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <regex>
#include <set>

namespace nicsim {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string knob_value_text(const ParamValue& v) {
  return std::visit(
      [](auto&& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) return x ? "true" : "false";
        else if constexpr (std::is_same_v<T, std::string>) return x;
        else if constexpr (std::is_same_v<T, double>) return fmt::format("{}", x);
        else return std::to_string(x);
      },
      v);
}

/// The values a unit lists: "0/1" -> {0, 1}; "0-3, 255" -> {0, 1, 2, 3, 255}; "0-2" -> {0, 1, 2}.
/// Empty when the unit is not such a list (or spans more than 16 values).
std::vector<int64_t> listed_values(const std::string& unit) {
  static const std::regex whole(R"(^\s*\d+(\s*[-/]\s*\d+)*(\s*,\s*\d+(\s*[-/]\s*\d+)*)*\s*$)");
  if (!std::regex_match(unit, whole) || unit.find_first_of("-/,") == std::string::npos) return {};
  std::vector<int64_t> v;
  static const std::regex item(R"((\d+)\s*([-/])\s*(\d+)|(\d+))");
  for (auto it = std::sregex_iterator(unit.begin(), unit.end(), item); it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    if (m[4].matched) {
      v.push_back(std::stoll(m[4].str()));
    } else if (m[2].str() == "/") {
      v.push_back(std::stoll(m[1].str()));
      v.push_back(std::stoll(m[3].str()));
    } else {
      const int64_t a = std::stoll(m[1].str()), b = std::stoll(m[3].str());
      if (b < a || b - a > 16) return {};
      for (int64_t x = a; x <= b; ++x) v.push_back(x);
    }
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace

std::vector<std::string> knob_alternatives(const ParamSpec& spec, const ParamValue& current) {
  std::vector<std::string> out;
  // Not knobs: parameters the model only validates, bit masks, and the model's own what-ifs that no
  // real driver has ("what-if, not a module parameter of the real driver": e1000's prefetch).
  if (spec.doc.find("validated only") != std::string::npos || spec.unit == "bit mask" ||
      spec.doc.rfind("what-if", 0) == 0)
    return out;
  const std::string cur = knob_value_text(current);
  auto add = [&](const std::string& v) {
    if (v != cur && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  };
  switch (spec.kind) {
    case ParamKind::Bool:
      add(std::get<bool>(current) ? "false" : "true");
      return out;
    case ParamKind::String:
      for (auto& c : spec.choices) add(c);
      return out;
    case ParamKind::Int: {
      const int64_t v = std::get<int64_t>(current);
      auto in_range = [&](double x) { return (!spec.min || x >= *spec.min) && (!spec.max || x <= *spec.max); };
      if (auto listed = listed_values(spec.unit); !listed.empty()) {
        for (int64_t x : listed)
          if (in_range(double(x))) add(std::to_string(x));
        return out;
      }
      // A short accepted set (e1000 Speed 0/10/100/1000, FlowControl 0-3/255): every member.
      int64_t members = 0;
      for (const auto& r : spec.accepted) members += r.second - r.first + 1;
      if (!spec.accepted.empty() && members <= 16) {
        for (const auto& r : spec.accepted)
          for (int64_t x = r.first; x <= r.second; ++x) add(std::to_string(x));
        return out;
      }
      // Half and double, and the ends of the range (what a tuning guide points at: bonding.txt's
      // "raise tcp_reordering, up to 127"; InterruptThrottleRate 0 = off).
      std::vector<int64_t> c;
      if (v == 0) c.push_back(1);
      else {
        c.push_back(v / 2);
        c.push_back(v * 2);
        if (spec.min) c.push_back(int64_t(*spec.min));
      }
      if (spec.max) c.push_back(int64_t(*spec.max));
      std::sort(c.begin(), c.end());
      for (int64_t x : c)
        if (int_accepted(spec, x)) add(std::to_string(x));
      return out;
    }
    case ParamKind::Real: {
      const double v = std::get<double>(current);
      std::vector<double> c = v == 0 ? std::vector<double>{1.0} : std::vector<double>{v / 2, v * 2};
      if (v != 0 && spec.min) c.push_back(*spec.min);
      if (spec.max) c.push_back(*spec.max);
      std::sort(c.begin(), c.end());
      for (double x : c)
        if ((!spec.min || x >= *spec.min) && (!spec.max || x <= *spec.max)) add(fmt::format("{}", x));
      return out;
    }
  }
  return out;
}

std::vector<Knob> enumerate_knobs(const Scenario& s, const std::vector<std::string>& sets) {
  std::vector<Knob> knobs;
  auto add_knob = [&](Knob k, const std::vector<std::string>& values) {
    for (auto& v : values) {
      Knob::Alt a{v, {}};
      for (auto& key : k.keys) a.sets.push_back(key + "=" + v);
      std::vector<std::string> all = sets;
      all.insert(all.end(), a.sets.begin(), a.sets.end());
      try {
        (void)load_scenario(s.path, all, s.seed);
        k.alts.push_back(std::move(a));
      } catch (const ScenarioError& e) {
        std::string why = e.what();
        if (auto nl = why.find('\n'); nl != std::string::npos) why.resize(nl);
        k.dropped.push_back(v + ": " + why);
      }
    }
    if (!k.alts.empty()) knobs.push_back(std::move(k));
  };

  // Driver parameters: one knob per (driver, parameter, current value), over every NIC it runs.
  struct Target {
    const ParamSpec* spec;
    ParamValue value;
    std::vector<std::string> keys;
  };
  std::map<std::string, Target> drv;  // "driver\nparam\nvalue" -> target
  std::vector<std::string> order;
  auto& drivers = Registry<DriverEntry>::instance();
  for (auto& h : s.hosts)
    for (auto& n : h.nics) {
      const DriverEntry* d = drivers.find(n.driver);
      if (!d) continue;
      for (auto& spec : d->params) {
        if (!n.driver_params.has(spec.name)) continue;
        const ParamValue v = n.driver_params.all().at(spec.name);
        const std::string id = n.driver + "\n" + spec.name + "\n" + knob_value_text(v);
        auto [it, fresh] = drv.try_emplace(id, Target{&spec, v, {}});
        if (fresh) order.push_back(id);
        it->second.keys.push_back(fmt::format("hosts.{}.nics.{}.{}", h.name, n.name, spec.name));
      }
    }
  for (auto& id : order) {
    auto& t = drv.at(id);
    const std::string driver = id.substr(0, id.find('\n'));
    Knob k{fmt::format("{} [{}]", t.spec->name, driver), "driver parameter", knob_value_text(t.value), t.spec->unit, t.keys, {}, {}};
    add_knob(std::move(k), knob_alternatives(*t.spec, t.value));
  }
  // Bonding parameters, alike on every bond.
  {
    const ParamSchema bs = bonding::bonding_param_schema();
    for (auto& spec : bs) {
      std::vector<std::string> keys;
      std::optional<ParamValue> v;
      for (auto& h : s.hosts)
        for (auto& b : h.bonds)
          if (b.params.has(spec.name)) {
            keys.push_back(fmt::format("hosts.{}.bonds.{}.{}", h.name, b.name, spec.name));
            v = b.params.all().at(spec.name);
          }
      if (keys.empty()) continue;
      Knob k{fmt::format("{} [bonding]", spec.name), "driver parameter", knob_value_text(*v), spec.unit, keys, {}, {}};
      add_knob(std::move(k), knob_alternatives(spec, *v));
    }
  }
  // TCP sysctls, alike on every host that runs software.
  {
    const ParamSchema ss = tcp_sysctl_schema();
    for (auto& spec : ss) {
      std::vector<std::string> keys;
      ParamValue v = spec.def;
      for (auto& h : s.hosts) {
        if (!h.params.has("cpus")) continue;  // a host without a kernel (no software)
        keys.push_back(fmt::format("hosts.{}.sysctl.{}", h.name, spec.name));
        if (h.sysctl.has(spec.name)) v = h.sysctl.all().at(spec.name);
      }
      if (keys.empty()) continue;
      Knob k{spec.name, "sysctl", knob_value_text(v), spec.unit, keys, {}, {}};
      add_knob(std::move(k), knob_alternatives(spec, v));
    }
  }
  // CPU placement, per host: the process mask and the CPU external interrupts go to.
  for (auto& h : s.hosts) {
    if (!h.params.has("cpus") || !h.params.has("cpus_allowed")) continue;
    const int64_t cpus = h.params.i("cpus");
    if (cpus < 2 || cpus > 4) continue;
    std::vector<std::string> masks;
    const int64_t cur = h.params.i("cpus_allowed");
    for (int64_t m = 0; m < (int64_t(1) << cpus); ++m)
      if (m != cur && !(cur == 0 && m == (int64_t(1) << cpus) - 1)) masks.push_back(std::to_string(m));
    add_knob(Knob{h.name + " cpus_allowed", "CPU placement", std::to_string(cur), "CPU mask (0 = all)",
                  {fmt::format("hosts.{}.cpus_allowed", h.name)}, {}, {}},
             masks);
    if (h.params.has("irq_dest_cpu")) {
      std::vector<std::string> cpu;
      for (int64_t c = 0; c < cpus; ++c)
        if (c != h.params.i("irq_dest_cpu")) cpu.push_back(std::to_string(c));
      add_knob(Knob{h.name + " irq_dest_cpu", "CPU placement", std::to_string(h.params.i("irq_dest_cpu")), "CPU",
                    {fmt::format("hosts.{}.irq_dest_cpu", h.name)}, {}, {}},
               cpu);
    }
  }
  // Slots: every other add-in slot of the platform (the loader refuses those that do not take it).
  auto& platforms = Registry<PlatformEntry>::instance();
  for (auto& h : s.hosts) {
    const PlatformEntry* p = platforms.find(h.platform);
    if (!p) continue;
    for (auto& n : h.nics) {
      std::vector<std::string> slots;
      for (auto& sl : p->slots)
        if (!sl.onboard && sl.name != n.slot) slots.push_back(sl.name);
      if (slots.empty()) continue;
      add_knob(Knob{h.name + "." + n.name + " slot", "slot", n.slot, "", {fmt::format("hosts.{}.nics.{}.slot", h.name, n.name)}, {}, {}},
               slots);
    }
  }
  return knobs;
}

namespace {

std::optional<json> read_result(const fs::path& p) {
  try {
    std::ifstream f(p);
    json j = json::parse(f);
    if (j.is_object()) return j;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

std::string whatif_csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

/// The breakdown of `kind` ("" = all) in a result (explain's by-kind rule, without prefixes).
Breakdown breakdown_in(const json& r, const std::string& kind) {
  if (!kind.empty() && r.contains("explain_by_kind") && r["explain_by_kind"].contains(kind))
    return Breakdown::from_json(r["explain_by_kind"][kind]);
  return Breakdown::from_json(r.value("explain", json::object()));
}

}  // namespace

int run_whatif(const WhatIfOptions& o, const Runner& runner) {
  Scenario base;
  try {
    base = load_scenario(o.scenario.string(), o.sets, o.seed);
  } catch (const ScenarioError& e) {
    fmt::print(o.log, "nicsim explain --what-if: {}\n", e.what());
    return kExitUsage;
  }
  std::vector<Knob> knobs = enumerate_knobs(base, o.sets);
  if (!o.knobs.empty()) {
    auto matches = [](const Knob& k, const std::string& p) { return k.kind == p || k.name.find(p) != std::string::npos; };
    for (auto& p : o.knobs)
      if (std::none_of(knobs.begin(), knobs.end(), [&](const Knob& k) { return matches(k, p); })) {
        std::vector<std::string> names;
        for (auto& k : knobs) names.push_back(k.name);
        fmt::print(o.log, "nicsim explain --what-if: --knob '{}' matches none of the knobs of {}: {}\n", p,
                   o.scenario.string(), fmt::join(names, ", "));
        return kExitUsage;
      }
    std::erase_if(knobs, [&](const Knob& k) {
      return std::none_of(o.knobs.begin(), o.knobs.end(), [&](const std::string& p) { return matches(k, p); });
    });
  }
  if (knobs.empty()) {
    fmt::print(o.log, "nicsim explain --what-if: {} has no knob with a loadable alternative\n", o.scenario.string());
    return kExitUsage;
  }
  // The plan: one axis per knob (its alternatives), so another scenario's directory is refused.
  SweepPlan plan;
  plan.scenario = fs::absolute(o.scenario).lexically_normal().string();
  plan.sets = o.sets;
  if (o.seed) plan.sets.push_back(fmt::format("seed={}", *o.seed));
  plan.metrics = {o.metric};
  for (auto& k : knobs) {
    Axis a{k.name, {}};
    for (auto& alt : k.alts) a.values.push_back(alt.value);
    plan.axes.push_back(a);
  }
  try {
    fs::create_directories(o.out);
    write_plan(o.out, plan);
  } catch (const std::exception& e) {
    fmt::print(o.log, "nicsim explain --what-if: {}\n", e.what());
    return kExitUsage;
  }

  // Jobs: the base, then every alternative; finished points are reused (the sweep's resume rule).
  struct Pt {
    const Knob* knob;
    std::string value;
    RunJob job;
  };
  std::vector<Pt> pts;
  pts.push_back({nullptr, "", RunJob{"base", o.scenario, o.sets, o.seed, o.out / "points" / "base", {}}});
  for (auto& k : knobs)
    for (auto& a : k.alts) {
      std::vector<std::string> sets = o.sets;
      sets.insert(sets.end(), a.sets.begin(), a.sets.end());
      // The sweep's point id of the knob's name (dots made '_': point_id shows a key's last dotted
      // segment, and "rx-frames [tg3-0.99]" would read "99_"): "rx-frames__tg3-0_99_=4--<hash>".
      std::string key = k.name;
      std::replace(key.begin(), key.end(), '.', '_');
      const std::string id = point_id({Axis{key, {}}}, {a.value});
      pts.push_back({&k, a.value, RunJob{k.name + "=" + a.value, o.scenario, sets, o.seed, o.out / "points" / id, {}}});
    }
  // The base first: a metric it does not have (a typo) is a usage error before the alternatives run.
  auto metric_of = [&](const json& r, std::string* why) {
    return metric_value(o.metric, r.value("metrics", json::object()), r.value("counters", json::object()), why);
  };
  std::vector<RunJob> to_run;
  for (auto& p : pts)
    if (!result_complete(p.job.out_dir / "result.json")) to_run.push_back(p.job);
  const size_t nalts = pts.size() - 1;
  fmt::print(o.log, "what-if: {} knobs, {} alternatives + the base run ({} to run, {} finished before), {} job{}\n",
             knobs.size(), nalts, to_run.size(), pts.size() - to_run.size(), o.jobs, o.jobs == 1 ? "" : "s");
  for (auto& k : knobs)
    for (auto& d : k.dropped) fmt::print(o.log, "what-if: {}: alternative {} left out\n", k.name, d);
  Progress progress(o.log, to_run.size(), o.tty);
  const ExecOptions eo = progress_exec_options(progress, o.jobs, o.stop);
  auto interrupted = [&] { return o.stop && o.stop->load(); };
  const fs::path base_json = pts[0].job.out_dir / "result.json";
  if (!to_run.empty() && to_run.front().out_dir == pts[0].job.out_dir) {
    (void)run_jobs({to_run.front()}, runner, eo);
    to_run.erase(to_run.begin());
  }
  const auto base_result = interrupted() ? std::nullopt : read_result(base_json);
  if (!interrupted() && (!base_result || !result_complete(base_json))) {
    progress.finish();
    fmt::print(o.log, "nicsim explain --what-if: the base run of {} failed (see {})\n", o.scenario.string(),
               (pts[0].job.out_dir / "error.json").string());
    return kExitRunFailed;
  }
  std::string why;
  const auto base_m = base_result ? metric_of(*base_result, &why) : std::nullopt;
  if (!interrupted() && !base_m) {
    progress.finish();
    fmt::print(o.log, "nicsim explain --what-if: --metric: {}\n", why);
    return kExitUsage;
  }
  if (!interrupted()) (void)run_jobs(to_run, runner, eo);
  progress.finish();
  if (interrupted()) {
    int sig = InterruptGuard::signal_caught();
    return 128 + (sig ? sig : 2);
  }
  const double m0 = base_m.value_or(0);  // has a value: a missing one returned above

  std::vector<WhatIfRow> rows;
  for (size_t i = 1; i < pts.size(); ++i) {
    WhatIfRow r{pts[i].knob, pts[i].value, "failed", std::nullopt, pts[i].job.out_dir / "result.json"};
    if (result_complete(r.result))
      if (auto j = read_result(r.result)) {
        r.metric = metric_of(*j, nullptr);
        r.status = r.metric ? "ok" : "no metric";
      }
    rows.push_back(r);
  }
  // Rank the knobs by the largest |M - M as it is| over their alternatives.
  struct Ranked {
    const Knob* knob;
    double effect = 0;       // signed change of the alternative with the largest |change|
    const WhatIfRow* best = nullptr;
    std::vector<const WhatIfRow*> alts;
  };
  std::vector<Ranked> ranked;
  for (auto& k : knobs) {
    Ranked rk{&k, 0, nullptr, {}};
    for (auto& r : rows)
      if (r.knob == &k) {
        rk.alts.push_back(&r);
        if (r.metric && (!rk.best || std::fabs(*r.metric - m0) > std::fabs(rk.effect))) {
          rk.best = &r;
          rk.effect = *r.metric - m0;
        }
      }
    ranked.push_back(rk);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
    if ((a.best != nullptr) != (b.best != nullptr)) return a.best != nullptr;
    return std::fabs(a.effect) > std::fabs(b.effect);
  });
  size_t failed = 0;
  for (auto& r : rows) failed += r.status != "ok";

  // Files: CSV, JSON, tornado chart.
  json jr = json::array();
  std::string csv = "rank,knob,kind,current,value,metric,delta,delta_pct,status,keys\n";
  for (size_t i = 0; i < ranked.size(); ++i) {
    auto& rk = ranked[i];
    json alts = json::array();
    for (auto* a : rk.alts) {
      const double d = a->metric ? *a->metric - m0 : 0;
      alts.push_back({{"value", a->value}, {"status", a->status},
                      {"metric", a->metric ? json(*a->metric) : json()},
                      {"delta", a->metric ? json(d) : json()},
                      {"result", fs::relative(a->result, o.out).string()}});
      std::string keys;
      for (auto& k : rk.knob->keys) keys += (keys.empty() ? "" : " ") + k;
      csv += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", i + 1, whatif_csv_field(rk.knob->name), whatif_csv_field(rk.knob->kind),
                         whatif_csv_field(rk.knob->current), whatif_csv_field(a->value),
                         a->metric ? fmt::format("{:.6g}", *a->metric) : "", a->metric ? fmt::format("{:.6g}", d) : "",
                         a->metric && m0 != 0 ? fmt::format("{:.3f}", 100 * d / std::fabs(m0)) : "",
                         a->status, whatif_csv_field(keys));
    }
    jr.push_back({{"rank", i + 1}, {"knob", rk.knob->name}, {"kind", rk.knob->kind}, {"current", rk.knob->current},
                  {"unit", rk.knob->unit}, {"keys", rk.knob->keys}, {"effect", rk.effect},
                  {"best", rk.best ? json(rk.best->value) : json()}, {"alternatives", alts},
                  {"left_out", rk.knob->dropped}});
  }
  const json summary = {{"nicsim_version", version()}, {"scenario", o.scenario.string()}, {"sets", o.sets},
                        {"metric", o.metric}, {"base", m0}, {"ranking", jr}};
  TornadoChart tc;
  tc.id = "tornado";
  tc.title = fmt::format("what if: {} ({})", fs::path(o.scenario).stem().string(), o.metric);
  tc.x_label = o.metric + " (the line: the scenario as it is)";
  tc.base = m0;
  for (auto& rk : ranked) {
    if (!rk.best || tc.rows.size() >= 15) continue;
    TornadoChart::Row row{rk.knob->name, {}};
    for (auto* a : rk.alts)
      if (a->metric) row.alts.push_back({rk.knob->name + " = " + a->value, *a->metric});
    tc.rows.push_back(row);
  }
  try {
    write_file_atomic(o.out / "whatif.csv", csv);
    write_json_atomic(o.out / "whatif.json", summary);
    write_file_atomic(o.out / "tornado.svg", svg_tornado(tc));
  } catch (const std::exception& e) {
    fmt::print(o.log, "nicsim explain --what-if: {}\n", e.what());
    return kExitRunFailed;
  }

  if (o.format == "json") {
    fmt::print("{}\n", summary.dump(2));
  } else {
    fmt::print("What if: {} — {} = {:.6g} as it is; {} knobs, {} alternatives\n\n", o.scenario.string(), o.metric,
               m0, knobs.size(), nalts);
    fmt::print("{:>4}  {:<44} {:<16} {:>10} -> {:<12} {:>12} {:>9}\n", "rank", "knob", "kind", "now", "best", o.metric.size() > 12 ? "M" : o.metric, "change");
    for (size_t i = 0; i < ranked.size(); ++i) {
      auto& rk = ranked[i];
      if (!rk.best) {
        fmt::print("{:>4}  {:<44} {:<16} {:>10}    (every alternative failed)\n", i + 1, rk.knob->name, rk.knob->kind, rk.knob->current);
        continue;
      }
      fmt::print("{:>4}  {:<44} {:<16} {:>10} -> {:<12} {:>12.6g} {:>+8.1f}%\n", i + 1, rk.knob->name, rk.knob->kind,
                 rk.knob->current, rk.best->value, *rk.best->metric,
                 m0 != 0 ? 100 * rk.effect / std::fabs(m0) : 0.0);
    }
    // The explain --vs-set gap of the top N: which stage moved, and why, in words.
    // The breakdown is explain's: every traced message (of --kind), not only the ones M measures.
    const std::string an = fs::path(o.scenario).stem().string();
    fmt::print("\nThe top {}: what each changes, stage by stage (nicsim explain --vs-set; the breakdown covers every "
               "traced message{}, M only its own):\n",
               std::min(o.top, ranked.size()), o.kind.empty() ? "" : " of kind " + o.kind);
    for (size_t i = 0; i < ranked.size() && i < o.top; ++i) {
      auto& rk = ranked[i];
      if (!rk.best) continue;
      // A change below 0.01 % of M is no effect: no breakdown for it.
      if (std::fabs(rk.effect) <= 1e-4 * std::fabs(m0)) {
        fmt::print("\n#{} {}: no effect on {} (every alternative within 0.01 %)\n", i + 1, rk.knob->name, o.metric);
        continue;
      }
      const auto b = read_result(rk.best->result);
      if (!b) continue;
      std::string sets;
      for (auto& s : rk.knob->alts)
        if (s.value == rk.best->value)
          for (auto& x : s.sets) sets += " --vs-set " + x;
      fmt::print("\n#{} {} = {} ({:+.6g} {}; nicsim explain {}{}):\n", i + 1, rk.knob->name, rk.best->value, rk.effect,
                 o.metric, o.scenario.string(), sets);
      const Breakdown ba = breakdown_in(*base_result, o.kind), bb = breakdown_in(*b, o.kind);
      const std::string bn = an + " " + rk.knob->name + "=" + rk.best->value;
      if (ba.journeys > 0 && bb.journeys > 0) {
        auto g = gap(ba, bb);
        std::vector<GapRow> head(g.begin(), g.begin() + std::min<size_t>(g.size(), 6));
        fmt::print("{}{}\n", format_gap(head, "A µs", "B µs"), gap_summary(ba, bb, g, an, bn));
      }
      for (auto& l : transfer_gap_summary(base_result->value("transfer", json::object()), b->value("transfer", json::object())))
        fmt::print("{}\n", l);
    }
    fmt::print("\nranking: {} and {}; tornado chart: {}\n", (o.out / "whatif.csv").string(), (o.out / "whatif.json").string(),
               (o.out / "tornado.svg").string());
  }
  return failed == rows.size() ? kExitRunFailed : kExitOk;
}

}  // namespace nicsim
