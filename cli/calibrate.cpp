// `nicsim calibrate FILE`: fit a platform's declared estimates (core/params.h CalibBounds) to the
// training references a calibration file names, then report the error on every reference, the
// leave-one-group-out error and the sensitivities (docs/calibration.md).
//
// Every objective evaluation runs the training scenarios as `check` does (one `nicsim run` child
// each, through the executor, --jobs at a time) with the calibration's fixed seeds, so the objective
// is a deterministic function of the parameter values. Each run lives in DIR/runs/<key>/, the key
// hashing the binary, the calibration file, the scenario, the seed and the values: a run found
// complete there is never run again, so an interrupted calibration resumes and a rerun of the same
// file on the same binary runs nothing (NLopt's DIRECT-L and BOBYQA/COBYLA are deterministic and
// replay the same points).
#include "cli/calibrate.h"
#include "cli/calibration_file.h"
#include "cli/check_refs.h"
#include "cli/dir_lock.h"
#include "cli/progress.h"
#include "cli/sweep_plan.h"
#include "cli/verbs.h"
#include "core/results.h"
#include "platforms/calibration_fit.h"
#include "platforms/scenario.h"
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <nlopt.hpp>
#include <set>
#include <thread>

namespace nicsim {
namespace fs = std::filesystem;
namespace po = boost::program_options;

namespace {

/// One reference of the training or validation set.
struct Figure {
  std::string role;  ///< "train" / "validate"
  Reference ref;
  fs::path ref_file, scenario;
  std::string ref_text;  ///< the file as the calibration names it
  std::string group;
  std::string label;     ///< "REF_TEXT: METRIC"
  std::string id;        ///< the reference's identity: normal path + index
};

/// The signed error of `sim` against `r`: relative for a reference with a relative tolerance or a
/// range (the distance outside it over the nearer end), in tolerances for a difference (`vs`) or an
/// absolute tolerance; and whether it is within the reference's tolerance (check's rule,
/// reference_within).
struct RefError {
  double error = 0;
  bool in_tolerances = false;
  bool within = false;
};

RefError ref_error(const Reference& r, double sim) {
  RefError e;
  e.within = reference_within(r, sim);
  if (r.range) {
    const auto [lo, hi] = *r.range;
    if (!e.within) e.error = sim < lo ? (sim - lo) / std::max(std::abs(lo), 1e-300) : (sim - hi) / std::max(std::abs(hi), 1e-300);
    return e;
  }
  const double exp = *r.expected;
  const double tol = r.tolerance_abs ? *r.tolerance_abs : *r.tolerance * std::abs(exp);
  if (r.vs || r.tolerance_abs) {
    e.in_tolerances = true;
    e.error = tol > 0 ? (sim - exp) / tol : (sim == exp ? 0.0 : 1e3);
  } else {
    e.error = (sim - exp) / std::abs(exp);
  }
  return e;
}

/// A figure's term of the objective: |log(sim / expected)|; for a range the log distance outside
/// it; for a difference or absolute reference (or values that are not both positive) the error over
/// its tolerance. A figure without a value (its run failed) costs 10.
double objective_term(const Reference& r, std::optional<double> sim) {
  if (!sim || !std::isfinite(*sim)) return 10.0;
  const double s = *sim;
  if (r.range) {
    const auto [lo, hi] = *r.range;
    if (s >= lo && s <= hi) return 0.0;
    const double edge = s < lo ? lo : hi;
    if (s > 0 && edge > 0) return std::abs(std::log(s / edge));
    return std::abs(ref_error(r, s).error);
  }
  if (!r.vs && !r.tolerance_abs && s > 0 && *r.expected > 0) return std::abs(std::log(s / *r.expected));
  return std::abs(ref_error(r, s).error);
}

std::string pct(double v) { return fmt::format("{:+.1f}%", v * 100); }
std::string err_text(const RefError& e) { return e.in_tolerances ? fmt::format("{:+.2f} tol", e.error) : pct(e.error); }

/// Runs the scenarios of figures at parameter values, reusing finished runs in DIR/runs.
class Evaluator {
 public:
  Evaluator(const CalibrationFile& cf, const std::vector<Figure>& figs, fs::path dir, std::string key_base,
            const Runner& runner, const CalibrateOptions& o, CalibrateStats& stats)
      : cf_(cf), figs_(figs), dir_(std::move(dir)), key_base_(std::move(key_base)), runner_(runner), o_(o), stats_(stats) {}

  /// The values of `x` as the runs use them (integers rounded).
  std::vector<double> rounded(std::vector<double> x) const {
    for (size_t i = 0; i < x.size(); ++i)
      if (cf_.params[i].integer()) x[i] = std::round(x[i]);
    return x;
  }

