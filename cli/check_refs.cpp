#include "cli/check_refs.h"
#include "core/params.h"
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <toml++/toml.h>

namespace nicsim {
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kTopKeys = {"fast", "reference"};
const std::vector<std::string> kRefKeys = {"metric", "expected", "tolerance", "tolerance_abs", "range", "source",
                                          "known_miss", "vs"};

bool ends_with(const std::string& s, std::string_view suf) {
  return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

}  // namespace

[[noreturn]] void fail_at(const fs::path& file, const toml::source_region& where, const std::string& key,
                          const std::string& what) {
  throw RefFileError(fmt::format("{}:{}:{}: key '{}': {}", file.string(), where.begin.line, where.begin.column, key,
                                 what));
}

std::string node_type(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::array: return "an array";
    case toml::node_type::table: return "a table";
    default: return "a date/time";
  }
}

double number_or_fail(const fs::path& file, const toml::node& n, const std::string& key) {
  if (!n.is_number()) fail_at(file, n.source(), key, fmt::format("must be a number, got {}", node_type(n)));
  double v = n.is_integer() ? static_cast<double>(*n.value<int64_t>()) : *n.value<double>();
  if (!std::isfinite(v)) fail_at(file, n.source(), key, "must be a finite number");
  return v;
}

std::string string_or_fail(const fs::path& file, const toml::node& n, const std::string& key) {
  if (!n.is_string()) fail_at(file, n.source(), key, fmt::format("must be a string, got {}", node_type(n)));
  std::string s = *n.value<std::string>();
  if (s.empty()) fail_at(file, n.source(), key, "must not be empty");
  // check prints these strings to the terminal and into JUnit XML: a control character (an ESC
  // sequence, a carriage return) would act on the terminal instead of being read.
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const bool c1 = c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(s[i + 1]) < 0xA0;  // U+0080..U+009F in UTF-8
    if (c < 0x20 || c == 0x7F || c1)
      fail_at(file, n.source(), key,
              fmt::format("contains the control character U+{:04X} at byte {}: the text is printed to the terminal, "
                          "so write it without control characters",
                          c1 ? static_cast<unsigned>(static_cast<unsigned char>(s[i + 1])) : static_cast<unsigned>(c),
                          i + 1));
  }
  return s;
}

void unknown_key(const fs::path& file, const toml::key& k, const std::string& full, const std::vector<std::string>& valid,
                 const std::string& where) {
  std::string near = nearest_name(std::string(k.str()), valid);
  fail_at(file, k.source(), full,
          fmt::format("unknown key in {}{}", where,
                      near.empty() ? fmt::format(" (valid keys: {})", fmt::join(valid, ", "))
                                   : fmt::format(" (did you mean '{}'?)", near)));
}

