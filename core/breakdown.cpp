#include "core/breakdown.h"
#include "core/result_names.h"
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>

namespace nicsim {

namespace {
double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  double idx = p * static_cast<double>(v.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(idx)), hi = static_cast<size_t>(std::ceil(idx));
  return v[lo] + (v[hi] - v[lo]) * (idx - static_cast<double>(lo));
}
std::string label(const std::string& stage, const std::string& cause) {
  return cause.empty() ? stage : stage + " (" + cause + ")";
}
/// Characters on screen of UTF-8 `s` (code points; labels hold no wide characters).
size_t display_width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}
/// `s` padded with spaces to `width` display characters (fmt pads by code points only in some versions).
std::string pad_right(const std::string& s, size_t width) {
  const size_t w = display_width(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}
std::string pad_left(const std::string& s, size_t width) {
  const size_t w = display_width(s);
  return w >= width ? s : std::string(width - w, ' ') + s;
}
constexpr size_t kStageColumn = 44;
}  // namespace

std::string GapRow::where(const std::string& a_name, const std::string& b_name) const {
  if (where_a == where_b || where_b.empty()) return where_a;
  if (where_a.empty()) return where_b;
  return fmt::format("{}: {}; {}: {}", a_name, where_a, b_name, where_b);
}

Breakdown breakdown(const JourneyTotals& jt, const std::string& kind_prefix) {
  Breakdown out;
  std::vector<uint32_t> order;                 // stage keys in first-seen order
  std::map<uint32_t, size_t> index;            // stage key -> position in order
  std::vector<std::vector<double>> per_stage;  // per journey values (µs)
  std::vector<double> totals;
  std::vector<bool> included(jt.names.size(), false);  // kinds with the prefix
  for (auto& j : jt.finished) {
    const std::string& kind = jt.names[j.kind];
    if (!kind_prefix.empty() && kind.rfind(kind_prefix, 0) != 0) continue;
    included[j.kind] = true;
    std::map<size_t, double> mine;
    for (auto& [key, us] : j.stage_us) {
      auto it = index.find(key);
      if (it == index.end()) {
        it = index.emplace(key, order.size()).first;
        order.push_back(key);
        per_stage.emplace_back(totals.size(), 0.0);  // zero for earlier journeys
      }
      mine[it->second] = us;
    }
    for (size_t s = 0; s < per_stage.size(); ++s) per_stage[s].push_back(mine.count(s) ? mine[s] : 0.0);
    totals.push_back(j.total_us);
  }
  out.journeys = totals.size();
  if (totals.empty()) return out;
  // Time per place of each stage, under the scenario's names (core/result_names.h), in exact ticks.
  std::vector<std::map<std::string, uint64_t>> where_time(order.size());
  std::map<uint32_t, std::string> scenario_name;  // model name -> scenario name
  for (auto& [k, ticks] : jt.where_ticks) {
    const auto& [kind, key, where] = k;
    if (!included[kind]) continue;
    auto s = index.find(key);
    if (s == index.end()) continue;
    auto n = scenario_name.find(where);
    if (n == scenario_name.end()) n = scenario_name.emplace(where, result_names()(jt.names[where])).first;
    where_time[s->second][n->second] += ticks;
  }
  double sum = 0;
  for (double t : totals) sum += t;
  out.mean_total_us = sum / static_cast<double>(totals.size());
  out.p50_total_us = percentile(totals, 0.5);
  out.p99_total_us = percentile(totals, 0.99);
  for (size_t s = 0; s < order.size(); ++s) {
    StageStats st;
    st.stage = jt.names[jt.keys[order[s]].first];
    st.cause = jt.names[jt.keys[order[s]].second];
    double ssum = 0;
    for (double v : per_stage[s]) {
      ssum += v;
      if (v > 0) ++st.journeys_with;
    }
    st.mean_us = ssum / static_cast<double>(totals.size());
    st.p50_us = percentile(per_stage[s], 0.5);
    st.p99_us = percentile(per_stage[s], 0.99);
    st.share = out.mean_total_us > 0 ? st.mean_us / out.mean_total_us : 0;
    // Every place the stage took time, most first: in a ping-pong both hosts' NICs fetch
    // descriptors, so one name would put half the stage on the wrong host.
    std::vector<std::pair<uint64_t, std::string>> places;
    for (auto& [w, t] : where_time[s])
      if (t > 0 && !w.empty()) places.emplace_back(t, w);
    std::stable_sort(places.begin(), places.end(), [](auto& a, auto& b) { return a.first > b.first; });
    for (auto& [t, w] : places) st.where += (st.where.empty() ? "" : ", ") + w;
    if (st.where.empty())  // a stage of zero length: still say where it was marked
      for (auto& [w, t] : where_time[s])
        if (!w.empty()) { st.where = w; break; }
    out.stages.push_back(std::move(st));
  }
  return out;
}

