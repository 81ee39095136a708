// `nicsim run SCENARIO`: load and validate the scenario, build its Testbed, run its workload (which
// runs the simulation), print the workload's own output (or the result JSON) and optionally write
// DIR/result.json.
#include "cli/sim_progress.h"
#include "cli/transfer_plot.h"
#include "cli/progress.h"
#include "cli/fidelity_option.h"
#include "cli/verbs.h"
#include "core/breakdown.h"
#include "core/result_names.h"
#include "core/results.h"
#include "core/sim_context.h"
#include "platforms/calibration_fit.h"
#include "platforms/run_workload.h"
#include "platforms/testbed.h"
#include "platforms/transfer_report.h"
#include <chrono>
#include <filesystem>
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <iostream>
#include <set>
#include <sstream>
#include <systemc>

namespace nicsim {
namespace {

namespace po = boost::program_options;

/// A streambuf that writes to a capture buffer and, optionally, to a second one (the terminal):
/// the workload's output is shown live and also kept for result.json.
class TeeBuf : public std::streambuf {
 public:
  TeeBuf(std::streambuf* capture, std::streambuf* echo) : capture_(capture), echo_(echo) {}
  /// A progress line on the same terminal, cleared before each echo (may be null).
  TerminalLine* line = nullptr;

 protected:
  int overflow(int c) override {
    if (c == traits_type::eof()) return traits_type::not_eof(c);
    capture_->sputc(static_cast<char>(c));
    if (echo_) {
      if (line) line->clear();
      echo_->sputc(static_cast<char>(c));
    }
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    capture_->sputn(s, n);
    if (echo_) {
      if (line) line->clear();
      echo_->sputn(s, n);
    }
    return n;
  }
  int sync() override { return echo_ ? echo_->pubsync() : 0; }

