// The `netperf_rr` workload: netperf 2.2 TCP_RR or UDP_RR (request/response, one transaction in flight)
// between two NICs of a testbed, with netperf's banner and result block per invocation and the
// transaction rate and round-trip time (1e6 / rate, as seed 002 reports it) in result.json.
// Source: netperf 2.2pl2 nettest_bsd.c send_tcp_rr / recv_tcp_rr (HewlettPackard/netperf@7729293);
// research/tg3-bonding-tcp-gmac-formats.md §4. App: drivers-sim/apps/netperf_rr_app.h.
//
// `sizes` runs netperf once per size with -r N,N, one after another, as the shell loop behind a
// size table like seed 002's does; one scenario run then reports every size (nicsim check). A
// sweep varies `request_bytes` instead (response_bytes 0 = the same size: netperf -r N).
#include "core/sim_context.h"
#include "drivers-sim/apps/netperf_rr_app.h"
#include "drivers-sim/driver_traits.h"
#include "drivers-sim/kernel/skb_truesize.h"
#include "drivers-sim/net/tcp_params.h"
#include "drivers-sim/net/udp.h"
#include "platforms/host_software.h"
#include "platforms/scenario.h"
#include <fmt/format.h>
#include <ostream>
#include <sstream>

namespace nicsim {
namespace {

/// The largest request or response size (request_bytes' maximum; sizes entries alike).
constexpr int kMaxRrBytes = 1 << 24;

/// What a UDP_RR datagram costs the socket that receives it: udp_queue_rcv_skb ->
/// sock_queue_rcv_skb drops a datagram when rmem_alloc + truesize >= sk->rcvbuf, and a reassembled
/// datagram's truesize is the sum of its fragments' (ip_frag_reasm: head->truesize += fp->truesize),
/// each fragment of an MTU-sized frame sitting in one driver receive buffer (DriverTraits::rx_truesize).
struct UdpRxBudget {
  uint32_t truesize = 0;  ///< per fragment: the receiving driver's buffer
  std::string driver;     ///< the receiving driver(s), for the message
  /// A driver that does not declare its buffer: the smallest a 1514-byte frame fits,
  /// dev_alloc_skb(1514) = SKB_DATA_ALIGN(1530) + struct sk_buff.
  static uint32_t smallest() { return dev_alloc_skb_truesize(1514); }
  static uint32_t rcvbuf() { return TcpParams{}.core_rmem_max_bytes; }      // sock_init_data: 65535
  static uint32_t per_frag() { return TcpParams{}.mtu_bytes - 20; }          // 1480 B of IP payload
  static uint32_t frags(int bytes) { return (uint32_t(bytes) + 8 + per_frag() - 1) / per_frag(); }
  /// The largest datagram (UDP payload) whose fragments the socket can take.
  int max_bytes() const { return static_cast<int>((rcvbuf() - 1) / truesize * per_frag()) - 8; }
};

/// The receive buffers behind endpoint `text` ("host.nic" or a bond: the largest of its slaves').
UdpRxBudget udp_rx_budget(const Scenario& s, const std::string& text) {
  UdpRxBudget b;
  auto ep = parse_endpoint(text);
  if (!ep) return b;
  std::vector<const NicConfig*> nics;
  if (const BondConfig* bond = s.find_bond(ep->host, ep->nic)) {
    for (auto& sl : bond->slaves)
      if (auto se = parse_endpoint(ep->host + "." + sl))
        if (auto* n = s.find_nic(ep->host, se->nic)) nics.push_back(n);
  } else if (auto* n = s.find_nic(ep->host, ep->nic)) {
    nics.push_back(n);
  }
  for (auto* n : nics) {
    const DriverTraits* d = Registry<DriverTraits>::instance().find(n->driver);
    const uint32_t t = d && d->rx_truesize ? d->rx_truesize(n->driver_params) : UdpRxBudget::smallest();
    if (t > b.truesize) b.truesize = t, b.driver = n->driver;
  }
  if (!b.truesize) b.truesize = UdpRxBudget::smallest();
  return b;
}

ParamSchema netperf_rr_schema() {
  return {
      string_param("transmitter", "", {}, "NIC netperf (the side that sends requests, -H) runs behind",
                   "netperf 2.2 nettest_bsd.c send_tcp_rr"),
      string_param("receiver", "", {}, "NIC netserver (the side that answers) runs behind",
                   "netperf 2.2 nettest_bsd.c recv_tcp_rr"),
      string_param("test", "TCP_RR", {"TCP_RR", "UDP_RR"}, "netperf -t: the request/response test",
                   "netperf 2.2 nettest_bsd.c"),
      int_param("request_bytes", 1, 1, kMaxRrBytes, "bytes", "request size (first value of -r)",
                "netperf 2.2 nettest_bsd.c: req_size = 1 by default"),
      int_param("response_bytes", 0, 0, kMaxRrBytes, "bytes",
                "response size (second value of -r); 0 = the same as request_bytes, as netperf -r N sets both",
                "netperf 2.2 netsh.c break_args: one value without a comma sets both parms"),
      string_param("sizes", "", {},
                   "comma-separated sizes: run netperf once per size with -r N,N, one after another (a shell "
                   "loop); empty = one run with request_bytes/response_bytes. Each size reports rtt_us.<N>B",
                   "seed 002 size table (16 ... 4096 B)"),
      real_param("duration_s", 10.0, 1e-3, 1e5, "s", "length of each timed transaction loop (-l)",
                 "netperf 2.2 netsh.c: test_time = 10"),
      bool_param("nodelay", false, "set TCP_NODELAY on both data sockets (netperf -D); netperf 2.2 never sets it "
                                   "unless asked, for RR tests too",
                 "netperf 2.2 nettest_bsd.c: loc_nodelay/rem_nodelay are set only by -D (create_data_socket)"),
      int_param("port", 12866, 1, 65000, "port",
                "data port of the first invocation; invocation i uses port + i",
                "estimate: netserver binds an ephemeral port per test; any free port behaves the same"),
      int_param("gap_jiffies", 2, 0, 100000, "jiffies",
                "pause before each invocation's connect (netperf's start-up and control exchange)",
                "estimate: the control connection's exchange is not modelled (netperf_rr_app.h); 2 jiffies "
                "as the other workloads wait before connecting"),
      int_param("journeys_per_test", 200, 0, 1000000, "transactions",
                "transactions per invocation whose request and response are traced stage by stage for `nicsim "
                "explain` (journey kind \"TCP_RR <N> B\")",
                ""),
      real_param("time_limit_s", 600.0, 0.001, 1e6, "s", "simulated-time limit; the run fails when it is reached", ""),
  };
}

/// The invocations a scenario asks for: one per `sizes` entry (-r N,N), else one with
/// request_bytes/response_bytes. Throws std::invalid_argument naming a bad `sizes` entry.
std::vector<NetperfRrSizes> invocations(const ParamValues& p) {
  std::vector<NetperfRrSizes> out;
  const std::string sizes = p.s("sizes");
  if (sizes.empty()) {
    NetperfRrSizes s;
    s.request_bytes = static_cast<int>(p.i("request_bytes"));
    s.response_bytes = p.i("response_bytes") == 0 ? s.request_bytes : static_cast<int>(p.i("response_bytes"));
    out.push_back(s);
    return out;
  }
  std::stringstream in(sizes);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto b = item.find_first_not_of(' '), e = item.find_last_not_of(' ');
    const std::string t = b == std::string::npos ? "" : item.substr(b, e - b + 1);
    auto v = parse_rr_sizes(t);
    if (!v || t.find(',') != std::string::npos)
      throw std::invalid_argument(fmt::format("'{}' is not a size in bytes (1 ... {}){}", t, kMaxRrBytes,
                                              t.find(' ') != std::string::npos ? ": separate sizes with commas" : ""));
    if (std::max(v->request_bytes, v->response_bytes) > kMaxRrBytes)
      throw std::invalid_argument(fmt::format("'{}' is above {} bytes, request_bytes' maximum", t, kMaxRrBytes));
    for (const auto& o : out)
      if (o.request_bytes == v->request_bytes && o.response_bytes == v->response_bytes)
        throw std::invalid_argument(fmt::format("size {} appears twice (each size reports rtt_us.<N>B once)", t));
    out.push_back(*v);
  }
  if (sizes.back() == ',')
    throw std::invalid_argument(fmt::format("'' is not a size in bytes (1 ... {}): the list ends with a comma", kMaxRrBytes));
  if (out.empty()) throw std::invalid_argument("no sizes given");
  return out;
}

/// The metric key suffix of an invocation: "<N>B" for -r N,N, "<req>x<resp>B" otherwise (no comma:
/// sweep --metric and sweep.csv take comma-separated names).
std::string size_key(const NetperfRrSizes& s) {
  return s.request_bytes == s.response_bytes ? fmt::format("{}B", s.request_bytes)
                                             : fmt::format("{}x{}B", s.request_bytes, s.response_bytes);
}

int run_netperf_rr(Testbed& tb, std::ostream& out, nlohmann::json& results) {
  const ParamValues& p = tb.scenario().workload.params;
  const NetperfRrTest test = *netperf_rr_test_of(p.s("test"));
  TestbedSoftware& sw = build_software(tb);
  auto tx_ep = *parse_endpoint(p.s("transmitter"));
  auto rx_ep = *parse_endpoint(p.s("receiver"));
  if (tx_ep.host == rx_ep.host) throw std::runtime_error("netperf_rr: transmitter and receiver must be on different hosts");
  for (const char* k : {"transmitter", "receiver"}) sw.cabled_ip(p.s(k), "netperf_rr", k);
  HostSoftware& txh = sw.host(tx_ep.host);
  HostSoftware& rxh = sw.host(rx_ep.host);
  const uint32_t rx_ip = sw.cabled_ip(p.s("receiver"), "netperf_rr", "receiver");

  std::vector<NetperfRrRun> runs;
  const auto sizes = invocations(p);
  for (size_t i = 0; i < sizes.size(); ++i) {
    NetperfRrRun r;
    r.test = test;
    r.sizes = sizes[i];
    r.port = static_cast<uint16_t>(p.i("port") + static_cast<int64_t>(i));
    r.duration_s = p.r("duration_s");
    r.nodelay = p.b("nodelay");
    r.journeys = static_cast<int>(p.i("journeys_per_test"));
    r.journey_kind = fmt::format("{} {} B", netperf_rr_test_name(test),
                                 r.sizes.request_bytes == r.sizes.response_bytes
                                     ? std::to_string(r.sizes.request_bytes)
                                     : fmt::format("{},{}", r.sizes.request_bytes, r.sizes.response_bytes));
    runs.push_back(std::move(r));
  }
  auto side = [](HostSoftware& hs) {
    return NetperfRrHost{hs.kernel.get(), hs.inet.get(), [h = &hs] { return h->wait_network_up(); }};
  };
  const std::string host = dotted_quad(rx_ip);
  auto print_run = [&](size_t i) {
    const NetperfRrRun& r = runs[i];
    if (!r.error.empty()) return;
    NetperfRrResult res;
    res.local_send_socket_bytes = r.local_send_socket_bytes;
    res.local_recv_socket_bytes = r.local_recv_socket_bytes;
    res.remote_send_socket_bytes = r.remote_send_socket_bytes;
    res.remote_recv_socket_bytes = r.remote_recv_socket_bytes;
    res.request_bytes = r.sizes.request_bytes;
    res.response_bytes = r.sizes.response_bytes;
    res.elapsed_s = r.duration_s;
    res.transactions_per_s = rr_transaction_rate(r.transactions, r.duration_s);
    out << netperf_rr_banner(test, host, r.nodelay) << netperf_rr_result_block(res) << (i + 1 < runs.size() ? "\n" : "")
        << std::flush;
  };
  bool all_done = false;
  // Every invocation's netserver child listens from the start (netserver forks one per test).
  for (auto& r : runs) rxh.kernel->spawn_process("netserver", netserver_tcp_rr_main(side(rxh), &r));
  txh.kernel->spawn_process("netperf", netperf_tcp_rr_main(side(txh), rx_ip, &runs, p.i("gap_jiffies"), print_run, [&] {
                              all_done = true;
                              sc_core::sc_stop();
                            }));

  Cpu::run_for(sec(p.r("time_limit_s")));  // sc_start, telling the CPUs' run-ahead where the run ends
  for (auto& [name, hs] : sw.hosts) hs->inet->export_counters();

  nlohmann::json& m = results["metrics"];
  for (auto& r : runs)  // a round-trip time from no transaction at all would read as 0 µs
    if (r.error.empty() && r.finished && r.transactions == 0)
      r.error = fmt::format("no transaction completed within -l {} s", r.duration_s);
  for (const auto& r : runs) {
    if (!r.error.empty() || !r.finished) continue;
    const double rate = rr_transaction_rate(r.transactions, r.duration_s);
    const std::string key = size_key(r.sizes);
    m["transactions_per_s." + key] = rate;
    m["rtt_us." + key] = rr_round_trip_us(rate);
    m["transactions." + key] = r.transactions;
  }
  if (runs.size() == 1 && runs[0].finished && runs[0].error.empty()) {
    const NetperfRrRun& r = runs[0];
    const double rate = rr_transaction_rate(r.transactions, r.duration_s);
    m["transactions_per_s"] = rate;
    m["rtt_us"] = rr_round_trip_us(rate);
    m["transactions"] = r.transactions;
    m["elapsed_s"] = r.duration_s;
    m["request_bytes"] = r.sizes.request_bytes;
    m["response_bytes"] = r.sizes.response_bytes;
  }
  m["invocations"] = runs.size();
  if (!runs.empty()) {
    m["local_send_socket_bytes"] = runs[0].local_send_socket_bytes;
    m["local_recv_socket_bytes"] = runs[0].local_recv_socket_bytes;
    m["remote_send_socket_bytes"] = runs[0].remote_send_socket_bytes;
    m["remote_recv_socket_bytes"] = runs[0].remote_recv_socket_bytes;
  }

  std::string err;
  for (const auto& r : runs)
    if (!r.error.empty()) {
      err = fmt::format("-r {},{}: {}", r.sizes.request_bytes, r.sizes.response_bytes, r.error);
      break;
    }
  if (err.empty() && !all_done) {
    err = fmt::format("netperf did not finish within time_limit_s = {} s of simulated time", p.r("time_limit_s"));
    // UDP_RR has no retransmission: a dropped request or response stalls the loop for good.
    if (test == NetperfRrTest::UDP_RR)
      for (const auto& h : {tx_ep.host, rx_ep.host}) {
        const uint64_t drops = sim().counters.get(h + ".netstat.Udp.InErrors");
        if (drops)
          err += fmt::format("; {} dropped {} datagram{} (Udp.InErrors: the socket receive buffer of {} B could not "
                             "take {}: a datagram larger than {} B arrives as fragments whose receive buffers' truesize "
                             "adds up) and UDP_RR never resends",
                             h, drops, drops == 1 ? "" : "s", UdpRxBudget::rcvbuf(), drops == 1 ? "it" : "them",
                             UdpRxBudget::per_frag() - 8);
      }
  }
  if (!err.empty()) {
    results["workload_error"] = err;
    out << "netperf_rr: " << err << "\n";
    return 1;
  }
  return 0;
}

std::vector<NetperfRrSizes> invocations_or_empty(const ParamValues& p) {
  try {
    return invocations(p);
  } catch (const std::invalid_argument&) {
    return {};
  }
}

/// Load-time checks: `sizes` parses; UDP_RR sizes fit a datagram and -D is TCP's;
/// the two ends' hosts, cables and kernels (tcp_pair_problems).
std::vector<ParamProblem> netperf_rr_check(const Scenario& s) {
  std::vector<ParamProblem> out;
  const ParamValues& p = s.workload.params;
  try {
    invocations(p);
  } catch (const std::invalid_argument& e) {
    out.push_back({"workload.sizes", e.what()});
  }
  // Invocation i connects to port + i (a 16-bit TCP/UDP port): the last one must still be a port.
  if (const auto n = invocations_or_empty(p).size(); n > 0 && p.i("port") + int64_t(n) - 1 > 65535)
    out.push_back({"workload.port",
                   fmt::format("port {} with {} sizes: invocation i uses port + i, so the last would use port {}, "
                               "past the largest port 65535; set port to at most {}",
                               p.i("port"), n, p.i("port") + int64_t(n) - 1, 65535 - int64_t(n) + 1)});
  if (!p.s("sizes").empty()) {
    const ParamValues d(netperf_rr_schema());
    for (const char* k : {"request_bytes", "response_bytes"})
      if (p.i(k) != d.i(k))
        out.push_back({std::string("workload.") + k,
                       fmt::format("{} has no effect while sizes is set (each size runs -r N,N); set sizes = \"\" to "
                                   "run one invocation with request_bytes/response_bytes",
                                   k)});
  }
  if (p.s("test") == "UDP_RR") {
    // Requests arrive at the receiver, responses at the transmitter: each through its own buffers.
    const UdpRxBudget at_rx = udp_rx_budget(s, p.s("receiver")), at_tx = udp_rx_budget(s, p.s("transmitter"));
    auto key_of = [&](bool request) {
      return !p.s("sizes").empty() ? "workload.sizes" : request ? "workload.request_bytes" : "workload.response_bytes";
    };
    for (const auto& sz : invocations_or_empty(p)) {
      if (std::max(sz.request_bytes, sz.response_bytes) > 65507) {
        out.push_back({key_of(sz.request_bytes > 65507),
                       fmt::format("UDP_RR: a {} B datagram exceeds UDP's 65507 B (EMSGSIZE)",
                                   std::max(sz.request_bytes, sz.response_bytes))});
        continue;
      }
      for (const bool request : {true, false}) {
        const int bytes = request ? sz.request_bytes : sz.response_bytes;
        const UdpRxBudget& b = request ? at_rx : at_tx;
        if (bytes <= b.max_bytes()) continue;
        const uint32_t frags = UdpRxBudget::frags(bytes);
        out.push_back({key_of(request),
                       fmt::format("UDP_RR: a {} B {} arrives at {} as {} fragments of {} B of IP payload, each in "
                                   "a {} receive buffer of {} B truesize: {} B, more than the socket receive buffer "
                                   "of {} B (sysctl_rmem_default), so sock_queue_rcv_skb drops it (Udp InErrors) and "
                                   "UDP_RR, which never resends, would stall; the largest {} this receiver takes is "
                                   "{} B ({} fragments)",
                                   bytes, request ? "request" : "response", request ? p.s("receiver") : p.s("transmitter"),
                                   frags, UdpRxBudget::per_frag(), b.driver.empty() ? "driver" : b.driver, b.truesize,
                                   uint64_t(frags) * b.truesize, UdpRxBudget::rcvbuf(),
                                   request ? "request" : "response", b.max_bytes(),
                                   (UdpRxBudget::rcvbuf() - 1) / b.truesize)});
        break;
      }
    }
    if (p.b("nodelay"))
      out.push_back({"workload.nodelay", "nodelay (netperf -D, TCP_NODELAY) applies to TCP_RR only; UDP_RR has no Nagle"});
  }
  for (auto& pr : tcp_pair_problems(s, "netperf " + p.s("test"))) out.push_back(pr);
  return out;
}

Registrar<WorkloadEntry> netperf_rr_reg{WorkloadEntry{
    "netperf_rr",
    "netperf 2.2 TCP_RR / UDP_RR: request/response transactions (one in flight) between two NICs; rate and RTT per size",
    tcp_pair_schema(netperf_rr_schema()),
    run_netperf_rr, netperf_rr_check}};

}  // namespace
}  // namespace nicsim
