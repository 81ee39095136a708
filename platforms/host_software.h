// The software side of a testbed: per host, the Linux kernel model on the platform's CPUs, the
// drivers probed for its NICs, and the TCP/IP stack; built by workloads that run software
// (NetPIPE, ...), on top of the hardware the Testbed built.
#pragma once
#include "drivers-sim/kernel/kernel.h"
#include "drivers-sim/net/inet.h"
#include "platforms/testbed.h"
#include <map>
#include <memory>
#include <string>

namespace nicsim {

struct HostSoftware {
  std::string name;
  std::unique_ptr<Kernel> kernel;
  std::map<std::string, std::shared_ptr<NetDevice>> netdevs;  ///< by name: "eth1", "eth1:1" (port 1)
  std::unique_ptr<InetHost> inet;
  uint32_t ip = 0;           ///< the host's IPv4 address (host order)
  bool up = false;           ///< every net_device opened (ifup done)
  WaitQueue up_wq;           ///< processes waiting for `up`
  /// The loopback device `lo` (drivers-sim/drivers/loopback) with 127.0.0.1 and the route to
  /// 127.0.0.0/8 (InetHost::add_loopback); ifup opens it after the NICs. Not in `netdevs` (the NIC
  /// and bond interfaces the workloads and reports address).
  std::shared_ptr<NetDevice> lo;
  /// In a process on this host: return once every interface is up.
  Task<void> wait_network_up();
};

struct TestbedSoftware {
  MessageTags tags;  ///< message boundaries of every TCP stream (journeys across hosts)
  std::map<std::string, std::unique_ptr<HostSoftware>> hosts;
  HostSoftware& host(const std::string& name);
  /// The IPv4 address of the host at the far end of the link on endpoint "host.nic[:port]".
  uint32_t peer_ip(const std::string& endpoint) const;
  std::map<std::string, uint32_t> endpoint_ip;  ///< "host.nic:port" -> IP of that end
  /// The IPv4 address of a workload's NIC endpoint. Throws std::runtime_error naming `workload`
  /// and `role` (e.g. "netpipe", "receiver") when no [[links]] entry cables that port.
  uint32_t cabled_ip(const std::string& endpoint, const std::string& workload, const std::string& role) const;
  std::map<std::string, std::string> peer_of;   ///< "host.nic:port" -> the other end
};

/// Build the software of every host of `tb` (once; later calls return the same object):
/// a Kernel per host from the platform's CPU parameters (`cpus`, `cpu_mhz`) and the kernel
/// parameters (kernel_param_schema names present in the host's parameters, defaults otherwise;
/// a negative tick_phase_us is drawn from the run seed), each NIC's driver probed
/// (DriverEntry::probe), IPv4 addressing per link (10.0.<link index + 1>.1 for end a, .2 for end
/// b; the host's address is that of its first link), static neighbours, and an "ifup" process
/// per host that opens every net_device at time 0. A bond ([hosts.H.bonds]) is one interface over
/// its slaves' ports: it gets the address of its first cabled slave's link, and ifup enslaves its
/// slaves (bonding::ifenslave) after opening the NICs. Each host's TCP runs with its sysctls. Throws std::runtime_error when a driver has
/// no probe or a platform lacks CPU parameters.
TestbedSoftware& build_software(Testbed& tb);
/// The software build_software made for `tb`, nullptr when it made none (a hardware-only workload).
TestbedSoftware* built_software(Testbed& tb);

/// result.json's `cpu_profile.<host>`: per CPU ("cpu0", ...) its time so far by context and by
/// cost entry / stall (Kernel::cpu_time), times in integer picoseconds (exact: per CPU the
/// `contexts` sum to `wall_ps`; per level the `entries` sum to `levels.<level>`):
///   {"mhz", "wall_ps", "packets" (`packets`: the host's frames, host_frames),
///    "levels": {"hardirq", "softirq", "process", "idle"},
///    "contexts": [{"context", "level", "ps"}] (hardirq, softirq, process rows, then
///                "idle (halted)" and "idle (waking from halt)"),
///    "entries": [{"symbol", "kind" ("cost"|"stall"|"untagged"|"small"), "context", "level", "ps"}]
///               largest first; rows under 1e-5 of wall_ps are one "small" row per context}
nlohmann::json cpu_profile_json(Kernel& k, uint64_t packets);
/// Frames the host's NIC ports sent plus those they accepted for the host so far (EthPort::tally:
/// the counters the frame accounting balances, e.g. 8254x TPT and GPRC).
uint64_t host_frames(const TestbedHost& h);

/// Load-time checks (WorkloadEntry::check) of a workload that runs a TCP connection between the
/// NIC endpoints in its parameters `transmitter` and `receiver` on the software build_software
/// makes. `label` names the workload in messages ("NetPIPE"). Problems, in this order:
///  - both ends on one host (the TCP/IP model gives a host one address; key workload.receiver);
///  - an end whose port no [[links]] cable plugs into (key workload.transmitter/receiver);
///  - a host with more than one cabled port (build_software refuses it; key links.N.a/b of the
///    second);
///  - an end's host with hz_tick = false (key hosts.H.hz_tick): Linux 2.4 advances jiffies only
///    from the timer interrupt, and every kernel timer runs from TIMER_BH at a tick, so the e1000
///    watchdog that turns the carrier on, TCP's retransmit/delayed-ACK timers and schedule_timeout
///    never fire and the workload waits until its time limit.
std::vector<ParamProblem> tcp_pair_problems(const Scenario& s, const std::string& label);

/// The kernel parameters host `h` runs with, resolved as build_software resolves them: the
/// kernel/CPU profile names, the cost table, and the values a scenario leaves to the profile
/// (`hz`, `netdev_max_backlog`, `cost_profile` written as 0 / "") or to the seed (a negative
/// `tick_phase_us`). {"kernel_profile", "cpu_profile", "cost_profile", "hz", "netdev_max_backlog",
/// "tick_phase_us"}; an empty object for a host whose platform has no CPU parameters.
/// run_workload writes them over the echo in result.json's "hardware.<host>".
nlohmann::json kernel_params_json(const TestbedHost& h);

/// The interface a cabled port belongs to: "host.bond:0" for a port enslaved to a bond of the
/// scenario ([hosts.H.bonds]), the port itself ("host.nic:port") otherwise. IPv4 addresses,
/// neighbours and workload endpoints are per interface.
std::string interface_of(const Scenario& s, const std::string& port_endpoint);

/// The canonical "host.nic:port" form of an endpoint.
std::string canonical_endpoint(const std::string& endpoint);

/// `s` with its first two parameters (`transmitter`, `receiver`) made required NIC endpoints
/// (kUnitNicEndpoint), the schema of a workload between two NICs.
ParamSchema tcp_pair_schema(ParamSchema s);

/// An IPv4 address (host order) in dotted-quad form, "10.0.1.2" (inet_ntoa).
std::string dotted_quad(uint32_t ip);

/// The two ends of a workload's TCP connection (parameters `transmitter` and `receiver`, NIC
/// endpoints): their hosts' software, the Linux device names of the endpoints ("eth1", "bond0")
/// and the cabled IPv4 addresses.
struct TcpPairEnds {
  HostSoftware* tx = nullptr;
  HostSoftware* rx = nullptr;
  std::string tx_dev, rx_dev;
  uint32_t tx_ip = 0, rx_ip = 0;
};
struct TcpStreamChannel;
struct TcpStreamSide;
/// Point `tx` and `rx` (drivers-sim/apps/tcp_stream_app.h) at the hosts of `ends` and at channel
/// `ch`: kernel, InetHost, wait for ifup, sender/receiver role, data `port`, and the transmitter's
/// peer (ends.rx_ip). Message sizes and the send loop's limits are the workload's to set.
void bind_stream_sides(const TcpPairEnds& ends, uint16_t port, TcpStreamChannel& ch, TcpStreamSide& tx,
                       TcpStreamSide& rx);

/// Resolve `transmitter`/`receiver` of `p` on `sw`. Throws std::runtime_error naming `workload`
/// when both are on one host or an end is not cabled (TestbedSoftware::cabled_ip).
TcpPairEnds tcp_pair_ends(TestbedSoftware& sw, const ParamValues& p, const std::string& workload);

}  // namespace nicsim