namespace {

Reference parse_reference(const fs::path& file, const toml::table& t, size_t idx) {
  std::string base = fmt::format("reference[{}]", idx);
  Reference r;
  r.line = static_cast<int>(t.source().begin.line);
  const toml::node *expected = nullptr, *tol = nullptr, *tol_abs = nullptr, *range = nullptr;
  bool has_metric = false, has_source = false;
  for (auto&& [k, v] : t) {
    std::string name(k.str()), full = base + "." + name;
    if (name == "metric") {
      r.metric = string_or_fail(file, v, full);
      try {
        parse_metric_expr(r.metric);
      } catch (const std::invalid_argument& e) {
        fail_at(file, v.source(), full,
                fmt::format("'{}' is neither one metric name nor an expression: {} (write operators as words "
                            "between spaces: \"a / b\")",
                            r.metric, e.what()));
      }
      has_metric = true;
    } else if (name == "source") {
      r.source = string_or_fail(file, v, full);
      has_source = true;
    } else if (name == "known_miss") {
      r.known_miss = string_or_fail(file, v, full);
    } else if (name == "vs") {
      const std::string other = string_or_fail(file, v, full);
      if (!ends_with(other, ".toml") || ends_with(other, ".ref.toml"))
        fail_at(file, v.source(), full,
                fmt::format("'{}' is not a scenario file: name the other configuration's X.toml (beside this file, "
                            "e.g. vs = \"{}.toml\")",
                            other, scenario_of_ref(file).stem().string()));
      r.vs = (file.parent_path() / other).lexically_normal();
      r.vs_line = static_cast<int>(v.source().begin.line);
      r.vs_column = static_cast<int>(v.source().begin.column);
      if (*r.vs == scenario_of_ref(file).lexically_normal())
        fail_at(file, v.source(), full,
                fmt::format("'{}' is this file's own scenario: a difference needs the other configuration", other));
    } else if (name == "expected") {
      r.expected = number_or_fail(file, v, full);
      expected = &v;
    } else if (name == "tolerance") {
      r.tolerance = number_or_fail(file, v, full);
      tol = &v;
      if (*r.tolerance < 0 || *r.tolerance > 1)
        fail_at(file, v.source(), full,
                fmt::format("{} is not a fraction in [0, 1] (0.15 means 15 %; use tolerance_abs for an absolute "
                            "tolerance in the metric's unit)",
                            *r.tolerance));
    } else if (name == "tolerance_abs") {
      r.tolerance_abs = number_or_fail(file, v, full);
      tol_abs = &v;
      if (*r.tolerance_abs < 0) fail_at(file, v.source(), full, "must be >= 0");
    } else if (name == "range") {
      range = &v;
      auto* a = v.as_array();
      if (!a || a->size() != 2)
        fail_at(file, v.source(), full, "must be [low, high], two numbers (e.g. range = [60.0, 130.0])");
      double lo = number_or_fail(file, (*a)[0], full + "[0]"), hi = number_or_fail(file, (*a)[1], full + "[1]");
      if (lo > hi) fail_at(file, v.source(), full, fmt::format("low {} is above high {}: write [{}, {}]", lo, hi, hi, lo));
      r.range = {lo, hi};
    } else {
      unknown_key(file, k, full, kRefKeys, "a [[reference]]");
    }
  }
  const auto& at = t.source();
  if (!has_metric)
    fail_at(file, at, base + ".metric", "missing: name the result.json metric (e.g. metric = \"one_way_us.1B\")");
  if (!has_source)
    fail_at(file, at, base + ".source",
            "missing: say where the expected value comes from (e.g. source = \"seed 000: ... (shared/reference/...csv)\")");
  if (range) {
    for (auto [n, key] : {std::pair{expected, "expected"}, std::pair{tol, "tolerance"}, std::pair{tol_abs, "tolerance_abs"}})
      if (n) fail_at(file, n->source(), base + "." + key, "cannot be combined with range (range alone says what passes)");
    return r;
  }
  if (!expected)
    fail_at(file, at, base + ".expected",
            "missing: give expected = VALUE with tolerance = FRACTION or tolerance_abs = VALUE, or range = [low, high]");
  if (tol && tol_abs)
    fail_at(file, tol_abs->source(), base + ".tolerance_abs",
            "give either tolerance (relative) or tolerance_abs (absolute), not both");
  if (!tol && !tol_abs)
    fail_at(file, expected->source(), base + ".tolerance",
            "missing: add tolerance = 0.15 (relative, 15 %) or tolerance_abs = VALUE (absolute)");
  if (tol && *r.expected == 0)
    fail_at(file, tol->source(), base + ".tolerance",
            "a relative tolerance of expected = 0 only passes exactly 0: use tolerance_abs");
  return r;
}

std::string num(double v) { return fmt::format("{:.4g}", v); }

/// An out-of-tolerance value of a reference with known_miss becomes KnownMiss (message extended).
RefCheck& mark_known_miss(RefCheck& c) {
  if (c.verdict == Verdict::Fail && c.ref.known_miss) {
    c.verdict = Verdict::KnownMiss;
    c.message += "; known miss: " + *c.ref.known_miss;
  }
  return c;
}

/// The table's result column: the verdict, or a note that a passing known_miss is stale.
std::string result_text(const RefCheck& c) {
  if (c.verdict == Verdict::Pass && c.ref.known_miss) return "pass (known_miss can be removed)";
  return verdict_name(c.verdict);
}

}  // namespace

