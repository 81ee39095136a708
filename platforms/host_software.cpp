#include "platforms/host_software.h"
#include "core/result_names.h"
#include "core/sim_context.h"
#include "drivers-sim/apps/tcp_stream_app.h"
#include "drivers-sim/drivers/bonding/bonding.h"
#include "drivers-sim/drivers/loopback/loopback.h"
#include "drivers-sim/net/tcp_sysctl.h"
#include "platforms/scenario.h"
#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stdexcept>

namespace nicsim {

Task<void> HostSoftware::wait_network_up() {
  while (!up) co_await up_wq.wait();
}

HostSoftware& TestbedSoftware::host(const std::string& name) {
  auto it = hosts.find(name);
  if (it == hosts.end()) throw std::out_of_range("no host '" + name + "' in the testbed");
  return *it->second;
}

std::string canonical_endpoint(const std::string& endpoint) {
  auto ep = parse_endpoint(endpoint);
  if (!ep) throw std::invalid_argument("bad NIC endpoint '" + endpoint + "' (want host.nic[:port])");
  return fmt::format("{}.{}:{}", ep->host, ep->nic, ep->port);
}

uint32_t TestbedSoftware::peer_ip(const std::string& endpoint) const {
  auto p = peer_of.find(canonical_endpoint(endpoint));
  if (p == peer_of.end()) throw std::out_of_range("endpoint '" + endpoint + "' has no link");
  return endpoint_ip.at(p->second);
}

uint32_t TestbedSoftware::cabled_ip(const std::string& endpoint, const std::string& workload,
                                   const std::string& role) const {
  auto it = endpoint_ip.find(canonical_endpoint(endpoint));
  if (it == endpoint_ip.end())
    throw std::runtime_error(fmt::format("{}: {} {} has no cable (no [[links]] entry names it)", workload, role, endpoint));
  return it->second;
}

namespace {

std::string netdev_name(const std::string& nic, unsigned port) {
  return port == 0 ? nic : nic + ":" + std::to_string(port);
}

KernelParams kernel_params_for(const TestbedHost& h) {
  const ParamValues& hp = h.config->params;
  if (!hp.has("cpus") || !hp.has("cpu_mhz"))
    throw std::runtime_error("platform '" + h.config->platform + "' has no cpus/cpu_mhz parameters");
  ParamValues kv(kernel_param_schema());
  for (auto& [name, v] : kv.all())
    if (hp.has(name)) kv.set(name, hp.all().at(name));
  KernelParams p = kernel_params_from(kv, h.name(), static_cast<unsigned>(hp.i("cpus")), hp.r("cpu_mhz"));
  if (kv.r("tick_phase_us") < 0) {  // drawn from the seed, uniform over one tick of the resolved HZ
    Rng r = sim().rng.derive(h.name() + ".tick_phase");
    p.tick_phase = us(r.uniform(0.0, 1e6 / static_cast<double>(p.hz)));
  }
  return p;
}

Task<void> ifup(HostSoftware* hs, std::vector<std::pair<std::string, std::vector<std::string>>> bonds) {
  // The NICs first (ifup eth*), then each bond: ifconfig bond0 up and `ifenslave bond0 <slaves>`.
  for (auto& [name, dev] : hs->netdevs) {
    if (dynamic_cast<bonding::Bonding*>(dev.get())) continue;
    int rc = co_await hs->kernel->dev_open(*dev);
    if (rc != 0) throw std::runtime_error(fmt::format("{}: dev_open({}) failed: {}", hs->name, name, rc));
  }
  std::vector<bonding::Bonding*> bonded;
  for (auto& [bname, slaves] : bonds) {
    auto* bond = static_cast<bonding::Bonding*>(hs->netdevs.at(bname).get());
    bonded.push_back(bond);
    int rc = co_await hs->kernel->dev_open(*bond);
    if (rc != 0) throw std::runtime_error(fmt::format("{}: dev_open({}) failed: {}", hs->name, bname, rc));
    for (auto& sl : slaves) {
      rc = co_await bonding::ifenslave(*bond, *hs->netdevs.at(sl));
      if (rc != 0) throw std::runtime_error(fmt::format("{}: ifenslave {} {} failed: {}", hs->name, bname, sl, rc));
    }
  }
  // The user waits for the bonds before starting the benchmark, as one watches
  // /proc/net/bonding/bond0 for a slave with "MII Status: up": with miimon a slave enslaved before
  // its driver saw link (e1000: carrier at the first watchdog run, ETHTOOL_GLINK) is BOND_LINK_DOWN
  // until the next bond_mii_monitor run, and a frame sent before it would be freed
  // ("no suitable interface"). Polled once a jiffy, for at most kBondSettleS plus the slowest bond's
  // updelay and two monitor periods (a bond none of whose slaves is cabled never settles; the run
  // then starts and its frames are dropped, as they would be).
  // estimate: two e1000 watchdog periods (2 s) and a margin.
  constexpr double kBondSettleS = 5.0;
  double settle_s = 0;
  for (const bonding::Bonding* b : bonded)
    settle_s = std::max(settle_s, kBondSettleS + (b->params().updelay_ms + 2.0 * b->params().miimon_ms) / 1000.0);
  const long max_jiffies = static_cast<long>(settle_s * hs->kernel->params().hz);
  for (long waited = 0; waited < max_jiffies; ++waited) {
    const bool settled =
        std::all_of(bonded.begin(), bonded.end(), [](const bonding::Bonding* b) { return b->has_usable_slave(); });
    if (settled) break;
    WaitQueue wq;
    (void)co_await hs->kernel->schedule_timeout(wq, 1);
  }
  if (hs->lo) {  // ifconfig lo 127.0.0.1 up
    int rc = co_await hs->kernel->dev_open(*hs->lo);
    if (rc != 0) throw std::runtime_error(fmt::format("{}: dev_open(lo) failed: {}", hs->name, rc));
  }
  hs->up = true;
  co_await hs->kernel->wake_up(hs->up_wq);
}

}  // namespace

std::string interface_of(const Scenario& s, const std::string& port_endpoint) {
  auto ep = parse_endpoint(port_endpoint);
  if (!ep) return port_endpoint;
  if (const BondConfig* b = s.bond_of_port(ep->host, ep->nic, ep->port)) return fmt::format("{}.{}:0", ep->host, b->name);
  return fmt::format("{}.{}:{}", ep->host, ep->nic, ep->port);
}

std::vector<ParamProblem> tcp_pair_problems(const Scenario& s, const std::string& label) {
  std::vector<ParamProblem> out;
  const ParamValues& p = s.workload.params;
  const std::string tx = p.s("transmitter"), rx = p.s("receiver");
  auto tx_ep = parse_endpoint(tx), rx_ep = parse_endpoint(rx);
  if (!tx_ep || !rx_ep) return out;  // the loader reported malformed endpoints already
  if (tx_ep->host == rx_ep->host)
    out.push_back({"workload.receiver", fmt::format("{} is on host {}, like the transmitter {}: {} needs its two ends "
                                                    "on different hosts", rx, rx_ep->host, tx, label)});
  std::map<std::string, std::string> cabled;  // interface "host.nic:port" (or "host.bond:0") -> "links.N.a"
  std::map<std::string, std::string> host_port;  // host -> its first cabled "host.nic:port (links.N)"
  for (size_t i = 0; i < s.links.size(); ++i)
    for (const char* end : {"a", "b"}) {
      const std::string port = canonical_endpoint(end[0] == 'a' ? s.links[i].a : s.links[i].b);
      const std::string ep = interface_of(s, port);
      const std::string key = fmt::format("links.{}.{}", i, end);
      const std::string host = parse_endpoint(ep)->host;
      if (cabled.count(ep)) continue;  // a further slave of a bond already cabled
      cabled[ep] = key;
      if (auto it = host_port.find(host); it != host_port.end())
        out.push_back({key, fmt::format("host {} already has a cabled port ({}): the TCP/IP model gives a host one "
                                        "address and one route, so {} cannot use a second; cable one port per host "
                                        "(or enslave the ports to one bond, [hosts.{}.bonds.bond0])",
                                        host, it->second, label, host)});
      else
        host_port[host] = ep == port ? fmt::format("{} in links.{}", port, i)
                                     : fmt::format("{} in links.{}, a slave of {}", port, i, ep.substr(0, ep.size() - 2));
    }
  for (auto [role, other, ep] : {std::tuple{"transmitter", "receiver", &*tx_ep}, std::tuple{"receiver", "transmitter", &*rx_ep}}) {
    if (cabled.count(fmt::format("{}.{}:{}", ep->host, ep->nic, ep->port))) continue;
    // A bond has no port of its own: its slaves' ports are what lacks a cable.
    std::string where = fmt::format("{}.{} (port {})", ep->host, ep->nic, ep->port);
    if (const BondConfig* b = s.find_bond(ep->host, ep->nic)) {
      std::vector<std::string> slaves;
      for (const std::string& sl : b->slaves) slaves.push_back(ep->host + "." + sl);
      where = fmt::format("any slave of {}.{} ({})", ep->host, ep->nic, fmt::join(slaves, ", "));
      if (auto it = host_port.find(ep->host); it != host_port.end())
        where += fmt::format("; {} is cabled but is not its slave", it->second);
    }
    out.push_back({std::string("workload.") + role,
                   fmt::format("no [[links]] cable is plugged into {}, so {} cannot reach the {} through it", where,
                               label, other)});
  }
  for (const NicEndpoint* ep : {&*tx_ep, &*rx_ep}) {
    const HostConfig* h = s.find_host(ep->host);
    if (h && h->params.has("hz_tick") && !h->params.b("hz_tick")) {
      out.push_back({"hosts." + h->name + ".hz_tick",
                     fmt::format("{} runs Linux on host {}, which needs the timer tick: without it jiffies never "
                                 "advance, so no kernel timer fires (the e1000 watchdog that turns the link carrier "
                                 "on, TCP retransmits, schedule_timeout) and the run would hang until {}",
                                 s.workload.type, h->name, s.workload.params.has("time_limit_s") ? "time_limit_s" : "its time limit")});
      break;
    }
  }
  return out;
}

nlohmann::json kernel_params_json(const TestbedHost& h) {
  const ParamValues& hp = h.config->params;
  if (!hp.has("cpus") || !hp.has("cpu_mhz")) return nlohmann::json::object();
  const KernelParams p = kernel_params_for(h);
  return {{"kernel_profile", p.kernel_profile}, {"cpu_profile", p.cpu_profile}, {"cost_profile", p.cost_profile},
          {"hz", p.hz}, {"netdev_max_backlog", p.netdev_max_backlog}, {"tick_phase_us", to_us(p.tick_phase)}};
}

namespace {
// One software build per testbed. The testbed's keepalive owns it; a weak reference here expires
// with the testbed, so a later testbed at the same address is never handed a stale build.
std::map<const Testbed*, std::weak_ptr<TestbedSoftware>>& builds() {
  static std::map<const Testbed*, std::weak_ptr<TestbedSoftware>> built;
  return built;
}
}  // namespace

TestbedSoftware* built_software(Testbed& tb) {
  auto it = builds().find(&tb);
  if (it == builds().end()) return nullptr;
  auto live = it->second.lock();
  return live.get();  // the testbed's keepalive holds it
}

uint64_t host_frames(const TestbedHost& h) {
  uint64_t n = 0;
  for (auto& nic : h.nics) {
    PciDevice* d = nic.dev();
    if (!d) continue;
    for (unsigned i = 0; i < d->eth_ports(); ++i)
      if (EthPort* p = d->eth_port(i))
        if (auto t = p->tally()) n += t->sent + t->accepted;
  }
  return n;
}

nlohmann::json cpu_profile_json(Kernel& k, uint64_t packets) {
  nlohmann::json host = nlohmann::json::object();
  for (unsigned c = 0; c < k.num_cpus(); ++c) {
    const CpuTimeProfile p = k.cpu_time(c);
    auto ps = [](const sc_core::sc_time& t) { return static_cast<uint64_t>(t.value()); };  // 1 ps resolution
    nlohmann::json contexts = nlohmann::json::array(), entries = nlohmann::json::array();
    std::map<std::pair<int, std::string>, sc_core::sc_time> by_ctx;  // (level, context) -> time
    // Rows below 0.001% of the run (e.g. the hundreds of one-off MMIO writes of the e1000's init
    // tables) are summed per context into one row, so the sums stay exact and result.json small.
    const sc_core::sc_time floor = p.wall / 100000.0;
    std::map<std::pair<int, std::string>, std::pair<sc_core::sc_time, size_t>> small;
    for (const CpuTimeRow& r : p.rows) {
      by_ctx[{static_cast<int>(r.level), r.context}] += r.time;
      if (r.time < floor) {
        auto& sm = small[{static_cast<int>(r.level), r.context}];
        sm.first += r.time, ++sm.second;
        continue;
      }
      entries.push_back({{"symbol", r.what}, {"kind", r.kind}, {"context", r.context}, {"level", level_name(r.level)},
                         {"ps", ps(r.time)}});
    }
    for (auto& e : small)
      entries.push_back({{"symbol", fmt::format("({} {} below 0.001% each)", e.second.second, e.second.second == 1 ? "entry" : "entries")},
                         {"kind", "small"},
                         {"context", e.first.second},
                         {"level", level_name(static_cast<ExecLevel>(e.first.first))},
                         {"ps", ps(e.second.first)}});
    std::stable_sort(entries.begin(), entries.end(),
                     [](const nlohmann::json& x, const nlohmann::json& y) { return x["ps"].get<uint64_t>() > y["ps"].get<uint64_t>(); });
    std::vector<std::pair<std::pair<int, std::string>, sc_core::sc_time>> ctx(by_ctx.begin(), by_ctx.end());
    std::stable_sort(ctx.begin(), ctx.end(), [](const auto& a, const auto& b) {
      if (a.first.first != b.first.first) return a.first.first > b.first.first;  // hardirq, softirq, process
      return a.second > b.second;
    });
    for (auto& e : ctx)
      contexts.push_back({{"context", e.first.second}, {"level", level_name(static_cast<ExecLevel>(e.first.first))},
                          {"ps", ps(e.second)}});
    contexts.push_back({{"context", "idle (halted)"}, {"level", "idle"}, {"ps", ps(p.halted)}});
    contexts.push_back({{"context", "idle (waking from halt)"}, {"level", "idle"}, {"ps", ps(p.waking)}});
    host["cpu" + std::to_string(c)] = {
        {"mhz", p.mhz},
        {"wall_ps", ps(p.wall)},
        {"packets", packets},
        {"levels",
         {{"hardirq", ps(p.busy[2])}, {"softirq", ps(p.busy[1])}, {"process", ps(p.busy[0])}, {"idle", ps(p.halted + p.waking)}}},
        {"contexts", contexts},
        {"entries", entries}};
  }
  return host;
}

TestbedSoftware& build_software(Testbed& tb) {
  auto& built = builds();
  if (auto it = built.find(&tb); it != built.end())
    if (auto live = it->second.lock()) return *live;

  auto sw = std::make_shared<TestbedSoftware>();
  std::map<std::string, std::vector<std::pair<std::string, std::vector<std::string>>>> bonds_of;  // host -> bonds
  // Addresses per link end.
  // A bond's slaves carry its traffic: the bond is the interface of each slave port, and takes the
  // address of its first cabled slave's link (the later slaves' links carry the same address).
  const Scenario& sc = tb.scenario();
  const auto& links = sc.links;
  for (size_t i = 0; i < links.size(); ++i) {
    std::string a = interface_of(sc, canonical_endpoint(links[i].a)), b = interface_of(sc, canonical_endpoint(links[i].b));
    if (sw->endpoint_ip.count(a) || sw->endpoint_ip.count(b)) continue;
    uint32_t net = (10u << 24) | (static_cast<uint32_t>(i + 1) << 8);
    sw->endpoint_ip[a] = net | 1;
    sw->endpoint_ip[b] = net | 2;
    sw->peer_of[a] = b;
    sw->peer_of[b] = a;
  }
  for (auto& h : tb.hosts()) {
    auto hs = std::make_unique<HostSoftware>();
    hs->name = h.name();
    hs->kernel = std::make_unique<Kernel>(*h.hw, kernel_params_for(h));
    // The kernel's CPU complex is the SystemC instance "<host>_cpus" (Kernel::Kernel); its CPUs
    // "<host>_cpus.cpu<n>" are "<host>.cpu<n>" in results (core/result_names.h).
    result_names().alias(h.name() + "_cpus", h.name());
    for (auto& nic : h.nics) {
      if (!nic.driver_entry || !nic.driver_entry->probe)
        throw std::runtime_error(fmt::format("{}.{}: driver '{}' cannot be probed", h.name(), nic.config->name,
                                             nic.config->driver));
      auto devs = nic.driver_entry->probe(*hs->kernel, *nic.dev(), nic.vectors, ProbeTarget{nic.config->name, nic.config->device},
                                          nic.config->driver_params);
      for (size_t p = 0; p < devs.size(); ++p) hs->netdevs[netdev_name(nic.config->name, static_cast<unsigned>(p))] = devs[p];
      hs->kernel->name_pci_regions(*nic.dev(), nic.config->name);  // MMIO stalls by register offset
    }
    // modprobe bonding: one bonding net_device per [hosts.H.bonds.NAME] (enslaved by ifup).
    std::vector<std::pair<std::string, std::vector<std::string>>> bonds;
    for (const BondConfig& b : h.config->bonds) {
      auto bond = std::make_shared<bonding::Bonding>(*hs->kernel, b.name, bonding::bond_params_from(b.params));
      hs->kernel->register_netdev(*bond);
      hs->netdevs[b.name] = bond;
      bonds.emplace_back(b.name, b.slaves);
    }
    bonds_of[h.name()] = std::move(bonds);
    // The host's address: its link end's. The TCP/IP model gives a host one address and one
    // route, so a host with several cabled ports is refused rather than silently misrouted.
    std::vector<std::string> ends;
    for (auto& [ep, ip] : sw->endpoint_ip)
      if (ep.rfind(h.name() + ".", 0) == 0) {
        ends.push_back(ep);
        if (hs->ip == 0) hs->ip = ip;
      }
    if (ends.size() > 1)
      throw std::runtime_error(fmt::format(
          "host {} has {} cabled ports ({}): the TCP/IP model supports one address per host; cable one port", h.name(),
          ends.size(), fmt::join(ends, ", ")));
    hs->inet = std::make_unique<InetHost>(*hs->kernel, hs->ip, &sw->tags, apply_tcp_sysctls(TcpParams{}, h.config->sysctl));
    hs->lo = std::make_shared<loopback::Loopback>(*hs->kernel);  // every host has lo, 127.0.0.1/8
    hs->inet->add_loopback(*hs->lo);
    sw->hosts[h.name()] = std::move(hs);
  }
  // Static neighbours: each link end reaches the other end's address through its own device.
  for (auto& [ep, peer] : sw->peer_of) {
    auto e = *parse_endpoint(ep);
    auto pe = *parse_endpoint(peer);
    HostSoftware& hs = sw->host(e.host);
    HostSoftware& ps = sw->host(pe.host);
    auto d = hs.netdevs.find(netdev_name(e.nic, e.port));
    auto pd = ps.netdevs.find(netdev_name(pe.nic, pe.port));
    if (d == hs.netdevs.end() || pd == ps.netdevs.end()) continue;
    NetDevice* peer_dev = pd->second.get();
    hs.inet->add_neighbour(sw->endpoint_ip.at(peer), *d->second, [peer_dev] { return peer_dev->dev_addr; });
  }
  for (auto& [name, hs] : sw->hosts) {
    HostSoftware* p = hs.get();
    hs->kernel->spawn_process("ifup", 0, ifup(p, bonds_of[name]));
  }
  built[&tb] = sw;
  tb.keepalive.push_back(sw);
  return *sw;
}

ParamSchema tcp_pair_schema(ParamSchema s) {
  for (size_t i = 0; i < 2 && i < s.size(); ++i) {
    s[i].unit = kUnitNicEndpoint;
    s[i].required = true;
  }
  return s;
}

std::string dotted_quad(uint32_t ip) {
  return fmt::format("{}.{}.{}.{}", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
}

void bind_stream_sides(const TcpPairEnds& ends, uint16_t port, TcpStreamChannel& ch, TcpStreamSide& tx,
                       TcpStreamSide& rx) {
  for (auto [side, hs, is_tx] : {std::tuple{&tx, ends.tx, true}, std::tuple{&rx, ends.rx, false}}) {
    side->kernel = hs->kernel.get();
    side->inet = hs->inet.get();
    side->wait_network_up = [hs = hs] { return hs->wait_network_up(); };
    side->channel = &ch;
    side->sender = is_tx;
    side->port = port;
  }
  tx.peer_ip = ends.rx_ip;
}

TcpPairEnds tcp_pair_ends(TestbedSoftware& sw, const ParamValues& p, const std::string& workload) {
  auto tx_ep = *parse_endpoint(p.s("transmitter"));
  auto rx_ep = *parse_endpoint(p.s("receiver"));
  if (tx_ep.host == rx_ep.host)
    throw std::runtime_error(workload + ": transmitter and receiver must be on different hosts");
  TcpPairEnds e;
  e.tx_ip = sw.cabled_ip(p.s("transmitter"), workload, "transmitter");
  e.rx_ip = sw.cabled_ip(p.s("receiver"), workload, "receiver");
  e.tx = &sw.host(tx_ep.host);
  e.rx = &sw.host(rx_ep.host);
  auto devname = [](HostSoftware& hs, const NicEndpoint& ep) {
    const std::string nd = ep.port == 0 ? ep.nic : fmt::format("{}:{}", ep.nic, ep.port);
    return hs.netdevs.count(nd) ? hs.netdevs.at(nd)->name() : nd;
  };
  e.tx_dev = devname(*e.tx, tx_ep);
  e.rx_dev = devname(*e.rx, rx_ep);
  return e;
}

}  // namespace nicsim
