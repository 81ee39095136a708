#include "cli/sweep_plan.h"
#include "cli/executor.h"
#include "core/results.h"
#include "platforms/scenario.h"
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <set>
#include <unistd.h>

namespace nicsim {
namespace fs = std::filesystem;

namespace {

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t p = s.find(sep, start);
    out.emplace_back(s.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start));
    if (p == std::string_view::npos) break;
    start = p + 1;
  }
  return out;
}

bool is_integer_text(const std::string& s) {
  size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  if (i >= s.size()) return false;
  for (; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

/// A finite decimal number (integer, decimal or exponent form).
std::optional<double> number_of(const std::string& s) {
  if (s.empty()) return std::nullopt;
  for (char c : s)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-' || c == 'e' || c == 'E'))
      return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

/// Decimal places a number's text carries ("0.25" -> 2, "1e-3" -> 3, "2.5e1" -> 0). An exponent
/// beyond ±9999 counts as ±9999 (the caller rejects more than kMaxRangeDecimals anyway).
int decimals_of(const std::string& s) {
  size_t e = s.find_first_of("eE");
  std::string mant = s.substr(0, e);
  long long exp = 0;
  if (e != std::string::npos) {
    const char* b = s.c_str() + e + 1;
    if (*b == '+') ++b;
    auto [p, ec] = std::from_chars(b, s.c_str() + s.size(), exp);
    if (ec == std::errc::result_out_of_range) exp = *b == '-' ? -10000 : 10000;
    exp = std::clamp(exp, -9999LL, 9999LL);
  }
  size_t dot = mant.find('.');
  long long d = dot == std::string::npos ? 0 : static_cast<long long>(mant.size() - dot - 1);
  return static_cast<int>(std::clamp(d - exp, 0LL, 100000LL));
}

/// Decimal ranges are computed in double precision: more decimals than this, or values beyond
/// kMaxRangeMagnitude, cannot be printed faithfully (a double carries 15-17 significant digits;
/// above 2^53 ≈ 9.0e15 it skips integers).
constexpr int kMaxRangeDecimals = 15;
constexpr double kMaxRangeMagnitude = 1e15;

constexpr size_t kMaxAxisValues = 100000;
constexpr size_t kMaxPoints = 1000000;

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string last_segment(const std::string& key) {
  size_t p = key.rfind('.');
  return p == std::string::npos ? key : key.substr(p + 1);
}

nlohmann::json read_json_file(const fs::path& p) {
  std::ifstream f(p);
  if (!f) throw std::runtime_error("cannot read " + p.string());
  return nlohmann::json::parse(f);
}

}  // namespace

std::vector<std::string> parse_range(std::string_view item_view) {
  std::string item(item_view);
  auto parts = split(item, ':');
  if (parts.size() != 3)
    throw SweepUsageError(fmt::format("bad range '{}': write START:STOP:STEP (e.g. 0:20000:2000)", item));
  for (auto& p : parts) p = trim(p);
  std::optional<double> a = number_of(parts[0]), b = number_of(parts[1]), st = number_of(parts[2]);
  if (!a || !b || !st)
    throw SweepUsageError(fmt::format("bad range '{}': START, STOP and STEP must be numbers", item));
  if (*st == 0) throw SweepUsageError(fmt::format("bad range '{}': STEP must not be 0", item));
  const bool integers = is_integer_text(parts[0]) && is_integer_text(parts[1]) && is_integer_text(parts[2]);
  if (!integers) {
    for (size_t k = 0; k < 3; ++k) {
      if (std::fabs(k == 0 ? *a : k == 1 ? *b : *st) > kMaxRangeMagnitude)
        throw SweepUsageError(fmt::format("bad range '{}': {} is too large for a decimal range (limit ±{:g}; "
                                          "list such values instead)", item, parts[k], kMaxRangeMagnitude));
      if (decimals_of(parts[k]) > kMaxRangeDecimals)
        throw SweepUsageError(fmt::format("bad range '{}': {} has more than {} decimal places", item, parts[k],
                                          kMaxRangeDecimals));
    }
  }
  if ((*b - *a) / *st < -1e-9)
    throw SweepUsageError(fmt::format("bad range '{}': STEP {} goes away from STOP {} (use a {} step)", item,
                                      parts[2], parts[1], *st > 0 ? "negative" : "positive"));
  std::vector<std::string> out;
  if (integers) {
    // 128-bit arithmetic over [INT64_MIN, UINT64_MAX] (int64 values, and seeds up to 2^64-1):
    // STOP - START and the values in between cannot overflow.
    const __int128 lo = -(static_cast<__int128>(1) << 63), hi = (static_cast<__int128>(1) << 64) - 1;
    __int128 v[3] = {0, 0, 0};
    for (size_t k = 0; k < 3; ++k) {
      const std::string& t = parts[k];
      size_t i = (t[0] == '+' || t[0] == '-') ? 1 : 0;
      __int128 mag = 0;
      for (; i < t.size() && mag <= hi; ++i) mag = mag * 10 + (t[i] - '0');
      v[k] = t[0] == '-' ? -mag : mag;
      if (mag > hi || v[k] < lo)
        throw SweepUsageError(fmt::format("bad range '{}': {} is outside the integer range {}..{}", item, t,
                                          INT64_MIN, UINT64_MAX));
    }
    const __int128 n = (v[1] - v[0]) / v[2] + 1;
    if (n > static_cast<__int128>(kMaxAxisValues))
      throw SweepUsageError(fmt::format("range '{}' has more than {} values", item, kMaxAxisValues));
    for (__int128 i = 0; i < n; ++i) {
      __int128 x = v[0] + i * v[2];
      out.push_back(x < 0 ? std::to_string(static_cast<int64_t>(x)) : std::to_string(static_cast<uint64_t>(x)));
    }
    return out;
  }
  double span = (*b - *a) / *st;
  double nf = std::floor(span + 1e-9) + 1;
  if (nf > static_cast<double>(kMaxAxisValues))
    throw SweepUsageError(fmt::format("range '{}' has {:.0f} values (limit {})", item, nf, kMaxAxisValues));
  int dec = std::max({decimals_of(parts[0]), decimals_of(parts[1]), decimals_of(parts[2])});
  size_t n = static_cast<size_t>(nf);
  for (size_t i = 0; i < n; ++i) {
    double v = *a + static_cast<double>(i) * *st;
    if (std::fabs(v) < 0.5 * std::pow(10.0, -dec)) v = 0;  // no "-0.0"
    // Keep a decimal point so TOML reads the value as a float, as the user wrote one.
    out.push_back(dec == 0 ? fmt::format("{:.1f}", v) : fmt::format("{:.{}f}", v, dec));
  }
  return out;
}

std::vector<std::string> representative_values(const Axis& axis) {
  // Indices of the min/max integer and decimal values.
  std::optional<size_t> imin, imax, dmin, dmax;
  std::vector<bool> keep(axis.values.size(), false);
  auto update = [&](std::optional<size_t>& lo, std::optional<size_t>& hi, size_t i, double v) {
    if (!lo || v < *number_of(axis.values[*lo])) lo = i;
    if (!hi || v > *number_of(axis.values[*hi])) hi = i;
  };
  for (size_t i = 0; i < axis.values.size(); ++i) {
    const std::string& t = axis.values[i];
    auto v = number_of(t);
    if (!v) keep[i] = true;
    else if (is_integer_text(t)) update(imin, imax, i, *v);
    else update(dmin, dmax, i, *v);
  }
  for (auto& k : {imin, imax, dmin, dmax})
    if (k) keep[*k] = true;
  std::vector<std::string> out;
  for (size_t i = 0; i < axis.values.size(); ++i)
    if (keep[i]) out.push_back(axis.values[i]);
  return out;
}

Axis parse_vary(std::string_view spec_view) {
  std::string spec(spec_view);
  size_t eq = spec.find('=');
  if (eq == std::string::npos)
    throw SweepUsageError(fmt::format("--vary '{}': write KEY=LIST or KEY=START:STOP:STEP "
                                      "(e.g. hosts.*.nics.eth1.InterruptThrottleRate=0:20000:2000)",
                                      spec));
  Axis ax;
  ax.key = trim(spec.substr(0, eq));
  if (ax.key.empty()) throw SweepUsageError(fmt::format("--vary '{}': the key before '=' is empty", spec));
  std::string rest = spec.substr(eq + 1);
  if (trim(rest).empty()) throw SweepUsageError(fmt::format("--vary '{}': no values after '='", spec));
  for (auto& raw : split(rest, ',')) {
    std::string item = trim(raw);
    if (item.empty())
      throw SweepUsageError(fmt::format("--vary '{}': empty value in the list (two commas, or a trailing comma?)", spec));
    auto parts = split(item, ':');
    bool all_numeric = parts.size() >= 2 && std::all_of(parts.begin(), parts.end(), [](auto& p) {
                         return number_of(trim(p)).has_value();
                       });
    if (parts.size() == 3 || all_numeric) {
      try {
        for (auto& v : parse_range(item)) ax.values.push_back(v);
      } catch (const SweepUsageError& e) {
        throw SweepUsageError(fmt::format("--vary {}: {}", ax.key, e.what()));
      }
    } else {
      ax.values.push_back(item);
    }
  }
  if (ax.values.size() > kMaxAxisValues)
    throw SweepUsageError(fmt::format("--vary {}: {} values (limit {})", ax.key, ax.values.size(), kMaxAxisValues));
  std::set<std::string> seen;
  for (auto& v : ax.values) {
    if (!seen.insert(v).second) throw SweepUsageError(fmt::format("--vary {}: value '{}' appears twice", ax.key, v));
    if (ax.key == "seed") {
      uint64_t s = 0;
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), s);
      if (ec != std::errc() || p != v.data() + v.size())
        throw SweepUsageError(fmt::format("--vary seed: '{}' is not a seed (an integer from 0 to {})", v, UINT64_MAX));
    }
  }
  return ax;
}