namespace {

bool is_op(const std::string& t) { return t == "+" || t == "-" || t == "*" || t == "/" || t == "(" || t == ")"; }

/// A number token: starts with a digit (or '.' and a digit) and parses completely.
std::optional<double> number_token(const std::string& t) {
  if (t.empty() || !(std::isdigit(static_cast<unsigned char>(t[0])) ||
                     (t[0] == '.' && t.size() > 1 && std::isdigit(static_cast<unsigned char>(t[1])))))
    return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

/// Recursive descent over MetricExpr tokens: expr := term (+|- term)*, term := factor (*|/ factor)*,
/// factor := number | name | ( expr ) | - factor. Parentheses and unary minus nest at most
/// kMaxExprDepth deep (a syntax error beyond: the recursion must not exhaust the stack).
constexpr unsigned kMaxExprDepth = 256;
struct ExprEval {
  const std::vector<std::string>& t;
  const std::function<std::optional<double>(const std::string&)>& lookup;
  std::string& why;
  size_t pos = 0;
  unsigned depth = 0;   // nesting of '(' and unary '-' at the current factor
  bool failed = false;  // the value is undefined (missing name, division by zero): keep parsing, no value

  std::string at() const { return pos < t.size() ? "'" + t[pos] + "'" : "the end"; }
  std::string after() const { return pos ? " after '" + t[pos - 1] + "'" : " at the start"; }
  [[noreturn]] void syntax(const std::string& what) const { throw std::invalid_argument(what); }
  void undefined(std::string w) {
    if (!failed) why = std::move(w);
    failed = true;
  }

  double factor() {
    if (pos >= t.size()) syntax("expected a name or a number" + after());
    const std::string& tok = t[pos];
    if (tok == "(" || tok == "-") {
      if (depth >= kMaxExprDepth)
        syntax(fmt::format("nested too deep: more than {} levels of '(' and unary '-'", kMaxExprDepth));
      ++depth;
      ++pos;
      double v;
      if (tok == "(") {
        v = expr();
        if (pos >= t.size() || t[pos] != ")") syntax("missing ')': found " + at());
        ++pos;
      } else {
        v = -factor();
      }
      --depth;
      return v;
    }
    if (is_op(tok)) syntax("expected a name or a number" + after() + ", found '" + tok + "'");
    ++pos;
    if (auto n = number_token(tok)) return *n;
    auto v = lookup(tok);
    if (!v) {
      undefined("'" + tok + "' has no value");
      return 0;
    }
    return *v;
  }
  double term() {
    double v = factor();
    while (pos < t.size() && (t[pos] == "*" || t[pos] == "/")) {
      const bool div = t[pos++] == "/";
      const size_t start = pos;
      double r = factor();
      if (!div) {
        v *= r;
      } else if (r == 0 && !failed) {
        std::string d;
        for (size_t i = start; i < pos; ++i) d += (i > start ? " " : "") + t[i];
        undefined(fmt::format("division by zero ('{}' is 0)", d));
      } else if (r != 0) {
        v /= r;
      }
    }
    return v;
  }
  double expr() {
    double v = term();
    while (pos < t.size() && (t[pos] == "+" || t[pos] == "-")) {
      const bool add = t[pos++] == "+";
      double r = term();
      v = add ? v + r : v - r;
    }
    return v;
  }
  std::optional<double> run() {
    double v = expr();
    if (pos != t.size()) syntax("expected an operator (+ - * /) between words, found " + at() + after());
    if (failed) return std::nullopt;
    if (!std::isfinite(v)) {
      why = "the value is not finite";
      return std::nullopt;
    }
    return v;
  }
};

}  // namespace

std::vector<std::string> MetricExpr::names() const {
  std::vector<std::string> out;
  for (auto& tok : tokens)
    if (!is_op(tok) && !number_token(tok) && std::find(out.begin(), out.end(), tok) == out.end()) out.push_back(tok);
  return out;
}

MetricExpr parse_metric_expr(std::string_view text) {
  MetricExpr e;
  std::istringstream in{std::string(text)};
  std::string w;
  while (in >> w) {
    size_t b = 0;
    while (b < w.size() && w[b] == '(') e.tokens.push_back("("), ++b;
    size_t end = w.size();
    size_t closing = 0;
    while (end > b && w[end - 1] == ')') --end, ++closing;
    if (end > b) e.tokens.push_back(w.substr(b, end - b));
    for (size_t i = 0; i < closing; ++i) e.tokens.push_back(")");
  }
  if (e.tokens.empty()) throw std::invalid_argument("empty");
  std::string why;
  auto one = [](const std::string&) -> std::optional<double> { return 1.0; };
  std::function<std::optional<double>(const std::string&)> lookup = one;
  ExprEval{e.tokens, lookup, why}.run();  // syntax only; throws
  return e;
}

std::optional<double> eval_metric_expr(const MetricExpr& e,
                                       const std::function<std::optional<double>(const std::string&)>& lookup,
                                       std::string& why) {
  return ExprEval{e.tokens, lookup, why}.run();
}

fs::path scenario_of_ref(const fs::path& ref) {
  std::string s = ref.string();
  if (ends_with(s, ".ref.toml")) return fs::path(s.substr(0, s.size() - 9) + ".toml");
  return ref;
}

fs::path ref_of_scenario(const fs::path& scenario) {
  std::string s = scenario.string();
  if (ends_with(s, ".toml")) s.resize(s.size() - 5);
  return fs::path(s + ".ref.toml");
}

RefFile parse_ref_text(std::string_view text, const fs::path& path) {
  toml::table root;
  try {
    root = toml::parse(text, path.string());
  } catch (const toml::parse_error& e) {
    throw RefFileError(fmt::format("{}:{}:{}: {}", path.string(), e.source().begin.line, e.source().begin.column,
                                   e.description()));
  }
  RefFile rf;
  rf.path = path;
  rf.scenario = scenario_of_ref(path);
  for (auto&& [k, v] : root) {
    std::string name(k.str());
    if (name == "fast") {
      if (!v.is_boolean()) fail_at(path, v.source(), name, fmt::format("must be true or false, got {}", node_type(v)));
      rf.fast = *v.value<bool>();
    } else if (name == "reference") {
      auto* arr = v.as_array();
      if (!arr || !arr->is_array_of_tables())
        fail_at(path, v.source(), name, "must be an array of tables: write each one under a [[reference]] header");
      for (size_t i = 0; i < arr->size(); ++i) rf.refs.push_back(parse_reference(path, *(*arr)[i].as_table(), i));
    } else {
      unknown_key(path, k, name, kTopKeys, "the reference file");
    }
  }
  if (rf.refs.empty())
    throw RefFileError(fmt::format("{}:1:1: key 'reference': no [[reference]] in the file (add one, or delete the file)",
                                   path.string()));
  return rf;
}

RefFile parse_ref_file(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw RefFileError(fmt::format("{}: cannot read the reference file", path.string()));
  std::ostringstream ss;
  ss << f.rdbuf();
  return parse_ref_text(ss.str(), path);
}

std::vector<fs::path> find_ref_files(const std::vector<fs::path>& paths) {
  std::set<fs::path> found;
  // A file reached twice (a symlinked alias of a directory or file) is checked once, under the
  // first name it was found by; a directory reached again (a symlink cycle) is not walked again.
  std::set<fs::path> seen_files, seen_dirs;
  auto canonical_of = [](const fs::path& q) {
    std::error_code e;
    fs::path c = fs::canonical(q, e);
    return e ? q.lexically_normal() : c;
  };
  auto add = [&](const fs::path& f) {
    if (seen_files.insert(canonical_of(f)).second) found.insert(f.lexically_normal());
  };
  for (auto& p : paths) {
    std::error_code ec;
    // symlink_status first: a link to itself or a loop of links is ELOOP, not "no such file".
    const fs::file_status link = fs::symlink_status(p, ec);
    if (!ec && fs::is_symlink(link)) {
      std::error_code e2;
      (void)fs::status(p, e2);
      if (e2 && e2 != std::errc::no_such_file_or_directory)
        throw RefFileError(fmt::format("{}: {}", p.string(), e2.message()));
      if (e2) throw RefFileError(fmt::format("{}: a symbolic link to nothing (its target does not exist)", p.string()));
    }
    ec.clear();
    if (fs::is_directory(p, ec)) {
      seen_dirs.insert(canonical_of(p));
      for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::follow_directory_symlink, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        std::error_code e;
        if (it->is_directory(e)) {
          if (!seen_dirs.insert(canonical_of(it->path())).second) it.disable_recursion_pending();
          continue;
        }
        if (it->is_regular_file(e) && ends_with(it->path().filename().string(), ".ref.toml")) add(it->path());
      }
      if (ec) throw RefFileError(fmt::format("{}: {}", p.string(), ec.message()));
    } else if (fs::is_regular_file(p, ec)) {
      std::string name = p.filename().string();
      if (ends_with(name, ".ref.toml")) {
        add(p);
      } else {
        fs::path r = ref_of_scenario(p);
        if (!fs::exists(r))
          throw RefFileError(fmt::format("{}: no reference file {} beside it (see docs/sweep-and-check.md)",
                                         p.string(), r.filename().string()));
        add(r);
      }
    } else if (fs::exists(p, ec)) {
      throw RefFileError(fmt::format("{}: not a regular file or directory (a FIFO, device or socket): give a "
                                     "scenario, its .ref.toml or a directory of them", p.string()));
    } else {
      throw RefFileError(fmt::format("{}: no such file or directory", p.string()));
    }
  }
  return {found.begin(), found.end()};
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "pass";
    case Verdict::Fail: return "FAIL";
    case Verdict::Error: return "ERROR";
    case Verdict::KnownMiss: return "MISS (known)";
  }
  return "?";
}

