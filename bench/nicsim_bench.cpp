// nicsim_bench: simulation speed of one case per process (SystemC elaborates once per process).
//   nicsim_bench netpipe            the seed-000 82546EB NetPIPE scenario as shipped
//   nicsim_bench stream [--seconds S]  the 82546EB netperf TCP_STREAM scenario for S simulated s (default 10)
//   nicsim_bench flood [--seconds S]   bench/rx-flood-64b.toml: 64-byte frames at 1.488 Mpps into both
//                                      ports of one host's 82546EB for S simulated s (default 0.1)
//   nicsim_bench forward [--packets N] scenarios/seed003/2.6.14-e1000-6.2.15.toml: Linux 2.6.14 NAPI forwarding
//                                      of two 64-byte flows at 1.488 Mpps each through an 82546EB,
//                                      N packets per flow, one run (default 300000: 0.2 s of burst)
//   nicsim_bench hosts [--hosts N]     scenarios/default.toml (a short NetPIPE run) plus N hosts with
//                                      no NIC (default 200): the cost of building, running and
//                                      tearing down a testbed as it grows
// Every case takes --fidelity exact|fast (the scenario's fidelity, core/fidelity.h; default exact).
// Prints one line of key=value pairs: simulated, wall and process-CPU seconds, their ratios, frames on the wire
// (sum of every NIC's GPTC, good packets transmitted, and every tester port's frames_sent), SystemC delta cycles per frame, wall and
// process-CPU µs per frame (CPU µs is the number to compare on a loaded machine) and the process's
// peak resident set (getrusage ru_maxrss, teardown included). bench/run.sh runs netpipe and stream
// and tabulates them; bench/memory.sh compares the peak RSS of a 10 s and a 60 s stream;
// bench/hosts.sh the cost of 200 and 2,000 empty hosts.
#include "core/sim_context.h"
#include "platforms/run_workload.h"
#include <chrono>
#include <ctime>
#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <sys/resource.h>
#include <iostream>
#include <sstream>
#include <string>
#include <systemc>

__attribute__((constructor(101))) static void nicsim_bench_no_systemc_banner() {
  ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
}

namespace {

int usage() {
  std::cerr << "usage: nicsim_bench netpipe|stream|flood|forward|hosts [--seconds S] [--packets N] [--hosts N] [--scenario FILE]"
               " [--fidelity exact|fast]\n";
  return 2;
}

}  // namespace