Breakdown breakdown(const std::vector<Journey>& journeys, const std::string& kind_prefix) {
  JourneyLog log;
  for (auto& j : journeys) {
    if (!j.finished || j.marks.empty()) continue;
    const auto& m0 = j.marks.front();
    JourneyId id = log.begin(j.kind, m0.t, m0.stage, m0.where, m0.cause);
    for (size_t i = 1; i < j.marks.size(); ++i) log.mark(id, j.marks[i].t, j.marks[i].stage, j.marks[i].where, j.marks[i].cause);
    log.finish(id, j.end);
  }
  return breakdown(log.totals(), kind_prefix);
}

nlohmann::json Breakdown::to_json() const {
  nlohmann::json st = nlohmann::json::array();
  for (auto& s : stages)
    st.push_back({{"stage", s.stage}, {"cause", s.cause}, {"where", s.where}, {"mean_us", s.mean_us},
                  {"p50_us", s.p50_us}, {"p99_us", s.p99_us}, {"share", s.share},
                  {"journeys_with", s.journeys_with}});
  return {{"journeys", journeys}, {"mean_total_us", mean_total_us}, {"p50_total_us", p50_total_us},
          {"p99_total_us", p99_total_us}, {"stages", st}};
}

Breakdown Breakdown::from_json(const nlohmann::json& j) {
  Breakdown b;
  b.journeys = j.value("journeys", size_t{0});
  b.mean_total_us = j.value("mean_total_us", 0.0);
  b.p50_total_us = j.value("p50_total_us", 0.0);
  b.p99_total_us = j.value("p99_total_us", 0.0);
  for (auto& s : j.value("stages", nlohmann::json::array())) {
    StageStats st;
    st.stage = s.value("stage", "");
    st.cause = s.value("cause", "");
    st.where = s.value("where", "");
    st.mean_us = s.value("mean_us", 0.0);
    st.p50_us = s.value("p50_us", 0.0);
    st.p99_us = s.value("p99_us", 0.0);
    st.share = s.value("share", 0.0);
    st.journeys_with = s.value("journeys_with", size_t{0});
    b.stages.push_back(std::move(st));
  }
  return b;
}

std::vector<GapRow> gap(const Breakdown& a, const Breakdown& b) {
  std::vector<GapRow> rows;
  std::map<std::pair<std::string, std::string>, size_t> idx;
  auto add = [&](const StageStats& s, bool is_b) {
    auto key = std::make_pair(s.stage, s.cause);
    auto it = idx.find(key);
    if (it == idx.end()) {
      it = idx.emplace(key, rows.size()).first;
      rows.push_back({s.stage, s.cause, "", "", 0, 0, 0});
    }
    auto& r = rows[it->second];
    (is_b ? r.b_us : r.a_us) = s.mean_us;
    (is_b ? r.where_b : r.where_a) = s.where;
  };
  for (auto& s : a.stages) add(s, false);
  for (auto& s : b.stages) add(s, true);
  for (auto& r : rows) r.delta_us = r.b_us - r.a_us;
  rows.erase(std::remove_if(rows.begin(), rows.end(), [](const GapRow& r) { return std::fabs(r.delta_us) < 0.005; }),
             rows.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const GapRow& x, const GapRow& y) { return std::fabs(x.delta_us) > std::fabs(y.delta_us); });
  return rows;
}