  /// The simulated value of each figure of `which` at each point (mean over the seeds); nullopt
  /// where a run failed (`first_error` gets the first failure).
  std::vector<std::vector<std::optional<double>>> simulate(const std::vector<std::vector<double>>& points,
                                                           const std::vector<size_t>& which, std::string* first_error) {
    struct RunRef {
      std::string key;
      fs::path dir;
    };
    std::vector<RunJob> pending;
    std::set<std::string> pending_keys;
    // run_key[point][scenario][seed]
    std::vector<std::map<fs::path, std::vector<RunRef>>> runs(points.size());
    std::vector<std::optional<uint64_t>> seeds;
    if (cf_.seeds.empty()) seeds.push_back(std::nullopt);
    for (uint64_t s : cf_.seeds) seeds.push_back(s);
    for (size_t p = 0; p < points.size(); ++p) {
      const std::vector<double> x = rounded(points[p]);
      std::vector<FitParam> values;
      for (size_t i = 0; i < x.size(); ++i) {
        FitParam fp;
        fp.set = cf_.params[i].set;
        fp.fitted = x[i];
        fp.integer = cf_.params[i].integer();
        values.push_back(fp);
      }
      std::set<fs::path> scenarios;
      for (size_t f : which) {
        scenarios.insert(figs_[f].scenario);
        if (figs_[f].ref.vs) scenarios.insert(*figs_[f].ref.vs);
      }
      for (const fs::path& sc : scenarios) {
        std::vector<std::string> sets;
        for (auto& t : calibration_targets(tree(sc), cf_.platform, cf_.kernel_profile, cf_.cpu_profile, values, nullptr))
          sets.push_back(t.key + "=" + calibration_value_text(t.value, t.integer));
        for (auto& seed : seeds) {
          std::string text = key_base_ + "\n" + fs::absolute(sc).lexically_normal().string() + "\n" +
                             (seed ? std::to_string(*seed) : "scenario seed");
          for (auto& s : sets) text += "\n" + s;
          const std::string key = content_hash(text).substr(8);
          RunRef rr{key, dir_ / "runs" / key};
          runs[p][sc].push_back(rr);
          if (pending_keys.count(key)) continue;
          if (result_complete(rr.dir / "result.json")) {
            if (counted_.insert(key).second) ++stats_.runs_reused;
            continue;
          }
          pending_keys.insert(key);
          RunJob j;
          j.label = fmt::format("{} ({})", sc.string(), sets.empty() ? "nominal" : fmt::format("{}", fmt::join(sets, " ")));
          j.scenario = sc;
          j.sets = sets;
          j.seed = seed;
          j.out_dir = rr.dir;
          pending.push_back(std::move(j));
        }
      }
    }
    if (!pending.empty()) {
      ExecOptions eo;
      eo.jobs = o_.jobs;
      eo.stop = o_.stop;
      run_jobs(pending, runner_, eo);
      stats_.runs_started += pending.size();
      for (auto& j : pending) counted_.insert(j.out_dir.filename().string());
    }
    std::vector<std::vector<std::optional<double>>> out(points.size(), std::vector<std::optional<double>>(figs_.size()));
    for (size_t p = 0; p < points.size(); ++p)
      for (size_t f : which) {
        const Figure& fig = figs_[f];
        const auto& mine = runs[p].at(fig.scenario);
        const std::vector<RunRef>* other = fig.ref.vs ? &runs[p].at(*fig.ref.vs) : nullptr;
        double sum = 0;
        bool ok = true;
        for (size_t s = 0; s < mine.size() && ok; ++s) {
          const Result* a = result(mine[s].dir, first_error);
          const Result* b = other ? result((*other)[s].dir, first_error) : nullptr;
          if (!a || (other && !b)) {
            ok = false;
            break;
          }
          RefCheck c = other ? evaluate_reference(fig.ref, a->metrics, a->counters, &b->metrics, &b->counters)
                             : evaluate_reference(fig.ref, a->metrics, a->counters);
          if (!c.simulated) {
            if (first_error && first_error->empty()) *first_error = fmt::format("{}: {}", fig.label, c.message);
            ok = false;
            break;
          }
          sum += *c.simulated;
        }
        if (ok) out[p][f] = sum / static_cast<double>(mine.size());
      }
    return out;
  }

 private:
  struct Result {
    nlohmann::json metrics, counters = nlohmann::json::object();
  };
  const CalibrationFile& cf_;
  const std::vector<Figure>& figs_;
  fs::path dir_;
  std::string key_base_;
  const Runner& runner_;
  const CalibrateOptions& o_;
  CalibrateStats& stats_;
  std::map<fs::path, toml::table> trees_;
  std::map<fs::path, Result> results_;
  std::set<std::string> counted_;

  const toml::table& tree(const fs::path& sc) {
    auto it = trees_.find(sc);
    if (it != trees_.end()) return it->second;
    toml::table t;
    try {
      t = toml::parse_file(sc.string());
    } catch (const toml::parse_error&) {  // load_scenario accepted it before; the run reports anything else
    }
    return trees_.emplace(sc, std::move(t)).first->second;
  }