bool verdict_ok(Verdict v) { return v == Verdict::Pass || v == Verdict::KnownMiss; }

std::string expected_text(const Reference& r) {
  if (r.range) return fmt::format("[{}, {}]", num(r.range->first), num(r.range->second));
  if (r.tolerance) return fmt::format("{} ±{}%", num(*r.expected), num(*r.tolerance * 100));
  return fmt::format("{} ±{}", num(*r.expected), num(r.tolerance_abs.value_or(0)));
}

namespace {

/// The value of `expr` over one run's metrics (else counters); nullopt with c's error_text and message
/// set when a name is missing or not a number, or the expression has no value. `run` names the run in
/// messages ("" for the reference's own, "the vs run (X.toml)" for the other).
std::optional<double> run_value(const MetricExpr& expr, const std::string& metric, const nlohmann::json& metrics,
                                const nlohmann::json& counters, const std::string& run, RefCheck& c) {
  auto find = [&](const std::string& name) -> const nlohmann::json* {
    for (const nlohmann::json* o : {&metrics, &counters})
      if (o->is_object())
        if (auto it = o->find(name); it != o->end()) return &*it;
    return nullptr;
  };
  const std::string in = run.empty() ? "" : " in " + run;
  for (const std::string& name : expr.names()) {
    const nlohmann::json* v = find(name);
    if (!v) {
      std::vector<std::string> names;
      for (const nlohmann::json* o : {&metrics, &counters})
        if (o->is_object())
          for (auto& [k, _] : o->items()) names.push_back(k);
      std::string near = nearest_name(name, names);
      c.error_text = "missing";
      c.message = fmt::format("metric '{}' is not in {}'s result.json metrics or counters{}", name,
                              run.empty() ? "the run" : run,
                              near.empty() ? fmt::format(" ({} there)", names.size())
                                           : fmt::format(" (did you mean '{}'?)", near));
      return std::nullopt;
    }
    if (!v->is_number() || !std::isfinite(v->get<double>())) {
      c.error_text = "not a number";
      c.message = fmt::format("metric '{}'{} is {}, not a number", name, in, v->dump());
      return std::nullopt;
    }
  }
  std::string why;
  const std::optional<double> value =
      eval_metric_expr(expr, [&](const std::string& n) { return std::optional<double>(find(n)->get<double>()); }, why);
  if (!value) {
    c.error_text = "not a number";
    c.message = fmt::format("metric '{}'{}: {}", metric, in, why);
  }
  return value;
}

}  // namespace

