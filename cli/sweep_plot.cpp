#include "cli/sweep_plot.h"
#include "cli/executor.h"
#include "core/results.h"
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/core.h>
#include <fstream>
#include <map>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace nicsim {
namespace fs = std::filesystem;

std::string metric_file_stem(const std::string& metric) {
  std::string s = metric;
  for (char& c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '+')) c = '_';
  if (s.empty() || s[0] == '.') s = "_" + s;
  return s;
}

std::string gnuplot_quote(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o + "\"";
}

namespace {
std::string plot_quote(const std::string& s) { return gnuplot_quote(s); }

std::string axis_last_segment(const std::string& key) {
  size_t p = key.rfind('.');
  return p == std::string::npos ? key : key.substr(p + 1);
}

bool all_numeric(const std::vector<std::string>& v) {
  for (auto& s : v) {
    char* end = nullptr;
    std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size()) return false;
  }
  return true;
}
}  // namespace

std::optional<std::string> gnuplot_script(const SweepPlan& plan, const std::vector<PointRow>& rows, size_t metric,
                                          const fs::path& svg_path) {
  if (plan.axes.empty() || metric >= plan.metrics.size()) return std::nullopt;
  const Axis& x = plan.axes[0];
  bool numeric_x = all_numeric(x.values);
  std::map<std::string, size_t> x_pos;
  for (size_t i = 0; i < x.values.size(); ++i) x_pos[x.values[i]] = i;

  // One series per combination of the other axes' values, in order of first appearance.
  std::vector<std::string> titles;
  std::map<std::string, size_t> series_of;
  std::vector<std::vector<std::pair<std::string, double>>> data;  // (x text, y)
  for (auto& r : rows) {
    std::string title;
    for (size_t a = 1; a < plan.axes.size(); ++a)
      title += (a > 1 ? ", " : "") + axis_last_segment(plan.axes[a].key) + "=" + r.point.values[a];
    auto [it, added] = series_of.emplace(title, titles.size());
    if (added) {
      titles.push_back(title);
      data.emplace_back();
    }
    if (r.status == "ok" && r.metrics[metric]) data[it->second].emplace_back(r.point.values[0], *r.metrics[metric]);
  }
  bool any = false;
  for (auto& d : data) any = any || !d.empty();
  if (!any) return std::nullopt;

  const std::string& m = plan.metrics[metric];
  std::ostringstream s;
  s << "# gnuplot script written by nicsim sweep; rerun with: gnuplot " << metric_file_stem(m) << ".gp\n";
  s << "set terminal svg size 900,560 dynamic noenhanced font \"sans,12\" background rgb \"white\"\n";
  s << "set output " << plot_quote(svg_path.string()) << "\n";
  s << "set title " << plot_quote(m + " vs " + x.key) << "\n";
  s << "set xlabel " << plot_quote(x.key) << "\n";
  s << "set ylabel " << plot_quote(m) << "\n";
  s << "set grid\nset key outside right top\n";
  if (!numeric_x) s << "set xrange [-0.5:" << (static_cast<double>(x.values.size()) - 0.5) << "]\n";
  std::vector<std::string> plots;
  for (size_t k = 0; k < data.size(); ++k) {
    if (data[k].empty()) continue;
    s << "$s" << k << " << EOD\n";
    for (auto& [xv, y] : data[k]) {
      if (numeric_x) s << xv << " " << fmt::format("{}", y) << "\n";
      else s << x_pos[xv] << " " << plot_quote(xv) << " " << fmt::format("{}", y) << "\n";
    }
    s << "EOD\n";
    std::string using_ = numeric_x ? "using 1:2" : "using 1:3:xticlabels(2)";
    std::string title = titles[k].empty() ? "notitle" : "title " + plot_quote(titles[k]);
    plots.push_back(fmt::format("$s{} {} with linespoints pt 7 {}", k, using_, title));
  }
  s << "plot ";
  for (size_t i = 0; i < plots.size(); ++i) s << (i ? ", \\\n     " : "") << plots[i];
  s << "\n";
  return s.str();
}

std::optional<fs::path> find_in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return std::nullopt;
  std::string p = path;
  size_t start = 0;
  for (;;) {
    size_t colon = p.find(':', start);
    std::string dir = p.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (!dir.empty()) {
      fs::path cand = fs::path(dir) / name;
      if (::access(cand.c_str(), X_OK) == 0 && fs::is_regular_file(cand)) return cand;
    }
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return std::nullopt;
}

namespace {
/// Run `exe script` with stdout+stderr into `log`; returns the exit status (or -1).
int run_gnuplot(const fs::path& exe, const fs::path& script, const fs::path& log) {
  std::string a0 = exe.string(), a1 = script.string();
  char* argv[] = {a0.data(), a1.data(), nullptr};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = 0;
  int rc = ::posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

std::string read_text(const fs::path& p) {
  std::ifstream f(p);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
}  // namespace

PlotReport write_plots(const fs::path& dir, const SweepPlan& plan, const std::vector<PointRow>& rows,
                       const std::optional<fs::path>& gnuplot) {
  PlotReport rep;
  if (plan.axes.empty()) {
    rep.messages.push_back("no --vary key: nothing to plot");
    return rep;
  }
  fs::path pdir = dir / "plots";
  fs::create_directories(pdir);
  if (!gnuplot)
    rep.messages.push_back(fmt::format("gnuplot not found in PATH: plots skipped (install Debian package "
                                       "gnuplot-nox, then `cd {} && gnuplot *.gp`)",
                                       pdir.string()));
  for (size_t k = 0; k < plan.metrics.size(); ++k) {
    std::string stem = metric_file_stem(plan.metrics[k]);
    if (!gnuplot_script(plan, rows, k, stem + ".svg")) {
      rep.messages.push_back(fmt::format("{}: no point has a value; plot skipped", plan.metrics[k]));
      continue;
    }
    std::string why = render_gnuplot(pdir, stem, [&](const fs::path& svg) { return *gnuplot_script(plan, rows, k, svg); },
                                      gnuplot);
    if (!why.empty()) rep.messages.push_back(plan.metrics[k] + ": " + why);
    else if (gnuplot) rep.svgs.push_back(pdir / (stem + ".svg"));
  }
  return rep;
}

std::string render_gnuplot(const fs::path& dir, const std::string& stem,
                           const std::function<std::string(const fs::path& svg)>& script,
                           const std::optional<fs::path>& gnuplot) {
  fs::path svg = dir / (stem + ".svg"), tmp = dir / (stem + ".svg.tmp." + std::to_string(::getpid()));
  // The kept script writes the final name; the one we run writes the temporary one.
  write_file_atomic(dir / (stem + ".gp"), script(stem + ".svg"));
  if (!gnuplot) return "";
  fs::path run = dir / (stem + ".gp.tmp." + std::to_string(::getpid()));
  fs::path log = dir / (stem + ".gnuplot.log");
  write_file_atomic(run, script(tmp));
  int rc = run_gnuplot(*gnuplot, run, log);
  std::error_code ec;
  fs::remove(run, ec);
  if (rc == 0 && fs::exists(tmp) && fs::file_size(tmp, ec) > 0) {
    fs::rename(tmp, svg);
    fs::remove(log, ec);
    return "";
  }
  fs::remove(tmp, ec);
  return fmt::format("gnuplot failed (exit {}): {}", rc, tail_of(read_text(log), 3, 400));
}

}  // namespace nicsim
