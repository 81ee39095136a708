// Parameter schemas and values.
//
// Every configurable component (platform, device, driver, workload) declares its parameters as a
// ParamSchema: name, type, default, range, unit, documentation and source. Scenario files and
// `--set` are validated against these schemas (unknown key -> nearest valid name; wrong type;
// out of range), and the values actually used are printed in results.
#pragma once
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace nicsim {

using ParamValue = std::variant<int64_t, double, bool, std::string>;

enum class ParamKind { Int, Real, Bool, String };

/// Name of a kind as a scenario author reads it ("integer", "number", "boolean", "string").
const char* kind_name(ParamKind k);

struct ParamSpec {
  std::string name;
  ParamKind kind = ParamKind::Int;
  ParamValue def = int64_t{0};
  std::optional<double> min, max;      ///< inclusive range for Int/Real
  std::vector<std::string> choices;    ///< allowed values for String (empty = any)
  std::string unit;                    ///< e.g. "ns", "µs", "1.024 µs units", "descriptors"
  std::string doc;                     ///< one line for `nicsim list --verbose` and docs
  std::string source;                  ///< datasheet section, driver file, or "estimate: ..."
  bool required = false;               ///< a scenario must set it (String: non-empty)
  /// Int: the values accepted, as inclusive intervals in ascending order, where not every value of
  /// [min, max] is one (e1000 FlowControl: 0-3 and 255); empty = all of [min, max]. The loader
  /// refuses the others and `nicsim list --verbose` prints the set.
  std::vector<std::pair<int64_t, int64_t>> accepted;
};

using ParamSchema = std::vector<ParamSpec>;

/// Helpers to declare specs tersely.
ParamSpec int_param(std::string name, int64_t def, std::optional<double> min, std::optional<double> max,
                    std::string unit, std::string doc, std::string source = "");
ParamSpec real_param(std::string name, double def, std::optional<double> min, std::optional<double> max,
                     std::string unit, std::string doc, std::string source = "");
ParamSpec bool_param(std::string name, bool def, std::string doc, std::string source = "");
ParamSpec string_param(std::string name, std::string def, std::vector<std::string> choices, std::string doc,
                       std::string source = "");
/// An Int spec accepting only the values in `accepted` (inclusive intervals, ascending; min and max
/// are its ends).
ParamSpec int_set_param(std::string name, int64_t def, std::vector<std::pair<int64_t, int64_t>> accepted,
                        std::string unit, std::string doc, std::string source = "");
/// Whether `v` lies in [min, max] of `spec` and, when it has an accepted set, in that set.
bool int_accepted(const ParamSpec& spec, int64_t v);
/// The accepted set of `spec` as text, e.g. "0-3, 255" ("" when it has none).
std::string accepted_text(const ParamSpec& spec);

/// Resolved parameter values (defaults overlaid with what a scenario set).
class ParamValues {
 public:
  ParamValues() = default;
  /// All defaults of `schema`.
  explicit ParamValues(const ParamSchema& schema);
  void set(const std::string& name, ParamValue v) { values_[name] = std::move(v); }
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  /// Typed getters. Throw std::out_of_range naming the parameter when it is absent, and
  /// std::bad_variant_access when the type differs (a programming error: schemas are typed).
  int64_t i(const std::string& name) const;
  double r(const std::string& name) const;  ///< accepts Int values too
  bool b(const std::string& name) const;
  const std::string& s(const std::string& name) const;
  nlohmann::json to_json() const;
  const std::map<std::string, ParamValue>& all() const { return values_; }

 private:
  const ParamValue& get(const std::string& name) const;
  std::map<std::string, ParamValue> values_;
};

/// Levenshtein distance (for "did you mean" suggestions).
size_t edit_distance(const std::string& a, const std::string& b);
/// The candidate closest to `word` (case-insensitive edit distance), or "" when none is close
/// enough to be a plausible misspelling (distance > max(2, len/3)); failing that, the only
/// candidate `word` (3 characters or more) is a case-insensitive prefix of (a truncated name).
std::string nearest_name(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace nicsim
