// The `forwarding` workload (seed 003): a host routes two flows between the two ports of a NIC, one
// flow into each port, as jamal's test did ("Forwarding tests with a single flow into eth0 and another
// into eth1 ... All tests send exactly 10M packets burst at wire rate (1.488 MPps) on each interface.
// 4 runs are made; pick the last 3 of 4.").
//
// Traffic: two pktgen-style tester ports (models/ether/traffic_gen.h), one cabled to each router
// port. Port i's tester sends `packets` UDP/IPv4 frames of `frame_bytes` (60 = 64 with FCS) at `load`
// of wire rate to the router's station address, addressed to 198.18.<1-i>.2 (RFC 2544 Appendix C's
// test range), and counts the frames the router forwards to it from the other flow. The router has
// net.ipv4.ip_forward = 1 and a route 198.18.k.0/24 via port k whose gateway is port k's tester
// (a static neighbour entry, so no ARP is exchanged); frames go ip_rcv -> ip_forward ->
// dev_queue_xmit -> the other port.
//
// With `switch = true` the seed's switch sits in the middle ("A switch connects the two ports ...
// The switch i have in the middle obeys flow control"): tester i <-> switch0 port 2i, switch0 port
// 2i+1 <-> router port i, static entries for the router's and the testers' addresses, so each flow
// goes source -> switch -> router -> switch -> sink. The switch obeys the router's 802.3x PAUSE when
// `switch_obey_pause`; its output-queue drops and the PAUSE frames it received are reported per port.
//
// A run is one burst on both ports at once; after it the router is given `drain_ms` to empty its
// rings and queues before the next run starts. Forwarded rate of a flow in a run = the frames its
// sink counted while the burst was on / the burst's duration (packets x the wire period / load): the
// router's forwarding rate under the offered load. The frames it forwards after the burst (its
// packet buffer, rings and qdisc emptying: about a thousand per flow) are counted apart ("after
// burst"): they are 0.01 % of the seed's 10 M-packet run, but a third of a 20 ms short run, which
// would otherwise read faster than the full one. The result is the mean over the last
// `average_last` of `runs` runs.
//
// Reported per run and as the result: forwarded kpps per flow and in total; per router port the
// drops by reason over all runs: RX FIFO overrun (MPC: frames the NIC missed for want of packet
// buffer), receive-no-buffers events (RNBC: the ring had no descriptor; the frame waited in the FIFO),
// qdisc drops (pfifo_fast full, dev_queue_xmit), and PAUSE (802.3x XOFF frames the port received and
// sent, XOFFRXC/XOFFTXC); /proc/net/softnet_stat of the router's CPUs and `ip -s link` of its ports,
// in those tools' formats.
#include "core/result_names.h"
#include "core/sim_context.h"
#include "drivers-sim/net/inet.h"
#include "drivers-sim/net/wire.h"
#include "models/device_entry.h"
#include "models/ether/link.h"
#include "models/ether/traffic_gen.h"
#include "platforms/host_software.h"
#include "platforms/scenario.h"
#include "platforms/tester_frame.h"
#include "platforms/workload_switch.h"
#include "platforms/workload_counters.h"
#include <fmt/format.h>
#include <algorithm>
#include <numeric>
#include <ostream>

