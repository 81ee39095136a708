// The `rx_flood` workload: a traffic generator (an ideal tester port per NIC port, as in an
// RFC 2544 throughput test; models/ether/traffic_gen.h) offers minimum-size (or any size) UDP/IPv4
// frames at a fraction of line rate into one or two NIC ports of a host (or the slave ports of a
// bond, each with a tester port of its own), which runs its driver and
// stack and drops what it cannot take. The frames are addressed to the NIC's station address and to
// an IP address that is not the host's, so a host without IP forwarding (Linux 2.4 default
// ip_forward = 0) counts them in Ip.InAddrErrors after ip_rcv: this is the receive half of a router
// until the forwarding workload (seed 003) exists, and the speed benchmark's case (64-byte frames at
// 1.488 Mpps into both ports of an 82546EB).
//
// Reported over the flood window (start_s .. start_s + duration_s), per port: frames offered (the
// tester's count; it hands the link up to TrafficGenParams::batch frames ahead of their start, so
// the link accounting shows those as in flight), taken
// by the NIC into its packet buffer (GPRC), missed for want of buffer (MPC), receive-no-buffer
// events (RNBC), and per host: IP datagrams received (Ip.InReceives), softnet backlog drops, CPU
// time by context.
//
// With `switch = true` a store-and-forward switch (models/ether/switch.h, instance "switch0") sits
// between the generator and the host, as in seed 003 ("A switch connects the two ports"): tester i
// -> switch0 port 2i, switch0 port 2i+1 -> the NIC port (a static entry for the NIC's address). The
// switch obeys 802.3x PAUSE from the NIC when `switch_obey_pause` (the NIC sends XOFF when its
// driver set CTRL.TFCE: e1000 FlowControl), so what the NIC would have missed (MPC) is then dropped
// in the switch's output queue instead; reported per port: PAUSE frames the switch received and
// frames its output queue dropped (drop_queue_full).
#include "core/result_names.h"
#include "core/sim_context.h"
#include "drivers-sim/net/wire.h"
#include "models/ether/link.h"
#include "models/device_entry.h"
#include "models/ether/switch.h"
#include "models/ether/traffic_gen.h"
#include "platforms/host_software.h"
#include "platforms/scenario.h"
#include "platforms/tester_frame.h"
#include "platforms/workload_switch.h"
#include "platforms/workload_counters.h"
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <ostream>

