// SVG plots of a sweep: each metric against the first varied key, one line per combination of
// the other varied keys. gnuplot (Debian package gnuplot-nox) is the plotting engine, run as a
// child process on a script we generate; the script is kept beside the SVG so a user can restyle
// the plot by hand.
#pragma once
#include "cli/sweep_plan.h"
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace nicsim {

/// A gnuplot double-quoted string literal of `s` (quotes and backslashes escaped).
std::string gnuplot_quote(const std::string& s);

/// A filesystem-safe file stem for a metric name ("one_way_us.1B" stays, '/' and spaces -> '_').
std::string metric_file_stem(const std::string& metric);

/// The gnuplot script plotting plan.metrics[metric] of `rows` against plan.axes[0], writing SVG to
/// `svg_path`. Numeric first-axis values give a numeric x axis; otherwise the values become x tic
/// labels in axis order. Points without a value (failed, missing, metric absent) are left out.
/// Returns nullopt when no point has a value, or when the plan has no axis.
std::optional<std::string> gnuplot_script(const SweepPlan& plan, const std::vector<PointRow>& rows, size_t metric,
                                          const std::filesystem::path& svg_path);

/// The absolute path of `name` found in $PATH, or nullopt.
std::optional<std::filesystem::path> find_in_path(const std::string& name);

struct PlotReport {
  std::vector<std::filesystem::path> svgs;   ///< plots written
  std::vector<std::string> messages;         ///< skipped plots and gnuplot failures, one line each
};

/// Write `dir`/<stem>.gp (the script `script(svg)` returns for svg = "<stem>.svg", kept so a user
/// can restyle the plot) and, when `gnuplot` is given, run it on a copy writing a temporary SVG that
/// is renamed to `dir`/<stem>.svg once complete. Returns "" when the SVG was written (or gnuplot is
/// not given), else why not (gnuplot's exit status and the tail of its output).
std::string render_gnuplot(const std::filesystem::path& dir, const std::string& stem,
                           const std::function<std::string(const std::filesystem::path& svg)>& script,
                           const std::optional<std::filesystem::path>& gnuplot);

/// For each metric, write DIR/plots/<stem>.gp and run `gnuplot` on it to produce DIR/plots/<stem>.svg
/// (through a temporary file and rename). `gnuplot` = nullopt: write only the scripts and say so.
PlotReport write_plots(const std::filesystem::path& dir, const SweepPlan& plan, const std::vector<PointRow>& rows,
                       const std::optional<std::filesystem::path>& gnuplot);

}  // namespace nicsim