Shard parse_shard(std::string_view spec_view) {
  std::string spec = trim(spec_view);
  auto parts = split(spec, '/');
  auto bad = [&] {
    return SweepUsageError(fmt::format("--shard '{}': write I/N with 0 <= I < N (e.g. "
                                       "--shard $SLURM_ARRAY_TASK_ID/16)", spec));
  };
  if (parts.size() != 2) throw bad();
  unsigned i = 0, n = 0;
  for (auto [s, out] : {std::pair{parts[0], &i}, std::pair{parts[1], &n}}) {
    s = trim(s);
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size()) throw bad();
  }
  if (n == 0 || i >= n) throw bad();
  return {i, n};
}

std::string point_id(const std::vector<Axis>& axes, const std::vector<std::string>& values) {
  if (axes.empty()) return "base";
  std::vector<std::pair<std::string, std::string>> kv;
  for (size_t a = 0; a < axes.size(); ++a) kv.emplace_back(axes[a].key, values.at(a));
  std::sort(kv.begin(), kv.end());
  // The readable part: whole key=value parts while they fit in 100 characters, so no value is cut
  // in the middle (a first part longer than that alone keeps its start, marked "..."). The hash
  // tells points apart either way.
  constexpr size_t kMaxReadable = 100;
  std::string canon, readable;
  bool cut = false;
  for (auto& [k, v] : kv) {
    canon += k + "=" + v + "\n";
    std::string part = last_segment(k) + "=" + v;
    for (char& c : part)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '=' || c == '+' || c == '-'))
        c = '_';
    if (cut) continue;
    if (readable.empty() && part.size() > kMaxReadable) {
      readable = part.substr(0, kMaxReadable - 3) + "...";
      cut = true;
    } else if (readable.size() + (readable.empty() ? 0 : 2) + part.size() > kMaxReadable) {
      readable += "--...";
      cut = true;
    } else {
      readable += (readable.empty() ? "" : "--") + part;
    }
  }
  uint64_t h = fnv1a(canon);
  return fmt::format("{}--{:08x}", readable, static_cast<uint32_t>(h ^ (h >> 32)));
}