 private:
  std::streambuf *capture_, *echo_;
};

const char* kUsage =
    "usage: nicsim run SCENARIO [--set PATH=VALUE ...] [--seed N] [--fidelity exact|fast] [--out DIR]\n"
    "                  [--format text|json]\n\n"
    "Load SCENARIO (a TOML file, see docs/scenarios.md), apply the --set overrides, build the\n"
    "testbed and run its workload. Prints the benchmark's own output (text) or the result JSON\n"
    "(json). With --out, writes DIR/result.json atomically (scenario with every value used,\n"
    "seed, metrics, counters, nicsim version).\n\n"
    "What a user of each host would read from its drivers at the end of the run, in the era's\n"
    "formats, is in result.json \"host_views\" and, with --out, one file each beside it:\n"
    "HOST.proc_net_bond0_info.txt (cat /proc/net/bond0/info, 2.4.20 bonding),\n"
    "HOST.ethtool_-S_eth1.txt (ethtool -S eth1: e1000 5.0.43-k1's counters; 'no stats available'\n"
    "for e1000 4.4.12-k1 and tg3), HOST.proc_net_PRO_LAN_Adapters_eth1.info.txt (e1000\n"
    "4.4.12-k1's proc file). Driver counters are as the driver last read them (e1000: every 2 s).\n"
    "With [[faults]], the text output ends with each fault's timeline, bond0's /proc file as it\n"
    "read when the active slave changed; result.json \"faults\" keeps it at every bonding event.\n\n"
    "--plots DIR samples time series while the run goes (every --plot-interval-ms, default 1, at\n"
    "most 100000 samples per run: a shorter interval over a longer workload is refused) and\n"
    "draws them with gnuplot into DIR: throughput.svg (Mb/s read per interval, retransmissions\n"
    "marked, and with [[faults]] each fault and the link, driver and bonding events after it as\n"
    "labelled vertical lines), tseq.svg (time-sequence of the busiest stream: segments, ACKs, window, SACK\n"
    "blocks, retransmissions), cpu_<host>.cpu<N>.svg (utilisation by context); the data is\n"
    "DIR/series.json and each plot's gnuplot script is kept beside it.\n\n"
    "--pcap DIR writes every link direction's frames as a pcap capture (nanosecond timestamps in\n"
    "simulated time from the first preamble bit, link type Ethernet, frames padded to 60 bytes,\n"
    "no FCS) to DIR/links.<i>.<from>-to-<to>.pcap, for wireshark, tshark, tcpdump -r, tcptrace.\n\n"
    "--set PATH=VALUE uses the scenario's dotted key paths (hosts.alpha.nics.eth1.RxIntDelay=8,\n"
    "workload.upper=1024, links.0.length_m=5, seed=3); '*' matches any one segment\n"
    "(hosts.*.nics.eth1.RxIntDelay=8). VALUE is a TOML value; anything else is a bare string.\n\n"
    "While the simulation runs, a terminal's stderr shows one progress line (simulated time\n"
    "against the workload's length, simulated seconds per second, ETA), rewritten in place and\n"
    "cleared at the end; nothing when stderr is not a terminal, or with --quiet.\n\n"
    "--fidelity fast (or the scenario's top-level fidelity = \"fast\") runs coarser DMA and skips\n"
    "the FCS and TCP payload checksums, for bulk transfers and sweeps; results then deviate from\n"
    "exact by up to the table in docs/fast-mode.md, and say so (result.json \"fidelity\", a\n"
    "last line of the text output).\n\n"
    "exit codes: 0 ok, 1 run failed, 2 usage or scenario error";

/// --plot-interval-ms bounds (ms).
constexpr double kMinPlotIntervalMs = 0.001, kMaxPlotIntervalMs = 1e6;

int run_main(int argc, char** argv) {
  po::options_description opts("options");
  std::string scenario_path, seed_text, out_dir, format, trace_path, plots_dir, pcap_dir;
  double plot_interval_ms = 1.0;
  bool quiet = false;
  std::vector<std::string> sets;
  opts.add_options()
      ("scenario", po::value<std::string>(&scenario_path)->required(), "scenario file (TOML); also positional")
      ("set", po::value<std::vector<std::string>>(&sets)->composing(), "override PATH=VALUE (repeatable)")
      ("seed", po::value<std::string>(&seed_text), "run seed N (replaces the scenario's seed)")
      ("out", po::value<std::string>(&out_dir), "write DIR/result.json")
      ("trace", po::value<std::string>(&trace_path),
       "write the run's hardware and software spans as Chrome/Perfetto trace-event JSON to FILE")
      ("plots", po::value<std::string>(&plots_dir), "draw throughput, time-sequence and CPU pictures into DIR")
      ("pcap", po::value<std::string>(&pcap_dir), "write each link direction's frames as pcap files into DIR")
      ("plot-interval-ms", po::value<double>(&plot_interval_ms)->default_value(1.0),
       "with --plots: sample interval of the time series (ms)")
      ("format", po::value<std::string>(&format)->default_value("text"),
       "text: the workload's output; json: the result JSON on stdout")
      ("quiet", po::bool_switch(&quiet), "no progress line on stderr (shown only when stderr is a terminal)")
      ("progress-file", po::value<std::string>(),
       "write the progress line to FILE instead (rewritten; nicsim explain reads it for its runs)");
  add_fidelity_option(opts);
  add_calibration_option(opts);
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  if (auto rc = parse_verb_args(argc, argv, kUsage, opts, pos, vm)) return *rc;

  const UsageError usage_error{"run"};
  if (format != "text" && format != "json") return usage_error(fmt::format("--format must be text or json, not '{}'", format));
  std::optional<uint64_t> seed;
  if (vm.count("seed")) {
    std::string why;
    seed = parse_seed_arg(seed_text, &why);
    if (!seed) return usage_error(why);
  }
  if (auto why = apply_fidelity_option(vm, sets); !why.empty()) return usage_error(why);
  if (auto why = apply_calibration_option(vm, sets); !why.empty()) return usage_error(why);

  Scenario scenario;
  try {
    scenario = load_scenario(scenario_path, sets, seed);
  } catch (const ScenarioError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return kExitUsage;
  }
  // A calibration's values are platform values the file does not show: say which were applied
  // (stderr, so the benchmark's own output format stays as the real tool prints it).
  if (scenario.calibration && !quiet) {
    std::vector<std::string> applied;
    for (size_t i = 0; i < scenario.calibration->applied.size(); ++i)
      applied.push_back(scenario.calibration->applied[i].first + "=" +
                        calibration_value_text(scenario.calibration->applied[i].second, scenario.calibration->integer[i]));
    fmt::print(stderr, "nicsim run: calibration {} ({}): {}\n", scenario.calibration->name, scenario.calibration->fit_file,
               applied.empty() ? std::string("no value applied (the scenario gives every key itself)")
                               : fmt::format("{}", fmt::join(applied, " ")));
  }

  // Outputs are checked before the run, not found unwritable after it.
  // An empty name (`--out ''`) is refused like any other unusable one, not taken as "no output".
  if (vm.count("out"))
    if (auto why = out_dir_problem(out_dir); !why.empty()) return usage_error("--out: " + why);
  if (vm.count("trace"))
    if (auto why = out_file_problem(trace_path); !why.empty()) return usage_error("--trace: " + why);
  if (vm.count("plots"))
    if (auto why = out_dir_problem(plots_dir); !why.empty()) return usage_error("--plots: " + why);
  if (vm.count("pcap"))
    if (auto why = out_dir_problem(pcap_dir); !why.empty()) return usage_error("--pcap: " + why);
  if (vm.count("progress-file"))
    if (auto why = out_file_problem(vm["progress-file"].as<std::string>()); !why.empty())
      return usage_error("--progress-file: " + why);
  // A reused --out: the previous run's result.json and the side files it wrote go before this run
  // starts, so a failed or interrupted run never leaves them beside its own (or a stale "ok").
  if (!out_dir.empty())
    if (auto why = clear_previous_run(out_dir); !why.empty()) return usage_error("--out: " + why);
  // The series sampler wakes once per interval (RunSeries): below 1 µs it would take more events
  // than the models themselves (a 1 ps interval stalls a run for hours); above 1e6 ms (1000 s) no
  // shipped workload lasts long enough for a second sample.
  if (!(plot_interval_ms >= kMinPlotIntervalMs) || plot_interval_ms > kMaxPlotIntervalMs)
    return usage_error(fmt::format("--plot-interval-ms must be between {} (1 µs) and {:g} ms, not {:g}",
                                   kMinPlotIntervalMs, kMaxPlotIntervalMs, plot_interval_ms));
  // A series takes at most kMaxSeriesSamples samples (platforms/transfer_report.h): a workload of
  // known length that would need more is refused now; one of unknown length (NetPIPE runs until
  // its last size) stops sampling there and says so after the run.
  if (!plots_dir.empty())
    if (auto len = workload_length_s(scenario)) {
      const double samples = *len / (plot_interval_ms * 1e-3);
      if (samples > double(kMaxSeriesSamples))
        return usage_error(fmt::format(
            "--plot-interval-ms {:g} would sample the workload's {:g} s {:.0f} times; a run takes at most {} samples "
            "(each reads every CPU's and socket's state): use --plot-interval-ms {:g} or more",
            plot_interval_ms, *len, samples, kMaxSeriesSamples, *len * 1e3 / double(kMaxSeriesSamples)));
    }

  // Model errors throw (and are reported once, below) instead of printing or aborting; the
  // kernel's "simulation stopped" note would corrupt the benchmark's output.
  set_model_error_reporting();

  const bool json_out = format == "json";
  nlohmann::json result = results_envelope(scenario.path, scenario.seed, scenario.to_json());
  std::ostringstream captured;
  TerminalLine term_line(stderr);  // the progress line, when stderr is a terminal
  TeeBuf tee(captured.rdbuf(), json_out ? nullptr : std::cout.rdbuf());
  std::ostream out(&tee);
  // In json mode stdout carries only the result: anything models print goes to stderr.
  std::streambuf* saved_cout = json_out ? std::cout.rdbuf(std::cerr.rdbuf()) : nullptr;

  int rc = kExitOk;
  std::string error;
  auto wall0 = std::chrono::steady_clock::now();
  if (!trace_path.empty()) sim().trace.set_enabled(true);
  try {
    RunOptions ro;
    if (!plots_dir.empty()) ro.series_interval_s = plot_interval_ms * 1e-3;
    // Progress while the simulation runs: a terminal line, or explain's progress file.
    std::unique_ptr<SimProgress> progress;
    if (!quiet && vm.count("progress-file")) {
      progress = std::make_unique<SimProgress>(progress_file_writer(vm["progress-file"].as<std::string>()),
                                               workload_length_s(scenario));
    } else if (!quiet && Progress::is_tty(stderr)) {
      tee.line = &term_line;
      progress = std::make_unique<SimProgress>([&term_line](const std::string& l) { term_line.show(l); },
                                               workload_length_s(scenario));
    }
    ro.pcap_dir = pcap_dir;
    rc = run_workload(scenario, out, result, ro) == 0 ? kExitOk : kExitRunFailed;
    progress.reset();
    if (rc != kExitOk) {
      error = "the workload reported a failed run";
      // The workload's own reason (e.g. NetPIPE's time limit) belongs on stderr too, so sweep's
      // error.json, check and JUnit carry it, not only the benchmark's stdout.
      if (result.contains("workload_error") && result["workload_error"].is_string())
        error += ": " + result["workload_error"].get<std::string>();
    }
  } catch (const std::exception& e) {
    rc = kExitRunFailed;
    error = e.what();
  }
  // Every frame accounted for: a frame that vanished between two ports fails the run.
  if (result.contains("accounting") && result["accounting"].value("balanced", true) == false) {
    std::string why;
    for (auto& p : result["accounting"]["problems"]) why += (why.empty() ? "" : "; ") + p.get<std::string>();
    error += (error.empty() ? "" : "; ") + ("frame accounting: " + why);
    rc = kExitRunFailed;
  }
  // Per-stage latency breakdown of every traced message (nicsim explain reads it).
  if (!result.contains("explain")) {
    const JourneyTotals& js = sim().journeys.totals();
    result["explain"] = breakdown(js).to_json();
    const std::vector<std::string> kinds = sim().journeys.finished_kinds();
    result["explain_kinds"] = kinds;  // every kind traced (explain --kind resolves its prefix against them)
    if (kinds.size() > 1)
      for (auto& k : kinds) result["explain_by_kind"][k] = breakdown(js, k).to_json();
    // Marks older than their journey's unfolded window (core/journey.h): said when it happens,
    // since their wait then counts toward the stage before.
    if (uint64_t late = sim().journeys.late_marks()) result["explain_late_marks"] = late;
  }
  out.flush();
  if (saved_cout) std::cout.rdbuf(saved_cout);
  if (!json_out && scenario.fidelity == Fidelity::Fast)
    fmt::print("# nicsim: {}\n", kFastFidelityNote);

  nlohmann::json counters = sim().counters.to_json();
  // Counters under the scenario's names (core/result_names.h); two model counters reported under
  // one name would be a naming bug, not something to merge silently.
  for (auto& [k, v] : counters.items()) {
    std::string name = result_names()(k);
    if (result["counters"].contains(name))
      throw std::logic_error("counters " + k + " and another both report as " + name);
    result["counters"][name] = v;
  }
  result["status"] = rc == kExitOk ? "ok" : "failed";
  if (!error.empty()) result["error"] = error;
  result["output"] = captured.str();
  result["sim_time_s"] = sc_core::sc_time_stamp().to_seconds();
  result["wall_time_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

  // An output that cannot be written fails the run, and result.json says so.
  auto output_failed = [&](const std::string& why) {
    rc = kExitRunFailed;
    result["status"] = "failed";
    result["error"] = result.contains("error") ? result["error"].get<std::string>() + "; " + why : why;
  };
  if (!trace_path.empty()) {
    try {
      write_file_atomic(trace_path, sim().trace.to_chrome_json().dump() + "\n");
    } catch (const std::exception& e) {
      fmt::print(stderr, "nicsim run: {}\n", e.what());
      output_failed("--trace: " + std::string(e.what()));
    }
  }
  // Pictures from the time series; the series itself goes beside them (it grows with the run).
  if (result.contains("series")) {
    if (!plots_dir.empty()) {
      try {
        std::vector<std::string> msgs;
        write_file_atomic(std::filesystem::path(plots_dir) / "series.json", result["series"].dump() + "\n");
        nlohmann::json listed = nlohmann::json::array();
        for (auto& svg : write_transfer_plots(plots_dir, result["series"], &msgs)) {
          listed.push_back(svg.string());
          fmt::print(stderr, "plot written: {}\n", svg.string());
        }
        for (auto& m : msgs) fmt::print(stderr, "nicsim run: --plots: {}\n", m);
        result["plots"] = listed;
      } catch (const std::exception& e) {
        fmt::print(stderr, "nicsim run: --plots: {}\n", e.what());
        output_failed("--plots: " + std::string(e.what()));
      }
    }
    result.erase("series");
  }
  if (result.contains("series_stopped_at_s"))
    fmt::print(stderr,
               "nicsim run: the time series stopped after {} samples at {:g} s simulated (the most a run takes); "
               "the plots and trace counters end there: use a larger --plot-interval-ms\n",
               kMaxSeriesSamples, result["series_stopped_at_s"].get<double>());
  // Files a workload produces (e.g. NetPIPE.out) go beside result.json, not inside it.
  nlohmann::json files = result.contains("files") ? result["files"] : nlohmann::json::object();
  result.erase("files");
  if (!out_dir.empty()) {
    try {
      // result.json lists the side files, so that the next run into this directory removes them.
      nlohmann::json side = nlohmann::json::array();
      for (auto& [name, text] : files.items()) side.push_back(name);
      result["side_files"] = side;
      for (auto& [name, text] : files.items())
        write_file_atomic(std::filesystem::path(out_dir) / name, text.get<std::string>());
      write_json_atomic(std::filesystem::path(out_dir) / "result.json", result);
    } catch (const std::exception& e) {
      fmt::print(stderr, "nicsim run: {}\n", e.what());
      rc = kExitRunFailed;
      // No result.json (the previous one is gone): a sweep or check sees an unfinished run.
    }
  }
  if (json_out) std::cout << result.dump(2) << "\n";
  if (!error.empty()) fmt::print(stderr, "nicsim run: run failed: {}\n", error);
  return rc;
}

Registrar<VerbEntry> reg{VerbEntry{"run", "run a scenario file and print the benchmark's output", run_main}};

}  // namespace
}  // namespace nicsim