std::optional<double> metric_value(const std::string& metric, const nlohmann::json& metrics,
                                   const nlohmann::json& counters, std::string* why, std::string* short_why) {
  RefCheck c;
  std::optional<double> value;
  try {
    value = run_value(parse_metric_expr(metric), metric, metrics, counters, "", c);
  } catch (const std::invalid_argument& e) {
    c.error_text = "not a number";
    c.message = fmt::format("metric '{}' is not a metric expression: {}", metric, e.what());
  }
  if (!value) {
    if (why) *why = c.message;
    if (short_why) *short_why = c.error_text;
  }
  return value;
}

std::string metric_text(const Reference& ref) {
  return ref.vs ? fmt::format("{} - [{}]", ref.metric, ref.vs->stem().string()) : ref.metric;
}

bool reference_within(const Reference& ref, double sim) {
  if (ref.range) {
    auto [lo, hi] = *ref.range;
    const double slack = 1e-9 * std::max(std::fabs(lo), std::fabs(hi));
    return !(sim < lo - slack) && !(sim > hi + slack);
  }
  const double exp = *ref.expected;
  const double bound = ref.tolerance ? *ref.tolerance * std::fabs(exp) : *ref.tolerance_abs;
  return std::fabs(sim - exp) <= bound + 1e-9 * std::max(std::fabs(exp), bound);
}