std::vector<Point> cartesian(const std::vector<Axis>& axes) {
  std::set<std::string> keys;
  size_t total = 1;
  for (auto& a : axes) {
    if (!keys.insert(a.key).second) throw SweepUsageError(fmt::format("--vary {} is given twice", a.key));
    if (a.values.empty()) throw SweepUsageError(fmt::format("--vary {} has no values", a.key));
    if (total > kMaxPoints / a.values.size())
      throw SweepUsageError(fmt::format("the sweep has more than {} points; split it", kMaxPoints));
    total *= a.values.size();
  }
  std::vector<Point> pts;
  pts.reserve(total);
  std::vector<size_t> idx(axes.size(), 0);
  for (size_t n = 0; n < total; ++n) {
    Point p;
    p.index = n;
    for (size_t a = 0; a < axes.size(); ++a) p.values.push_back(axes[a].values[idx[a]]);
    p.id = point_id(axes, p.values);
    pts.push_back(std::move(p));
    for (size_t a = axes.size(); a-- > 0;) {  // last axis fastest
      if (++idx[a] < axes[a].values.size()) break;
      idx[a] = 0;
    }
  }
  return pts;
}

std::vector<Point> shard_points(const std::vector<Point>& points, Shard s) {
  std::vector<Point> out;
  for (auto& p : points)
    if (p.index % s.count == s.index) out.push_back(p);
  return out;
}

