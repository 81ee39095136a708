// The `lmbench` workload: lmbench 2.0's latency programs (lat_syscall null, lat_pipe, lat_ctx -s 0
// 2, lat_tcp localhost, lat_udp localhost) on one host, over its loopback device, with no NIC in
// the path; their output lines as lmbench prints them and result.json metrics
// lmbench.<program>_us (and lmbench.lat_ctx_ovr_us, lat_ctx's pipe overhead). App:
// drivers-sim/apps/lmbench_app.h. The reference measurements (a 2.4 GHz P4 with 2.4.18, P. Mau,
// LKML 2002-10-02) are in research/linux24-smp-network-costs.md §1.2; scenarios/lmbench/.
#include "core/sim_context.h"
#include "drivers-sim/apps/lmbench_app.h"
#include "platforms/host_software.h"
#include "platforms/scenario.h"
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <ostream>
#include <sstream>

namespace nicsim {
namespace {

ParamSchema lmbench_schema() {
  return {
      string_param("host", "", {}, "host the programs run on (empty: the scenario's only host)", "lmbench 2.0 runs on one machine"),
      string_param("tests", "lat_syscall,lat_pipe,lat_ctx,lat_tcp,lat_udp", {},
                   "comma-separated lmbench programs, run in this order: lat_syscall (null), lat_pipe, lat_ctx "
                   "(-s 0 2), lat_tcp (localhost), lat_udp (localhost)",
                   "lmbench 2.0 src/lat_*.c (GitHub ricarkol/lmbench2)"),
      int_param("iterations", 1000, 1, 10000000, "calls", "calls of the benchmark body per timed loop (get_n())",
                "lmbench 2.0 lib_timing.c sizes N to run ENOUGH us; the model is deterministic, so a fixed N suffices"),
      int_param("tries", 3, 1, 101, "loops", "timed loops per BENCH; the result is their median (save_median)",
                "lmbench 2.0 bench.h TRIES = 11; fewer suffice in a deterministic model"),
      int_param("tcp_port", 31234, 1, 65000, "port", "port lat_tcp -s listens on",
                "estimate: lmbench registers TCP_XACT with the portmapper, any free port behaves the same"),
      int_param("udp_port", 31235, 1, 65000, "port", "port lat_udp -s binds",
                "estimate: lmbench registers UDP_XACT with the portmapper, any free port behaves the same"),
      real_param("time_limit_s", 60.0, 0.001, 1e6, "s", "simulated-time limit; the run fails when it is reached", ""),
  };
}

/// The programs named by `tests`. Throws std::invalid_argument naming a bad entry (with a
/// spelling suggestion) or a repeated one.
std::vector<LmbenchTest> tests_of(const std::string& list) {
  std::vector<LmbenchTest> out;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto b = item.find_first_not_of(' '), e = item.find_last_not_of(' ');
    const std::string t = b == std::string::npos ? "" : item.substr(b, e - b + 1);
    auto v = lmbench_test_of(t);
    if (!v) {
      const std::string near = nearest_name(t, lmbench_test_names());
      throw std::invalid_argument(fmt::format("'{}' is not an lmbench program{}; the programs: {}", t,
                                              near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near),
                                              fmt::join(lmbench_test_names(), ", ")));
    }
    for (auto o : out)
      if (o == *v) throw std::invalid_argument(fmt::format("'{}' appears twice", t));
    out.push_back(*v);
  }
  if (out.empty()) throw std::invalid_argument("no lmbench program given");
  return out;
}

std::string host_of(const Scenario& s) {
  const std::string h = s.workload.params.s("host");
  if (!h.empty()) return h;
  return s.hosts.size() == 1 ? s.hosts[0].name : "";
}

int run_lmbench(Testbed& tb, std::ostream& out, nlohmann::json& results) {
  const ParamValues& p = tb.scenario().workload.params;
  TestbedSoftware& sw = build_software(tb);
  const std::string hname = host_of(tb.scenario());
  HostSoftware& hs = sw.host(hname);
  LmbenchRun run;
  run.tests = tests_of(p.s("tests"));
  run.iterations = p.i("iterations");
  run.tries = static_cast<int>(p.i("tries"));
  run.tcp_port = static_cast<uint16_t>(p.i("tcp_port"));
  run.udp_port = static_cast<uint16_t>(p.i("udp_port"));
  LmbenchHost h{hs.kernel.get(), hs.inet.get(), [x = &hs] { return x->wait_network_up(); }};
  hs.kernel->spawn_process("lmbench", lmbench_main(h, &run, [&](size_t i) { out << run.results[i].output << std::flush; },
                                                   [] { sc_core::sc_stop(); }));
  Cpu::run_for(sec(p.r("time_limit_s")));  // sc_start, telling the CPUs' run-ahead where the run ends
  for (auto& [name, x] : sw.hosts) x->inet->export_counters();

  nlohmann::json& m = results["metrics"];
  for (const LmbenchResult& r : run.results) {
    m[fmt::format("lmbench.{}_us", lmbench_test_name(r.test))] = r.us;
    if (r.test == LmbenchTest::lat_ctx) m["lmbench.lat_ctx_ovr_us"] = r.overhead_us;
  }
  m["lmbench.iterations"] = run.iterations;
  m["lmbench.tries"] = run.tries;
  std::string err = run.error;
  if (err.empty() && !run.finished)
    err = fmt::format("lmbench did not finish within time_limit_s = {} s of simulated time", p.r("time_limit_s"));
  if (!err.empty()) {
    results["workload_error"] = err;
    out << "lmbench: " << err << "\n";
    return 1;
  }
  return 0;
}

/// Load-time checks: `tests` parses; the host exists (or is the only one) and ticks.
std::vector<ParamProblem> lmbench_check(const Scenario& s) {
  std::vector<ParamProblem> out;
  const ParamValues& p = s.workload.params;
  try {
    tests_of(p.s("tests"));
  } catch (const std::invalid_argument& e) {
    out.push_back({"workload.tests", e.what()});
  }
  const std::string h = host_of(s);
  std::vector<std::string> names;
  for (const auto& hc : s.hosts) names.push_back(hc.name);
  if (h.empty()) {
    out.push_back({"workload.host", fmt::format("the scenario has {} hosts ({}): name the one lmbench runs on",
                                                s.hosts.size(), fmt::join(names, ", "))});
    return out;
  }
  const HostConfig* hc = s.find_host(h);
  if (!hc) {
    const std::string near = nearest_name(h, names);
    out.push_back({"workload.host", fmt::format("no host '{}' in the scenario{}; its hosts: {}", h,
                                                near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near),
                                                fmt::join(names, ", "))});
    return out;
  }
  if (hc->params.has("hz_tick") && !hc->params.b("hz_tick"))
    out.push_back({"hosts." + h + ".hz_tick",
                   "lmbench runs Linux on host " + h + ", which needs the timer tick (lat_tcp's delayed ACKs and "
                   "retransmit timers, schedule_timeout)"});
  return out;
}

Registrar<WorkloadEntry> lmbench_reg{WorkloadEntry{
    "lmbench",
    "lmbench 2.0 lat_syscall/lat_pipe/lat_ctx/lat_tcp/lat_udp on one host over loopback (no NIC); lmbench's output lines",
    lmbench_schema(), run_lmbench, lmbench_check}};

}  // namespace
}  // namespace nicsim
