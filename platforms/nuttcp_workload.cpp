// The `nuttcp` workload: Bill Fink's nuttcp, one TCP stream from a transmitter (`nuttcp -t`, the
// client) to a receiver (`nuttcp -r` under the server), for a fixed time (-T) or a number of
// buffers (-n), with nuttcp's own result lines on both sides, CPU utilisation as nuttcp computes it
// from getrusage(), and /proc/interrupts of both hosts before and after (seed 001).
//
// Output format: nuttcp.c v3.6.2 (katakk/nuttcp@499a3c4, the oldest source in the index; Copyright
// 2000-2003), non-brief mode. Seed 001 (19 Nov 2001) predates the brief one-line "-b" output
// (v3.1.7, 20 Dec 2001, in that file's history), so its author read the non-brief lines: the
// "%.3f MB in %.2f real seconds = %.2f KB/sec = %.4f Mbps" line (PERF_FMT_OUT; the seed's
// "4698.401 MB at 656.7557 Mbps") and prusage's "%Uuser %Ssys %Ereal %P ..." line (the seed's
// "63 % TX, 63 % RX"); brief = true adds the later "-b" line (PERF_FMT_BRIEF).
//   MB = 2^20 bytes; Mbps = bytes / realt / 125000 (10^6 bit/s).
//   %P = (int)(t * 100 / ms), t = utime + stime and ms = elapsed real time, both in 1/100 s with
//   nuttcp's integer truncation (prusage).
// CPU time is Linux 2.4's tick accounting (Process::utime_ticks/stime_ticks): the task current at
// a tick is charged the tick, so interrupt and softirq work done while the CPU was idle is
// charged to nobody, and work done while nuttcp was current is charged to nuttcp.
#include "core/registry.h"
#include "core/sim_context.h"
#include "drivers-sim/apps/tcp_stream_app.h"
#include "drivers-sim/kernel/profiles.h"
#include "platforms/host_introspection.h"
#include "platforms/host_software.h"
#include "platforms/nuttcp_format.h"
#include "platforms/proc_interrupts.h"
#include "platforms/scenario.h"
#include "platforms/workload_counters.h"
#include <fmt/format.h>
#include <ostream>