nlohmann::json SweepPlan::to_json() const {
  nlohmann::json ax = nlohmann::json::array();
  for (auto& a : axes) ax.push_back({{"key", a.key}, {"values", a.values}});
  return {{"nicsim_version", version()}, {"scenario", scenario}, {"sets", sets}, {"axes", ax}, {"metrics", metrics}};
}

SweepPlan SweepPlan::from_json(const nlohmann::json& j) {
  try {
    SweepPlan p;
    p.scenario = j.at("scenario").get<std::string>();
    p.sets = j.at("sets").get<std::vector<std::string>>();
    for (auto& a : j.at("axes")) p.axes.push_back({a.at("key").get<std::string>(), a.at("values").get<std::vector<std::string>>()});
    p.metrics = j.at("metrics").get<std::vector<std::string>>();
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw SweepUsageError(std::string("not a sweep plan: ") + e.what());
  }
}

fs::path point_dir(const fs::path& dir, const Point& p) { return dir / "points" / p.id; }
fs::path plan_path(const fs::path& dir) { return dir / "sweep-plan.json"; }

bool result_complete(const fs::path& result_json) {
  std::error_code ec;
  if (!fs::is_regular_file(result_json, ec)) return false;
  std::ifstream f(result_json, std::ios::binary);
  if (!f) return false;
  nlohmann::json j = nlohmann::json::parse(f, nullptr, /*allow_exceptions=*/false);
  // A run killed between writing a failed result and the sweep renaming it must not count.
  if (j.is_object() && j.contains("status") && j["status"] != "ok") return false;
  return j.is_object() && j.contains("metrics") && j["metrics"].is_object();
}

bool point_finished(const fs::path& dir, const Point& p) { return result_complete(point_dir(dir, p) / "result.json"); }

std::vector<Point> pending_points(const fs::path& dir, const std::vector<Point>& points) {
  std::vector<Point> out;
  for (auto& p : points)
    if (!point_finished(dir, p)) out.push_back(p);
  return out;
}

std::vector<Point> stale_points(const fs::path& dir, const SweepPlan& plan, const std::vector<Point>& points) {
  std::vector<Point> out;
  for (auto& p : points) {
    if (!point_finished(dir, p)) continue;
    nlohmann::json params;
    try {
      nlohmann::json r = read_json_file(point_dir(dir, p) / "result.json");
      if (!r.contains("params") || !r["params"].is_object() || r["params"].empty()) continue;
      params = std::move(r["params"]);
    } catch (const std::exception&) {
      continue;
    }
    const RunJob j = job_for(plan, p, dir);
    try {
      if (load_scenario(j.scenario.string(), j.sets, j.seed).to_json() != params) out.push_back(p);
    } catch (const ScenarioError&) {  // not judged: validate_sweep_scenario reports a scenario that does not load
    }
  }
  return out;
}

RunJob job_for(const SweepPlan& plan, const Point& p, const fs::path& dir) {
  RunJob j;
  j.label = p.id;
  j.scenario = plan.scenario;
  j.sets = plan.sets;
  for (size_t a = 0; a < plan.axes.size(); ++a) {
    if (plan.axes[a].key == "seed") j.seed = std::stoull(p.values[a]);
    else j.sets.push_back(plan.axes[a].key + "=" + p.values[a]);
  }
  j.out_dir = point_dir(dir, p);
  return j;
}

SweepPlan read_plan(const fs::path& dir) {
  fs::path pp = plan_path(dir);
  if (!fs::exists(pp)) throw SweepUsageError(fmt::format("{}: no sweep-plan.json (not a sweep directory)", dir.string()));
  try {
    return SweepPlan::from_json(read_json_file(pp));
  } catch (const nlohmann::json::exception& e) {
    throw SweepUsageError(fmt::format("{}: {}", pp.string(), e.what()));
  } catch (const SweepUsageError& e) {
    throw SweepUsageError(fmt::format("{}: {}", pp.string(), e.what()));
  }
}

