#include "core/params.h"
#include <algorithm>
#include <cctype>

namespace nicsim {

const char* kind_name(ParamKind k) {
  switch (k) {
    case ParamKind::Int: return "integer";
    case ParamKind::Real: return "number";
    case ParamKind::Bool: return "boolean";
    case ParamKind::String: return "string";
  }
  return "?";
}

namespace {
ParamSpec spec(std::string name, ParamKind kind, ParamValue def, std::optional<double> min, std::optional<double> max,
               std::vector<std::string> choices, std::string unit, std::string doc, std::string source) {
  ParamSpec s;
  s.name = std::move(name);
  s.kind = kind;
  s.def = std::move(def);
  s.min = min;
  s.max = max;
  s.choices = std::move(choices);
  s.unit = std::move(unit);
  s.doc = std::move(doc);
  s.source = std::move(source);
  return s;
}
}  // namespace

ParamSpec int_param(std::string name, int64_t def, std::optional<double> min, std::optional<double> max,
                    std::string unit, std::string doc, std::string source) {
  return spec(std::move(name), ParamKind::Int, def, min, max, {}, std::move(unit), std::move(doc), std::move(source));
}
ParamSpec real_param(std::string name, double def, std::optional<double> min, std::optional<double> max,
                     std::string unit, std::string doc, std::string source) {
  return spec(std::move(name), ParamKind::Real, def, min, max, {}, std::move(unit), std::move(doc), std::move(source));
}
ParamSpec bool_param(std::string name, bool def, std::string doc, std::string source) {
  return spec(std::move(name), ParamKind::Bool, def, {}, {}, {}, "", std::move(doc), std::move(source));
}
ParamSpec string_param(std::string name, std::string def, std::vector<std::string> choices, std::string doc,
                       std::string source) {
  return spec(std::move(name), ParamKind::String, std::move(def), {}, {}, std::move(choices), "", std::move(doc),
              std::move(source));
}

ParamSpec int_set_param(std::string name, int64_t def, std::vector<std::pair<int64_t, int64_t>> accepted,
                        std::string unit, std::string doc, std::string source) {
  if (accepted.empty()) throw std::logic_error("int_set_param " + name + ": no accepted values");
  ParamSpec s = int_param(std::move(name), def, static_cast<double>(accepted.front().first),
                          static_cast<double>(accepted.back().second), std::move(unit), std::move(doc), std::move(source));
  s.accepted = std::move(accepted);
  return s;
}

bool int_accepted(const ParamSpec& spec, int64_t v) {
  const double d = static_cast<double>(v);
  if ((spec.min && d < *spec.min) || (spec.max && d > *spec.max)) return false;
  if (spec.accepted.empty()) return true;
  return std::any_of(spec.accepted.begin(), spec.accepted.end(),
                     [v](const std::pair<int64_t, int64_t>& r) { return v >= r.first && v <= r.second; });
}

std::string accepted_text(const ParamSpec& spec) {
  std::string s;
  for (const auto& r : spec.accepted) {
    if (!s.empty()) s += ", ";
    s += r.first == r.second ? std::to_string(r.first) : std::to_string(r.first) + "-" + std::to_string(r.second);
  }
  return s;
}

ParamValues::ParamValues(const ParamSchema& schema) {
  for (auto& s : schema) values_[s.name] = s.def;
}

const ParamValue& ParamValues::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw std::out_of_range("parameter '" + name + "' is not defined");
  return it->second;
}
int64_t ParamValues::i(const std::string& name) const { return std::get<int64_t>(get(name)); }
double ParamValues::r(const std::string& name) const {
  const auto& v = get(name);
  if (auto p = std::get_if<int64_t>(&v)) return static_cast<double>(*p);
  return std::get<double>(v);
}
bool ParamValues::b(const std::string& name) const { return std::get<bool>(get(name)); }
const std::string& ParamValues::s(const std::string& name) const { return std::get<std::string>(get(name)); }

nlohmann::json ParamValues::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& kv : values_) {
    auto& slot = j[kv.first];  // (not a structured binding: C++20 lambdas may not capture one before clang 16)
    std::visit([&slot](auto&& x) { slot = x; }, kv.second);
  }
  return j;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                                          std::tolower(static_cast<unsigned char>(b[j - 1]))
                                      ? 0
                                      : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string nearest_name(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = SIZE_MAX;
  for (auto& c : candidates) {
    size_t d = edit_distance(word, c);
    if (d < best_d) { best_d = d; best = c; }
  }
  size_t limit = std::max<size_t>(2, word.size() / 3);
  if (best_d <= limit) return best;
  // A truncated name ("linux-2.4.20" for "linux-2.4.20-i386", "xeon" for "xeon-prestonia"): the
  // one candidate it is a prefix of (case-insensitive, at least 3 characters).
  if (word.size() < 3) return {};
  auto lower = [](std::string x) {
    for (auto& ch : x) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return x;
  };
  const std::string w = lower(word);
  std::string only;
  for (auto& c : candidates)
    if (lower(c).rfind(w, 0) == 0) {
      if (!only.empty()) return {};
      only = c;
    }
  return only;
}

}  // namespace nicsim
