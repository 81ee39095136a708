// `nicsim check`: the pure part — reference files (X.ref.toml beside scenario X.toml), their
// validation with file:line:col messages, evaluation of a run's metrics against them, and the
// report formats (text table, JUnit XML).
//
// Reference file format (see docs/sweep-and-check.md):
//   fast = true                       # optional: included by `nicsim check --fast`
//   [[reference]]
//   metric = "one_way_us.1B"          # a key of result.json "metrics" or "counters", or an
//                                     # expression over such keys: "beta.netstat.Tcp.RetransSegs / beta.netstat.TcpExt.TCPPrequeued"
//   expected = 28.0
//   tolerance = 0.15                  # relative (fraction of expected), or:
//   # tolerance_abs = 3.0             # absolute, in the metric's unit
//   # range = [60.0, 130.0]           # instead of expected/tolerance: pass when inside (inclusive)
//   source = "seed 000: ..."          # required: where the expected value comes from
//   # vs = "OTHER.toml"               # optional: check the difference, this run's metric minus the
//                                     # same metric of scenario OTHER.toml's run (beside this file)
//   # known_miss = "why the model misses it"  # optional, like an xfail: a failure is reported as
//                                     # "MISS (known)" and does not fail `nicsim check`
#pragma once
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <toml++/toml.h>
#include <utility>
#include <vector>