RefCheck evaluate_reference(const Reference& ref, const nlohmann::json& metrics, const nlohmann::json& counters,
                            const nlohmann::json* vs_metrics, const nlohmann::json* vs_counters) {
  RefCheck c;
  c.ref = ref;
  c.verdict = Verdict::Fail;
  MetricExpr expr;
  try {
    expr = parse_metric_expr(ref.metric);  // validated when the file was read; a Reference built in code may not be
  } catch (const std::invalid_argument& e) {
    c.error_text = "not a number";
    c.message = fmt::format("metric '{}' is not a metric expression: {}", ref.metric, e.what());
    return c;
  }
  std::optional<double> value = run_value(expr, ref.metric, metrics, counters, "", c);
  if (!value) return c;
  if (vs_metrics) {
    static const nlohmann::json kNone = nlohmann::json::object();
    const std::string other = fmt::format("the vs run ({})", ref.vs ? ref.vs->filename().string() : "?");
    const std::optional<double> b =
        run_value(expr, ref.metric, *vs_metrics, vs_counters ? *vs_counters : kNone, other, c);
    if (!b) return c;
    value = *value - *b;
  }
  double sim = *value;
  c.simulated = sim;
  if (ref.range) {
    auto [lo, hi] = *ref.range;
    const bool ok = reference_within(ref, sim);
    if (ok) c.error_text = "in range";
    else if (sim < lo) c.error_text = fmt::format("{} below", num(lo - sim));
    else c.error_text = fmt::format("{} above", num(sim - hi));
    c.verdict = ok ? Verdict::Pass : Verdict::Fail;
    if (!ok)
      c.message = fmt::format("{}: simulated {} is outside the range [{}, {}] ({})", metric_text(ref), fmt::format("{:.6g}", sim),
                              fmt::format("{:.6g}", lo), fmt::format("{:.6g}", hi), c.error_text);
    return mark_known_miss(c);
  }
  double exp = *ref.expected, diff = sim - exp;
  double bound = ref.tolerance ? *ref.tolerance * std::fabs(exp) : *ref.tolerance_abs;
  const bool ok = reference_within(ref, sim);
  // diff / |exp| first: 100 * diff overflows to -inf for an expected value near DBL_MAX.
  if (ref.tolerance) c.error_text = fmt::format("{:+.1f}%", exp != 0 ? 100.0 * (diff / std::fabs(exp)) : 0.0);
  else c.error_text = fmt::format("{:+.4g}", diff);
  c.verdict = ok ? Verdict::Pass : Verdict::Fail;
  if (!ok)
    c.message = fmt::format("{}: simulated {:.6g}, expected {} (error {}, allowed ±{:.4g})", metric_text(ref), sim,
                            expected_text(ref), c.error_text, bound);
  return mark_known_miss(c);
}

RefCheck run_failed_reference(const Reference& ref, int exit_code, const std::string& stderr_tail) {
  RefCheck c;
  c.ref = ref;
  c.verdict = Verdict::Error;
  c.error_text = "run failed";
  std::string last = stderr_tail;
  size_t nl = last.rfind('\n');
  if (nl != std::string::npos) last = last.substr(nl + 1);
  c.message = fmt::format("nicsim run failed (exit {}){}", exit_code, last.empty() ? "" : ": " + last);
  return c;
}

RefCheck not_run_reference(const Reference& ref, const std::string& why) {
  RefCheck c;
  c.ref = ref;
  c.verdict = Verdict::Error;
  c.error_text = "not run";
  c.message = "not run: " + why;
  return c;
}