namespace nicsim {
namespace {

ParamSchema rx_flood_schema() {
  ParamSchema s{
      string_param("receiver", "", {}, "NIC port the generator floods (\"host.nic\" or \"host.nic:port\"), or a bond "
                   "(\"host.bond0\"): a tester port into each of its slaves"),
      string_param("receiver2", "", {}, "a second NIC port (or bond) of the same host flooded the same way; empty: none"),
  };
  add_tester_params(
      s, {"", "offered rate as a fraction of wire rate (1 = back to back, 1,488,095 frames/s of 64 bytes at 1 Gb/s)",
          "RFC 2544 §26.1 throughput: frames offered at a fraction of the medium's maximum rate",
          "when the tester starts (after the host's ifup opened every interface; the run fails, saying so, if one "
          "is not up yet)",
          "estimate: e1000 open (reset, rings, RCTL.EN) completes well inside 1 ms of simulated time"});
  s.push_back(real_param("duration_s", 0.1, 1e-6, 1e5, "s", "length of the flood; rates are measured over it", ""));
  add_switch_params(s);
  s[0].unit = kUnitNicEndpoint;
  s[0].required = true;
  s[1].unit = kUnitNicEndpoint;
  return s;
}

/// The tester's frame to `dst_mac` (platforms/tester_frame.h), addressed to an IP address no testbed
/// host has (testbed hosts are 10.0.x.y, platforms/host_software.h): 198.18.0.<port + 1> to
/// 198.19.0.1, UDP 49184 to 9 (discard).
std::vector<uint8_t> flood_frame(unsigned len, const std::array<uint8_t, 6>& dst_mac, unsigned port_index) {
  return tester_udp_frame(len, dst_mac, port_index, (198u << 24) | (18u << 16) | (port_index + 1),
                          (198u << 24) | (19u << 16) | 1u, 49184, 9);
}

/// The NIC ports the testers flood ("host.nic:port"): receiver's and receiver2's, a bond's being
/// each of its slaves' ports in slave order. A bond receives on its slaves: the frames are addressed
/// to the slave's station address, which ifenslave set to the bond's, and 2.4.20 net/core/dev.c
/// skb_bond hands each frame up as the bond's; a tester (or a pktgen host) has a cable into each
/// slave port.
std::vector<std::string> flooded_ports(const Scenario& s) {
  std::vector<std::string> ports;
  for (const char* key : {"receiver", "receiver2"}) {
    const std::string v = s.workload.params.s(key);
    auto ep = parse_endpoint(v);
    if (!ep) continue;
    if (const BondConfig* b = s.find_bond(ep->host, ep->nic))
      for (const std::string& slave : b->slaves) ports.push_back(canonical_endpoint(ep->host + "." + slave));
    else
      ports.push_back(canonical_endpoint(v));
  }
  return ports;
}

int run_rx_flood(Testbed& tb, std::ostream& out, nlohmann::json& results) {
  const ParamValues& p = tb.scenario().workload.params;
  const std::vector<std::string> rx = flooded_ports(tb.scenario());
  const std::string host = parse_endpoint(rx[0])->host;
  TestbedSoftware& sw = build_software(tb);
  HostSoftware& hs = sw.host(host);
  const unsigned len = static_cast<unsigned>(p.i("frame_bytes"));
  const double start_s = p.r("start_s"), duration_s = p.r("duration_s");

  struct PortRun {
    std::string endpoint;
    NetDevice* dev;
    std::string result_name;
    std::shared_ptr<TesterPort> gen;
  };
  std::vector<PortRun> ports;
  std::shared_ptr<EthSwitch> sw0 = make_workload_switch(p, static_cast<unsigned>(2 * rx.size()));
  for (size_t i = 0; i < rx.size(); ++i) {
    auto ep = *parse_endpoint(rx[i]);
    const std::string netdev = ep.port == 0 ? ep.nic : fmt::format("{}:{}", ep.nic, ep.port);
    auto nd = hs.netdevs.find(netdev);
    if (nd == hs.netdevs.end()) throw std::runtime_error(fmt::format("rx_flood: {} has no net_device", rx[i]));
    TrafficGenParams gp;
    gp.load = p.r("load");
    auto gen = std::make_shared<TesterPort>(fmt::format("generator_port{}", i).c_str(), gp);
    const std::string gen_name = fmt::format("generator.port{}", i);  // "generator" is a reserved host name
    result_names().alias(gen->name(), gen_name);
    cable_tester(tb, sw0, static_cast<unsigned>(i), gen, gen_name, rx[i]);
    ports.push_back({rx[i], nd->second.get(), ep.port == 0 ? ep.host + "." + ep.nic : fmt::format("{}.{}:{}", ep.host, ep.nic, ep.port), gen});
  }

  // Snapshot of what the window measures.
  struct Snap {
    std::map<std::string, uint64_t> nic, host;
    sc_core::sc_time busy[3];
  };
  auto snap = [&] {
    Snap s;
    for (auto& pr : ports)
      for (const char* c : {"GPRC", "MPC", "RNBC", "rx_dropped_overrun", "XOFFTXC"})
        s.nic[pr.result_name + "." + c] = result_counter(pr.result_name + "." + c);
    if (sw0)
      for (size_t i = 0; i < ports.size(); ++i)
        for (const char* c : {"pause_rx", "drop_queue_full"}) {
          const std::string k = fmt::format("switch0.port{}.{}", 2 * i + 1, c);
          s.nic[k] = result_counter(k);
        }
    s.host = counters_with_prefix(host + ".netstat.Ip.");
    for (auto& [k, v] : counters_with_prefix(host + ".softnet.")) s.host[k] = v;
    for (int l = 0; l < 3; ++l) {
      s.busy[l] = sc_core::SC_ZERO_TIME;
      for (unsigned c = 0; c < hs.kernel->num_cpus(); ++c) s.busy[l] += hs.kernel->cpu(c).busy(static_cast<ExecLevel>(l));
    }
    return s;
  };
  // The operator starts the tester once the host is up, with frames for the address the driver
  // read from the EEPROM and programmed into RAL/RAH.
  Cpu::run_for(sec(start_s));  // sc_start, telling the CPUs' run-ahead where the run ends
  if (!hs.up) {
    results["workload_error"] = fmt::format("the host's interfaces were not up at start_s = {} s", start_s);
    out << "rx_flood: " << results["workload_error"].get<std::string>() << "\n";
    return 1;
  }
  // A real switch has learned the NIC's address from its ARP traffic by now; the model's static
  // neighbours send none, so the entry is static (models/ether/switch.h).
  if (sw0)
    for (size_t i = 0; i < ports.size(); ++i) sw0->add_static(ports[i].dev->dev_addr, static_cast<unsigned>(2 * i + 1));
  for (size_t i = 0; i < ports.size(); ++i)
    ports[i].gen->start(flood_frame(len, ports[i].dev->dev_addr, static_cast<unsigned>(i)));
  Snap a = snap();
  Cpu::run_for(sec(duration_s));  // sc_start, telling the CPUs' run-ahead where the run ends
  Snap b = snap();
  for (auto& [name, h] : sw.hosts) h->inet->export_counters();
  Snap c = snap();  // netstat counters are exported at the end; take IP numbers from here

  auto d = [&](const std::map<std::string, uint64_t>& m0, const std::map<std::string, uint64_t>& m1, const std::string& k) {
    auto i0 = m0.find(k), i1 = m1.find(k);
    return (i1 == m1.end() ? 0 : i1->second) - (i0 == m0.end() ? 0 : i0->second);
  };
  const double line_pps = max_frame_rate(len, 1000) * p.r("load");
  nlohmann::json metrics = nlohmann::json::object();
  double accepted_total = 0;
  out << fmt::format("rx_flood: {}-byte frames ({} with FCS) at {:g}% of 1000 Mb/s ({:.1f} frames/s per port) into {} port{} of {} for {:g} s\n",
                     len, len + kEthFcsBytes, 100.0 * p.r("load"), line_pps, ports.size(), ports.size() > 1 ? "s" : "",
                     host, duration_s);
  for (const char* key : {"receiver", "receiver2"})
    if (auto ep = parse_endpoint(p.s(key)))
      if (const BondConfig* b = tb.scenario().find_bond(ep->host, ep->nic))
        out << fmt::format("  {} is bond {} ({}): a tester port into each of its slaves {}\n", key, b->name,
                           b->params.s("mode"), fmt::join(b->slaves, ", "));
  out << fmt::format("{:<16} {:>12} {:>14} {:>12} {:>12}\n", "port", "offered", "NIC took/s", "MPC/s", "RNBC/s");
  for (size_t i = 0; i < ports.size(); ++i) {
    const auto& pr = ports[i];
    // Frames the tester started in the window (frame k at k * period from the start).
    const uint64_t off = ports[i].gen->offered_by(now() - sc_core::sc_time::from_value(1));
    const double took = double(d(a.nic, b.nic, pr.result_name + ".GPRC")) / duration_s;
    const double mpc = double(d(a.nic, b.nic, pr.result_name + ".MPC")) / duration_s;
    const double rnbc = double(d(a.nic, b.nic, pr.result_name + ".RNBC")) / duration_s;
    accepted_total += took;
    metrics["offered_frames." + pr.result_name] = off;
    metrics["nic_accepted_pps." + pr.result_name] = took;
    metrics["missed_pps." + pr.result_name] = mpc;
    metrics["rnbc_per_s." + pr.result_name] = rnbc;
    out << fmt::format("{:<16} {:>12} {:>14.0f} {:>12.0f} {:>12.0f}\n", pr.result_name, off, took, mpc, rnbc);
    if (sw0) {
      const std::string sp = fmt::format("switch0.port{}", 2 * i + 1);
      const uint64_t xoff = d(a.nic, b.nic, pr.result_name + ".XOFFTXC"), prx = d(a.nic, b.nic, sp + ".pause_rx");
      const double qdrop = double(d(a.nic, b.nic, sp + ".drop_queue_full")) / duration_s;
      metrics["xoff_sent." + pr.result_name] = xoff;
      metrics["switch_pause_rx." + sp] = prx;
      metrics["switch_queue_drop_pps." + sp] = qdrop;
      out << fmt::format("  via {}: PAUSE frames from the NIC {} (XOFFTXC {}), output queue drops {:.0f}/s\n", sp, prx,
                         xoff, qdrop);
    }
  }
  // IP counters are exported only at the end of the run: the window's IP numbers are the run's
  // totals minus nothing before start_s (no frame reaches IP before the first offered one).
  const double ip_pps = double(d({}, c.host, host + ".netstat.Ip.InReceives")) / duration_s;
  uint64_t softnet_dropped = 0;
  for (unsigned cpu = 0; cpu < hs.kernel->num_cpus(); ++cpu)
    softnet_dropped += d(a.host, b.host, fmt::format("{}.softnet.CPU{}.dropped", host, cpu));
  const double softnet_drop = double(softnet_dropped) / duration_s;
  double cpu[3];
  const double cpus = hs.kernel->num_cpus();
  for (int l = 0; l < 3; ++l) {
    cpu[l] = 100.0 * (b.busy[l] - a.busy[l]).to_seconds() / (duration_s * cpus);
    metrics[fmt::format("cpu_{}_percent", level_name(static_cast<ExecLevel>(l)))] = cpu[l];
  }
  out << fmt::format("host {}: IP received {:.0f}/s, softnet backlog drops {:.0f}/s, CPU ({} CPU{}) process {:.1f}% softirq {:.1f}% hardirq {:.1f}%\n",
                     host, ip_pps, softnet_drop, hs.kernel->num_cpus(), hs.kernel->num_cpus() > 1 ? "s" : "", cpu[0], cpu[1], cpu[2]);
  // The offered rate is the tester's schedule (a count over a short window would round up).
  metrics["offered_pps"] = line_pps * static_cast<double>(ports.size());
  metrics["nic_accepted_pps"] = accepted_total;
  metrics["ip_received_pps"] = ip_pps;
  metrics["softnet_dropped_per_s"] = softnet_drop;
  metrics["frame_bytes"] = len;
  metrics["duration_s"] = duration_s;
  results["metrics"] = metrics;
  return 0;
}

std::vector<ParamProblem> rx_flood_problems(const Scenario& s) {
  std::vector<ParamProblem> probs;
  const ParamValues& p = s.workload.params;
  if (s.find_host("generator"))
    probs.push_back({"hosts.generator", "the host name 'generator' is reserved for the rx_flood traffic generator's ports"});
  for (const char* key : {"receiver", "receiver2"}) {
    auto ep = parse_endpoint(p.s(key));
    const NicConfig* nic = ep ? s.find_nic(ep->host, ep->nic) : nullptr;
    const DeviceEntry* de = nic ? Registry<DeviceEntry>::instance().find(nic->device) : nullptr;
    if (de && ep->port >= de->ports)
      probs.push_back({std::string("workload.") + key,
                       fmt::format("{} has no port {}: device {} has {} Ethernet port{} (0..{})", ep->host + "." + ep->nic,
                                   ep->port, nic->device, de->ports, de->ports > 1 ? "s" : "", de->ports - 1)});
  }
  auto a = parse_endpoint(p.s("receiver"));
  const std::string r2 = p.s("receiver2");
  if (a && !r2.empty()) {
    auto b = parse_endpoint(r2);
    if (b && b->host != a->host)
      probs.push_back({"workload.receiver2", fmt::format("receiver2 must be on the host of receiver ({}), not {}", a->host, b->host)});
    if (b && canonical_endpoint(r2) == canonical_endpoint(p.s("receiver")))
      probs.push_back({"workload.receiver2", "receiver2 names the same port as receiver"});
  }
  for (size_t i = 0; i < s.links.size(); ++i)
    for (const char* key : {"receiver", "receiver2"}) {
      const std::string v = p.s(key);
      auto ep = parse_endpoint(v);
      if (!ep) continue;
      const BondConfig* bond = s.find_bond(ep->host, ep->nic);
      for (const std::string* end : {&s.links[i].a, &s.links[i].b}) {
        auto e = parse_endpoint(*end);
        if (!e) continue;
        if (!bond && canonical_endpoint(*end) == canonical_endpoint(v))
          probs.push_back({fmt::format("links.{}", i),
                           fmt::format("{} is the flooded port {}: the traffic generator cables it; remove this link", v, key)});
        if (bond && s.bond_of_port(e->host, e->nic, e->port) == bond)
          probs.push_back({fmt::format("links.{}", i),
                           fmt::format("{} is a slave of {}, the flooded {}: the traffic generator cables each of "
                                       "its slaves; remove this link",
                                       *end, v, key)});
      }
    }
  return probs;
}

Registrar<WorkloadEntry> rx_flood_reg{WorkloadEntry{
    "rx_flood",
    "traffic generator flooding one or two NIC ports of a host with UDP frames at a fraction of line rate "
    "(RFC 2544-style receive test; the host drops what it cannot take)",
    rx_flood_schema(), run_rx_flood, rx_flood_problems}};

}  // namespace
}  // namespace nicsim