  const Result* result(const fs::path& run_dir, std::string* first_error) {
    auto it = results_.find(run_dir);
    if (it != results_.end()) return &it->second;
    const fs::path rj = run_dir / "result.json";
    if (!result_complete(rj)) {
      if (first_error && first_error->empty()) {
        std::string why = "no result";
        std::ifstream ef(run_dir / "error.json");
        if (ef) {
          nlohmann::json e = nlohmann::json::parse(ef, nullptr, false);
          if (e.is_object() && e.contains("stderr_tail")) why = e["stderr_tail"].get<std::string>();
        }
        *first_error = fmt::format("run {} failed: {}", run_dir.string(), why);
      }
      return nullptr;
    }
    std::ifstream f(rj);
    nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
    Result r;
    r.metrics = j["metrics"];
    if (j.contains("counters")) r.counters = j["counters"];
    return &results_.emplace(run_dir, std::move(r)).first->second;
  }
};

struct Refusal {
  std::string why;
};

/// Pearson-free collinearity: |cos| of two sensitivity rows.
double cosine(const std::vector<double>& a, const std::vector<double>& b) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < a.size(); ++i) ab += a[i] * b[i], aa += a[i] * a[i], bb += b[i] * b[i];
  return aa > 0 && bb > 0 ? std::abs(ab) / std::sqrt(aa * bb) : 0.0;
}

/// Relative change of each figure between two points, over its value at a third.
std::vector<double> sensitivity_row(const std::vector<std::optional<double>>& lo, const std::vector<std::optional<double>>& hi,
                                    const std::vector<std::optional<double>>& at, const std::vector<size_t>& which) {
  std::vector<double> row;
  for (size_t f : which) {
    if (!lo[f] || !hi[f] || !at[f]) {
      row.push_back(0.0);
      continue;
    }
    double scale = std::abs(*at[f]);
    if (scale == 0) scale = std::max(std::abs(*lo[f]), std::abs(*hi[f]));
    row.push_back(scale > 0 ? (*hi[f] - *lo[f]) / scale : 0.0);
  }
  return row;
}

std::string sensitivity_table(const CalibrationFile& cf, const std::vector<Figure>& figs, const std::vector<size_t>& which,
                              const std::vector<std::vector<double>>& m) {
  size_t w = 6;
  for (size_t f : which) w = std::max(w, figs[f].label.size());
  // Each parameter's column as wide as its name (at least 8), so the header is never cut.
  std::vector<size_t> cw;
  for (auto& p : cf.params) cw.push_back(std::max<size_t>(8, p.spec.name.size()));
  std::string s = fmt::format("{:<{}}", "figure", w);
  for (size_t p = 0; p < cf.params.size(); ++p) s += fmt::format("  {:>{}}", cf.params[p].spec.name, cw[p]);
  s += "\n";
  for (size_t k = 0; k < which.size(); ++k) {
    s += fmt::format("{:<{}}", figs[which[k]].label, w);
    for (size_t p = 0; p < m.size(); ++p) s += fmt::format("  {:>{}}", pct(m[p][k]), cw[p]);
    s += "\n";
  }
  return s;
}

FitSummary summarize(const std::vector<FitRef>& refs, const std::string& role) {
  FitSummary s;
  size_t nrel = 0;
  double worst_abs = -1;
  for (auto& r : refs) {
    if (r.role != role) continue;
    ++s.count;
    if (r.within) ++s.within;
    if (r.error_in_tolerances || !r.simulated) continue;
    ++nrel;
    s.mean_abs += std::abs(r.error);
    s.mean_signed += r.error;
    if (std::abs(r.error) > worst_abs) {
      worst_abs = std::abs(r.error);
      s.worst = r.error;
      s.worst_ref = r.ref_file + ": " + r.metric;
    }
  }
  if (nrel) s.mean_abs /= static_cast<double>(nrel), s.mean_signed /= static_cast<double>(nrel);
  return s;
}

std::string value_text(const CalibrationParam& p, double v) { return calibration_value_text(v, p.integer()); }

}  // namespace