std::string format_table(const std::vector<RefCheck>& checks) {
  constexpr size_t kCols = 8;
  std::vector<std::array<std::string, kCols>> rows;
  rows.push_back({"set", "scenario", "metric", "expected", "simulated", "error", "result", "source"});
  size_t pass = 0, fail = 0, err = 0, known = 0;
  for (auto& c : checks) {
    switch (c.verdict) {
      case Verdict::Pass: ++pass; break;
      case Verdict::Fail: ++fail; break;
      case Verdict::Error: ++err; break;
      case Verdict::KnownMiss: ++known; break;
    }
    rows.push_back({c.set, c.scenario, metric_text(c.ref), expected_text(c.ref), c.simulated ? num(*c.simulated) : "-",
                    c.error_text, result_text(c), c.ref.source});
  }
  // "±" is two bytes but one column: measure display width in code points.
  auto width = [](const std::string& s) {
    size_t n = 0;
    for (unsigned char ch : s) n += (ch & 0xC0) != 0x80;
    return n;
  };
  std::array<size_t, kCols> w{};
  for (auto& r : rows)
    for (size_t i = 0; i + 1 < kCols; ++i) w[i] = std::max(w[i], width(r[i]));
  std::string out;
  for (size_t k = 0; k < rows.size(); ++k) {
    auto& r = rows[k];
    std::string line;
    for (size_t i = 0; i < kCols; ++i) {
      bool right = i == 3 || i == 4 || i == 5;
      size_t pad = i + 1 < kCols ? w[i] - width(r[i]) : 0;
      if (right) line += std::string(pad, ' ') + r[i];
      else line += r[i] + (i + 1 < kCols ? std::string(pad, ' ') : "");
      if (i + 1 < kCols) line += "  ";
    }
    out += line;
    out += '\n';
    if (k == 0) {
      size_t total = 0;
      for (size_t i = 0; i + 1 < kCols; ++i) total += w[i] + 2;
      out += std::string(total + 6, '-') + "\n";
    }
  }
  for (auto& c : checks) {
    if (c.verdict != Verdict::Pass) out += fmt::format("{} {}: {}\n", verdict_name(c.verdict), c.scenario, c.message);
    else if (c.ref.known_miss)
      out += fmt::format("NOTE {}: {} passes: its known_miss can be removed\n", c.scenario, metric_text(c.ref));
  }
  out += set_summaries(checks);
  out += fmt::format("{} references: {} passed, {} known misses, {} failed, {} not run (run failed or interrupted)\n", checks.size(),
                     pass, known, fail, err);
  return out;
}

std::string set_summaries(const std::vector<RefCheck>& checks) {
  const bool calibrated = std::any_of(checks.begin(), checks.end(), [](const RefCheck& c) { return c.set != kSetUncalibrated; });
  if (!calibrated) return "";
  std::string out;
  for (const char* set : {kSetTrain, kSetValidate, kSetUncalibrated}) {
    size_t n = 0, pass = 0, nrel = 0;
    double abs_err = 0, signed_err = 0, worst = 0;
    const RefCheck* worst_c = nullptr;
    for (auto& c : checks) {
      if (c.set != set) continue;
      ++n;
      pass += c.verdict == Verdict::Pass;
      if (c.simulated && c.ref.expected && !c.ref.vs && !c.ref.tolerance_abs && *c.ref.expected != 0) {
        const double e = (*c.simulated - *c.ref.expected) / std::abs(*c.ref.expected);
        abs_err += std::abs(e);
        signed_err += e;
        if (!worst_c || std::abs(e) > std::abs(worst)) worst = e, worst_c = &c;
        ++nrel;
      }
    }
    if (!n) continue;
    const double within = double(pass) / double(n);
    std::string line = fmt::format("{}: {} references, {} passed ({:.0f}% within tolerance)", set, n, pass, 100 * within);
    if (nrel)
      line += fmt::format(", mean |error| {:.1f}% (signed {:+.1f}%, worst {:+.1f}% {}: {}) over {} with a relative tolerance",
                          100 * abs_err / double(nrel), 100 * signed_err / double(nrel), 100 * worst,
                          worst_c->scenario, metric_text(worst_c->ref), nrel);
    if (std::string(set) == kSetTrain) line += " (fitted on: no evidence of validity)";
    // What validated full-system simulators reach out of sample (research calibration-anchors.md:
    // ZSim 10 %, Accel-Sim 15 %, M5 <= 15 % on bandwidth): the bar for the figures no fit saw.
    if (std::string(set) == kSetValidate)
      line += fmt::format("; held-out target (mean |error| <= {:.0f}%, >= {:.0f}% within tolerance): {}", 100 * kHeldOutMeanError,
                          100 * kHeldOutWithin,
                          nrel && abs_err / double(nrel) <= kHeldOutMeanError && within >= kHeldOutWithin ? "met" : "not met");
    out += line;
    out += '\n';
  }
  return out;
}