void check_plan_fits(const fs::path& dir, const SweepPlan& plan) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw SweepUsageError(fmt::format("--out: '{}' exists and is not a directory", dir.string()));
  if (fs::exists(plan_path(dir))) {
    SweepPlan old = read_plan(dir);
    if (old.scenario != plan.scenario || old.sets != plan.sets)
      throw SweepUsageError(fmt::format(
          "{} holds a sweep of {} with --set [{}]; this one is {} with --set [{}]: its points would not "
          "belong to this sweep (use another --out DIR)",
          dir.string(), old.scenario, fmt::join(old.sets, " "), plan.scenario, fmt::join(plan.sets, " ")));
  }
}

void write_plan(const fs::path& dir, const SweepPlan& plan) {
  check_plan_fits(dir, plan);
  write_json_atomic(plan_path(dir), plan.to_json());
}

nlohmann::json value_json(const std::string& text) {
  if (is_integer_text(text)) {
    int64_t v = 0;
    const char* b = text.data() + (text[0] == '+' ? 1 : 0);
    auto [p, ec] = std::from_chars(b, text.data() + text.size(), v);
    if (ec == std::errc() && p == text.data() + text.size()) return v;
    uint64_t u = 0;  // a seed up to 2^64-1
    auto [pu, ecu] = std::from_chars(b, text.data() + text.size(), u);
    if (text[0] != '-' && ecu == std::errc() && pu == text.data() + text.size()) return u;
  }
  if (auto d = number_of(text)) return *d;
  if (text == "true") return true;
  if (text == "false") return false;
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') return text.substr(1, text.size() - 2);
  return text;
}

void write_point_json(const fs::path& dir, const SweepPlan& plan, const Point& p) {
  nlohmann::json vals = nlohmann::json::object();
  for (size_t a = 0; a < plan.axes.size(); ++a) vals[plan.axes[a].key] = value_json(p.values[a]);
  write_json_atomic(point_dir(dir, p) / "point.json", {{"index", p.index}, {"id", p.id}, {"values", vals}});
}

std::vector<PointRow> collect_rows(const SweepPlan& plan, const std::vector<fs::path>& dirs) {
  std::vector<PointRow> rows;
  for (auto& p : cartesian(plan.axes)) {
    PointRow r;
    r.point = p;
    r.status = "missing";
    r.metrics.assign(plan.metrics.size(), std::nullopt);
    std::optional<PointRow> failed;
    for (auto& d : dirs) {
      fs::path pd = point_dir(d, p);
      if (fs::exists(pd / "result.json")) {
        try {
          auto j = read_json_file(pd / "result.json");
          if (!j.is_object() || !j.contains("metrics") || !j["metrics"].is_object())
            throw std::runtime_error("no \"metrics\" object");
          const auto& m = j.at("metrics");
          for (size_t k = 0; k < plan.metrics.size(); ++k) {
            auto it = m.find(plan.metrics[k]);
            if (it != m.end() && it->is_number()) r.metrics[k] = it->get<double>();
          }
          r.status = "ok";
        } catch (const std::exception& e) {
          r.status = "failed";
          r.error = fmt::format("unreadable result.json: {}", e.what());
        }
        r.found_in = d;
        failed.reset();
        break;
      }
      if (!failed && fs::exists(pd / "error.json")) {
        PointRow f = r;
        f.status = "failed";
        f.found_in = d;
        try {
          auto j = read_json_file(pd / "error.json");
          f.exit_code = j.value("exit_code", -1);
          f.error = j.value("stderr_tail", "");
        } catch (const std::exception& e) {
          f.error = fmt::format("unreadable error.json: {}", e.what());
        }
        failed = f;
      }
    }
    rows.push_back(failed ? *failed : r);
  }
  return rows;
}

