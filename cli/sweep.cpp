// `nicsim sweep`: run a scenario over the cartesian product of parameter values, each point a
// separate `nicsim run` process, resumable and shardable; CSV, JSON and SVG plots of the metrics.
#include "cli/sweep.h"
#include "cli/dir_lock.h"
#include "cli/progress.h"
#include "cli/sweep_plot.h"
#include "cli/sweep_slurm.h"
#include "cli/fidelity_option.h"
#include "cli/verbs.h"
#include "core/params.h"
#include "core/results.h"
#include "platforms/scenario.h"
#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <mutex>
#include <thread>

namespace nicsim {
namespace fs = std::filesystem;
namespace po = boost::program_options;

namespace {

std::string first_line_of_last(const std::string& text) {
  std::string t = tail_of(text, 1, 200);
  return t;
}

/// The "metrics" object of a result.json, or nullopt when unreadable.
std::optional<nlohmann::json> result_metrics(const fs::path& result_json) {
  std::ifstream f(result_json, std::ios::binary);
  if (!f) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
  if (!j.is_object() || !j.contains("metrics") || !j["metrics"].is_object()) return std::nullopt;
  return j["metrics"];
}

/// "--metric 'x' names no metric ..." for a name absent from `metrics`, or "" when present.
std::string absent_metric_message(const std::string& name, const nlohmann::json& metrics) {
  auto it = metrics.find(name);
  if (it != metrics.end()) {
    if (it->is_number()) return "";
    return fmt::format("--metric '{}' is not a number in result.json (it is {})", name,
                       it->is_object() ? "an object" : it->is_array() ? "an array" : it->is_string() ? "a string"
                                                                                     : it->is_boolean() ? "a boolean" : "null");
  }
  std::vector<std::string> names;
  for (auto& [k, v] : metrics.items())
    if (v.is_number()) names.push_back(k);
  std::string near = nearest_name(name, names);
  constexpr size_t kShown = 20;
  std::string list;
  for (size_t i = 0; i < names.size() && i < kShown; ++i) list += (i ? ", " : "") + names[i];
  if (names.size() > kShown) list += fmt::format(", ... ({} more)", names.size() - kShown);
  return fmt::format("--metric '{}' names no metric of result.json{}; its numeric metrics: {}", name,
                     near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near), names.empty() ? "none" : list);
}

/// Write sweep.json, sweep.csv and (optionally) plots; print a summary. Returns {failed, missing}.
std::pair<size_t, size_t> write_outputs(const fs::path& dir, const SweepPlan& plan, const std::vector<PointRow>& rows,
                                        bool plots, const std::optional<fs::path>& gnuplot, std::FILE* log) {
  write_json_atomic(dir / "sweep.json", summary_json(plan, rows));
  write_file_atomic(dir / "sweep.csv", summary_csv(plan, rows));
  size_t ok = 0, failed = 0, missing = 0;
  for (auto& r : rows) (r.status == "ok" ? ok : r.status == "failed" ? failed : missing)++;
  fmt::print(log, "sweep: {} points: {} ok, {} failed, {} missing -> {}, {}\n", rows.size(), ok, failed, missing,
             (dir / "sweep.csv").string(), (dir / "sweep.json").string());
  size_t shown = 0;
  for (auto& r : rows) {
    if (r.status != "failed") continue;
    if (shown++ == 5) {
      fmt::print(log, "  ... {} more failed points in sweep.json\n", failed - 5);
      break;
    }
    fmt::print(log, "  FAILED {} (exit {}): {}\n", r.point.id, r.exit_code ? std::to_string(*r.exit_code) : "?",
               first_line_of_last(r.error));
  }
  if (plots) {
    PlotReport rep = write_plots(dir, plan, rows, gnuplot);
    for (auto& m : rep.messages) fmt::print(log, "plot: {}\n", m);
    for (auto& s : rep.svgs) fmt::print(log, "plot: {}\n", s.string());
  }
  return {failed, missing};
}

/// Points that ran before the scenario file changed (stale_points) are not this sweep's: their
/// result.json becomes result.stale.json (kept, not counted), so they run again.
void set_aside_stale_points(const fs::path& dir, const SweepPlan& plan, const std::vector<Point>& points,
                            std::FILE* log) {
  auto stale = stale_points(dir, plan, points);
  if (stale.empty()) return;
  for (auto& p : stale) {
    std::error_code ec;
    fs::rename(point_dir(dir, p) / "result.json", point_dir(dir, p) / "result.stale.json", ec);
    if (ec)
      throw std::runtime_error(
          fmt::format("cannot set aside {}: {}", (point_dir(dir, p) / "result.json").string(), ec.message()));
  }
  fmt::print(log, "sweep: {} finished point{} ran with other parameters than {} gives now (the file changed since): "
                  "they run again (old results kept as points/<id>/result.stale.json)\n",
             stale.size(), stale.size() == 1 ? "" : "s", plan.scenario);
}

/// Print the metric problems as errors; returns whether there were any.
bool report_metric_problems(const SweepPlan& plan, const std::vector<PointRow>& rows, std::FILE* log) {
  auto probs = metric_problems(plan, rows);
  for (auto& m : probs) fmt::print(log, "sweep: error: {}\n", m);
  if (!probs.empty())
    fmt::print(log, "sweep: the points are kept: rerun the same command with the right --metric (nothing is rerun)\n");
  return !probs.empty();
}

}  // namespace