std::string gap_summary(const Breakdown& a, const Breakdown& b, const std::vector<GapRow>& rows,
                        const std::string& a_name, const std::string& b_name) {
  double d = b.mean_total_us - a.mean_total_us;
  std::string s = fmt::format("Per measured message, {} takes {:.1f} µs and {} takes {:.1f} µs: {} is {:.1f} µs {}.",
                              a_name, a.mean_total_us, b_name, b.mean_total_us, b_name, std::fabs(d),
                              d >= 0 ? "slower" : "faster");
  if (rows.empty()) return s + " No stage differs.";
  double explained = 0;
  int n = 0;
  for (auto& r : rows) {
    if (n == 3) break;
    s += fmt::format(" {} {} {:.1f} µs{}{}.", n == 0 ? "The largest contributor is" : "Next,",
                     label(r.stage, r.cause), std::fabs(r.delta_us), r.delta_us >= 0 ? " more" : " less",
                     r.where(a_name, b_name).empty() ? "" : " (at " + r.where(a_name, b_name) + ")");
    explained += r.delta_us;
    ++n;
  }
  if (std::fabs(d) > 1e-9)
    s += fmt::format(" These {} stages account for {:.0f}% of the difference.", n, 100.0 * explained / d);
  return s;
}

std::string format_breakdown(const Breakdown& b) {
  std::string out = fmt::format("{} measured messages, one-way latency mean {:.2f} µs, p50 {:.2f} µs, p99 {:.2f} µs\n\n",
                                b.journeys, b.mean_total_us, b.p50_total_us, b.p99_total_us);
  size_t w = kStageColumn;
  for (auto& s : b.stages) w = std::max(w, display_width(label(s.stage, s.cause)));
  out += fmt::format("{} {} {} {} {}  {}\n", pad_right("stage (cause)", w), pad_left("mean µs", 10),
                     pad_left("p50 µs", 10), pad_left("p99 µs", 10), pad_left("share", 7), "where");
  double sum = 0;
  for (auto& s : b.stages) {
    out += fmt::format("{} {:>10.2f} {:>10.2f} {:>10.2f} {:>6.1f}%  {}\n", pad_right(label(s.stage, s.cause), w),
                       s.mean_us, s.p50_us, s.p99_us, 100.0 * s.share, s.where);
    sum += s.mean_us;
  }
  out += fmt::format("{} {:>10.2f}\n", pad_right("total", w), sum);
  return out;
}

std::string format_gap(const std::vector<GapRow>& rows, const std::string& a_name, const std::string& b_name) {
  size_t w = kStageColumn;
  for (auto& r : rows) w = std::max(w, display_width(label(r.stage, r.cause)));
  // Each run's column is as wide as its name (at least 12), so a long name is not cut. Where the
  // two runs' places differ, both are listed as "A: ...; B: ..." (the runs as explain names them).
  const size_t wa = std::max<size_t>(12, display_width(a_name)), wb = std::max<size_t>(12, display_width(b_name));
  std::string out = fmt::format("{} {} {} {}  {}\n", pad_right("stage (cause)", w), pad_left(a_name, wa),
                                pad_left(b_name, wb), pad_left("delta µs", 12), "where");
  for (auto& r : rows)
    out += fmt::format("{} {:>{}.2f} {:>{}.2f} {:>+12.2f}  {}\n", pad_right(label(r.stage, r.cause), w), r.a_us, wa,
                       r.b_us, wb, r.delta_us, r.where("A", "B"));
  return out;
}

}  // namespace nicsim