nlohmann::json summary_json(const SweepPlan& plan, const std::vector<PointRow>& rows) {
  nlohmann::json j = plan.to_json();
  size_t ok = 0, failed = 0, missing = 0;
  nlohmann::json pts = nlohmann::json::array();
  for (auto& r : rows) {
    (r.status == "ok" ? ok : r.status == "failed" ? failed : missing)++;
    nlohmann::json vals = nlohmann::json::object(), mets = nlohmann::json::object();
    for (size_t a = 0; a < plan.axes.size(); ++a) vals[plan.axes[a].key] = value_json(r.point.values[a]);
    for (size_t k = 0; k < plan.metrics.size(); ++k)
      mets[plan.metrics[k]] = r.metrics[k] ? nlohmann::json(*r.metrics[k]) : nlohmann::json(nullptr);
    nlohmann::json pj = {{"index", r.point.index}, {"id", r.point.id}, {"values", vals}, {"status", r.status},
                         {"metrics", mets}};
    if (r.status == "failed") {
      pj["exit_code"] = r.exit_code ? nlohmann::json(*r.exit_code) : nlohmann::json(nullptr);
      pj["error"] = r.error;
    }
    pts.push_back(std::move(pj));
  }
  j["counts"] = {{"ok", ok}, {"failed", failed}, {"missing", missing}};
  j["points"] = std::move(pts);
  return j;
}

namespace {
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}
}  // namespace

std::string summary_csv(const SweepPlan& plan, const std::vector<PointRow>& rows) {
  std::vector<std::string> head = {"index", "id"};
  for (auto& a : plan.axes) head.push_back(a.key);
  head.push_back("status");
  for (auto& m : plan.metrics) head.push_back(m);
  std::string out;
  auto line = [&](const std::vector<std::string>& f) {
    for (size_t i = 0; i < f.size(); ++i) out += (i ? "," : "") + csv_field(f[i]);
    out += "\n";
  };
  line(head);
  for (auto& r : rows) {
    std::vector<std::string> f = {std::to_string(r.point.index), r.point.id};
    for (auto& v : r.point.values) f.push_back(v);
    f.push_back(r.status);
    for (auto& m : r.metrics) f.push_back(m ? fmt::format("{}", *m) : "");
    line(f);
  }
  return out;
}

std::vector<PointRow> merge_dirs(const std::vector<fs::path>& inputs, const fs::path& out, SweepPlan* plan_out) {
  if (inputs.empty()) throw SweepUsageError("--merge needs at least one sweep directory");
  SweepPlan plan = read_plan(inputs[0]);
  for (size_t i = 1; i < inputs.size(); ++i) {
    SweepPlan o = read_plan(inputs[i]);
    auto differ = [&](const char* what) {
      return SweepUsageError(fmt::format("cannot merge {} and {}: their sweeps differ in {}", inputs[0].string(),
                                         inputs[i].string(), what));
    };
    if (o.scenario != plan.scenario) throw differ("scenario");
    if (o.sets != plan.sets) throw differ("--set");
    if (o.axes.size() != plan.axes.size()) throw differ("--vary keys");
    for (size_t a = 0; a < o.axes.size(); ++a) {
      if (o.axes[a].key != plan.axes[a].key) throw differ("--vary keys");
      if (o.axes[a].values != plan.axes[a].values) throw differ(("--vary " + plan.axes[a].key + " values").c_str());
    }
    if (o.metrics != plan.metrics) throw differ("--metric");
  }
  fs::create_directories(out);
  write_plan(out, plan);
  std::error_code ec;
  for (auto& p : cartesian(plan.axes)) {
    fs::path dst = point_dir(out, p);
    if (result_complete(dst / "result.json")) continue;
    for (auto& in : inputs) {
      fs::path src = point_dir(in, p);
      if (fs::exists(src) && fs::equivalent(src, dst, ec)) continue;
      bool has_result = result_complete(src / "result.json");
      if (!has_result && !(fs::exists(src / "error.json") && !fs::exists(dst / "error.json"))) continue;
      // Copy to a temporary name, then rename: an interrupted merge leaves no half point.
      fs::path tmp = dst;
      tmp += ".merge-tmp." + std::to_string(::getpid());
      fs::remove_all(tmp, ec);
      fs::create_directories(tmp.parent_path());
      fs::copy(src, tmp, fs::copy_options::recursive);
      fs::remove_all(dst, ec);
      fs::rename(tmp, dst);
      if (has_result) break;
    }
  }
  if (plan_out) *plan_out = plan;
  return collect_rows(plan, {out});
}

}  // namespace nicsim
