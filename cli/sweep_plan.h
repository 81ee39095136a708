// `nicsim sweep`: the pure part — parsing --vary/--shard, the cartesian product of points with
// stable ids, which points still need a run (resume), and the summary (CSV/JSON) of a sweep
// directory. Running the points is cli/executor.h; plotting is cli/sweep_plot.h.
//
// Sweep directory layout:
//   DIR/sweep-plan.json           scenario, --set, axes, metrics (written before any point runs)
//   DIR/points/<id>/point.json    the point's index and varied values
//   DIR/points/<id>/result.json   `nicsim run` result (present = point finished ok)
//   DIR/points/<id>/error.json    exit code + stderr tail of a failed run
//   DIR/points/<id>/run.out, run.err   the child's stdout/stderr
//   DIR/sweep.csv, DIR/sweep.json, DIR/plots/<metric>.svg (+ .gp gnuplot script)
//   DIR/sweep.lock, DIR/shard-<I>-of-<N>.lock   flock locks of running sweeps (cli/dir_lock.h)
//   DIR/slurm/                    --slurm: job scripts and logs (cli/sweep_slurm.h)
#pragma once
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace nicsim {

struct RunJob;

/// A malformed command line (exit code 2). The message names the offending argument.
struct SweepUsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// One varied key and its values, as the text passed to `--set key=value` (TOML syntax) or, for
/// the key "seed", to `--seed`.
struct Axis {
  std::string key;
  std::vector<std::string> values;
};

/// Parse "KEY=SPEC". SPEC is a comma-separated list of items; an item made of three numbers
/// "START:STOP:STEP" expands to START, START+STEP, ... up to and including STOP (within 1e-9 of a
/// step); integers stay integers, decimals are printed with the decimals of START/STOP/STEP
/// (0:0.3:0.1 -> 0.0, 0.1, 0.2, 0.3); STEP may be negative when STOP < START. Other items are
/// taken verbatim. Throws SweepUsageError for: no '=', empty key or item, a numeric a:b item (no
/// step), a zero or wrong-signed step, non-numeric range parts, an integer range part outside
/// int64, a decimal range part beyond ±1e15 or with more than 15 decimal places, more than 100000
/// values, a duplicate value, or a "seed" value that is not an integer in 0..2^64-1.
Axis parse_vary(std::string_view spec);

/// The values of `axis` that a check of the scenario before the sweep loads: every value that is
/// not a number, and of the numbers only the smallest and largest integer (text without '.' or
/// exponent) and the smallest and largest decimal, since a TOML type depends only on that form and
/// range checks are monotone. In the axis' order, without duplicates.
std::vector<std::string> representative_values(const Axis& axis);

/// Expand one "START:STOP:STEP" range (see parse_vary). Throws SweepUsageError.
std::vector<std::string> parse_range(std::string_view item);

/// `--shard I/N`: this process runs the points whose index % count == index.
struct Shard {
  unsigned index = 0, count = 1;
};
/// Parse "I/N" with 0 <= I < N. Throws SweepUsageError.
Shard parse_shard(std::string_view spec);

/// One point of the product.
struct Point {
  size_t index = 0;                  ///< position in the full product (stable for one command line)
  std::vector<std::string> values;   ///< one per axis, in axis order
  std::string id;                    ///< directory name under DIR/points (see point_id)
};

/// Stable, filesystem-safe id of the point with `values` (one per axis): the varied keys' last
/// segments and values sorted by key ("InterruptThrottleRate=8000--seed=3") plus a 32-bit hash of
/// the full sorted "key=value" list, so it depends only on the values, not on the order of --vary
/// flags or on the other points (extending a list reuses the points already run).
std::string point_id(const std::vector<Axis>& axes, const std::vector<std::string>& values);

/// The cartesian product of `axes`, first axis slowest, last fastest (like nested loops in
/// command-line order). An empty axes list gives one point (the scenario as is). Throws
/// SweepUsageError when the product exceeds 1,000,000 points or two axes share a key.
std::vector<Point> cartesian(const std::vector<Axis>& axes);

/// The points of shard `s`: index % s.count == s.index, in order.
std::vector<Point> shard_points(const std::vector<Point>& points, Shard s);

/// A sweep's fixed inputs (everything but the point values).
struct SweepPlan {
  std::string scenario;                 ///< absolute path of the scenario file
  std::vector<std::string> sets;        ///< `--set` applied to every point
  std::vector<Axis> axes;
  std::vector<std::string> metrics;     ///< result.json "metrics" keys to report
  nlohmann::json to_json() const;
  /// Throws SweepUsageError when `j` is not a sweep-plan.json.
  static SweepPlan from_json(const nlohmann::json& j);
};

/// Paths inside a sweep directory.
std::filesystem::path point_dir(const std::filesystem::path& dir, const Point& p);
std::filesystem::path plan_path(const std::filesystem::path& dir);

/// True when `result_json` is a complete result: a readable JSON object with a "metrics" object
/// and, when it has a "status", status "ok". A truncated or corrupt file (e.g. left by a killed
/// older run or a full disk) or a failed run's result is not.
bool result_complete(const std::filesystem::path& result_json);

/// True when the point has finished ok: DIR/points/<id>/result.json is complete (result_complete).
/// A corrupt result.json counts as not finished, so a resumed sweep reruns the point.
bool point_finished(const std::filesystem::path& dir, const Point& p);

/// The points among `points` still to run (no complete result.json), in order. This is the resume
/// rule: a failed point (error.json only) or one with a corrupt result.json is rerun.
std::vector<Point> pending_points(const std::filesystem::path& dir, const std::vector<Point>& points);

/// The finished points among `points` (point_finished) whose result.json "params" differ from the
/// point's parameters as the plan's scenario loads now (its file, the plan's --set, the point's
/// values and seed): the scenario file was edited since they ran, so their results are not this
/// sweep's. A result without "params", or a scenario that does not load, is not judged.
std::vector<Point> stale_points(const std::filesystem::path& dir, const SweepPlan& plan, const std::vector<Point>& points);

/// The `nicsim run` job of point `p`: --set for each axis except "seed" (which becomes --seed),
/// after the plan's own sets; out_dir = DIR/points/<id>.
RunJob job_for(const SweepPlan& plan, const Point& p, const std::filesystem::path& dir);

/// Throws SweepUsageError when DIR cannot take this sweep: it exists and is not a directory, its
/// sweep-plan.json is unreadable, or it holds a plan for another scenario or other --set values.
/// Writes nothing (`--dry-run` checks with it).
void check_plan_fits(const std::filesystem::path& dir, const SweepPlan& plan);
/// Write DIR/sweep-plan.json (atomically). When DIR already has a plan for another scenario or
/// other --set values, throws SweepUsageError (its points would not belong to this sweep).
void write_plan(const std::filesystem::path& dir, const SweepPlan& plan);
/// Read DIR/sweep-plan.json. Throws SweepUsageError when missing or malformed.
SweepPlan read_plan(const std::filesystem::path& dir);
/// Write DIR/points/<id>/point.json: {"index", "id", "values": {key: value}}.
void write_point_json(const std::filesystem::path& dir, const SweepPlan& plan, const Point& p);

/// The state of one point in a summary.
struct PointRow {
  Point point;
  std::string status;                            ///< "ok", "failed" or "missing"
  std::vector<std::optional<double>> metrics;    ///< one per plan.metrics (nullopt: absent/not a number)
  std::optional<int> exit_code;                  ///< failed points
  std::string error;                             ///< failed points: stderr tail
  std::filesystem::path found_in;                ///< the directory that held the point
};

/// The rows of every point of `plan`, looking in each of `dirs` in turn (first hit wins: a
/// result.json beats an error.json found in an earlier dir). Unreadable result.json = failed.
std::vector<PointRow> collect_rows(const SweepPlan& plan, const std::vector<std::filesystem::path>& dirs);

/// A varied value as JSON: integer, number, boolean or string, by its TOML-like text.
nlohmann::json value_json(const std::string& text);

/// sweep.json: {"nicsim_version", "scenario", "sets", "axes": [{key, values}], "metrics",
/// "counts": {ok, failed, missing}, "points": [{index, id, values: {key: v}, status,
/// metrics: {name: number|null}, exit_code?, error?}]}.
nlohmann::json summary_json(const SweepPlan& plan, const std::vector<PointRow>& rows);
/// sweep.csv: header "index,id,<axis keys>,status,<metrics>", one line per point; absent metric =
/// empty field; RFC 4180 quoting.
std::string summary_csv(const SweepPlan& plan, const std::vector<PointRow>& rows);

/// Merge sweep directories into `out`: all plans must be equal (else SweepUsageError naming the
/// first difference); points found in the inputs and missing in `out` are copied into
/// out/points; returns the rows (see collect_rows over out and the inputs). Writes out's plan.
std::vector<PointRow> merge_dirs(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& out,
                                 SweepPlan* plan_out);

}  // namespace nicsim