namespace nicsim {

/// A malformed or missing reference file (exit code 2). what() is
/// "FILE:LINE:COL: key 'reference[1].tolerence': unknown key (did you mean 'tolerance'?)".
struct RefFileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The field readers of the reference-file parser, shared with other TOML inputs of the CLI (the
/// calibration file, cli/calibration_file.h). Each throws RefFileError
/// "FILE:LINE:COL: key 'K': what" (fail_at), the message naming the expected type or the valid keys
/// with the nearest one (unknown_key: "unknown key in WHERE (did you mean 'x'?)").
[[noreturn]] void fail_at(const std::filesystem::path& file, const toml::source_region& where, const std::string& key,
                          const std::string& what);
std::string node_type(const toml::node& n);  ///< "a string", "an integer", ...
double number_or_fail(const std::filesystem::path& file, const toml::node& n, const std::string& key);
std::string string_or_fail(const std::filesystem::path& file, const toml::node& n, const std::string& key);  ///< non-empty
void unknown_key(const std::filesystem::path& file, const toml::key& k, const std::string& full,
                 const std::vector<std::string>& valid, const std::string& where);

struct Reference {
  std::string metric;
  std::optional<double> expected;
  std::optional<double> tolerance;       ///< relative, fraction of |expected| (0.15 = 15 %)
  std::optional<double> tolerance_abs;   ///< absolute, metric's unit
  std::optional<std::pair<double, double>> range;  ///< inclusive [lo, hi]
  std::string source;
  /// Optional explanation of a known, accepted discrepancy (like an xfail): when set, an
  /// out-of-tolerance value gives Verdict::KnownMiss instead of Verdict::Fail.
  std::optional<std::string> known_miss;
  /// Optional `vs = "OTHER.toml"`: the reference is on a difference between two configurations, the
  /// metric of this file's scenario minus the same metric of OTHER's run (`check` runs OTHER too, with
  /// the same --set). Resolved against the reference file's directory, lexically normal.
  std::optional<std::filesystem::path> vs;
  int line = 0;  ///< line of the [[reference]] header in the file
  int vs_line = 0, vs_column = 0;  ///< where `vs` is written (its own errors point there)
};

/// How a reference's metric is named in the table and JUnit: `metric`, or with `vs`
/// "metric - [OTHER]" (OTHER the other scenario's file stem).
std::string metric_text(const Reference& ref);

struct RefFile {
  std::filesystem::path path;       ///< the .ref.toml
  std::filesystem::path scenario;   ///< the scenario it belongs to (X.ref.toml -> X.toml)
  bool fast = false;
  std::vector<Reference> refs;
};

/// "dir/X.ref.toml" -> "dir/X.toml".
std::filesystem::path scenario_of_ref(const std::filesystem::path& ref);
/// A reference's `metric` as tokens. A metric is either one name (a key of result.json "metrics",
/// else of "counters") or an arithmetic expression over names and numbers: `+ - * /` and
/// parentheses, each operator written as its own word between spaces ("a / b", "(a + b) / c"),
/// usual precedence, left to right. A name may hold any other characters ('.', '-', '_').
/// Throws std::invalid_argument with the problem ("expected a name or a number after '/'").
struct MetricExpr {
  std::vector<std::string> tokens;  ///< names, numbers, "+", "-", "*", "/", "(", ")"
  bool single_name() const { return tokens.size() == 1; }
  /// The names it uses, in order of appearance (repeats removed).
  std::vector<std::string> names() const;
};
MetricExpr parse_metric_expr(std::string_view text);
/// Evaluate `e`; `lookup(name)` gives a name's value or nullopt (missing/non-numeric). Returns the
/// value, or nullopt with `why` set: "metric 'x' is missing", "division by zero ('b' is 0)".
std::optional<double> eval_metric_expr(const MetricExpr& e,
                                       const std::function<std::optional<double>(const std::string&)>& lookup,
                                       std::string& why);

/// "dir/X.toml" -> "dir/X.ref.toml".
std::filesystem::path ref_of_scenario(const std::filesystem::path& scenario);

/// Parse and validate reference-file text; `path` names the file in messages. Rules: top-level keys
/// `fast` (boolean) and `reference` (array of tables) only; each reference needs `metric` and
/// `source` (non-empty strings) and either `range = [lo, hi]` (numbers, lo <= hi) or `expected`
/// (number) with exactly one of `tolerance` (0..1) or `tolerance_abs` (>= 0); `expected = 0` needs
/// `tolerance_abs`; optional `known_miss` (non-empty string) and `vs` (a "*.toml" path, not the
/// file's own scenario). At least one reference. Throws RefFileError (first problem found).
RefFile parse_ref_text(std::string_view text, const std::filesystem::path& path);
/// Read and parse a file (see parse_ref_text). Throws RefFileError, also when unreadable.
RefFile parse_ref_file(const std::filesystem::path& path);

/// The reference files named by `paths`: a directory is searched recursively for *.ref.toml; a
/// *.ref.toml file is taken; a scenario X.toml stands for X.ref.toml beside it. Sorted, without
/// duplicates. Throws RefFileError for a path that does not exist or a scenario without references.
std::vector<std::filesystem::path> find_ref_files(const std::vector<std::filesystem::path>& paths);

/// Error = the run failed, nothing to compare; KnownMiss = the value is out of tolerance but the
/// reference carries `known_miss` (does not fail `nicsim check`).
enum class Verdict { Pass, Fail, Error, KnownMiss };
const char* verdict_name(Verdict v);         ///< "pass", "FAIL", "ERROR", "MISS (known)"
/// True for the verdicts that let `nicsim check` exit 0: Pass and KnownMiss.
bool verdict_ok(Verdict v);

/// The set a checked reference belongs to: one a calibration was fitted on (train), one its run
/// used a calibration for but was not fitted on (validate), or one whose run used no calibration.
inline constexpr const char* kSetTrain = "train";
inline constexpr const char* kSetValidate = "validate";
inline constexpr const char* kSetUncalibrated = "uncalibrated";

/// One reference checked against one run.
struct RefCheck {
  std::string set = kSetUncalibrated;  ///< kSetTrain, kSetValidate or kSetUncalibrated
  std::string scenario;             ///< display name (path as given)
  Reference ref;
  Verdict verdict = Verdict::Error;
  std::optional<double> simulated;
  std::string error_text;           ///< "+43.2%" (relative), "+12.1" (absolute), "in range", "12.0 above"
  std::string message;              ///< one line: why it failed (empty on pass); a KnownMiss
                                    ///< ends with "; known miss: <explanation>"
  double seconds = 0;               ///< the run's wall time
};

/// How `ref` is written in the table: "28 ±15%", "28 ±3", "[60, 130]".
std::string expected_text(const Reference& ref);

/// Whether `sim` meets `ref`: |sim - expected| <= tolerance*|expected| (or <= tolerance_abs), or
/// lo <= sim <= hi, each with a 1e-9 relative allowance for rounding. The one rule for check's
/// verdicts and calibrate's "within tolerance".
bool reference_within(const Reference& ref, double sim);

/// Compare `ref` with a result.json "metrics" object (and its "counters" object: a name not among
/// the metrics is looked up there). A missing or non-numeric metric fails with a message naming the
/// nearest existing metric; an expression whose value is undefined (a divisor of 0) fails too. Pass when |sim - expected| <= tolerance*|expected|
/// (or <= tolerance_abs), or lo <= sim <= hi, each with a 1e-9 relative allowance for rounding.
/// An out-of-tolerance value of a reference with `known_miss` gives Verdict::KnownMiss; a missing or
/// non-numeric metric still fails (known_miss explains a value, not a broken metric).
/// With `vs_metrics` (the run of ref.vs; `vs_counters` its counters, may be null) the value checked is
/// the metric in `metrics` minus the metric in `vs_metrics`; a name missing from either run fails,
/// saying which.
RefCheck evaluate_reference(const Reference& ref, const nlohmann::json& metrics,
                            const nlohmann::json& counters = nlohmann::json::object(),
                            const nlohmann::json* vs_metrics = nullptr, const nlohmann::json* vs_counters = nullptr);

/// The value of `metric` (a name or an expression, see parse_metric_expr) in a result.json's
/// "metrics" (a name not among them: its "counters"). nullopt when it has none, with `why` set to
/// the sentence check prints ("metric 'x' is not in the run's result.json metrics or counters (did
/// you mean 'y'?)") and `short_why` to the table's error column ("missing", "not a number").
std::optional<double> metric_value(const std::string& metric, const nlohmann::json& metrics,
                                   const nlohmann::json& counters, std::string* why = nullptr,
                                   std::string* short_why = nullptr);

/// The check of `ref` when its run failed (exit code, stderr tail).
RefCheck run_failed_reference(const Reference& ref, int exit_code, const std::string& stderr_tail);
/// The check of `ref` when its run did not happen or was stopped (an interrupted check): an error
/// "not run: <why>", never "run failed (exit 0)".
RefCheck not_run_reference(const Reference& ref, const std::string& why);

/// The text table: set, scenario, metric, expected, simulated, error, result, source; then one line
/// per non-passing reference and per passing known_miss, the per-set summaries (set_summaries), then
/// a count line. Result is "pass", "FAIL",
/// "ERROR", "MISS (known)", or "pass (known_miss can be removed)".
std::string format_table(const std::vector<RefCheck>& checks);

/// The held-out target `set_summaries` reports on for the validation set: the mean |error| of the
/// references a calibration never saw, and the share of them within tolerance (validated
/// full-system simulators reach ~10-15 % out of sample: research calibration-anchors.md).
inline constexpr double kHeldOutMeanError = 0.10;
inline constexpr double kHeldOutWithin = 0.80;

/// One line per set (train, validate, uncalibrated) that has references: count, passed and the share
/// within tolerance, and over those with a relative tolerance the mean |error|, the mean signed error
/// and the worst reference; the validation line says whether the held-out target is met. "" when no
/// reference is calibrated (the count line says it all). A training reference's pass is labelled as
/// no evidence of validity.
std::string set_summaries(const std::vector<RefCheck>& checks);

/// JUnit XML: <testsuites> with one <testsuite> per scenario and one <testcase> per reference;
/// <failure> for out-of-tolerance (message with the numbers), <error> for a failed run,
/// <skipped message="known miss: ..."/> for a KnownMiss.
std::string junit_xml(const std::vector<RefCheck>& checks);

/// XML-escape text for attributes and character data (& < > " ' and control characters).
std::string xml_escape(std::string_view s);

}  // namespace nicsim
