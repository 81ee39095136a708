// The `netpipe` workload: NetPIPE 2.4 TCP ping-pong between two NICs of a testbed, with the real
// program's output (progress lines with -P, NetPIPE.out). research/tg3-bonding-tcp-gmac-formats.md §4.
#include "core/sim_context.h"
#include "drivers-sim/apps/netpipe_app.h"
#include "platforms/host_software.h"
#include "platforms/scenario.h"
#include <fmt/format.h>
#include <ostream>

namespace nicsim {
namespace {

ParamSchema netpipe_schema() {
  NetpipeOptions d;
  return {
      string_param("transmitter", "", {}, "NIC the transmitter (netpipe -t ... -P) runs behind", "NetPIPE 2.4 TCP.c"),
      string_param("receiver", "", {}, "NIC the receiver (netpipe -r) runs behind", "NetPIPE 2.4 TCP.c"),
      int_param("lower", d.start_bytes, 1, 1 << 30, "bytes", "first message size (-l)", "netpipe.c: start = 1"),
      int_param("upper", 8 << 20, 1, (1 << 30), "bytes", "upper message size limit (-u)", "netpipe.c -u; default here 8 MB"),
      int_param("trials", d.trials, 1, 100, "trials", "measurements per size, the minimum is reported (TRIALS)", "netpipe.h TRIALS = 7"),
      real_param("runtm_s", d.runtm_s, 1e-5, 100.0, "s", "target time per trial (RUNTM); smaller = shorter run",
                 "netpipe.h RUNTM = 0.25"),
      real_param("stoptm_s", d.stoptm_s, 1e-5, 1000.0, "s", "stop once a message takes this long (STOPTM)", "netpipe.h STOPTM = 1.0"),
      int_param("pert", d.pert, 1, 1000, "bytes", "perturbation around each size (PERT)", "netpipe.h PERT = 3"),
      int_param("latency_reps", d.latency_reps, 1, 100000, "round trips", "round trips of the latency test (LATENCYREPS)",
                "netpipe.h LATENCYREPS = 100"),
      int_param("port", d.port, 1, 65535, "port", "TCP port (DEFPORT)", "netpipe.h DEFPORT = 5002"),
      int_param("journeys_per_size", 200, 0, 1000000, "messages",
                "messages per size (first trial) traced stage by stage for `nicsim explain`", ""),
      real_param("time_limit_s", 600.0, 0.001, 1e6, "s", "simulated-time limit; the run fails when it is reached", ""),
      bool_param("netstat_s", false, "print each host's `netstat -s` after the run (net-tools format; always written "
                 "to netstat-s.<host>.txt beside result.json)", "research/tg3-bonding-tcp-gmac-formats.md §2.3"),
  };
}

int run_netpipe(Testbed& tb, std::ostream& out, nlohmann::json& results) {
  const ParamValues& p = tb.scenario().workload.params;
  TestbedSoftware& sw = build_software(tb);
  auto tx_ep = *parse_endpoint(p.s("transmitter"));
  auto rx_ep = *parse_endpoint(p.s("receiver"));
  if (tx_ep.host == rx_ep.host) throw std::runtime_error("netpipe: transmitter and receiver must be on different hosts");
  for (const char* k : {"transmitter", "receiver"}) sw.cabled_ip(p.s(k), "netpipe", k);
  HostSoftware& txh = sw.host(tx_ep.host);
  HostSoftware& rxh = sw.host(rx_ep.host);

  NetpipeOptions o;
  o.start_bytes = static_cast<int>(p.i("lower"));
  o.end_bytes = static_cast<int>(p.i("upper"));
  o.trials = static_cast<int>(p.i("trials"));
  o.runtm_s = p.r("runtm_s");
  o.stoptm_s = p.r("stoptm_s");
  o.pert = static_cast<int>(p.i("pert"));
  o.latency_reps = static_cast<int>(p.i("latency_reps"));
  o.port = static_cast<int>(p.i("port"));

  NetpipeChannel ch;
  NetpipeProgram tprog(o, true, &ch), rprog(o, false, &ch);
  size_t printed = 0;
  auto flush = [&] {
    const std::string& t = tprog.progress_text();
    if (t.size() > printed) {
      out << t.substr(printed) << std::flush;
      printed = t.size();
    }
  };
  NetpipeSide tx, rx;
  for (auto [side, hs, prog, is_tx] : {std::tuple{&tx, &txh, &tprog, true}, std::tuple{&rx, &rxh, &rprog, false}}) {
    side->kernel = hs->kernel.get();
    side->inet = hs->inet.get();
    side->wait_network_up = [hs = hs] { return hs->wait_network_up(); };
    side->program = prog;
    side->transmitter = is_tx;
    side->port = static_cast<uint16_t>(o.port);
    side->journeys_per_size = static_cast<int>(p.i("journeys_per_size"));
  }
  tx.peer_ip = sw.cabled_ip(p.s("receiver"), "netpipe", "receiver");
  tx.on_progress = [&] {
    flush();
    if (tx.finished && rx.finished) sc_core::sc_stop();
  };
  rx.on_progress = [&] {
    if (tx.finished && rx.finished) sc_core::sc_stop();
  };
  // The receiver is started first, as a user does; the transmitter connects 2 jiffies later.
  txh.kernel->spawn_process("NPtcp", netpipe_main(&tx, 2));
  rxh.kernel->spawn_process("NPtcp", netpipe_main(&rx, 0));

  Cpu::run_for(sec(p.r("time_limit_s")));  // sc_start, telling the CPUs' run-ahead where the run ends
  flush();

  nlohmann::json& m = results["metrics"];
  m["latency_us"] = tprog.latency_s() * 1e6;
  double max_mbps = 0;
  for (auto& r : tprog.results()) {
    m[fmt::format("one_way_us.{}B", r.bytes)] = r.t_s * 1e6;
    m[fmt::format("mbps.{}B", r.bytes)] = r.mbps;
    m[fmt::format("times.{}B", r.bytes)] = r.nrepeat;
    max_mbps = std::max(max_mbps, r.mbps);
  }
  m["max_mbps"] = max_mbps;
  m["sizes"] = tprog.results().size();
  results["files"]["NetPIPE.out"] = tprog.out_file();
  for (auto& [name, hs] : sw.hosts) {
    hs->inet->export_counters();
    const std::string text = hs->inet->stack().netstat_s();
    results["files"]["netstat-s." + name + ".txt"] = text;
    if (p.b("netstat_s")) out << "\n" << name << "$ netstat -s\n" << text;
  }

  std::string err = !tx.error.empty() ? "transmitter: " + tx.error : !rx.error.empty() ? "receiver: " + rx.error : "";
  if (err.empty() && !(tx.finished && rx.finished))
    err = fmt::format("NetPIPE did not finish within time_limit_s = {} s of simulated time", p.r("time_limit_s"));
  if (!err.empty()) {
    results["workload_error"] = err;
    out << "netpipe: " << err << "\n";
    return 1;
  }
  return 0;
}

/// Load-time checks: lower <= upper (netpipe.c refuses "Start MUST be LESS than end"), and the
/// two ends' hosts, cables and kernels (tcp_pair_problems).
std::vector<ParamProblem> netpipe_check(const Scenario& s) {
  std::vector<ParamProblem> out;
  const ParamValues& p = s.workload.params;
  if (p.i("lower") > p.i("upper")) {
    // Blame the value the scenario gave: lower when set, else upper (the default lower is 1).
    bool lower_given = p.i("lower") != ParamValues(netpipe_schema()).i("lower");
    out.push_back({lower_given ? "workload.lower" : "workload.upper",
                   lower_given ? fmt::format("{} bytes is above upper = {} (NetPIPE starts at lower and stops at upper)",
                                             p.i("lower"), p.i("upper"))
                               : fmt::format("{} bytes is below lower = {} (NetPIPE starts at lower and stops at upper)",
                                             p.i("upper"), p.i("lower"))});
  }
  for (auto& pr : tcp_pair_problems(s, "NetPIPE")) out.push_back(pr);
  return out;
}

Registrar<WorkloadEntry> netpipe_reg{WorkloadEntry{
    "netpipe", "NetPIPE 2.4 TCP ping-pong (latency and bandwidth vs message size) between two NICs",
    tcp_pair_schema(netpipe_schema()),
    run_netpipe, netpipe_check}};

}  // namespace
}  // namespace nicsim
