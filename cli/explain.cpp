// nicsim explain: where a scenario's latency comes from, stage by stage, and what makes two runs
// differ. Each run is a child `nicsim run` process (SystemC elaborates once per process); the
// per-stage breakdown comes from the journeys the models wrote (core/breakdown.h).
#include "cli/executor.h"
#include "cli/progress.h"
#include "cli/sim_progress.h"
#include "cli/fidelity_option.h"
#include "cli/verbs.h"
#include "cli/whatif.h"
#include "core/breakdown.h"
#include "core/cpu_report.h"
#include "core/forwarding_report.h"
#include "core/transfer_report.h"
#include "platforms/scenario.h"
#include <atomic>
#include <boost/program_options.hpp>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <fmt/core.h>
#include <fstream>
#include <iostream>
#include <thread>
#include <unistd.h>

namespace nicsim {
namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;

const char* kExplainUsage =
    "usage: nicsim explain SCENARIO [--set PATH=VALUE ...] [--seed N] [--fidelity exact|fast] [--kind PREFIX]\n"
    "                      [--vs OTHER.toml | --vs-set PATH=VALUE ...] [--trace FILE] [--format text|json]\n"
    "       nicsim explain --cpu SCENARIO [--top N] [--set ...] [--seed N] [--vs ... | --vs-set ...]\n"
    "       nicsim explain --what-if SCENARIO --metric M [--knob TEXT ...] [--top N] [--jobs J] [--out DIR] [--set ...]\n\n"
    "Runs SCENARIO and prints the one-way latency of its traced messages broken down by stage\n"
    "(TCP tx, driver xmit, doorbell, descriptor fetch, data DMA, wire, RX DMA, write-back,\n"
    "moderation wait (ITR/RDTR/RADV/TIDV/TADV), IRQ delivery, ISR, softirq, TCP rx, wakeup, ...):\n"
    "mean, p50, p99 and share; the stages sum to the measured latency.\n\n"
    "With --vs (another scenario) or --vs-set (the same scenario with changed keys), runs both and\n"
    "attributes the gap to stages and causes, largest first, with a summary in plain words.\n"
    "--kind PREFIX keeps only messages whose kind starts with PREFIX (e.g. \"netpipe 24 B\").\n"
    "--trace FILE writes the (first) run's Chrome/Perfetto trace-event JSON.\n\n"
    "--cpu: where each host's CPUs spent the run instead: per CPU the time by context (hard IRQ per\n"
    "line, softirq per vector, process per task, idle halted / waking) with its share of the run\n"
    "and cycles per packet (frames received + sent by the host's NICs), then a flat profile like\n"
    "OProfile's or perf report's: cycles, % of busy time, cumulative %, cycles per packet, symbol\n"
    "(kernel cost entry, driver path [module], 'MMIO read eth1+0x00c0', 'cache miss: RX\n"
    "descriptor'), context; --top N entries per CPU (default 25). A host that forwarded packets\n"
    "also gets a table per forwarded packet: each CPU's busy ns (instruction work, DMA'd-line\n"
    "stalls on descriptors and on frame data, MMIO) and each bus's occupancy (PCI/PCI-X segments,\n"
    "hub link, DRAM data bus), with the rate at which each alone would be 100 % busy; the lowest\n"
    "ceiling is what binds. With --vs/--vs-set: both\n"
    "profiles, the difference in cycles per packet, largest first, and per host a paragraph: each\n"
    "run's interrupts/s where they moved, CPU per packet, the contexts and entries that carry the\n"
    "difference, busy %.\n\n"
    "--transfer: where each TCP connection's time went instead (bulk transfers: TCP_STREAM,\n"
    "NetPIPE's large messages): per socket the sender's time sending, blocked on the congestion\n"
    "window, on the receive window, on the send buffer, in fast recovery, after an RTO, idle; the\n"
    "receiver's reading, waiting for data, waiting with a delayed ACK held; the events behind them\n"
    "(dupacks, fast retransmits, timeouts, undone retransmissions, reordering), each retransmission\n"
    "timeout by name (when it fired, the RTO that expired, the backoff, the next RTO, the faults its\n"
    "wait spanned, when new data was acknowledged again) and each NIC's\n"
    "frames per RX interrupt / per NAPI poll. With --vs/--vs-set: the shares side by side, largest\n"
    "change first, and a paragraph. A run without traced messages (tcp_stream) prints this by\n"
    "default; --cpu and latency comparisons add the transfer paragraph when a transfer moved.\n\n"
    "--plots DIR: pictures of the (first) run in DIR (B's in DIR/b): throughput over time with\n"
    "retransmissions marked, a time-sequence plot of the busiest stream, CPU utilisation over\n"
    "time per context (SVG by gnuplot; see nicsim run --help).\n\n"
    "--pcap DIR: the (first) run's frames, one pcap file per link direction, in DIR (B's in\n"
    "DIR/b; see nicsim run --help).\n\n"
    "--what-if SCENARIO --metric M [--knob TEXT ...]: which knob to turn. Enumerates the settings a user of that\n"
    "hardware has (driver module parameters and ethtool -C coalescing on every NIC of a driver,\n"
    "bonding parameters, TCP sysctls on every host, cpus_allowed and irq_dest_cpu per host, the\n"
    "slot of each add-in NIC), each with its documented alternatives or half and double its value\n"
    "within the schema's range; runs them as a sweep in DIR (default whatif-<scenario>; parallel\n"
    "with --jobs, finished runs reused), ranks the knobs by their largest effect on M (a metric\n"
    "of result.json or an expression, as in .ref.toml files) and prints, for the top N (default\n"
    "5), the gap each makes (--vs-set) in stages and words; --knob keeps the knobs whose name\n"
    "contains TEXT or whose kind is TEXT (sysctl, driver parameter, CPU placement, slot), and a\n"
    "later what-if in the same DIR reuses every point it shares. Writes DIR/whatif.csv, whatif.json\n"
    "and tornado.svg. See docs/cli.md, \"The report page, what-if and packet captures\".\n\n"
    "exit codes: 0 ok, 1 a run failed, 2 usage or scenario error";

struct RunResult {
  bool ok = false;
  int exit_code = 0;
  std::string error;
  nlohmann::json result;
};

RunResult run_child(const RunJob& job) {
  RunResult r;
  auto outcome = process_runner(self_executable())(job);
  r.exit_code = outcome.exit_code;
  fs::path rj = job.out_dir / "result.json";
  if (fs::exists(rj)) {
    std::ifstream f(rj);
    try {
      r.result = nlohmann::json::parse(f);
    } catch (const std::exception& e) {
      r.error = std::string("unreadable result.json: ") + e.what();
    }
  }
  r.ok = outcome.exit_code == 0 && r.result.is_object();
  if (!r.ok && r.error.empty()) r.error = outcome.stderr_tail;
  return r;
}

/// The breakdown of the traced messages whose kind starts with `kind` ("" = all). The run stores
/// one breakdown per kind (explain_by_kind, when it has several) and the list of kinds; a prefix
/// must name one kind: the kind equal to it, else the only kind it starts. Throws
/// std::invalid_argument naming the kinds when none or several match (percentiles of several
/// kinds cannot be merged from their per-kind summaries).
Breakdown breakdown_of(const nlohmann::json& result, const std::string& kind) {
  const nlohmann::json all = result.value("explain", nlohmann::json::object());
  if (kind.empty()) return Breakdown::from_json(all);
  const nlohmann::json kinds = result.value("explain_kinds", nlohmann::json::array());
  std::vector<std::string> match;
  std::string listing;
  for (const auto& k : kinds) {
    const std::string name = k.get<std::string>();
    listing += "\n  " + name;
    if (name == kind) {
      match = {name};
      break;
    }
    if (name.rfind(kind, 0) == 0) match.push_back(name);
  }
  if (match.empty())
    throw std::invalid_argument(fmt::format("no traced message of kind '{}'{}", kind,
                                            listing.empty() ? std::string(" (the run traced none)")
                                                            : "; the run has:" + listing));
  if (match.size() > 1) {
    std::string m;
    for (auto& k : match) m += "\n  " + k;
    throw std::invalid_argument(
        fmt::format("--kind '{}' matches {} kinds; give one of them in full:{}", kind, match.size(), m));
  }
  if (kinds.size() == 1) return Breakdown::from_json(all);
  return Breakdown::from_json(result["explain_by_kind"].value(match[0], nlohmann::json::object()));
}

int explain_main(int argc, char** argv) {
  po::options_description opts("options");
  std::string scenario, vs, seed_text, trace, format, kind, plots, pcap, what_if, metric, jobs_text, out;
  size_t top = 25;
  std::string top_text;
  std::vector<std::string> sets, vs_sets, knob_filters;
  opts.add_options()("scenario", po::value<std::string>(&scenario), "scenario file (also positional)")(
      "set", po::value<std::vector<std::string>>(&sets)->composing(), "override PATH=VALUE (repeatable)")(
      "seed", po::value<std::string>(&seed_text), "run seed N")(
      "vs", po::value<std::string>(&vs), "compare with another scenario file")(
      "vs-set", po::value<std::vector<std::string>>(&vs_sets)->composing(),
      "compare with SCENARIO under these extra overrides (repeatable)")(
      "kind", po::value<std::string>(&kind), "only messages whose kind starts with PREFIX")(
      "trace", po::value<std::string>(&trace), "write the first run's trace-event JSON to FILE")(
      "format", po::value<std::string>(&format)->default_value("text"), "text or json")(
      "cpu", "CPU time by context and by cost entry (a flat profile) instead of latency")(
      "transfer", "TCP transfer-time attribution per socket and NIC batch sizes instead of latency")(
      "plots", po::value<std::string>(&plots), "draw pictures of the run into DIR")(
      "pcap", po::value<std::string>(&pcap), "write the (first) run's frames as pcap files into DIR (B's in DIR/b)")(
      "top", po::value<std::string>(&top_text)->default_value("25"), "with --cpu: entries shown per CPU; with --what-if: knobs explained (5)")(
      "what-if", po::value<std::string>(&what_if), "rank the knobs of SCENARIO by their effect on --metric")(
      "metric", po::value<std::string>(&metric), "with --what-if: the metric (or expression) to rank by")(
      "knob", po::value<std::vector<std::string>>(&knob_filters)->composing(),
      "with --what-if: only knobs whose name contains TEXT or whose kind is TEXT (repeatable)")(
      "jobs,j", po::value<std::string>(&jobs_text), "with --what-if: runs in parallel (default: hardware cores)")(
      "out", po::value<std::string>(&out), "with --what-if: the sweep directory (default whatif-<scenario stem>)")(
      "quiet", "no progress line on stderr (shown only when stderr is a terminal)");
  add_fidelity_option(opts);
  add_calibration_option(opts);
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  if (auto rc = parse_verb_args(argc, argv, kExplainUsage, opts, pos, vm)) return *rc;
  {  // --top N: a whole number from 1 (an unsigned parse would take "-1" as 18446744073709551615)
    auto [p, ec] = std::from_chars(top_text.data(), top_text.data() + top_text.size(), top);
    if (top_text.empty() || ec != std::errc() || p != top_text.data() + top_text.size() || top < 1 || top > 100000)
      return UsageError{"explain"}(fmt::format("--top must be a whole number from 1 to 100000, not '{}'", top_text));
  }
  if (format != "text" && format != "json") {
    fmt::print(stderr, "nicsim explain: --format must be text or json\n");
    return kExitUsage;
  }
  // Both runs of a comparison (and every what-if point) run at the same fidelity.
  if (auto why = apply_fidelity_option(vm, sets); !why.empty()) return UsageError{"explain"}(why);
  if (auto why = apply_calibration_option(vm, sets); !why.empty()) return UsageError{"explain"}(why);
  if (vm.count("what-if")) {
    const UsageError usage{"explain --what-if"};
    if (!scenario.empty()) return usage("give the scenario once: --what-if SCENARIO");
    if (metric.empty()) return usage("--metric M is required (a result.json metric, e.g. one_way_us.1B)");
    for (const char* o : {"vs", "vs-set", "cpu", "transfer", "trace", "plots", "pcap"})
      if (vm.count(o)) return usage(fmt::format("--{} does not go with --what-if", o));
    WhatIfOptions w;
    w.scenario = what_if;
    w.sets = sets;
    w.metric = metric;
    w.knobs = knob_filters;
    w.top = vm["top"].defaulted() ? 5 : top;
    w.kind = kind;
    w.format = format;
    w.out = out.empty() ? fs::path("whatif-" + fs::path(what_if).stem().string()) : fs::path(out);
    if (auto why = out_dir_problem(w.out); !why.empty()) return usage("--out: " + why);
    std::string why;
    if (vm.count("seed")) {
      w.seed = parse_seed_arg(seed_text, &why);
      if (!w.seed) return usage(why);
    }
    w.jobs = std::max(1u, std::thread::hardware_concurrency());
    if (vm.count("jobs")) {
      auto j = parse_jobs_arg(jobs_text, &why);
      if (!j) return usage(why);
      w.jobs = *j;
    }
    w.tty = Progress::is_tty(stderr);
    return run_interruptible("explain --what-if", [&](const std::atomic<bool>* stop) {
      w.stop = stop;
      return run_whatif(w, process_runner(self_executable()));
    });
  }
  if (scenario.empty()) {
    fmt::print(stderr, "nicsim explain: the option '--scenario' is required but missing\n(see 'nicsim explain --help')\n");
    return kExitUsage;
  }
  for (const char* o : {"metric", "jobs", "out", "knob"})
    if (vm.count(o)) {
      fmt::print(stderr, "nicsim explain: --{} goes with --what-if only\n", o);
      return kExitUsage;
    }
  if (!vs.empty() && !vs_sets.empty()) {
    fmt::print(stderr, "nicsim explain: give --vs or --vs-set, not both\n");
    return kExitUsage;
  }
  if (vm.count("trace") && trace.empty()) {  // not silently "no trace"
    fmt::print(stderr, "nicsim explain: --trace: the output file name is empty\n");
    return kExitUsage;
  }
  if (vm.count("cpu") && vm.count("transfer")) {
    fmt::print(stderr, "nicsim explain: give --cpu or --transfer, not both\n");
    return kExitUsage;
  }
  for (auto [opt, dir] : {std::pair{"plots", &plots}, std::pair{"pcap", &pcap}})
    if (vm.count(opt))
      if (auto why = out_dir_problem(*dir); !why.empty()) {
        fmt::print(stderr, "nicsim explain: --{}: {}\n", opt, why);
        return kExitUsage;
      }
  std::optional<uint64_t> seed;
  if (vm.count("seed")) {
    std::string why;
    seed = parse_seed_arg(seed_text, &why);
    if (!seed) {
      fmt::print(stderr, "nicsim explain: {}\n", why);
      return kExitUsage;
    }
  }

  fs::path tmp = fs::temp_directory_path() / fmt::format("nicsim-explain-{}", ::getpid());
  fs::create_directories(tmp);
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  } cleanup{tmp};

