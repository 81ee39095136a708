// `nicsim check`: model regression for CI. Runs every scenario that carries references (X.ref.toml
// beside X.toml), compares the metrics of its result.json with the expected values, prints a table,
// writes JUnit XML, and exits 1 when the model drifted out of tolerance.
#include "cli/check.h"
#include "platforms/calibration_fit.h"
#include <set>
#include "cli/progress.h"
#include "cli/sweep_plan.h"
#include "cli/fidelity_option.h"
#include "cli/verbs.h"
#include "platforms/scenario.h"
#include "core/results.h"
#include <boost/program_options.hpp>
#include <cctype>
#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>

namespace nicsim {
namespace fs = std::filesystem;
namespace po = boost::program_options;

namespace {

std::string run_dir_name(size_t i, const fs::path& scenario) {
  std::string stem = scenario.stem().string();
  for (char& c : stem)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) c = '_';
  return fmt::format("{:03}-{}", i, stem);
}

/// A temporary directory removed (recursively) when the guard dies, unless released.
struct TempDir {
  fs::path path;
  TempDir() {
    const char* t = std::getenv("TMPDIR");
    std::string tmpl = (fs::path(t && *t ? t : "/tmp") / "nicsim-check-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a temporary directory in " + tmpl);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

/// The "params" of a result.json, or null when it cannot be read.
nlohmann::json params_of(const fs::path& result_json) {
  try {
    std::ifstream f(result_json);
    nlohmann::json j = nlohmann::json::parse(f);
    return j.is_object() && j.contains("params") ? j["params"] : nlohmann::json();
  } catch (const std::exception&) {
    return nlohmann::json();
  }
}

/// The set of reference `ref` of file `ref_file`, whose run recorded `calibration` (result.json
/// params.calibration; null: none): train when the calibration's fit names it among its training
/// references, validate otherwise (the fit never saw it), uncalibrated without a calibration.
/// `fits` caches each fit file's training references (normal absolute path, metric).
std::string reference_set(const nlohmann::json& calibration, const fs::path& ref_file, const Reference& ref,
                          std::map<std::string, std::set<std::pair<std::string, std::string>>>& fits) {
  if (!calibration.is_object() || !calibration.contains("fit_file")) return kSetUncalibrated;
  const std::string fit_path = calibration["fit_file"].get<std::string>();
  auto it = fits.find(fit_path);
  if (it == fits.end()) {
    std::set<std::pair<std::string, std::string>> train;
    try {
      const FitFile fit = read_fit_file(fit_path);
      const fs::path dir = fs::path(fit_path).parent_path();
      for (auto& r : fit.refs)
        if (r.role == "train") train.emplace(fs::absolute(dir / r.ref_file).lexically_normal().string(), r.metric);
    } catch (const std::exception&) {  // the run read it a moment ago; unreadable now: nothing counts as trained
    }
    it = fits.emplace(fit_path, std::move(train)).first;
  }
  const bool trained = it->second.count({fs::absolute(ref_file).lexically_normal().string(), metric_text(ref)}) != 0;
  return trained ? kSetTrain : kSetValidate;
}

}  // namespace

std::vector<FinishedResult> finished_results(const std::vector<fs::path>& dirs) {
  std::vector<FinishedResult> found;
  for (auto& d : dirs) {
    std::error_code ec;
    if (!fs::is_directory(d, ec)) continue;
    std::vector<fs::path> files;
    for (auto it = fs::recursive_directory_iterator(d, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->path().filename() == "result.json") files.push_back(it->path());
    std::sort(files.begin(), files.end());
    for (auto& f : files)
      if (result_complete(f))
        if (nlohmann::json params = params_of(f); !params.is_null()) found.push_back({f, std::move(params)});
  }
  return found;
}

int run_check(const CheckOptions& o, const Runner& runner, std::vector<RefCheck>* checks_out,
              std::vector<CheckRun>* runs_out) {
  const std::string who = "nicsim " + o.verb + ": ";  // the verb's name in messages (check, report)
  // 1. Find and validate every reference file before running anything.
  std::vector<RefFile> files;
  try {
    for (auto& p : find_ref_files(o.paths)) files.push_back(parse_ref_file(p));
  } catch (const RefFileError& e) {
    fmt::print(o.log, "{}{}\n", who, e.what());
    return kExitUsage;
  }
  for (auto& f : files)
    if (!fs::is_regular_file(f.scenario)) {
      fmt::print(o.log, "{}{}: no scenario {} beside it (X.ref.toml belongs to X.toml)\n", who,
                 f.path.string(), f.scenario.filename().string());
      return kExitUsage;
    }
  if (o.fast) std::erase_if(files, [](const RefFile& f) { return !f.fast; });
  if (files.empty()) {
    std::vector<std::string> ps;
    for (auto& p : o.paths) ps.push_back(p.string());
    fmt::print(o.log, "{}no {}reference files (*.ref.toml) under {}\n", who, o.fast ? "fast = true " : "",
               fmt::join(ps, " "));
    return kExitUsage;
  }

  // The scenarios to run: each reference file's, then each `vs` scenario that is not one of them
  // (a difference needs both runs; it is run once however many references name it).
  std::vector<fs::path> scenarios;
  std::map<fs::path, size_t> run_of;
  auto add_run = [&](const fs::path& p) {
    const fs::path key = p.lexically_normal();
    if (run_of.emplace(key, scenarios.size()).second) scenarios.push_back(p);
  };
  for (auto& f : files) add_run(f.scenario);
  for (auto& f : files)
    for (auto& ref : f.refs)
      if (ref.vs) {
        if (!fs::is_regular_file(*ref.vs)) {
          fmt::print(o.log, "{}{}:{}:{}: key 'vs': no scenario file '{}' (vs names a scenario beside this file)\n",
                     who, f.path.string(), ref.vs_line ? ref.vs_line : ref.line, ref.vs_column ? ref.vs_column : 1,
                     ref.vs->string());
          return kExitUsage;
        }
        add_run(*ref.vs);
      }

  // Each scenario with the --set overrides must load: an override typo is a usage error before
  // anything runs, not a failed run per scenario.
  for (auto& sc : scenarios) {
    std::optional<Scenario> loaded;
    try {
      loaded = load_scenario(sc.string(), o.sets);
    } catch (const ScenarioError& e) {
      if (!o.validate_scenarios) continue;  // the run reports it
      fmt::print(o.log, "{}{}\n", who, e.what());
      return kExitUsage;
    }
    // References are published measurements checked against the exact model: a fast-mode run
    // deviates by design (docs/fast-mode.md), so it is refused unless asked for.
    if (loaded->fidelity == Fidelity::Fast && !o.allow_fast_fidelity) {
      fmt::print(o.log,
                 "{}{}: fidelity is fast (from the scenario or --set/--fidelity); references are "
                 "checked against the exact model. Run with --fidelity exact, or pass --allow-fast-fidelity to "
                 "check fast-mode results anyway (docs/fast-mode.md lists their deviations)\n",
                 who, sc.string());
      return kExitUsage;
    }
  }

  // 2. Run each scenario once.
  std::optional<TempDir> tmp;
  fs::path out;
  if (o.out) {
    out = *o.out;
  } else {
    tmp.emplace();
    out = tmp->path;
  }
  std::vector<RunJob> jobs;
  for (size_t i = 0; i < scenarios.size(); ++i) {
    RunJob j;
    j.label = scenarios[i].string();
    j.scenario = scenarios[i];
    j.sets = o.sets;
    j.out_dir = out / run_dir_name(i, scenarios[i]);
    jobs.push_back(j);
  }
  // Finished runs of the same scenario with the same values are reused (o.reuse), not run again:
  // the result.json files under `out` and o.reuse_from are read once.
  std::vector<fs::path> result_json(jobs.size());
  std::vector<bool> reused(jobs.size(), false);
  std::vector<RunJob> to_run;
  std::vector<size_t> to_run_index;
  std::vector<FinishedResult> finished;
  if (o.reuse) {
    std::vector<fs::path> dirs = {out};
    dirs.insert(dirs.end(), o.reuse_from.begin(), o.reuse_from.end());
    finished = finished_results(dirs);
  }
  for (size_t i = 0; i < jobs.size(); ++i) {
    result_json[i] = jobs[i].out_dir / "result.json";
    if (o.reuse) {
      nlohmann::json params;
      try {
        params = load_scenario(jobs[i].scenario.string(), o.sets).to_json();
      } catch (const ScenarioError&) {
        // not reusable; the run reports the error
      }
      auto hit = std::find_if(finished.begin(), finished.end(), [&](const FinishedResult& f) { return f.params == params; });
      if (!params.is_null() && hit != finished.end()) {
        result_json[i] = hit->result_json;
        reused[i] = true;
        continue;
      }
    }
    to_run.push_back(jobs[i]);
    to_run_index.push_back(i);
  }
  size_t nrefs = 0;
  for (auto& f : files) nrefs += f.refs.size();
  const size_t nreused = jobs.size() - to_run.size();
  fmt::print(o.log, "check: {} references in {} scenarios{}{}, {} job{}\n", nrefs, files.size(),
             scenarios.size() > files.size() ? fmt::format(" (+{} run for vs)", scenarios.size() - files.size()) : "",
             nreused ? fmt::format(" ({} finished runs reused)", nreused) : "", o.jobs, o.jobs == 1 ? "" : "s");
  Progress progress(o.log, to_run.size(), o.tty);
  const ExecOptions eo = progress_exec_options(progress, o.jobs, o.stop);
  std::vector<JobResult> results(jobs.size());
  {
    auto ran = run_jobs(to_run, runner, eo);
    for (size_t k = 0; k < ran.size(); ++k) {
      results[to_run_index[k]] = ran[k];
      results[to_run_index[k]].job = to_run_index[k];
    }
    for (size_t i = 0; i < jobs.size(); ++i)
      if (reused[i]) results[i] = JobResult{i, JobStatus::Ok, 0, "", 0.0};
  }
  progress.finish();

  // 3. Compare.
  struct RunOut {
    bool have = false;
    nlohmann::json metrics, counters = nlohmann::json::object();
    nlohmann::json calibration;  ///< result.json params.calibration (null: the run used none)
    std::string why;
  };
  std::vector<RunOut> runs(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    const JobResult& r = results[i];
    RunOut& ro = runs[i];
    if (r.status == JobStatus::Ok) {
      try {
        std::ifstream f(result_json[i]);
        const nlohmann::json result = nlohmann::json::parse(f);
        ro.metrics = result.at("metrics");
        if (result.contains("counters")) ro.counters = result.at("counters");
        if (result.contains("params") && result["params"].contains("calibration"))
          ro.calibration = result["params"]["calibration"];
        ro.have = true;
      } catch (const std::exception& e) {
        ro.why = fmt::format("unreadable result.json: {}", e.what());
      }
    } else {
      ro.why = r.status == JobStatus::Failed ? r.stderr_tail : std::string("interrupted");
    }
  }
  auto failed = [&](const Reference& ref, size_t i, const std::string& prefix) {
    const JobResult& r = results[i];
    RefCheck c = r.status == JobStatus::Interrupted || r.status == JobStatus::NotStarted
                     ? not_run_reference(ref, r.status == JobStatus::NotStarted
                                                  ? "interrupted (Ctrl-C or SIGTERM) before this scenario started"
                                                  : "interrupted (Ctrl-C or SIGTERM) while this scenario ran")
                     : run_failed_reference(ref, r.status == JobStatus::Ok ? 0 : r.exit_code, runs[i].why);
    if (!prefix.empty()) c.message = prefix + c.message;
    return c;
  };
  std::map<std::string, std::set<std::pair<std::string, std::string>>> fits;  // fit file -> its training refs
  std::vector<RefCheck> checks;
  for (size_t fi = 0; fi < files.size(); ++fi) {
    const size_t i = run_of.at(files[fi].scenario.lexically_normal());
    for (auto& ref : files[fi].refs) {
      RefCheck c;
      const size_t v = ref.vs ? run_of.at(ref.vs->lexically_normal()) : i;
      if (!runs[i].have) c = failed(ref, i, "");
      else if (!runs[v].have) c = failed(ref, v, fmt::format("vs {}: ", ref.vs->string()));
      else if (ref.vs) c = evaluate_reference(ref, runs[i].metrics, runs[i].counters, &runs[v].metrics, &runs[v].counters);
      else c = evaluate_reference(ref, runs[i].metrics, runs[i].counters);
      c.scenario = files[fi].scenario.string();
      c.seconds = results[i].seconds;
      c.set = reference_set(runs[i].calibration, files[fi].path, ref, fits);
      checks.push_back(std::move(c));
    }
  }
  fmt::print(o.table, "{}", format_table(checks));
  std::fflush(o.table);
  if (o.junit) {
    try {
      write_file_atomic(*o.junit, junit_xml(checks));
      fmt::print(o.log, "check: JUnit XML in {}\n", o.junit->string());
    } catch (const std::exception& e) {
      fmt::print(o.log, "{}{}\n", who, e.what());
      return kExitRunFailed;
    }
  }
  if (o.out) fmt::print(o.log, "check: runs kept in {}\n", out.string());
  bool all_pass = std::all_of(checks.begin(), checks.end(), [](auto& c) { return verdict_ok(c.verdict); });
  if (checks_out) *checks_out = checks;
  if (runs_out) {
    runs_out->clear();
    for (size_t i = 0; i < jobs.size(); ++i)
      runs_out->push_back(CheckRun{jobs[i].scenario, results[i].status == JobStatus::Ok ? result_json[i] : fs::path(),
                                   results[i].status == JobStatus::Ok, reused[i], results[i].seconds});
  }
  if (o.stop && o.stop->load()) {
    int sig = InterruptGuard::signal_caught();
    return 128 + (sig ? sig : 2);
  }
  return all_pass ? kExitOk : kExitRunFailed;
}

static int check_main(int argc, char** argv) {
  unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  po::options_description opts(
      "usage: nicsim check [PATHS...] [--fast] [--set KEY=VALUE ...] [--junit FILE] [--jobs N] [--out DIR]\n"
      "                    [--fidelity exact|fast --allow-fast-fidelity]\n\n"
      "Runs every scenario X.toml that has a reference file X.ref.toml beside it (PATHS: reference\n"
      "files, scenario files or directories searched recursively; default: scenarios/), compares\n"
      "the metrics of each run with the references, and prints scenario, metric, expected,\n"
      "simulated, error, pass/FAIL and the reference's source. See docs/sweep-and-check.md.\n\n"
      "Exit: 0 all references pass (a reference with known_miss may miss), 1 a metric is out of\n"
      "tolerance or a run failed, 2 a reference file is malformed or missing (nothing is run).\n\noptions");
  opts.add_options()
      ("fast", "only reference files with `fast = true` at top level")
      ("set", po::value<std::vector<std::string>>()->composing(), "KEY=VALUE applied to every run (repeatable)")
      ("junit", po::value<std::string>(), "write JUnit XML (one testcase per reference) to FILE")
      ("jobs,j", po::value<std::string>()->default_value(std::to_string(hw)),
       "scenarios run in parallel, 1 to 1024 (default: hardware cores)")
      ("out", po::value<std::string>(), "keep each run's output in DIR (default: a temporary directory)")
      ("allow-fast-fidelity", "run scenarios whose fidelity is fast (refused otherwise: exit 2)");
  add_fidelity_option(opts);
  add_calibration_option(opts);
  po::variables_map vm;
  std::vector<std::string> paths;
  if (auto rc = parse_verb_args_listing(argc, argv, "", opts, vm, &paths)) return *rc;
  const UsageError usage{"check"};
  CheckOptions o;
  if (!paths.empty()) o.paths.assign(paths.begin(), paths.end());
  if (vm.count("set")) o.sets = vm["set"].as<std::vector<std::string>>();
  for (auto& s : o.sets)
    if (s.find('=') == std::string::npos) return usage(fmt::format("--set '{}': write KEY=VALUE", s));
  o.fast = vm.count("fast") != 0;
  if (auto w = apply_fidelity_option(vm, o.sets); !w.empty()) return usage(w);
  if (auto w = apply_calibration_option(vm, o.sets); !w.empty()) return usage(w);
  o.allow_fast_fidelity = vm.count("allow-fast-fidelity") != 0;
  std::string why;
  auto jobs = parse_jobs_arg(vm["jobs"].as<std::string>(), &why);
  if (!jobs) return usage(why);
  o.jobs = *jobs;
  if (vm.count("out")) o.out = vm["out"].as<std::string>();
  if (vm.count("junit")) o.junit = vm["junit"].as<std::string>();
  // Outputs are checked before any run, not found unwritable after all of them.
  if (o.out)
    if (auto w = out_dir_problem(*o.out); !w.empty()) return usage("--out: " + w);
  if (o.junit)
    if (auto w = out_file_problem(*o.junit); !w.empty()) return usage("--junit: " + w);
  o.tty = Progress::is_tty(stderr);
  o.validate_scenarios = true;
  return run_interruptible("check", [&](const std::atomic<bool>* stop) {
    o.stop = stop;
    return run_check(o, process_runner(self_executable()));
  });
}

static Registrar<VerbEntry> check_verb{VerbEntry{
    "check", "model regression: run scenarios with references (X.ref.toml), table + JUnit, exit 1 on drift",
    check_main}};

}  // namespace nicsim