int sc_main(int argc, char** argv) {
  using namespace nicsim;
  if (argc < 2) return usage();
  const std::string which = argv[1];
  double seconds = -1;  // per case default below
  std::string scenario_path, fidelity;
  int hosts = 200;
  long packets = 300000;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--seconds" && i + 1 < argc) seconds = std::atof(argv[++i]);
    else if (a == "--hosts" && i + 1 < argc) hosts = std::atoi(argv[++i]);
    else if (a == "--packets" && i + 1 < argc) packets = std::atol(argv[++i]);
    else if (a == "--scenario" && i + 1 < argc) scenario_path = argv[++i];
    else if (a == "--fidelity" && i + 1 < argc && parse_fidelity(argv[i + 1])) fidelity = argv[++i];
    else return usage();
  }
  if (seconds < 0) seconds = which == "flood" ? 0.1 : 10.0;
  std::vector<std::string> sets;
  if (which == "netpipe") {
    if (scenario_path.empty()) scenario_path = std::string(NICSIM_SOURCE_DIR) + "/scenarios/seed000/82546eb-pcix100.toml";
  } else if (which == "stream") {
    if (scenario_path.empty()) scenario_path = std::string(NICSIM_SOURCE_DIR) + "/scenarios/seed000/82546eb-pcix100-stream.toml";
    sets.push_back(fmt::format("workload.duration_s={}", seconds));
  } else if (which == "flood") {
    if (scenario_path.empty()) scenario_path = std::string(NICSIM_SOURCE_DIR) + "/bench/rx-flood-64b.toml";
    sets.push_back(fmt::format("workload.duration_s={}", seconds));
  } else if (which == "forward") {
    if (scenario_path.empty()) scenario_path = std::string(NICSIM_SOURCE_DIR) + "/scenarios/seed003/2.6.14-e1000-6.2.15.toml";
    sets = {fmt::format("workload.packets={}", packets), "workload.runs=1", "workload.average_last=1"};
  } else if (which == "hosts") {
    if (scenario_path.empty()) scenario_path = std::string(NICSIM_SOURCE_DIR) + "/scenarios/default.toml";
    sets = {"workload.upper=1", "workload.trials=1", "workload.runtm_s=0.001"};
  } else {
    return usage();
  }
  if (!fidelity.empty()) sets.push_back("fidelity=\"" + fidelity + "\"");

  set_model_error_reporting();
  Scenario scenario;
  if (which == "hosts") {
    // The scenario's own hosts and links, plus `hosts` hosts that only have a platform.
    std::ifstream f(scenario_path);
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    std::string extra;
    for (int h = 0; h < hosts; ++h) extra += fmt::format("[hosts.empty{}]\nplatform = \"supermicro-p4dpr-6gm+\"\n", h);
    size_t at = text.find("[[links]]");
    text.insert(at == std::string::npos ? text.size() : at, extra);
    scenario = load_scenario_text(text, scenario_path, sets);
  } else {
    scenario = load_scenario(scenario_path, sets);
  }
  nlohmann::json result = nlohmann::json::object();
  std::ostringstream out;
  const auto wall0 = std::chrono::steady_clock::now();
  const std::clock_t cpu0 = std::clock();
  int rc = run_workload(scenario, out, result);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const double cpu_s = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;  // this process's CPU time
  const double sim_s = sc_core::sc_time_stamp().to_seconds();
  if (rc != 0) {
    std::cerr << out.str() << "nicsim_bench: the workload failed\n";
    return 1;
  }
  uint64_t frames = 0;
  for (auto& [path, v] : sim().counters.all())
    if ((path.size() > 5 && path.compare(path.size() - 5, 5, ".GPTC") == 0) ||
        (path.size() > 12 && path.compare(path.size() - 12, 12, ".frames_sent") == 0))
      frames += *v;
  const double deltas = static_cast<double>(sc_core::sc_delta_count());
  const double f = frames ? static_cast<double>(frames) : 1.0;
  std::string extra;
  if (result["metrics"].contains("throughput_mbps"))
    extra = fmt::format(" throughput_mbps={:.2f}", result["metrics"]["throughput_mbps"].get<double>());
  if (result["metrics"].contains("latency_us"))
    extra = fmt::format(" latency_us={:.2f}", result["metrics"]["latency_us"].get<double>());
  if (result["metrics"].contains("nic_accepted_pps"))
    extra = fmt::format(" offered_pps={:.0f} nic_accepted_pps={:.0f} ip_received_pps={:.0f}",
                        result["metrics"]["offered_pps"].get<double>(), result["metrics"]["nic_accepted_pps"].get<double>(),
                        result["metrics"]["ip_received_pps"].get<double>());
  if (result["metrics"].contains("forwarded_kpps"))
    extra = fmt::format(" forwarded_kpps={:.1f}", result["metrics"]["forwarded_kpps"].get<double>());
  if (which == "hosts") extra += fmt::format(" hosts={}", scenario.hosts.size());
  struct rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);  // ru_maxrss: kilobytes on Linux
  fmt::print("case={} sim_s={:.4f} wall_s={:.3f} cpu_s={:.3f} sim_per_wall={:.3f} sim_per_cpu={:.3f} frames={} delta_cycles={} "
             "deltas_per_frame={:.2f} wall_us_per_frame={:.2f} cpu_us_per_frame={:.2f} peak_rss_kb={} fidelity={}{}\n",
             which, sim_s, wall_s, cpu_s, sim_s / wall_s, sim_s / cpu_s, frames, static_cast<uint64_t>(deltas), deltas / f,
             wall_s * 1e6 / f, cpu_s * 1e6 / f, ru.ru_maxrss, fidelity_name(scenario.fidelity), extra);
  return 0;
}
