// Fidelity guard: compare a run's result.json `metrics` and `counters` with a stored
// baseline, each value within the relative tolerance of the first tolerance rule whose pattern
// matches its path. Header-only so the guard program (tests/fidelity/fidelity_check.cpp), its
// unit test (tests/unit/fidelity_compare.cpp) and `nicsim report` (cli/report.cpp) share one implementation.
#pragma once
#include <algorithm>
#include <cmath>
#include <fnmatch.h>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace nicsim::fidelity {

/// One tolerance class: every leaf whose flattened path matches `pattern` (fnmatch(3) glob,
/// without FNM_PATHNAME, so `*` also crosses dots; `[` must be written `\[`) may differ from the
/// baseline by at most `rel` (a fraction: 0.005 = 0.5%) of the baseline's magnitude. rel = 0
/// means exact. `why` is the reason/source printed with a failure.
struct Rule {
  std::string pattern;
  double rel = 0.0;
  std::string why;
};

/// Rules from tests/fidelity/tolerances.json: {"rules": [{"pattern", "rel", "why"}, ...]}.
/// Throws nlohmann::json::exception on a malformed file.
inline std::vector<Rule> rules_from_json(const nlohmann::json& j) {
  std::vector<Rule> rules;
  for (const auto& r : j.at("rules"))
    rules.push_back(Rule{r.at("pattern").get<std::string>(), r.at("rel").get<double>(), r.value("why", std::string{})});
  return rules;
}

/// Flatten `j` to (path, leaf) pairs in document order: objects add ".key", arrays "[i]".
/// `prefix` is the path of `j` itself ("metrics", "counters").
inline void flatten(const nlohmann::json& j, const std::string& prefix, std::vector<std::pair<std::string, nlohmann::json>>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) flatten(*it, prefix + "." + it.key(), out);
  } else if (j.is_array()) {
    out.emplace_back(prefix + ".#size", j.size());  // a changed length is itself a difference
    for (size_t i = 0; i < j.size(); ++i) flatten(j[i], prefix + "[" + std::to_string(i) + "]", out);
  } else {
    out.emplace_back(prefix, j);
  }
}

/// The first rule matching `path`, or nullptr (then the value must be equal: exact).
inline const Rule* rule_for(const std::string& path, const std::vector<Rule>& rules) {
  for (const auto& r : rules)
    if (::fnmatch(r.pattern.c_str(), path.c_str(), 0) == 0) return &r;
  return nullptr;
}

/// One compared leaf.
struct Entry {
  std::string path;
  nlohmann::json base, run;  // run is null when missing
  double rel_diff = 0.0;     // |run - base| / |base| for numbers (inf when base is 0 and run is not); 0 or 1 otherwise
  double tol = 0.0;          // the rule's rel (0 = exact)
  std::string rule;          // the matching rule's pattern ("" = no rule: exact)
  bool ok = true;
  std::string note;          // "missing in the run", "type changed", ...
};

/// Result of one comparison: every baseline leaf, and the run's leaves the baseline lacks.
struct Report {
  std::vector<Entry> entries;     // one per baseline leaf, in document order
  std::vector<std::string> added; // leaves in the run but not in the baseline (allowed)
  size_t failures() const {
    return static_cast<size_t>(std::count_if(entries.begin(), entries.end(), [](const Entry& e) { return !e.ok; }));
  }
  bool ok() const { return failures() == 0; }
};

/// Compare `run` (a result.json, or anything with "metrics" and "counters") with `baseline` (same
/// keys). A baseline leaf missing from the run fails; a leaf only in the run is listed in `added`
/// and passes (new counters may appear). Numbers pass when |run - base| <= rel * |base| (so a
/// zero baseline must stay exactly zero); any other value (string, bool, null) must be equal, as
/// must a number's replacement by a non-number.
inline Report compare(const nlohmann::json& baseline, const nlohmann::json& run, const std::vector<Rule>& rules) {
  Report rep;
  for (const char* section : {"metrics", "counters"}) {
    std::vector<std::pair<std::string, nlohmann::json>> b, r;
    if (baseline.contains(section)) flatten(baseline.at(section), section, b);
    if (run.contains(section)) flatten(run.at(section), section, r);
    std::vector<std::pair<std::string, const nlohmann::json*>> rsorted;
    for (auto& [p, v] : r) rsorted.emplace_back(p, &v);
    std::sort(rsorted.begin(), rsorted.end(), [](auto& x, auto& y) { return x.first < y.first; });
    auto find = [&](const std::string& p) -> const nlohmann::json* {
      auto it = std::lower_bound(rsorted.begin(), rsorted.end(), p, [](auto& x, const std::string& k) { return x.first < k; });
      return it != rsorted.end() && it->first == p ? it->second : nullptr;
    };
    std::vector<std::string> bpaths;
    for (auto& [path, bv] : b) {
      bpaths.push_back(path);
      Entry e;
      e.path = path;
      e.base = bv;
      const Rule* rule = rule_for(path, rules);
      e.tol = rule ? rule->rel : 0.0;
      e.rule = rule ? rule->pattern : "";
      const nlohmann::json* rv = find(path);
      if (!rv) {
        e.ok = false;
        e.note = "missing in the run";
        e.rel_diff = 1.0;
      } else {
        e.run = *rv;
        if (bv.is_number() && rv->is_number()) {
          const double x = bv.get<double>(), y = rv->get<double>();
          const double d = std::fabs(y - x);
          e.rel_diff = x != 0.0 ? d / std::fabs(x) : (d == 0.0 ? 0.0 : INFINITY);
          e.ok = d <= e.tol * std::fabs(x);
        } else {
          e.ok = bv == *rv;
          e.rel_diff = e.ok ? 0.0 : 1.0;
          if (!e.ok && bv.type() != rv->type()) e.note = "type changed";
        }
      }
      rep.entries.push_back(std::move(e));
    }
    std::sort(bpaths.begin(), bpaths.end());
    for (auto& [p, v] : rsorted)
      if (!std::binary_search(bpaths.begin(), bpaths.end(), p)) rep.added.push_back(p);
  }
  return rep;
}

}  // namespace nicsim::fidelity