std::vector<std::string> metric_problems_in(const SweepPlan& plan, const fs::path& result_json) {
  std::vector<std::string> out;
  auto m = result_metrics(result_json);
  if (!m) return out;
  for (auto& name : plan.metrics)
    if (auto msg = absent_metric_message(name, *m); !msg.empty()) out.push_back(msg);
  return out;
}

std::vector<std::string> metric_problems(const SweepPlan& plan, const std::vector<PointRow>& rows) {
  std::vector<std::string> out;
  const PointRow* first_ok = nullptr;
  for (auto& r : rows)
    if (r.status == "ok") {
      first_ok = &r;
      break;
    }
  if (!first_ok) return out;
  std::optional<nlohmann::json> m;  // the first ok point's metrics, read when needed
  for (size_t k = 0; k < plan.metrics.size(); ++k) {
    bool any = false;
    for (auto& r : rows) any |= r.status == "ok" && r.metrics[k].has_value();
    if (any) continue;
    if (!m) m = result_metrics(point_dir(first_ok->found_in, first_ok->point) / "result.json");
    std::string msg = m ? absent_metric_message(plan.metrics[k], *m) : "";
    size_t ok = 0;
    for (auto& r : rows) ok += r.status == "ok";
    if (msg.empty()) msg = fmt::format("--metric '{}' has no number in result.json", plan.metrics[k]);
    out.push_back(fmt::format("{} (none of the {} finished point{} has it)", msg, ok, ok == 1 ? "" : "s"));
  }
  return out;
}

namespace {
/// A sweep with at least this many combinations of --vary values says on stderr what its check
/// before the first point does and how far it is (about 50 µs per combination): a line rewritten
/// in place on a terminal, else one line every 10 s.
constexpr size_t kSweepCheckReportFrom = 10000;
}  // namespace