namespace nicsim {
namespace {

ParamSchema forwarding_schema() {
  ParamSchema s{
      string_param("port0", "", {}, "router port the first flow enters (\"host.nic\"); the second flow leaves by it"),
      string_param("port1", "", {}, "router port the second flow enters (\"host.nic:1\"); the first flow leaves by it"),
      int_param("packets", 10000000, 1, 1000000000, "frames",
                "frames each tester sends per run (seed 003: exactly 10M per interface)",
                "seed 003: \"All tests send exactly 10M packets burst at wire rate (1.488 MPps) on each interface\""),
      int_param("runs", 4, 1, 100, "runs", "bursts run one after the other", "seed 003: \"4 runs are made\""),
      int_param("average_last", 3, 1, 100, "runs", "the result is the mean of the last this many runs",
                "seed 003: \"pick the last 3 of 4\""),
      real_param("drain_ms", 20, 0.1, 1e5, "ms",
                 "quiet time after each burst before the next starts (rings, qdiscs and TX complete)",
                 "estimate: 1000-packet qdiscs and 256-descriptor rings drain in well under 10 ms at 450 kpps"),
  };
  add_tester_params(s, {"seed 003's 1.488 Mpps is 64-byte frames", "offered rate per port (1 = wire rate)",
                        "seed 003: wire rate, 1.488 Mpps", "when the first run starts (after ifup and link-up)",
                        "estimate: e1000 open and the first watchdog's link-up complete well inside 100 ms"});
  add_switch_params(s);
  s[0].unit = kUnitNicEndpoint;
  s[0].required = true;
  s[1].unit = kUnitNicEndpoint;
  s[1].required = true;
  return s;
}

std::string result_name_of(const NicEndpoint& ep) {
  return ep.port == 0 ? ep.host + "." + ep.nic : fmt::format("{}.{}:{}", ep.host, ep.nic, ep.port);
}

/// The flow entering router port `in`: from its tester to the router's station address, UDP to
/// 198.18.<out>.2 (the network behind the other port `out`).
std::vector<uint8_t> flow_frame(unsigned len, const std::array<uint8_t, 6>& router_mac, unsigned in, unsigned out) {
  // pktgen's default ports: 9 (discard) both ways
  return tester_udp_frame(len, router_mac, in, (198u << 24) | (18u << 16) | (in << 8) | 2u,
                          (198u << 24) | (18u << 16) | (out << 8) | 2u, 9, 9);
}

int run_forwarding(Testbed& tb, std::ostream& out, nlohmann::json& results) {
  const ParamValues& p = tb.scenario().workload.params;
  const std::array<std::string, 2> eps = {canonical_endpoint(p.s("port0")), canonical_endpoint(p.s("port1"))};
  const NicEndpoint ep0 = *parse_endpoint(eps[0]), ep1 = *parse_endpoint(eps[1]);
  const std::string host = ep0.host;
  TestbedSoftware& sw = build_software(tb);
  HostSoftware& hs = sw.host(host);
  const unsigned len = static_cast<unsigned>(p.i("frame_bytes"));
  const uint64_t packets = static_cast<uint64_t>(p.i("packets"));
  const int runs = static_cast<int>(p.i("runs")), last = static_cast<int>(std::min(p.i("average_last"), p.i("runs")));

  struct Port {
    NicEndpoint ep;
    NetDevice* dev = nullptr;
    std::string result_name;
    std::shared_ptr<TesterPort> gen;
  };
  std::array<Port, 2> ports;
  std::shared_ptr<EthSwitch> sw0 = make_workload_switch(p, 4);
  for (unsigned i = 0; i < 2; ++i) {
    const NicEndpoint& ep = i == 0 ? ep0 : ep1;
    const std::string netdev = ep.port == 0 ? ep.nic : fmt::format("{}:{}", ep.nic, ep.port);
    auto nd = hs.netdevs.find(netdev);
    if (nd == hs.netdevs.end()) throw std::runtime_error(fmt::format("forwarding: {} has no net_device", eps[i]));
    TrafficGenParams gp;
    gp.load = p.r("load");
    gp.frames = packets;
    auto gen = std::make_shared<TesterPort>(fmt::format("generator_port{}", i).c_str(), gp);
    const std::string gen_name = fmt::format("generator.port{}", i);
    result_names().alias(gen->name(), gen_name);
    cable_tester(tb, sw0, i, gen, gen_name, eps[i]);
    ports[i] = {ep, nd->second.get(), result_name_of(ep), gen};
  }
  // sysctl -w net.ipv4.ip_forward=1; ip route add 198.18.k.0/24 via <tester k> dev <port k>
  hs.inet->set_ip_forward(true);
  for (unsigned k = 0; k < 2; ++k) {
    const std::array<uint8_t, 6> mac = {0x00, 0x10, 0x94, 0x00, 0x00, static_cast<uint8_t>(k + 1)};
    hs.inet->add_route((198u << 24) | (18u << 16) | (k << 8), 24, *ports[k].dev, [mac] { return mac; });
    // A real switch has learned both ends from their traffic before pktgen starts; the model's
    // static neighbours send none (models/ether/switch.h).
    if (sw0) sw0->add_static(mac, 2 * k);
  }

  Cpu::run_for(sec(p.r("start_s")));  // sc_start, telling the CPUs' run-ahead where the run ends
  if (!hs.up) {
    results["workload_error"] = fmt::format("the router's interfaces were not up at start_s = {} s", p.r("start_s"));
    out << "forwarding: " << results["workload_error"].get<std::string>() << "\n";
    return 1;
  }
  if (sw0)
    for (unsigned k = 0; k < 2; ++k) sw0->add_static(ports[k].dev->dev_addr, 2 * k + 1);
  const double line_pps = max_frame_rate(len, 1000) * p.r("load");
  const double burst_s = static_cast<double>(packets) / line_pps;
  out << fmt::format(
      "forwarding: {} flows of {}-byte frames ({} with FCS), {} packets per flow per run at {:.0f} pps ({:g}% of "
      "1000 Mb/s), through {} ({} <-> {}); {} runs, the last {} averaged\n",
      2, len, len + kEthFcsBytes, packets, line_pps, 100.0 * p.r("load"), host, ports[0].result_name,
      ports[1].result_name, runs, last);
  out << fmt::format("{:>4} {:>14} {:>14} {:>12} {:>20}\n", "run", "flow0 kpps", "flow1 kpps", "total kpps",
                     "after burst (frames)");
  // flow i enters port i and leaves by port 1-i: its sink is tester 1-i
  std::vector<std::array<double, 2>> kpps;
  std::vector<uint64_t> after;  // per run: frames both sinks counted after the burst ended
  const auto drops_before = counters_with_prefix(host + ".");
  const auto switch_before = counters_with_prefix("switch0.");
  for (int r = 0; r < runs; ++r) {
    const uint64_t rx0 = ports[1].gen->received(), rx1 = ports[0].gen->received();
    for (unsigned i = 0; i < 2; ++i) {
      if (r == 0) ports[i].gen->start(flow_frame(len, ports[i].dev->dev_addr, i, 1 - i));
      else ports[i].gen->restart(packets);
    }
    Cpu::run_for(sec(burst_s));  // sc_start, telling the CPUs' run-ahead where the run ends
    const uint64_t in0 = ports[1].gen->received() - rx0, in1 = ports[0].gen->received() - rx1;
    Cpu::run_for(sec(p.r("drain_ms") * 1e-3));  // sc_start, telling the CPUs' run-ahead where the run ends
    const std::array<double, 2> k = {double(in0) / burst_s / 1e3, double(in1) / burst_s / 1e3};
    kpps.push_back(k);
    after.push_back(ports[1].gen->received() - rx0 - in0 + ports[0].gen->received() - rx1 - in1);
    out << fmt::format("{:>4} {:>14.1f} {:>14.1f} {:>12.1f} {:>20}\n", r + 1, k[0], k[1], k[0] + k[1], after.back());
  }
  std::array<double, 2> mean = {0, 0};
  for (int r = runs - last; r < runs; ++r)
    for (unsigned i = 0; i < 2; ++i) mean[i] += kpps[size_t(r)][i] / last;
  const double total = mean[0] + mean[1];
  out << fmt::format("forwarded: {:.0f} kpps (flow0 {:.0f} kpps, flow1 {:.0f} kpps; mean of runs {}-{}; weaker flow {:.0f} %)\n",
                     total, mean[0], mean[1], runs - last + 1, runs, total > 0 ? 100.0 * std::min(mean[0], mean[1]) / total : 0.0);

  for (auto& [name, h] : sw.hosts) h->inet->export_counters();
  const auto c = counters_with_prefix(host + ".");
  auto delta = [&](const std::string& k) -> uint64_t {
    auto a = drops_before.find(k);
    auto b = c.find(k);
    return (b == c.end() ? 0 : b->second) - (a == drops_before.end() ? 0 : a->second);
  };
  const auto sw_after = counters_with_prefix("switch0.");
  auto delta_switch = [&](const std::string& k) -> uint64_t {
    auto a = switch_before.find(k);
    auto b = sw_after.find(k);
    return (b == sw_after.end() ? 0 : b->second) - (a == switch_before.end() ? 0 : a->second);
  };
  nlohmann::json metrics = nlohmann::json::object();
  metrics["forwarded_kpps"] = total;
  metrics["forwarded_kpps.flow0"] = mean[0];
  metrics["forwarded_kpps.flow1"] = mean[1];
  // The weaker flow's part of what was forwarded (0.5: even; near 0: one port starved, as seed 003
  // saw with 802.3x on behind a switch that obeys it).
  metrics["forwarded_share.weaker_flow"] = total > 0 ? std::min(mean[0], mean[1]) / total : 0.0;
  metrics["offered_kpps_per_port"] = line_pps / 1e3;
  for (int r = 0; r < runs; ++r) metrics[fmt::format("run{}.forwarded_kpps", r + 1)] = kpps[size_t(r)][0] + kpps[size_t(r)][1];
  // Frames the sinks counted after the burst (both flows, mean of the averaged runs): not in the rate.
  double after_mean = 0;
  for (int r = runs - last; r < runs; ++r) after_mean += double(after[size_t(r)]) / last;
  metrics["forwarded_after_burst"] = after_mean;
  metrics["packets_per_flow"] = packets;
  metrics["runs"] = runs;
  metrics["frame_bytes"] = len;

  out << "drops by reason over all runs (per router port):\n";
  out << fmt::format("{:<18} {:>14} {:>14} {:>12} {:>10} {:>10}\n", "port", "rx_fifo(MPC)", "no_desc(RNBC)", "qdisc",
                     "XOFF rx", "XOFF tx");
  for (unsigned i = 0; i < 2; ++i) {
    const std::string& n = ports[i].result_name;
    const uint64_t mpc = delta(n + ".MPC"), rnbc = delta(n + ".RNBC"), xoffrx = delta(n + ".XOFFRXC"),
                   xofftx = delta(n + ".XOFFTXC");
    const uint64_t qd = ports[i].dev->qdisc_drops();
    out << fmt::format("{:<18} {:>14} {:>14} {:>12} {:>10} {:>10}\n", n, mpc, rnbc, qd, xoffrx, xofftx);
    metrics["drops.rx_fifo." + n] = mpc;
    metrics["rnbc." + n] = rnbc;
    metrics["drops.qdisc." + n] = qd;
    metrics["pause.xoff_received." + n] = xoffrx;
    metrics["pause.xoff_sent." + n] = xofftx;
  }
  if (sw0) {
    out << "switch0 (obeys PAUSE: " << (p.b("switch_obey_pause") ? "yes" : "no") << "):\n";
    out << fmt::format("{:<14} {:>14} {:>14} {:>16}\n", "port", "frames out", "PAUSE rx", "queue-full drops");
    for (unsigned q = 0; q < 4; ++q) {
      const std::string sp = fmt::format("switch0.port{}", q);
      const uint64_t fo = delta_switch(sp + ".frames_out"), prx = delta_switch(sp + ".pause_rx"),
                     qd = delta_switch(sp + ".drop_queue_full");
      out << fmt::format("{:<14} {:>14} {:>14} {:>16}   ({})\n", sp, fo, prx, qd,
                         q % 2 ? fmt::format("to {}", ports[q / 2].result_name) : fmt::format("to tester {}", q / 2));
      metrics["switch.frames_out." + sp] = fo;
      metrics["switch.pause_rx." + sp] = prx;
      metrics["drops.switch_queue." + sp] = qd;
    }
  }
  // /proc/net/softnet_stat (2.6 net/core/dev.c softnet_seq_show: total, dropped, time_squeeze, then
  // five zero columns and cpu_collision, %08x each), per CPU
  out << "/proc/net/softnet_stat:\n";
  for (unsigned cpu = 0; cpu < hs.kernel->num_cpus(); ++cpu) {
    auto v = [&](const char* k) { return c.count(fmt::format("{}.softnet.CPU{}.{}", host, cpu, k)) ? c.at(fmt::format("{}.softnet.CPU{}.{}", host, cpu, k)) : 0; };
    out << fmt::format("{:08x} {:08x} {:08x} 00000000 00000000 00000000 00000000 00000000 00000000\n",
                       uint32_t(v("total")), uint32_t(v("dropped")), uint32_t(v("time_squeeze")));
  }
  // ip -s link (iproute2 ss050901's print_linkinfo statistics block). The numbers are the driver's
  // net_device_stats, which e1000 fills from the hardware counters in e1000_update_stats, called by
  // its watchdog every 2 s: a run shorter than that shows the last update, as the real tool would.
  out << "ip -s link (net_device_stats as of the driver's last e1000_update_stats, every 2 s):\n";
  for (unsigned i = 0; i < 2; ++i) {
    const NetDeviceStats& st = ports[i].dev->stats;
    out << fmt::format("{}: {}\n    RX: bytes  packets  errors  dropped overrun mcast\n    {:<10} {:<8} {:<7} {:<7} {:<7} {:<7}\n"
                       "    TX: bytes  packets  errors  dropped carrier collsns\n    {:<10} {:<8} {:<7} {:<7} {:<7} {:<7}\n",
                       i + 2, ports[i].dev->name(), st.rx_bytes, st.rx_packets, st.rx_errors, st.rx_dropped,
                       st.rx_fifo_errors, st.multicast, st.tx_bytes, st.tx_packets, st.tx_errors, st.tx_dropped, 0,
                       st.collisions);
  }
  results["metrics"] = metrics;
  return 0;
}

std::vector<ParamProblem> forwarding_problems(const Scenario& s) {
  std::vector<ParamProblem> probs;
  const ParamValues& p = s.workload.params;
  if (s.find_host("generator"))
    probs.push_back({"hosts.generator", "the host name 'generator' is reserved for the forwarding workload's testers"});
  auto a = parse_endpoint(p.s("port0")), b = parse_endpoint(p.s("port1"));
  for (const char* key : {"port0", "port1"}) {
    auto ep = parse_endpoint(p.s(key));
    const NicConfig* nic = ep ? s.find_nic(ep->host, ep->nic) : nullptr;
    const DeviceEntry* de = nic ? Registry<DeviceEntry>::instance().find(nic->device) : nullptr;
    if (de && ep->port >= de->ports)
      probs.push_back({std::string("workload.") + key,
                       fmt::format("{} has no port {}: device {} has {} Ethernet port{}", ep->host + "." + ep->nic,
                                   ep->port, nic->device, de->ports, de->ports > 1 ? "s" : "")});
  }
  if (a && b && a->host != b->host)
    probs.push_back({"workload.port1", fmt::format("port1 must be on the router host of port0 ({}), not {}", a->host, b->host)});
  if (a && b && canonical_endpoint(p.s("port0")) == canonical_endpoint(p.s("port1")))
    probs.push_back({"workload.port1", "port1 names the same port as port0"});
  if (p.i("average_last") > p.i("runs"))
    probs.push_back({"workload.average_last", fmt::format("average_last ({}) is more than runs ({})", p.i("average_last"), p.i("runs"))});
  for (size_t i = 0; i < s.links.size(); ++i)
    for (const char* key : {"port0", "port1"})
      for (const std::string* end : {&s.links[i].a, &s.links[i].b})
        if (canonical_endpoint(*end) == canonical_endpoint(p.s(key)))
          probs.push_back({fmt::format("links.{}", i),
                           fmt::format("{} is the router port {}: the workload cables its tester; remove this link", *end, key)});
  return probs;
}

Registrar<WorkloadEntry> forwarding_reg{WorkloadEntry{
    "forwarding",
    "IPv4 forwarding between the two ports of a router's NIC: a pktgen-style flow into each port at a fraction of "
    "wire rate, forwarded kpps per flow (seed 003's method: N runs, the last M averaged) and drops by reason",
    forwarding_schema(), run_forwarding, forwarding_problems}};

}  // namespace
}  // namespace nicsim