int run_calibrate(const CalibrateOptions& o, const Runner& runner, CalibrateStats* stats_out) {
  CalibrateStats stats;
  auto refuse = [&](const std::string& why) {
    fmt::print(o.log, "nicsim calibrate: refused: {}\n", why);
    return static_cast<int>(kExitUsage);
  };
  CalibrationFile cf;
  try {
    cf = load_calibration_file(o.file);
  } catch (const RefFileError& e) {
    fmt::print(o.log, "nicsim calibrate: {}\n", e.what());
    return kExitUsage;
  }

  // The figures, and the refusals that need no run.
  std::vector<Figure> figs;
  std::map<std::string, std::pair<std::string, int>> train_ids;  // id -> (label, line)
  auto add = [&](const char* role, const CalibrationRefs& sel) {
    for (size_t i : sel.selected) {
      Figure f;
      f.role = role;
      f.ref = sel.file.refs[i];
      f.ref_file = sel.ref_file;
      f.ref_text = sel.ref_text;
      f.scenario = sel.file.scenario;
      f.group = sel.group;
      f.label = sel.ref_text + ": " + metric_text(f.ref);
      f.id = fmt::format("{}#{}", fs::absolute(sel.ref_file).lexically_normal().string(), i);
      figs.push_back(std::move(f));
    }
  };
  for (auto& t : cf.train) add("train", t);
  for (auto& t : cf.validate) add("validate", t);
  std::vector<size_t> train, validate, all;
  for (size_t i = 0; i < figs.size(); ++i) {
    (figs[i].role == "train" ? train : validate).push_back(i);
    all.push_back(i);
  }
  {
    std::map<std::string, size_t> seen;
    for (size_t i : train) seen.emplace(figs[i].id, i);
    for (size_t i : validate)
      if (seen.count(figs[i].id))
        return refuse(fmt::format("{}:{} is in both the training and the validation set: never fit what you validate on",
                                  figs[i].ref_file.string(), figs[i].ref.line) +
                      fmt::format(" (metric {})", metric_text(figs[i].ref)));
    std::set<std::string> dup;
    for (size_t i : train)
      if (!dup.insert(figs[i].id).second)
        return refuse(fmt::format("{}:{} is named twice in the training set", figs[i].ref_file.string(), figs[i].ref.line));
  }
  if (cf.params.size() * 3 > train.size())
    return refuse(fmt::format("{} parameter{} need at least {} training figures (three per parameter); the training set "
                              "has {}",
                              cf.params.size(), cf.params.size() == 1 ? "" : "s", cf.params.size() * 3, train.size()));
  // Every scenario must load, and every training scenario must have a host the calibration applies to.
  {
    std::set<fs::path> scs;
    for (auto& f : figs) {
      scs.insert(f.scenario);
      if (f.ref.vs) scs.insert(*f.ref.vs);
    }
    for (auto& sc : scs) {
      try {
        Scenario s = load_scenario(sc.string());
        if (s.fidelity == Fidelity::Fast)
          return refuse(fmt::format("{}: fidelity is fast; references are fitted against the exact model", sc.string()));
        if (s.calibration)
          return refuse(fmt::format("{}: names calibration {}: a calibration is fitted on uncalibrated scenarios",
                                    sc.string(), s.calibration->name));
      } catch (const ScenarioError& e) {
        fmt::print(o.log, "nicsim calibrate: {}\n", e.what());
        return kExitUsage;
      }
    }
    std::vector<FitParam> probe;
    for (auto& p : cf.params) {
      FitParam fp;
      fp.set = p.set;
      fp.integer = p.integer();
      fp.fitted = p.nominal;
      probe.push_back(fp);
    }
    for (size_t i : train) {
      size_t matched = 0;
      toml::table t = toml::parse_file(figs[i].scenario.string());
      calibration_targets(t, cf.platform, cf.kernel_profile, cf.cpu_profile, probe, nullptr, &matched);
      if (!matched)
        return refuse(fmt::format("{}: no host of {} is on platform {}{}: the calibration cannot move it",
                                  figs[i].label, figs[i].scenario.string(), cf.platform,
                                  cf.kernel_profile.empty() ? "" : " with kernel profile " + cf.kernel_profile));
    }
  }
  const fs::path dir = o.out ? *o.out : cf.path.parent_path() / (cf.name + ".runs");
  if (auto w = out_dir_problem(dir); !w.empty()) {
    fmt::print(o.log, "nicsim calibrate: --out: {}\n", w);
    return kExitUsage;
  }
  // One calibration at a time in a run directory: a second one would run the same points twice.
  std::optional<DirLock> lock;
  try {
    lock.emplace(dir, std::nullopt, "calibrate");
  } catch (const std::exception& e) {
    fmt::print(o.log, "nicsim calibrate: {}\n", e.what());
    return kExitUsage;
  }
  std::string binary_hash;
  try {
    binary_hash = file_hash(o.binary);
  } catch (const std::exception& e) {
    fmt::print(o.log, "nicsim calibrate: {}\n", e.what());
    return kExitUsage;
  }
  Evaluator ev(cf, figs, dir, binary_hash + "\n" + cf.hash, runner, o, stats);
  auto interrupted = [&] { return o.stop && o.stop->load(); };
  auto interrupt_exit = [&] {
    const int sig = InterruptGuard::signal_caught();
    fmt::print(o.log, "nicsim calibrate: interrupted; finished runs are kept in {} and reused when it is run again\n",
               dir.string());
    return 128 + (sig ? sig : 2);
  };
  const size_t np = cf.params.size();
  fmt::print(o.log, "calibrate {}: {} parameter{}, {} training and {} validation references, runs in {}\n", cf.name, np,
             np == 1 ? "" : "s", train.size(), validate.size(), dir.string());

  // 1. One-at-a-time sensitivity at the bounds: every parameter at its low and high bound, the
  //    others at their nominal values (clamped into the calibration's bounds).
  std::vector<double> nominal;
  for (auto& p : cf.params) nominal.push_back(std::clamp(p.nominal, p.lo, p.hi));
  std::vector<std::vector<double>> pts = {nominal};
  for (size_t p = 0; p < np; ++p) {
    auto lo = nominal, hi = nominal;
    lo[p] = cf.params[p].lo;
    hi[p] = cf.params[p].hi;
    pts.push_back(lo);
    pts.push_back(hi);
  }
  std::string first_error;
  auto sens = ev.simulate(pts, train, &first_error);
  if (interrupted()) return interrupt_exit();
  for (auto& point : sens)
    for (size_t f : train)
      if (!point[f]) {
        fmt::print(o.log, "nicsim calibrate: a sensitivity run (the nominal values or a bound) failed: {}\n", first_error);
        return kExitRunFailed;
      }
  std::vector<std::vector<double>> smat;
  for (size_t p = 0; p < np; ++p) smat.push_back(sensitivity_row(sens[1 + 2 * p], sens[2 + 2 * p], sens[0], train));
  fmt::print(o.out_text, "sensitivity: relative change of each training figure from a parameter's low to its high bound "
                         "(the others nominal)\n{}\n",
             sensitivity_table(cf, figs, train, smat));
  std::fflush(o.out_text);
  constexpr double kMoves = 1e-3, kCollinear = 0.999;
  for (size_t p = 0; p < np; ++p) {
    double m = 0;
    for (double v : smat[p]) m = std::max(m, std::abs(v));
    if (m < kMoves)
      return refuse(fmt::format("{} moves no training figure by {:.1f}% or more across its bounds [{}, {}]: the training "
                                "set cannot determine it",
                                cf.params[p].set, kMoves * 100, value_text(cf.params[p], cf.params[p].lo),
                                value_text(cf.params[p], cf.params[p].hi)));
  }
  for (size_t p = 0; p < np; ++p)
    for (size_t q = p + 1; q < np; ++q)
      if (cosine(smat[p], smat[q]) > kCollinear)
        return refuse(fmt::format("{} and {} move the same training figures in the same proportion (|cos| {:.4f}): the "
                                  "training set cannot tell them apart; fit one, or add figures only one of them moves",
                                  cf.params[p].set, cf.params[q].set, cosine(smat[p], smat[q])));

  // 2. The fit: a bounded global pass (DIRECT-L), then a local polish (BOBYQA; COBYLA for one
  //    parameter), on the parameters scaled to [0, 1].
  auto actual = [&](const std::vector<double>& xn) {
    std::vector<double> x(np);
    for (size_t i = 0; i < np; ++i) x[i] = cf.params[i].lo + std::clamp(xn[i], 0.0, 1.0) * (cf.params[i].hi - cf.params[i].lo);
    return ev.rounded(x);
  };
  auto objective_at = [&](const std::vector<std::vector<std::optional<double>>>& sims, size_t p, const std::vector<size_t>& which) {
    double sum = 0;
    for (size_t f : which) sum += objective_term(figs[f].ref, sims[p][f]);
    return which.empty() ? 0.0 : sum / static_cast<double>(which.size());
  };
  const double nominal_objective = objective_at(sens, 0, train);
  std::map<std::pair<std::string, std::vector<double>>, double> memo;  // (figures, point) -> objective
  std::vector<double> best_x = nominal;
  double best = nominal_objective;
  size_t evals = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const size_t budget = std::max<size_t>(o.max_evals, 2);
  // The objective over `which`, memoised per point (the runs themselves are reused from DIR).
  auto make_objective = [&](const std::vector<size_t>& which, bool main_fit, double* best_out, std::vector<double>* best_x_out,
                            size_t* count, size_t limit, nlopt::opt** current) {
    return [&, which, main_fit, best_out, best_x_out, count, limit, current](const std::vector<double>& xn) {
      if (interrupted()) {
        if (*current) (*current)->force_stop();
        return 1e9;
      }
      const std::vector<double> x = actual(xn);
      const auto key = std::make_pair(fmt::format("{}", fmt::join(which, ",")), x);
      auto it = memo.find(key);
      double val;
      if (it != memo.end()) {
        val = it->second;
      } else {
        std::string err;
        auto sims = ev.simulate({x}, which, &err);
        val = objective_at(sims, 0, which);
        memo.emplace(key, val);
      }
      ++*count;
      if (val < *best_out) *best_out = val, *best_x_out = x;
      if (main_fit) {
        const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double eta = *count ? el / static_cast<double>(*count) * static_cast<double>(limit - std::min(limit, *count)) : 0;
        std::vector<std::string> bx;
        for (size_t i = 0; i < np; ++i) bx.push_back(cf.params[i].spec.name + "=" + value_text(cf.params[i], (*best_x_out)[i]));
        const std::string line = fmt::format("calibrate: evaluation {}/{}, best objective {:.5f} at {}, {} runs ({} reused), "
                                             "elapsed {}, ETA {}",
                                             *count, limit, *best_out, fmt::join(bx, " "), stats.runs_started,
                                             stats.runs_reused, format_duration(el), format_duration(eta));
        if (o.tty) fmt::print(o.log, "\r\033[K{}", line);
        else fmt::print(o.log, "{}\n", line);
        std::fflush(o.log);
      }
      return val;
    };
  };
  auto run_opt = [&](nlopt::algorithm alg, const std::vector<double>& start, size_t maxeval,
                     std::function<double(const std::vector<double>&)> fn, nlopt::opt** current) {
    nlopt::opt opt(alg, static_cast<unsigned>(np));
    *current = &opt;
    opt.set_lower_bounds(std::vector<double>(np, 0.0));
    opt.set_upper_bounds(std::vector<double>(np, 1.0));
    opt.set_maxeval(static_cast<int>(std::max<size_t>(maxeval, 1)));
    opt.set_xtol_abs(1e-4);
    if (alg != nlopt::GN_DIRECT_L) opt.set_initial_step(0.05);
    opt.set_min_objective(
        [](const std::vector<double>& x, std::vector<double>&, void* data) {
          return (*static_cast<std::function<double(const std::vector<double>&)>*>(data))(x);
        },
        &fn);
    std::vector<double> x = start;
    double f = 0;
    try {
      opt.optimize(x, f);
    } catch (const std::exception&) {  // roundoff-limited or forced stop: the best point so far stands
    }
    *current = nullptr;
  };
  auto normalized = [&](const std::vector<double>& x) {
    std::vector<double> xn(np);
    for (size_t i = 0; i < np; ++i) xn[i] = (x[i] - cf.params[i].lo) / (cf.params[i].hi - cf.params[i].lo);
    return xn;
  };
  const nlopt::algorithm local_alg = np >= 2 ? nlopt::LN_BOBYQA : nlopt::LN_COBYLA;
  nlopt::opt* current = nullptr;
  nlopt::srand(1);
  {
    const size_t global_evals = std::max<size_t>(1, budget * 2 / 3);
    auto fn = make_objective(train, true, &best, &best_x, &evals, budget, &current);
    run_opt(nlopt::GN_DIRECT_L, normalized(nominal), global_evals, fn, &current);
    if (!interrupted() && evals < budget) run_opt(local_alg, normalized(best_x), budget - evals, fn, &current);
  }
  if (o.tty) fmt::print(o.log, "\n");
  if (interrupted()) return interrupt_exit();
  const std::vector<double> fit_x = best_x;

  // 3. Everything at the fit: every reference, and the sensitivity (±5 % of each bound width).
  first_error.clear();
  auto at_fit = ev.simulate({fit_x}, all, &first_error);
  std::vector<std::vector<double>> around;
  for (size_t p = 0; p < np; ++p) {
    auto lo = fit_x, hi = fit_x;
    const double d = 0.05 * (cf.params[p].hi - cf.params[p].lo);
    lo[p] = std::max(cf.params[p].lo, fit_x[p] - d);
    hi[p] = std::min(cf.params[p].hi, fit_x[p] + d);
    around.push_back(lo);
    around.push_back(hi);
  }
  std::string sens_error;
  auto around_sims = ev.simulate(around, train, &sens_error);
  if (interrupted()) return interrupt_exit();

  FitFile fit;
  fit.name = cf.name;
  fit.platform = cf.platform;
  fit.kernel_profile = cf.kernel_profile;
  fit.cpu_profile = cf.cpu_profile;
  fit.calibration_file = cf.path.filename().string();
  fit.calibration_hash = cf.hash;
  fit.nicsim_version = version();
  fit.binary_hash = binary_hash;
  fit.objective = best;
  fit.nominal_objective = nominal_objective;
  fit.evaluations = evals;
  fit.seeds = cf.seeds;
  std::vector<std::string> failures;
  for (size_t p = 0; p < np; ++p) {
    const CalibrationParam& cp = cf.params[p];
    FitParam fp;
    fp.set = cp.set;
    fp.integer = cp.integer();
    fp.fitted = fit_x[p];
    fp.nominal = cp.nominal;
    fp.lo = cp.lo, fp.hi = cp.hi;
    fp.declared_lo = cp.calib().lo, fp.declared_hi = cp.calib().hi;
    fp.unit = cp.spec.unit;
    fp.mechanism = cp.calib().mechanism;
    const double margin = 0.05 * (cp.hi - cp.lo);
    const bool at_lo = fit_x[p] - cp.lo <= margin, at_hi = cp.hi - fit_x[p] <= margin;
    fp.at_bound = at_lo || at_hi;
    if (fp.at_bound) {
      const bool declared = at_lo ? cp.lo == cp.calib().lo : cp.hi == cp.calib().hi;
      failures.push_back(fmt::format(
          "{} = {} {} is within 5 % of its {} bound {} ({}): the training figures ask {} of {} than it can give, so "
          "what they show beyond it comes from a mechanism the model lacks on that path; find it (nicsim explain on the "
          "worst training figure) rather than move the bound",
          cp.set, value_text(cp, fit_x[p]), cp.spec.unit, at_lo ? "lower" : "upper", value_text(cp, at_lo ? cp.lo : cp.hi),
          declared ? (at_lo ? cp.calib().lo_why : cp.calib().hi_why)
                   : "the calibration's own narrower bound; the declared one is " +
                         value_text(cp, at_lo ? cp.calib().lo : cp.calib().hi),
          at_lo ? "less" : "more", fp.mechanism));
    }
    fit.params.push_back(std::move(fp));
  }
  fit.ok = failures.empty();
  fit.failure = fmt::format("{}", fmt::join(failures, "; "));
  for (size_t f : all) {
    FitRef r;
    r.role = figs[f].role;
    r.ref_file = figs[f].ref_text;
    r.metric = metric_text(figs[f].ref);
    r.group = figs[f].group;
    r.reference = expected_text(figs[f].ref);
    r.simulated = at_fit[0][f];
    if (r.simulated) {
      RefError e = ref_error(figs[f].ref, *r.simulated);
      r.error = e.error, r.error_in_tolerances = e.in_tolerances, r.within = e.within;
    }
    fit.refs.push_back(std::move(r));
  }
  fit.train = summarize(fit.refs, "train");
  fit.validate = summarize(fit.refs, "validate");
  for (size_t f : train) fit.sensitivity_figures.push_back(figs[f].label);
  for (size_t p = 0; p < np; ++p) {
    std::vector<std::optional<double>> centre(figs.size());
    for (size_t f : train) centre[f] = at_fit[0][f];
    fit.sensitivity.push_back(sensitivity_row(around_sims[2 * p], around_sims[2 * p + 1], centre, train));
  }

  // 4. Leave one group out: refit (a local polish from the fit) without a group's references and
  //    measure the error on them.
  std::vector<std::string> groups;
  for (size_t f : train)
    if (std::find(groups.begin(), groups.end(), figs[f].group) == groups.end()) groups.push_back(figs[f].group);
  if (groups.size() < 2) {
    fit.cv_note = "one group: no cross-validation (name groups, or train on references of several sources)";
  } else {
    double total = 0;
    size_t n = 0;
    for (auto& g : groups) {
      std::vector<size_t> rest, held;
      for (size_t f : train) (figs[f].group == g ? held : rest).push_back(f);
      FitCvGroup cv;
      cv.group = g;
      if (rest.size() < np) {
        fit.cv.push_back(cv);
        continue;
      }
      double gbest = 1e300;
      std::vector<double> gx = fit_x;
      size_t gcount = 0;
      auto fn = make_objective(rest, false, &gbest, &gx, &gcount, 0, &current);
      run_opt(local_alg, normalized(fit_x), std::max<size_t>(6, budget / 4), fn, &current);
      if (interrupted()) return interrupt_exit();
      cv.fitted = gx;
      std::string err;
      auto sims = ev.simulate({gx}, held, &err);
      for (size_t f : held) {
        if (!sims[0][f]) continue;
        RefError e = ref_error(figs[f].ref, *sims[0][f]);
        if (e.in_tolerances) continue;
        cv.mean_abs += std::abs(e.error);
        ++cv.count;
        total += std::abs(e.error);
        ++n;
      }
      if (cv.count) cv.mean_abs /= static_cast<double>(cv.count);
      fit.cv.push_back(cv);
    }
    if (n) fit.cv_mean_abs = total / static_cast<double>(n);
    else fit.cv_note = "no held-out reference with a relative error";
  }
  stats.evaluations = evals;

  // 5. Write the fit and print it.
  const fs::path fit_path = cf.path.parent_path() / (cf.name + ".fit.toml");
  try {
    write_file_atomic(fit_path, fit_file_text(fit));
  } catch (const std::exception& e) {
    fmt::print(o.log, "nicsim calibrate: {}\n", e.what());
    return kExitRunFailed;
  }
  std::string t = fmt::format("calibration {}: {}; objective {:.5f} (nominal values: {:.5f}), {} evaluations, {} runs "
                              "started, {} reused\n",
                              cf.name, fit.ok ? "fit ok" : "FIT FAILED", fit.objective, fit.nominal_objective, evals,
                              stats.runs_started, stats.runs_reused);
  t += fmt::format("{:<40} {:>12} {:>12}  {}\n", "parameter", "fitted", "nominal", "bounds (declared)");
  for (auto& p : fit.params)
    t += fmt::format("{:<40} {:>12} {:>12}  [{}, {}] ([{}, {}]) {}{}\n", p.set, calibration_value_text(p.fitted, p.integer),
                     calibration_value_text(p.nominal, p.integer), calibration_value_text(p.lo, p.integer),
                     calibration_value_text(p.hi, p.integer), calibration_value_text(p.declared_lo, p.integer),
                     calibration_value_text(p.declared_hi, p.integer), p.unit, p.at_bound ? "  AT BOUND" : "");
  t += fmt::format("\n{:<9} {:<50} {:>14} {:>12} {:>10}  {}\n", "set", "reference", "expected", "simulated", "error", "");
  for (auto& r : fit.refs)
    t += fmt::format("{:<9} {:<50} {:>14} {:>12} {:>10}  {}\n", r.role, r.ref_file + ": " + r.metric, r.reference,
                     r.simulated ? fmt::format("{:.4g}", *r.simulated) : "(run failed)",
                     r.simulated ? err_text(RefError{r.error, r.error_in_tolerances, r.within}) : "", r.within ? "within" : "");
  auto summary_line = [](const char* name, const FitSummary& s) {
    if (!s.count) return fmt::format("{:<9} none\n", name);
    return fmt::format("{:<9} {} references, {} within tolerance; mean |error| {:.1f}%, mean error {}, worst {} ({})\n",
                       name, s.count, s.within, s.mean_abs * 100, pct(s.mean_signed), pct(s.worst), s.worst_ref);
  };
  t += "\n" + summary_line("train", fit.train) + summary_line("validate", fit.validate);
  if (fit.cv_mean_abs) t += fmt::format("leave-one-group-out: mean |error| {:.1f}% over {} groups\n", *fit.cv_mean_abs * 100, groups.size());
  else t += "leave-one-group-out: " + fit.cv_note + "\n";
  if (!fit.ok) t += "FAILED: " + fit.failure + "\n";
  t += fmt::format("fit written to {}\n", fit_path.string());
  fmt::print(o.out_text, "\n{}", t);
  std::fflush(o.out_text);
  if (!first_error.empty()) fmt::print(o.log, "nicsim calibrate: at the fit: {}\n", first_error);
  if (stats_out) *stats_out = stats;
  return fit.ok && first_error.empty() ? kExitOk : kExitRunFailed;
}