  RunJob a{"A", scenario, sets, seed, tmp / "a", {}};
  if (!trace.empty()) a.extra_args = {"--trace", fs::absolute(trace).string()};
  const bool compare = !vs.empty() || !vs_sets.empty();
  RunJob b{"B", vs.empty() ? scenario : vs, sets, seed, tmp / "b", {}};
  for (auto& s : vs_sets) b.sets.push_back(s);
  if (!plots.empty()) {
    a.extra_args.push_back("--plots");
    a.extra_args.push_back(fs::absolute(plots).string());
    b.extra_args = {"--plots", (fs::absolute(plots) / "b").string()};
  }
  if (!pcap.empty()) {
    a.extra_args.insert(a.extra_args.end(), {"--pcap", fs::absolute(pcap).string()});
    b.extra_args.insert(b.extra_args.end(), {"--pcap", (fs::absolute(pcap) / "b").string()});
  }

  // Both scenarios and every override are checked before anything runs (exit 2 at once, not
  // after the first run has taken its time).
  std::vector<std::string> workloads;  // each run's workload type
  for (const RunJob* j : {&a, &b}) {
    if (j == &b && !compare) break;
    try {
      workloads.push_back(load_scenario(j->scenario.string(), j->sets).workload.type);
    } catch (const ScenarioError& e) {
      // Run A passed with the shared --set values, so a "--set" error of run B is a --vs-set value:
      // named once, as "--vs-set: key ...", not "--vs-set: --set: key ...".
      const bool vs_set = j == &b && vs.empty();
      fmt::print(stderr, "nicsim explain: {}{}\n", j == &b && !vs.empty() ? "--vs: " : vs_set ? "--vs-set: " : "",
                 vs_set ? e.without_set_origin() : std::string(e.what()));
      return kExitUsage;
    }
  }