std::string xml_escape(std::string_view s) {
  std::string o;
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default:
        if (c < 0x20 && ch != '\n' && ch != '\t' && ch != '\r') o += '?';  // not allowed in XML 1.0
        else o += ch;
    }
  }
  return o;
}

std::string junit_xml(const std::vector<RefCheck>& checks) {
  // Group by scenario, keeping first-appearance order.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const RefCheck*>> by;
  for (auto& c : checks) {
    if (!by.count(c.scenario)) order.push_back(c.scenario);
    by[c.scenario].push_back(&c);
  }
  size_t failures = 0, errors = 0, skipped = 0;
  for (auto& c : checks) {
    failures += c.verdict == Verdict::Fail;
    errors += c.verdict == Verdict::Error;
    skipped += c.verdict == Verdict::KnownMiss;
  }
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += fmt::format("<testsuites name=\"nicsim check\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">\n",
                   checks.size(), failures, errors, skipped);
  for (auto& s : order) {
    auto& cs = by[s];
    size_t f = 0, e = 0, k = 0;
    double t = cs.empty() ? 0 : cs.front()->seconds;
    for (auto* c : cs) {
      f += c->verdict == Verdict::Fail;
      e += c->verdict == Verdict::Error;
      k += c->verdict == Verdict::KnownMiss;
    }
    std::string cls = s;
    if (ends_with(cls, ".toml")) cls.resize(cls.size() - 5);
    std::replace(cls.begin(), cls.end(), '/', '.');
    x += fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3f}\">\n",
        xml_escape(s), cs.size(), f, e, k, t);
    std::map<std::string, int> seen;
    for (auto* c : cs) {
      std::string name = metric_text(c->ref);
      if (int n = seen[name]++) name += fmt::format(" #{}", n + 1);
      x += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"0\">", xml_escape(cls), xml_escape(name));
      std::string detail = fmt::format("expected {}; simulated {}; error {}; source: {}", expected_text(c->ref),
                                       c->simulated ? fmt::format("{:.6g}", *c->simulated) : "-", c->error_text,
                                       c->ref.source);
      if (c->verdict == Verdict::Fail)
        // The type says which failure it is: a value off its reference, or no usable value at all
        // (evaluate_reference's error_text "missing" / "not a number").
        x += fmt::format("\n      <failure type=\"{}\" message=\"{}\">{}</failure>\n    ",
                         c->error_text == "missing"        ? "missing_metric"
                         : c->error_text == "not a number" ? "not_a_number"
                                                           : "out_of_tolerance",
                         xml_escape(c->message), xml_escape(detail));
      else if (c->verdict == Verdict::Error)
        x += fmt::format("\n      <error type=\"{}\" message=\"{}\">{}</error>\n    ",
                         c->error_text == "not run" ? "not_run" : "run_failed", xml_escape(c->message),
                         xml_escape(detail));
      else if (c->verdict == Verdict::KnownMiss)
        x += fmt::format("\n      <skipped message=\"{}\"/>\n      <system-out>{}</system-out>\n    ",
                         xml_escape("known miss: " + *c->ref.known_miss), xml_escape(c->message + "; " + detail));
      else if (c->ref.known_miss)
        x += fmt::format("<system-out>{}</system-out>",
                         xml_escape(detail + "; passes: its known_miss can be removed"));
      else
        x += fmt::format("<system-out>{}</system-out>", xml_escape(detail));
      x += "</testcase>\n";
    }
    x += "  </testsuite>\n";
  }
  x += "</testsuites>\n";
  return x;
}

}  // namespace nicsim