static int calibrate_main(int argc, char** argv) {
  unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  po::options_description opts(
      "usage: nicsim calibrate calibrations/NAME.toml [--out DIR] [--jobs N] [--max-evals N]\n\n"
      "Fits the estimates a calibration file names (each declared calibratable, with physical\n"
      "bounds: nicsim list calibratable) to its training references, then writes NAME.fit.toml\n"
      "beside it: fitted values beside nominal and bounds, every training and validation\n"
      "reference's simulated value and error, each set's summary, the leave-one-group-out error,\n"
      "the sensitivities at the fit, the nicsim version and the calibration file's hash. A scenario\n"
      "uses the fit with calibration = \"NAME\" (or --calibration NAME on run, explain, sweep, check\n"
      "and report). See docs/calibration.md.\n\n"
      "Refused (exit 2) before fitting: a reference in both sets; more parameters than a third of\n"
      "the training figures; a parameter that moves no training figure, or two that move the same\n"
      "figures in the same proportion (a sensitivity run at each bound, printed first).\n"
      "The fit: NLopt DIRECT-L over the bounds, then BOBYQA (COBYLA for one parameter); objective\n"
      "mean |log(simulated/expected)| over the training figures (a range: the log distance outside\n"
      "it; a difference or absolute reference: the error over its tolerance). Every run is kept in\n"
      "DIR and reused: an interrupted calibration resumes, a rerun runs nothing.\n\n"
      "Exit: 0 fit ok; 1 a value within 5 % of a bound (a mechanism is missing: the fit is written,\n"
      "marked failed) or a run failed; 2 refused or bad input; 130/143 interrupted.\n\noptions");
  opts.add_options()
      ("out", po::value<std::string>(), "keep the runs in DIR (default: NAME.runs/ beside the calibration file)")
      ("jobs,j", po::value<std::string>()->default_value(std::to_string(hw)), "runs in parallel, 1 to 1024 (default: hardware cores)")
      ("max-evals", po::value<std::string>()->default_value("40"), "objective evaluations of the fit, 2 to 100000 (default 40)");
  po::options_description hidden;
  hidden.add_options()("file", po::value<std::vector<std::string>>(), "file");
  po::positional_options_description pos;
  pos.add("file", -1);
  po::variables_map vm;
  if (auto rc = parse_verb_args(argc, argv, "", opts, pos, vm, &hidden)) return *rc;
  if (!vm.count("file") || vm["file"].as<std::vector<std::string>>().size() != 1) {
    fmt::print(stderr, "nicsim calibrate: name one calibration file (calibrations/NAME.toml); see nicsim calibrate --help\n");
    return kExitUsage;
  }
  CalibrateOptions o;
  o.file = vm["file"].as<std::vector<std::string>>().front();
  std::string why;
  auto jobs = parse_jobs_arg(vm["jobs"].as<std::string>(), &why);
  if (!jobs) {
    fmt::print(stderr, "nicsim calibrate: {}\n", why);
    return kExitUsage;
  }
  o.jobs = *jobs;
  {
    const std::string m = vm["max-evals"].as<std::string>();
    size_t pos_end = 0;
    long long v = -1;
    try {
      v = std::stoll(m, &pos_end);
    } catch (const std::exception&) {
    }
    if (v < 2 || v > 100000 || pos_end != m.size()) {
      fmt::print(stderr, "nicsim calibrate: --max-evals must be an integer from 2 to 100000, not '{}'\n", m);
      return kExitUsage;
    }
    o.max_evals = static_cast<size_t>(v);
  }
  if (vm.count("out")) o.out = vm["out"].as<std::string>();
  o.tty = Progress::is_tty(stderr);
  o.binary = self_executable();
  return run_interruptible("calibrate", [&](const std::atomic<bool>* stop) {
    o.stop = stop;
    return run_calibrate(o, process_runner(o.binary));
  });
}

static Registrar<VerbEntry> calibrate_verb{VerbEntry{
    "calibrate", "fit a platform's declared estimates to training references; report the error on validation ones",
    calibrate_main}};

}  // namespace nicsim
