// The `tcp_stream` workload: netperf 2.2 TCP_STREAM (one connection, bulk transfer for a fixed
// time) between two NICs of a testbed, with netperf's result block and throughput, CPU
// utilisation and receive-interrupt-rate metrics. research/tg3-bonding-tcp-gmac-formats.md §4.
#include "core/sim_context.h"
#include "drivers-sim/apps/tcp_stream_app.h"
#include "platforms/host_software.h"
#include "platforms/scenario.h"
#include "platforms/workload_counters.h"
#include <fmt/format.h>
#include <algorithm>
#include <ostream>

namespace nicsim {
namespace {

ParamSchema tcp_stream_schema() {
  return {
      string_param("transmitter", "", {}, "NIC the sender (netperf -t TCP_STREAM) runs behind", "netperf 2.2 nettest_bsd.c"),
      string_param("receiver", "", {}, "NIC the receiver (netserver) runs behind", "netperf 2.2 nettest_bsd.c"),
      real_param("duration_s", 10.0, 1e-3, 1e5, "s", "length of the timed send loop (-l)", "netperf 2.2: test_time default 10 s"),
      int_param("send_size_bytes", 16384, 1, 1 << 24, "bytes", "bytes per send() (-m)",
                "netperf 2.2: send_size defaults to the send socket buffer, 16384 (tcp_wmem[1]) on Linux 2.4"),
      int_param("recv_size_bytes", 87380, 1, 1 << 24, "bytes", "bytes per recv() (-M)",
                "netperf 2.2: recv_size defaults to the receive socket buffer, 87380 (tcp_rmem[1]) on Linux 2.4"),
      int_param("port", 12866, 1, 65535, "port", "TCP port of the data connection",
                "estimate: netserver binds an ephemeral port; any free port behaves the same"),
      real_param("interim_interval_s", 0.1, 1e-3, 1e5, "s",
                 "width of the interim throughput bins reported in metrics.interim_mbps (what the receiver read, "
                 "by the time each read returned)",
                 "netperf 2.4+ -D (demo mode) interim results; netperf 2.2 has none. estimate: 100 ms resolves "
                 "effects that last tens of ms"),
      bool_param("interim_output", false,
                 "print one 'Interim result' line per interim bin before netperf's result block (like netperf -D)",
                 "netperf 2.4+ -D demo mode; netperf 2.2 prints only the result block"),
      real_param("drain_limit_s", 10.0, 1e-3, 1e5, "s",
                 "simulated time after duration_s for the last bytes to be read; the run fails when it is reached", ""),
  };
}

int run_tcp_stream(Testbed& tb, std::ostream& out, nlohmann::json& results) {
  const ParamValues& p = tb.scenario().workload.params;
  TestbedSoftware& sw = build_software(tb);
  const TcpPairEnds ends = tcp_pair_ends(sw, p, "tcp_stream");
  HostSoftware& txh = *ends.tx;
  HostSoftware& rxh = *ends.rx;
  const std::string& rx_devname = ends.rx_dev;
  const double duration_s = p.r("duration_s");
  const double interim_s = p.r("interim_interval_s");

  TcpStreamChannel ch;
  ch.interim_interval = sec(interim_s);
  TcpStreamSide tx, rx;
  bind_stream_sides(ends, static_cast<uint16_t>(p.i("port")), ch, tx, rx);
  tx.duration_s = rx.duration_s = duration_s;
  tx.message_bytes = static_cast<size_t>(p.i("send_size_bytes"));
  rx.message_bytes = static_cast<size_t>(p.i("recv_size_bytes"));
  const uint32_t rx_ip = ends.rx_ip;

  sc_core::sc_time tx_busy0, rx_busy0, tx_busy1, rx_busy1;
  uint64_t rx_irq0 = 0, rx_irq1 = 0;
  ch.on_start = [&] {
    tx_busy0 = busy_time(*txh.kernel);
    rx_busy0 = busy_time(*rxh.kernel);
    rx_irq0 = dev_interrupts(rxh.name, rx_devname);
  };
  ch.on_finish = [&] {
    tx_busy1 = busy_time(*txh.kernel);
    rx_busy1 = busy_time(*rxh.kernel);
    rx_irq1 = dev_interrupts(rxh.name, rx_devname);
    sc_core::sc_stop();
  };
  // netserver is running before netperf starts; netperf connects 2 jiffies later.
  txh.kernel->spawn_process("netperf", tcp_stream_main(&tx, 2));
  rxh.kernel->spawn_process("netserver", tcp_stream_main(&rx, 0));

  Cpu::run_for(sec(1.0 + duration_s + p.r("drain_limit_s")));  // sc_start, telling the CPUs' run-ahead where the run ends

  for (auto& [name, hs] : sw.hosts) hs->inet->export_counters();
  const std::string err = tcp_stream_error(tx, rx, ch, p.r("drain_limit_s"), "sender");
  if (!err.empty()) {
    results["workload_error"] = err;
    out << "tcp_stream: " << err << "\n";
    return 1;
  }

  const double elapsed_s = (ch.end - ch.start).to_seconds();
  const double mbps = static_cast<double>(ch.bytes_received) * 8.0 / 1e6 / elapsed_s;  // netperf -f m: 10^6 bits/s
  // netperf's CPU utilisation: busy share of all the host's CPUs over the elapsed time.
  auto util = [&](sc_core::sc_time b0, sc_core::sc_time b1, Kernel& k) {
    return 100.0 * (b1 - b0).to_seconds() / (elapsed_s * k.num_cpus());
  };
  // Interim results: the receiver's reads per bin, printed (with interim_output) between netperf's
  // banner and its result block, as netperf -D does while the test runs.
  const std::vector<double> interim = interim_mbps(ch.interim_bytes, interim_s, elapsed_s);
  out << fmt::format("TCP STREAM TEST to {}\n", dotted_quad(rx_ip));
  if (p.b("interim_output"))
    for (size_t i = 0; i < interim.size(); ++i) {
      const double t0 = static_cast<double>(i) * interim_s;
      const double t1 = i + 1 == interim.size() ? elapsed_s : t0 + interim_s;
      out << fmt::format("Interim result: {:7.2f} 10^6bits/s over {:.3f} seconds ending at {:.3f}\n", interim[i],
                         t1 - t0, t1);
    }

  out << "Recv   Send    Send\n"
         "Socket Socket  Message  Elapsed\n"
         "Size   Size    Size     Time     Throughput\n"
         "bytes  bytes   bytes    secs.    10^6bits/sec\n\n";
  out << fmt::format("{:6d} {:6d} {:6d}    {:<6.2f}   {:7.2f}\n", rx.socket_buffer_bytes, tx.socket_buffer_bytes,
                     tx.message_bytes, elapsed_s, mbps);

  nlohmann::json& m = results["metrics"];
  m["throughput_mbps"] = mbps;
  m["elapsed_s"] = elapsed_s;
  m["bytes"] = ch.bytes_received;
  m["writes"] = ch.writes;
  m["reads"] = ch.reads;
  m["cpu_util_tx_pct"] = util(tx_busy0, tx_busy1, *txh.kernel);
  m["cpu_util_rx_pct"] = util(rx_busy0, rx_busy1, *rxh.kernel);
  m["interrupts_per_s_rx"] = static_cast<double>(rx_irq1 - rx_irq0) / elapsed_s;
  m["interim_interval_s"] = interim_s;
  m["interim_mbps"] = interim;
  auto [lo, hi] = std::minmax_element(interim.begin(), interim.end());  // interim is never empty
  m["interim_min_mbps"] = *lo;
  m["interim_max_mbps"] = *hi;
  m["recv_socket_bytes"] = rx.socket_buffer_bytes;
  m["send_socket_bytes"] = tx.socket_buffer_bytes;
  return 0;
}

Registrar<WorkloadEntry> tcp_stream_reg{WorkloadEntry{
    "tcp_stream", "netperf 2.2 TCP_STREAM: one-connection bulk TCP transfer for a fixed time between two NICs",
    tcp_pair_schema(tcp_stream_schema()),
    run_tcp_stream,
    [](const Scenario& s) { return tcp_pair_problems(s, "netperf TCP_STREAM"); }}};

}  // namespace
}  // namespace nicsim