  // A gap is between two configurations of one workload: different workloads trace different
  // messages (or none), so their stage-by-stage difference means nothing.
  if (compare && workloads[0] != workloads[1]) {
    fmt::print(stderr,
               "nicsim explain: {}: A ({}) runs workload {} and B ({}) runs workload {}: a gap compares one workload's "
               "messages under two configurations; give --vs a scenario of workload {}\n",
               vs.empty() ? "--vs-set" : "--vs", a.scenario.string(), workloads[0], b.scenario.string(), workloads[1],
               workloads[0]);
    return kExitUsage;
  }
  std::vector<RunJob> jobs = {a};
  if (compare) jobs.push_back(b);
  // Progress on a terminal: each run writes its progress line to a file (nicsim run
  // --progress-file), and one line here shows them side by side until both are done.
  const bool show_progress = !vm.count("quiet") && Progress::is_tty(stderr);
  if (show_progress)
    for (auto& j : jobs) j.extra_args.insert(j.extra_args.end(), {"--progress-file", (tmp / (j.label + ".progress")).string()});
  std::vector<RunResult> results(jobs.size());
  {
    InterruptGuard guard;
    std::vector<std::thread> th;
    std::atomic<size_t> running{jobs.size()};
    for (size_t i = 0; i < jobs.size(); ++i)
      th.emplace_back([&, i] {
        results[i] = run_child(jobs[i]);
        --running;
      });
    if (show_progress) {
      TerminalLine line(stderr);
      while (running > 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
        std::string text;
        for (auto& j : jobs) {
          std::ifstream f(tmp / (j.label + ".progress"));
          std::string l;
          std::getline(f, l);
          if (!l.empty()) text += (text.empty() ? "" : " | ") + (jobs.size() > 1 ? j.label + ": " : std::string()) + l;
        }
        if (!text.empty() && running > 0) line.show(text);
      }
      line.clear();
    }
    for (auto& t : th) t.join();
  }
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (!results[i].ok) {
      fmt::print(stderr, "nicsim explain: run of {} failed (exit {}):\n{}\n", jobs[i].scenario.string(),
                 results[i].exit_code, results[i].error);
      return results[i].exit_code == kExitUsage ? kExitUsage : kExitRunFailed;
    }
  }
  // A run at fidelity fast says so before its report (docs/fast-mode.md).
  if (format == "text")
    for (size_t i = 0; i < results.size(); ++i)
      if (results[i].result.value("fidelity", "exact") == "fast")
        fmt::print("# nicsim: {}{}\n", results.size() > 1 ? (i == 0 ? "A: " : "B: ") : "", kFastFidelityNote);
  Breakdown ba, bb;
  for (size_t i = 0; i < results.size(); ++i) {
    try {
      (i == 0 ? ba : bb) = breakdown_of(results[i].result, kind);
    } catch (const std::invalid_argument& e) {  // said for the run it concerns
      fmt::print(stderr, "nicsim explain: {}{}: {}\n", compare ? (i == 0 ? "A, " : "B, ") : "", jobs[i].scenario.string(),
                 e.what());
      return kExitUsage;
    }
  }
  const nlohmann::json ta = results[0].result.value("transfer", nlohmann::json::object());
  const nlohmann::json tb = compare ? results[1].result.value("transfer", nlohmann::json::object()) : nlohmann::json::object();
  auto has_transfer = [](const nlohmann::json& t) {
    for (auto& [h, x] : t.items())
      if (!x.value("sockets", nlohmann::json::array()).empty()) return true;
    return false;
  };
  // The pictures the runs drew (nicsim run --plots), listed after the report.
  auto list_plots = [&] {
    for (size_t i = 0; i < results.size(); ++i)
      for (auto& p : results[i].result.value("plots", nlohmann::json::array()))
        fmt::print("picture ({}): {}\n", i == 0 ? "A" : "B", p.get<std::string>());
  };
  // A bulk workload traces no messages: its explanation is where the transfer time went.
  const bool transfer_mode =
      vm.count("transfer") || (!vm.count("cpu") && ba.journeys == 0 && has_transfer(ta) && (!compare || bb.journeys == 0));
  auto name_of = [](const RunJob& j, const std::vector<std::string>& extra) {
    std::string n = fs::path(j.scenario).stem().string();
    for (auto& s : extra) n += " " + s;
    return n;
  };
  const std::string an = name_of(a, {}), bn = vs.empty() ? name_of(b, vs_sets) : name_of(b, {});
  if (transfer_mode) {
    if (!vm.count("transfer"))
      fmt::print(stderr,
                 "nicsim explain: {} traced no messages (the workload's journey count, journeys_per_test or journeys_per_size, is 0, or a bulk "
                 "workload): showing where each TCP transfer's time went (--transfer)\n",
                 scenario);
    if (format == "json") {
      nlohmann::json j = {{"a", {{"name", an}, {"transfer", ta}}}};
      if (compare) {
        nlohmann::json jr = nlohmann::json::array();
        for (auto& r : transfer_gap(ta, tb))
          jr.push_back({{"host", r.host}, {"socket", r.socket}, {"side", r.side}, {"state", r.state},
                        {"a_pct", r.a_pct}, {"b_pct", r.b_pct}, {"a_ms", r.a_ms}, {"b_ms", r.b_ms}});
        j["b"] = {{"name", bn}, {"transfer", tb}};
        j["gap"] = jr;
        j["summary"] = transfer_gap_summary(ta, tb);
      }
      std::cout << j.dump(2) << "\n";
    } else if (!compare) {
      fmt::print("{}\n\n{}", scenario, format_transfer(ta));
    } else {
      std::string words;
      for (auto& l : transfer_gap_summary(ta, tb)) words += l + "\n";
      fmt::print("A: {}\n\n{}B: {}\n\n{}{}\nIn plain words (A: {}, B: {}):\n{}", an, format_transfer(ta), bn,
                 format_transfer(tb), format_transfer_gap(ta, tb, an, bn), an, bn,
                 words.empty() ? "(the transfers did not move by a point of lifetime or 10% of a batch size)\n" : words);
    }
    if (format != "json") list_plots();
    if (!trace.empty()) fmt::print(stderr, "trace written to {}\n", trace);
    return kExitOk;
  }
  if (!vm.count("cpu") && ba.journeys == 0) {
    fmt::print(stderr,
               "nicsim explain: {} has no traced messages to break down (the workload records none, or "
               "the workload's journey count, journeys_per_test or journeys_per_size, is 0)\n",
               scenario);
    return kExitUsage;
  }
  if (vm.count("cpu")) {
    const nlohmann::json pa = results[0].result.value("cpu_profile", nlohmann::json::object());
    if (!compare) {
      const auto fa = forwarding_resources(results[0].result);
      if (format == "json")
        std::cout << nlohmann::json{{"scenario", scenario}, {"cpu_profile", pa}, {"forwarding", forwarding_resources_json(fa)}}.dump(2)
                  << "\n";
      else fmt::print("{}\n\n{}{}", scenario, format_cpu_profile(pa, top), format_forwarding_resources(fa));
    } else {
      const nlohmann::json pb = results[1].result.value("cpu_profile", nlohmann::json::object());
      const std::vector<CpuSummaryHost> summary = cpu_gap_summary(results[0].result, results[1].result);
      if (format == "json") {
        nlohmann::json jr = nlohmann::json::array();
        for (auto& r : cpu_gap(pa, pb))
          jr.push_back({{"host", r.host}, {"cpu", r.cpu}, {"symbol", r.symbol}, {"context", r.context},
                        {"a_cycles_per_packet", r.a_per_pkt}, {"b_cycles_per_packet", r.b_per_pkt}, {"delta", r.delta}});
        std::cout << nlohmann::json{{"a", {{"name", an}, {"cpu_profile", pa}}},
                                    {"b", {{"name", bn}, {"cpu_profile", pb}}},
                                    {"gap", jr},
                                    {"summary", format_cpu_gap_summary(summary)},
                                    {"transfer_summary", transfer_gap_summary(ta, tb)},
                                    {"summary_hosts", cpu_gap_summary_json(summary)}}
                         .dump(2)
                  << "\n";
      } else {
        std::string words = format_cpu_gap_summary(summary);
        for (auto& l : transfer_gap_summary(ta, tb)) words += l + "\n";  // when a transfer moved too
        fmt::print("A: {}\n\n{}{}B: {}\n\n{}{}{}\nIn plain words (A: {}, B: {}):\n{}", an, format_cpu_profile(pa, top),
                   format_forwarding_resources(forwarding_resources(results[0].result)), bn, format_cpu_profile(pb, top),
                   format_forwarding_resources(forwarding_resources(results[1].result)), format_cpu_gap(pa, pb, an, bn, top), an,
                   bn, words);
      }
    }
    if (format != "json") list_plots();
    if (!trace.empty()) fmt::print(stderr, "trace written to {}\n", trace);
    return kExitOk;
  }
  if (!compare) {
    if (format == "json") {
      std::cout << nlohmann::json{{"scenario", scenario}, {"breakdown", ba.to_json()}}.dump(2) << "\n";
    } else {
      fmt::print("{}\n\n{}", scenario, format_breakdown(ba));
      list_plots();
    }
    if (!trace.empty()) fmt::print(stderr, "trace written to {}\n", trace);
    return kExitOk;
  }
  // A gap against a run with no traced messages (another workload type, journeys switched off,
  // a kind only one run has) would be a comparison with nothing.
  for (auto [brk, name] : {std::pair{&ba, &an}, std::pair{&bb, &bn}})
    if (brk->journeys == 0) {
      fmt::print(stderr, "nicsim explain: {} has no traced messages{} to compare\n", *name,
                 kind.empty() ? std::string() : fmt::format(" of kind '{}'", kind));
      return kExitUsage;
    }
  auto rows = gap(ba, bb);
  std::string summary = gap_summary(ba, bb, rows, an, bn);
  for (auto& l : transfer_gap_summary(ta, tb)) summary += "\n" + l;  // when a transfer moved too
  if (format == "json") {
    nlohmann::json jr = nlohmann::json::array();
    for (auto& r : rows)
      jr.push_back({{"stage", r.stage}, {"cause", r.cause}, {"where", r.where(an, bn)}, {"where_a", r.where_a}, {"where_b", r.where_b}, {"a_us", r.a_us}, {"b_us", r.b_us},
                    {"delta_us", r.delta_us}});
    std::cout << nlohmann::json{{"a", {{"name", an}, {"breakdown", ba.to_json()}}},
                                {"b", {{"name", bn}, {"breakdown", bb.to_json()}}},
                                {"gap", jr},
                                {"summary", summary}}
                     .dump(2)
              << "\n";
  } else {
    fmt::print("A: {}\n{}\nB: {}\n{}\nGap (B - A), largest first:\n{}\n{}\n", an, format_breakdown(ba), bn,
               format_breakdown(bb), format_gap(rows, "A µs", "B µs"), summary);
    list_plots();
  }
  return kExitOk;
}

Registrar<VerbEntry> explain_reg{VerbEntry{"explain", "per-stage latency breakdown of a run, or the gap between two runs",
                                           explain_main}};

}  // namespace
}  // namespace nicsim