void validate_sweep_scenario(const SweepPlan& plan) {
  std::FILE* log = stderr;
  const bool tty = Progress::is_tty(stderr);
  try {
    (void)load_scenario(plan.scenario, plan.sets);
  } catch (const ScenarioError& e) {
    throw SweepUsageError(e.what());
  }
  // The file is read once; each check parses the text in memory (the errors name the file as
  // load_scenario does).
  std::string text;
  {
    std::ifstream in(plan.scenario, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  auto load = [&](const std::vector<std::string>& sets) { (void)load_scenario_text(text, plan.scenario, sets); };
  std::vector<std::string> base = plan.sets;
  for (auto& ax : plan.axes) {
    if (ax.key == "seed") continue;
    for (auto& v : representative_values(ax)) {
      std::vector<std::string> sets = base;
      sets.push_back(ax.key + "=" + v);
      try {
        load(sets);
      } catch (const ScenarioError& e) {
        // A --set error is this value's own: said with the --vary that wrote it.
        throw SweepUsageError(fmt::format("--vary {}={}: {}", ax.key, v, e.without_set_origin()));
      }
    }
    base.push_back(ax.key + "=" + ax.values.front());
  }
  // Then every combination of the non-seed axes' values (the rules that join keys, e.g. updelay a
  // multiple of miimon, or rx-usecs and rx-frames not both 0, and values between an axis'
  // extremes): loading is cheap next to a run, so a sweep that starts has no point the loader would
  // refuse. Seed axes do not change what loads: their points share one check. Counted like nested
  // loops (first axis slowest), nothing stored per combination.
  std::vector<const Axis*> axes;
  size_t combos = 1;
  for (auto& ax : plan.axes)
    if (ax.key != "seed") {
      axes.push_back(&ax);
      combos *= ax.values.size();
    }
  if (axes.empty()) return;
  // Many combinations take a while (about 50 µs each): say what is happening, with progress.
  const bool report = log && combos >= kSweepCheckReportFrom;
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  if (report)
    fmt::print(log, "nicsim sweep: checking that each of the {} combinations of --vary values loads before any point runs\n",
               combos);
  double shown_at = 0;
  std::vector<size_t> at(axes.size(), 0);
  for (size_t n = 0; n < combos; ++n) {
    std::vector<std::string> sets = plan.sets;
    for (size_t a = 0; a < axes.size(); ++a) sets.push_back(axes[a]->key + "=" + axes[a]->values[at[a]]);
    try {
      load(sets);
    } catch (const ScenarioError& e) {
      if (report && tty) fmt::print(log, "\r\033[K");
      std::string shown;
      for (size_t i = plan.sets.size(); i < sets.size(); ++i) shown += (shown.empty() ? "" : " ") + sets[i];
      throw SweepUsageError(fmt::format("--vary point {}: {}", shown, e.without_set_origin()));
    }
    for (size_t a = axes.size(); a-- > 0;) {  // the last axis fastest
      if (++at[a] < axes[a]->values.size()) break;
      at[a] = 0;
    }
    if (report && (n + 1 == combos || elapsed() - shown_at >= (tty ? 0.5 : 10.0))) {
      shown_at = elapsed();
      const double rate = double(n + 1) / std::max(shown_at, 1e-9);
      const std::string line = fmt::format("nicsim sweep: checked {} of {} combinations ({:.0f}%), {:.1f} s, {} left",
                                           n + 1, combos, 100.0 * double(n + 1) / double(combos), shown_at,
                                           format_duration(double(combos - n - 1) / rate));
      if (tty) fmt::print(log, "\r\033[K{}", line);
      else fmt::print(log, "{}\n", line);
      std::fflush(log);
    }
  }
  if (report && tty) fmt::print(log, "\n");
}

namespace {
/// The sweep directory's lock for this process (cli/dir_lock.h); a busy one is a usage error.
std::unique_ptr<DirLock> lock_dir(const fs::path& dir, const std::optional<Shard>& shard) {
  try {
    std::optional<std::pair<unsigned, unsigned>> s;
    if (shard) s = std::pair{shard->index, shard->count};
    return std::make_unique<DirLock>(dir, s);
  } catch (const DirLockBusy& e) {
    throw SweepUsageError(e.what());
  }
}
}  // namespace

int run_sweep(const SweepRunOptions& o, const Runner& runner) {
  auto lock = lock_dir(o.dir, o.shard);
  std::vector<Point> all = cartesian(o.plan.axes);
  std::vector<Point> mine = o.shard ? shard_points(all, *o.shard) : all;
  write_plan(o.dir, o.plan);
  set_aside_stale_points(o.dir, o.plan, mine, o.log);
  std::vector<Point> todo = pending_points(o.dir, mine);
  std::vector<RunJob> jobs;
  std::map<std::string, const Point*> point_of;  // job label (= point id) -> point
  for (auto& p : todo) {
    jobs.push_back(job_for(o.plan, p, o.dir));
    point_of[p.id] = &p;
  }
  // point.json is written just before its point runs (not all up front: one fsync per file).
  Runner with_point_json = [&](const RunJob& j) {
    write_point_json(o.dir, o.plan, *point_of.at(j.label));
    return runner(j);
  };
  fmt::print(o.log, "sweep: {} points{}; {} already finished; running {} with {} job{}\n", all.size(),
             o.shard ? fmt::format(" (shard {}/{}: {})", o.shard->index, o.shard->count, mine.size()) : "",
             mine.size() - todo.size(), todo.size(), o.jobs, o.jobs == 1 ? "" : "s");
  std::fflush(o.log);

  // A misspelt --metric shows after the first finished point (a warning: a metric may exist only
  // for some points, e.g. a message size beyond another point's upper); the final check decides.
  bool metrics_checked = false;
  auto check_metrics = [&](const fs::path& result_json) {
    metrics_checked = true;
    for (auto& m : metric_problems_in(o.plan, result_json)) fmt::print(o.log, "sweep: WARNING: {}\n", m);
    std::fflush(o.log);
  };
  for (auto& p : mine)
    if (point_finished(o.dir, p)) {
      check_metrics(point_dir(o.dir, p) / "result.json");
      break;
    }

  Progress progress(o.log, jobs.size(), o.tty);
  ExecOptions eo;
  eo.jobs = o.jobs;
  eo.stop = o.stop;
  eo.on_done = [&](const RunJob& j, const JobResult& r, size_t, size_t) {
    if (r.status == JobStatus::Ok && !metrics_checked) {
      progress.finish();
      check_metrics(j.out_dir / "result.json");
    }
    if (r.status == JobStatus::Ok || r.status == JobStatus::Failed)
      progress.job_done(r.status == JobStatus::Ok, j.label, r.seconds,
                        r.status == JobStatus::Failed ? fmt::format("exit {}: {}", r.exit_code, first_line_of_last(r.stderr_tail)) : "");
  };
  eo.on_tick = [&](size_t, size_t) { progress.tick(); };
  auto results = run_jobs(jobs, with_point_json, eo);
  progress.finish();

  bool interrupted = o.stop && o.stop->load();
  size_t failed_here = 0;
  for (auto& r : results) failed_here += r.status == JobStatus::Failed;
  auto rows = collect_rows(o.plan, {o.dir});
  write_outputs(o.dir, o.plan, rows, o.plots && !o.shard && !interrupted, o.gnuplot, o.log);
  if (interrupted) {
    size_t lost = 0;
    for (auto& r : results) lost += r.status == JobStatus::Interrupted || r.status == JobStatus::NotStarted;
    fmt::print(o.log, "sweep: interrupted; {} points not finished; rerun the same command to resume\n", lost);
    int sig = InterruptGuard::signal_caught();
    return 128 + (sig ? sig : 2);
  }
  if (o.shard)
    fmt::print(o.log, "sweep: shard {}/{} done; when all shards are done: nicsim sweep --merge DIR... --out DIR\n",
               o.shard->index, o.shard->count);
  if (report_metric_problems(o.plan, rows, o.log)) return kExitUsage;
  return failed_here ? kExitRunFailed : kExitOk;
}

int run_merge(const std::vector<fs::path>& inputs, const fs::path& out, bool plots,
              const std::optional<fs::path>& gnuplot, std::FILE* log) {
  auto lock = lock_dir(out, std::nullopt);
  SweepPlan plan;
  auto rows = merge_dirs(inputs, out, &plan);
  auto [failed, missing] = write_outputs(out, plan, rows, plots, gnuplot, log);
  if (missing) fmt::print(log, "merge: {} points missing (a shard not run or not finished?)\n", missing);
  if (report_metric_problems(plan, rows, log)) return kExitUsage;
  return failed || missing ? kExitRunFailed : kExitOk;
}

namespace {

const char* kSweepUsage =
    "usage: nicsim sweep SCENARIO --vary KEY=VALUES [--vary ...] --metric NAME [NAME...] --out DIR\n"
    "                    [--jobs N] [--shard I/N] [--set KEY=VALUE ...] [--fidelity exact|fast] [--no-plot]\n"
    "                    [--dry-run]\n"
    "       nicsim sweep SCENARIO --vary ... --metric ... --out DIR --slurm N [--sbatch-arg OPT ...] [--wait]\n"
    "       nicsim sweep --merge DIR [DIR...] --out DIR [--no-plot]\n\n"
    "Runs SCENARIO once per point of the cartesian product of the --vary values, each point a separate\n"
    "`nicsim run` process (output in DIR/points/<id>/). VALUES is a comma-separated list of values\n"
    "and/or START:STOP:STEP ranges (STOP included), e.g. 0,1000:20000:1000. KEY is a dotted scenario\n"
    "key as for --set (hosts.*.nics.eth1.InterruptThrottleRate, workload.upper) or `seed`.\n"
    "Writes DIR/sweep.csv, DIR/sweep.json and DIR/plots/<metric>.svg (metric vs the first --vary key,\n"
    "one line per combination of the others; needs gnuplot). Rerunning the same command resumes:\n"
    "points with a result.json are not rerun; failed points are retried. --slurm N submits the points\n"
    "as a Slurm job array of N shards and a merge job (scripts in DIR/slurm/); rerunning it resubmits\n"
    "the shards with unfinished points. See docs/sweep-and-check.md.\n\n"
    "Exit: 0 all points ok, 1 some point failed (or missing, for --merge), 2 usage error,\n"
    "128+signal when interrupted (finished points are kept).\n\noptions";

}  // namespace

static int sweep_main(int argc, char** argv) {
  po::options_description opts(kSweepUsage);
  unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  opts.add_options()
      ("vary", po::value<std::vector<std::string>>()->composing(), "KEY=VALUES to vary (repeatable)")
      ("metric", po::value<std::vector<std::string>>()->multitoken()->composing(),
       "result.json metric name(s) to collect and plot (repeatable; NAME,NAME also accepted)")
      ("out", po::value<std::string>(), "sweep directory (created; reused to resume)")
      ("jobs,j", po::value<std::string>()->default_value(std::to_string(hw)),
       "points run in parallel, 1 to 1024 (default: hardware cores)")
      ("shard", po::value<std::string>(), "run only points with index % N == I (e.g. $SLURM_ARRAY_TASK_ID/16)")
      ("set", po::value<std::vector<std::string>>()->composing(), "KEY=VALUE applied to every point (repeatable)")
      ("merge", po::value<std::vector<std::string>>()->multitoken()->composing(),
       "merge these sweep directories (shards) into --out")
      ("slurm", po::value<std::string>(),
       "submit the points as a Slurm job array of N tasks (shards of DIR) and a merge job after them; "
       "rerun to resubmit unfinished shards")
      ("sbatch-arg", po::value<std::vector<std::string>>()->composing(),
       "extra sbatch option for --slurm, e.g. --sbatch-arg=--partition=short (repeatable)")
      ("wait", "with --slurm: wait for the merge job and exit with its status")
      ("no-plot", "do not draw plots")
      ("dry-run", "list the points (and which are finished) without running anything");
  add_fidelity_option(opts);
  add_calibration_option(opts);
  po::variables_map vm;
  std::vector<std::string> scen;
  if (auto rc = parse_verb_args_listing(argc, argv, "", opts, vm, &scen)) return *rc;
  const UsageError usage_error{"sweep"};
  if (!vm.count("out")) return usage_error("--out DIR is required");
  fs::path out = vm["out"].as<std::string>();
  bool plots = !vm.count("no-plot");
  std::optional<fs::path> gnuplot = find_in_path("gnuplot");
  try {
    std::string why;
    auto jobs = parse_jobs_arg(vm["jobs"].as<std::string>(), &why);
    if (!jobs) return usage_error(why);
    if ((vm.count("sbatch-arg") || vm.count("wait")) && !vm.count("slurm"))
      return usage_error("--sbatch-arg and --wait go with --slurm N");
    if (vm.count("slurm") && (vm.count("merge") || vm.count("shard") || vm.count("dry-run")))
      return usage_error("--slurm N makes the shards itself: it does not go with --merge, --shard or --dry-run");
    if (vm.count("merge")) {
      if (!scen.empty() || vm.count("vary") || vm.count("shard"))
        return usage_error("--merge takes only sweep directories and --out (got a scenario, --vary or --shard)");
      if (auto w = out_dir_problem(out); !w.empty()) return usage_error("--out: " + w);
      std::vector<fs::path> in;
      for (auto& d : vm["merge"].as<std::vector<std::string>>()) in.emplace_back(d);
      return run_merge(in, out, plots, gnuplot, stderr);
    }
    if (scen.size() != 1)
      return usage_error(scen.empty() ? "give one SCENARIO file (before --metric, which takes several names)" : fmt::format("give one SCENARIO file, got {}: {}",
                                                                              scen.size(), fmt::join(scen, " ")));
    fs::path scenario = fs::absolute(scen[0]).lexically_normal();
    if (!fs::is_regular_file(scenario)) return usage_error(fmt::format("no scenario file '{}'", scen[0]));

    SweepRunOptions o;
    o.plan.scenario = scenario.string();
    if (vm.count("set")) o.plan.sets = vm["set"].as<std::vector<std::string>>();
    for (auto& s : o.plan.sets)
      if (s.find('=') == std::string::npos) return usage_error(fmt::format("--set '{}': write KEY=VALUE", s));
    if (auto why = apply_fidelity_option(vm, o.plan.sets); !why.empty()) return usage_error(why);
    if (auto why = apply_calibration_option(vm, o.plan.sets); !why.empty()) return usage_error(why);
    if (vm.count("vary"))
      for (auto& v : vm["vary"].as<std::vector<std::string>>()) o.plan.axes.push_back(parse_vary(v));
    if (o.plan.axes.empty()) return usage_error("give at least one --vary KEY=VALUES");
    if (vm.count("metric"))
      for (auto& m : vm["metric"].as<std::vector<std::string>>())
        for (auto& part : [&] {
               std::vector<std::string> p;
               size_t s = 0, c;
               while ((c = m.find(',', s)) != std::string::npos) { p.push_back(m.substr(s, c - s)); s = c + 1; }
               p.push_back(m.substr(s));
               return p;
             }())
          if (!part.empty()) o.plan.metrics.push_back(part);
    if (o.plan.metrics.empty()) return usage_error("give at least one --metric NAME (a key of result.json \"metrics\")");
    if (vm.count("shard")) o.shard = parse_shard(vm["shard"].as<std::string>());
    o.jobs = *jobs;
    o.dir = out;
    o.plots = plots;
    o.gnuplot = gnuplot;
    o.tty = Progress::is_tty(stderr);

    auto points = cartesian(o.plan.axes);
    // Every point loads the same scenario: a scenario or --vary/--set error is one usage error
    // now, not a failure of every point.
    validate_sweep_scenario(o.plan);
    if (vm.count("dry-run")) {
      // What the real sweep would refuse about DIR is refused here too (nothing is written).
      check_plan_fits(out, o.plan);
      auto mine = o.shard ? shard_points(points, *o.shard) : points;
      size_t fin = 0;
      std::set<std::string> stale;
      for (auto& p : stale_points(out, o.plan, mine)) stale.insert(p.id);
      for (auto& p : mine) {
        bool f = point_finished(out, p) && !stale.count(p.id);
        fin += f;
        fmt::print("{:>6} {:<9} {}\n", p.index, f ? "finished" : stale.count(p.id) ? "stale" : "pending", p.id);
      }
      fmt::print("{} points{}, {} finished, {} to run\n", points.size(),
                 o.shard ? fmt::format(" ({} in shard {}/{})", mine.size(), o.shard->index, o.shard->count) : "",
                 fin, mine.size() - fin);
      return kExitOk;
    }
    // --out is checked before anything runs (it is created if needed).
    if (auto w = out_dir_problem(out); !w.empty()) return usage_error("--out: " + w);
    if (vm.count("slurm")) {
      SlurmSweep ss;
      const std::string& n = vm["slurm"].as<std::string>();
      char* end = nullptr;
      unsigned long tasks = std::strtoul(n.c_str(), &end, 10);
      if (n.empty() || *end || n[0] == '-' || tasks < 1 || tasks > 100000)
        return usage_error(fmt::format("--slurm '{}': give the number of array tasks, 1 to 100000", n));
      ss.tasks = static_cast<unsigned>(tasks);
      ss.binary = self_executable();
      ss.dir = fs::absolute(out).lexically_normal();
      ss.cpus_per_task = vm["jobs"].defaulted() ? 1 : *jobs;
      ss.plots = plots;
      ss.wait = vm.count("wait") > 0;
      if (vm.count("sbatch-arg")) ss.sbatch_args = vm["sbatch-arg"].as<std::vector<std::string>>();
      ss.sweep_args = {"sweep", o.plan.scenario};
      for (auto& s : o.plan.sets) ss.sweep_args.insert(ss.sweep_args.end(), {"--set", s});
      for (auto& v : vm["vary"].as<std::vector<std::string>>()) ss.sweep_args.insert(ss.sweep_args.end(), {"--vary", v});
      ss.sweep_args.push_back("--metric");
      ss.sweep_args.insert(ss.sweep_args.end(), o.plan.metrics.begin(), o.plan.metrics.end());
      ss.sweep_args.insert(ss.sweep_args.end(), {"--no-plot", "--out", ss.dir.string()});
      write_plan(ss.dir, o.plan);  // claims DIR now: another sweep's directory is refused before submitting
      set_aside_stale_points(ss.dir, o.plan, points, stderr);
      return submit_slurm_sweep(ss, pending_shards(ss.dir, points, ss.tasks), stderr);
    }
    InterruptGuard guard;
    o.stop = &InterruptGuard::flag();
    return run_sweep(o, process_runner(self_executable()));
  } catch (const SweepUsageError& e) {
    return usage_error(e.what());
  } catch (const std::exception& e) {
    fmt::print(stderr, "nicsim sweep: {}\n", e.what());
    return kExitRunFailed;
  }
}

static Registrar<VerbEntry> sweep_verb{VerbEntry{
    "sweep", "run a scenario over a grid of parameter values (parallel, resumable, shardable); CSV/JSON/SVG",
    sweep_main}};

}  // namespace nicsim