namespace nicsim {
namespace {

ParamSchema nuttcp_schema() {
  return {
      string_param("transmitter", "", {}, "NIC the transmitter (nuttcp -t, the client) runs behind", "nuttcp.c v3.6.2"),
      string_param("receiver", "", {}, "NIC the receiver (nuttcp -r, under nuttcp -S) runs behind", "nuttcp.c v3.6.2"),
      real_param("time_limit_s", 0.0, 0.0, 1e5, "s",
                 "transmit for this long (-T); 0: no time limit, send `buffers` buffers",
                 "nuttcp.c: -T## transmit timeout interval; with -T and no -n, nbuf = INT_MAX"),
      int_param("buffers", 0, 0, 1 << 30, "buffers",
                "number of buffers written (-n); 0: nuttcp's default, 2048 without a time limit and unlimited with one",
                "nuttcp.c: DEFAULT_NBUF 2048; -T with no -n sets nbuf = INT_MAX"),
      int_param("buflen_bytes", 65536, 1, 1 << 24, "bytes", "length of each write() and read() (-l)",
                "nuttcp.c: buflen = 64 * 1024 (default 65536/tcp)"),
      int_param("port", 5001, 1, 65535, "port", "data connection port (-p)", "nuttcp.c: port = 5001"),
      bool_param("brief", false, "also print the one-line brief result (-b, nuttcp 3.1.7 and later)",
                 "nuttcp.c PERF_FMT_BRIEF; v3.1.7 (20-Dec-01) 'Implement -b option for brief output'"),
      real_param("drain_limit_s", 10.0, 1e-3, 1e5, "s",
                 "simulated time after the send loop for the last bytes to be read; the run fails when it is reached",
                 ""),
  };
}

int run_nuttcp(Testbed& tb, std::ostream& out, nlohmann::json& results) {
  const ParamValues& p = tb.scenario().workload.params;
  TestbedSoftware& sw = build_software(tb);
  const TcpPairEnds ends = tcp_pair_ends(sw, p, "nuttcp");
  HostSoftware& txh = *ends.tx;
  HostSoftware& rxh = *ends.rx;
  const std::string &tx_dev = ends.tx_dev, &rx_dev = ends.rx_dev;
  const uint32_t rx_ip = ends.rx_ip, tx_ip = ends.tx_ip;
  const double time_limit_s = p.r("time_limit_s");
  const uint64_t nbuf = static_cast<uint64_t>(p.i("buffers"));
  const size_t buflen = static_cast<size_t>(p.i("buflen_bytes"));

  TcpStreamChannel ch;
  TcpStreamSide tx, rx;
  bind_stream_sides(ends, static_cast<uint16_t>(p.i("port")), ch, tx, rx);
  tx.message_bytes = rx.message_bytes = buflen;
  tx.duration_s = time_limit_s;
  // -T without -n: nbuf = INT_MAX (the time ends it); -n alone: nbuf buffers.
  tx.max_writes = nbuf ? nbuf : time_limit_s > 0 ? 0 : 2048;

  // /proc/interrupts before: when the test starts, both hosts' interfaces up.
  auto irq_text = [&](HostSoftware& hs) -> std::optional<std::string> {
    const KernelProfile* kp = Registry<KernelProfile>::instance().find(hs.kernel->params().kernel_profile);
    auto* intro = dynamic_cast<IrqIntrospection*>(tb.host(hs.name).hw.get());
    return proc_interrupts(hs.kernel->irq_rows(), kp ? kp->arch : "", intro ? intro->irq_chip() : "IO-APIC");
  };
  std::optional<std::string> tx_irq0, rx_irq0, tx_irq1, rx_irq1;
  uint64_t tx_n0 = 0, rx_n0 = 0, tx_n1 = 0, rx_n1 = 0;
  Process* tx_proc = nullptr;
  Process* rx_proc = nullptr;
  NuttcpUsage tx_u0, rx_u0, tx_u1, rx_u1;
  ch.on_start = [&] {
    tx_irq0 = irq_text(txh);
    rx_irq0 = irq_text(rxh);
    tx_n0 = dev_interrupts(txh.name, tx_dev);
    rx_n0 = dev_interrupts(rxh.name, rx_dev);
    tx_u0 = nuttcp_sample(*txh.kernel, *tx_proc);
    rx_u0 = nuttcp_sample(*rxh.kernel, *rx_proc);
  };
  ch.on_finish = [&] {
    rx_u1 = nuttcp_sample(*rxh.kernel, *rx_proc);
    tx_irq1 = irq_text(txh);
    rx_irq1 = irq_text(rxh);
    tx_n1 = dev_interrupts(txh.name, tx_dev);
    rx_n1 = dev_interrupts(rxh.name, rx_dev);
    sc_core::sc_stop();
  };
  // The server (nuttcp -S, forking nuttcp -r) is running; the client's data connect follows the
  // control connection and nuttcp's usleep(20000) before connect(): 2 jiffies at HZ 100.
  tx_proc = &txh.kernel->spawn_process("nuttcp", tcp_stream_main(&tx, 2));
  rx_proc = &rxh.kernel->spawn_process("nuttcp", tcp_stream_main(&rx, 0));

  // The transmitter's read_timer() runs when its send loop ends.
  ch.on_sender_done = [&] { tx_u1 = nuttcp_sample(*txh.kernel, *tx_proc); };
  // Without -T the run is as long as the buffers take; the time limit then only stops a stall.
  const double send_limit_s = time_limit_s > 0 ? time_limit_s : 1e5;
  Cpu::run_for(sec(1.0 + send_limit_s + p.r("drain_limit_s")));  // sc_start, telling the CPUs' run-ahead where the run ends

  for (auto& [name, hs] : sw.hosts) hs->inet->export_counters();
  const std::string err = tcp_stream_error(tx, rx, ch, p.r("drain_limit_s"), "transmitter");
  if (!err.empty()) {
    results["workload_error"] = err;
    out << "nuttcp: " << err << "\n";
    return 1;
  }

  const unsigned tx_hz = txh.kernel->params().hz, rx_hz = rxh.kernel->params().hz;
  const NuttcpPrusage tx_ru = nuttcp_prusage(tx_u0, tx_u1, tx_hz), rx_ru = nuttcp_prusage(rx_u0, rx_u1, rx_hz);
  const double tx_realt = (tx_u1.t - tx_u0.t).to_seconds(), rx_realt = (rx_u1.t - rx_u0.t).to_seconds();
  const double tx_mbps = static_cast<double>(ch.bytes_sent) / tx_realt / 125000;
  const double rx_mbps = static_cast<double>(ch.bytes_received) / rx_realt / 125000;

  // The client's output: its own lines, then the server's (nuttcp-r) lines it relays.
  out << fmt::format("nuttcp-t: buflen={}, {}nstream=1, port={} tcp -> {}\n", buflen,
                     tx.max_writes ? fmt::format("nbuf={}, ", tx.max_writes) : "", p.i("port"), dotted_quad(rx_ip));
  if (time_limit_s > 0)
    out << fmt::format("nuttcp-t: time limit = {:.2f} second{}\n", time_limit_s, time_limit_s == 1.0 ? "" : "s");
  out << fmt::format("nuttcp-t: connect to {}\n", dotted_quad(rx_ip));
  out << fmt::format("nuttcp-t: send window size = {}, receive window size = {}\n", tx.socket_buffer_bytes,
                     tx.other_buffer_bytes);
  out << nuttcp_result_lines("t", ch.bytes_sent, tx_realt, ch.writes, tx_ru);
  out << "\n";
  out << fmt::format("nuttcp-r: buflen={}, nstream=1, port={} tcp\n", buflen, p.i("port"));
  out << fmt::format("nuttcp-r: accept from {}\n", dotted_quad(tx_ip));
  out << fmt::format("nuttcp-r: send window size = {}, receive window size = {}\n", rx.other_buffer_bytes,
                     rx.socket_buffer_bytes);
  out << nuttcp_result_lines("r", ch.bytes_received, rx_realt, ch.reads, rx_ru);
  if (p.b("brief"))  // transmitter, client/server: the server's MB, realt and Mbps, then %TX %RX
    out << fmt::format("\n{:.3f} MB / {:.2f} sec = {:.4f} Mbps {} %TX {} %RX\n",
                       static_cast<double>(ch.bytes_received) / (1024 * 1024), rx_realt, rx_mbps, tx_ru.cpu_pct,
                       rx_ru.cpu_pct);

  // /proc/interrupts before and after, as seed 001 shows them; also beside result.json.
  nlohmann::json files = nlohmann::json::object();
  for (auto [label, hs, before, after] : {std::tuple{"Transmitter", &txh, &tx_irq0, &tx_irq1},
                                           std::tuple{"Receiver", &rxh, &rx_irq0, &rx_irq1}}) {
    if (!*before || !*after) continue;
    out << fmt::format("\n{} ({}) /proc/interrupts before and after:\n\n{}\n{}", label, hs->name, **before, **after);
    files[fmt::format("proc_interrupts.{}.before", hs->name)] = **before;
    files[fmt::format("proc_interrupts.{}.after", hs->name)] = **after;
  }
  if (!files.empty()) results["files"] = files;

  nlohmann::json& m = results["metrics"];
  m["throughput_mbps"] = rx_mbps;  // the receiver's line (what arrived)
  m["tx_throughput_mbps"] = tx_mbps;
  m["megabytes"] = static_cast<double>(ch.bytes_received) / (1024 * 1024);
  m["tx_megabytes"] = static_cast<double>(ch.bytes_sent) / (1024 * 1024);
  m["tx_realt_s"] = tx_realt;
  m["rx_realt_s"] = rx_realt;
  m["tx_cpu_pct"] = tx_ru.cpu_pct;  // nuttcp's %TX (tick-charged, integer)
  m["rx_cpu_pct"] = rx_ru.cpu_pct;  // nuttcp's %RX
  m["tx_busy_pct"] = 100.0 * (tx_u1.busy - tx_u0.busy).to_seconds() / (tx_realt * txh.kernel->num_cpus());
  m["rx_busy_pct"] = 100.0 * (rx_u1.busy - rx_u0.busy).to_seconds() / (rx_realt * rxh.kernel->num_cpus());
  m["tx_utime_ticks"] = tx_u1.utime - tx_u0.utime;
  m["tx_stime_ticks"] = tx_u1.stime - tx_u0.stime;
  m["rx_utime_ticks"] = rx_u1.utime - rx_u0.utime;
  m["rx_stime_ticks"] = rx_u1.stime - rx_u0.stime;
  m["tx_interrupts"] = tx_n1 - tx_n0;
  m["rx_interrupts"] = rx_n1 - rx_n0;
  m["tx_interrupts_per_s"] = static_cast<double>(tx_n1 - tx_n0) / rx_realt;
  m["rx_interrupts_per_s"] = static_cast<double>(rx_n1 - rx_n0) / rx_realt;
  m["writes"] = ch.writes;
  m["reads"] = ch.reads;
  m["send_socket_bytes"] = tx.socket_buffer_bytes;
  m["recv_socket_bytes"] = rx.socket_buffer_bytes;
  return 0;
}

Registrar<WorkloadEntry> nuttcp_reg{WorkloadEntry{
    "nuttcp",
    "nuttcp (Bill Fink) TCP transmit test: one stream for a time (-T) or a number of buffers (-n), nuttcp's "
    "result lines, tick-accounted %TX/%RX and /proc/interrupts before/after",
    tcp_pair_schema(nuttcp_schema()),
    run_nuttcp, [](const Scenario& s) { return tcp_pair_problems(s, "nuttcp"); }}};

}  // namespace
}  // namespace nicsim
