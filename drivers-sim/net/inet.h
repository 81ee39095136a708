// The glue between the pure Linux 2.4 TCP/IP model (TcpStack, tcp_stack.h) and the kernel model
// (Kernel, drivers-sim/kernel): one InetHost per host. It
//  * registers ip_rcv with dev_add_pack(ETH_P_IP): received IPv4 packets go to TcpStack in the
//    NET_RX softirq, and the returned effects are applied there;
//  * implements SockOps (sendmsg/recvmsg) for TCP sockets in process context, sleeping on the
//    socket's wait queue when TcpStack says would_block;
//  * charges every Linux code path TcpStack reports (TcpEffects::paths) from the kernel's cost
//    table, transmits its packets through dev_queue_xmit (adding the Ethernet header from a static
//    neighbour table), and runs its timers as kernel timers (TIMER_BH);
//  * charges the CPU's cache misses on the received frame's IP/TCP header lines (DMA'd by the NIC;
//    Kernel::load_dma_lines). The payload copy is charged at copy_user_uncached's streaming rate.
// Source for the mapping of paths to costs: drivers-sim/kernel/costs.cpp (the budget of a small
// packet's send and receive), tcp_effects.h (which context runs which path).
#pragma once
#include "drivers-sim/kernel/kernel.h"
#include "drivers-sim/net/tcp_stack.h"
#include "drivers-sim/net/udp.h"
#include <array>
#include <functional>
#include <map>
#include <memory>

namespace nicsim {

/// Bytes from the start of an IPv4 packet `p` (`len` bytes) to the end of its transport header as
/// ip_rcv and tcp_v4_rcv / udp_rcv read them: IHL×4, plus the TCP header (data offset × 4) for TCP
/// or the 8-byte UDP header for the first packet of a UDP datagram; clamped to `len`. The cache lines they span are what the receive path loads from a DMA'd frame.
uint32_t ip_tcp_header_bytes(const uint8_t* p, uint32_t len);

class InetHost : public SockOps {
 public:
  /// `ip`: the host's IPv4 address (host order; one address per host, as the seeds' set-ups use
  /// one interface each). `tags`: the run's shared message-boundary registry.
  InetHost(Kernel& k, uint32_t ip, MessageTags* tags, TcpParams params = {});
  ~InetHost() override;

  /// A static route + ARP entry: packets to `dst` leave through `dev` to the MAC `dst_mac()`
  /// returns (asked per packet: the peer's driver learns its station address from the EEPROM a
  /// few hundred µs after probe; ARP itself is not modelled).
  void add_neighbour(uint32_t dst, NetDevice& dev, std::function<std::array<uint8_t, 6>()> dst_mac);
  /// Configure the loopback interface `lo` (ifconfig lo 127.0.0.1, 2.4 /etc/init.d/network): `addr`
  /// (host order) becomes a local address of TCP and UDP, and packets to 127.0.0.0/8 or to any of
  /// the host's own addresses leave through `lo` (the local routing table: ip_route_output_slow
  /// sends a local destination via loopback_dev).
  void add_loopback(NetDevice& lo, uint32_t addr = 0x7f000001u);
  /// A route (ip route add prefix/plen via gateway dev DEV; the gateway's MAC from a static
  /// neighbour entry, `gw_mac`) for forwarded packets (ip_forward.cpp). Longest prefix wins.
  void add_route(uint32_t prefix, unsigned plen, NetDevice& dev, std::function<std::array<uint8_t, 6>()> gw_mac);
  /// sysctl net.ipv4.ip_forward (0 by default, as in Linux): received packets for another host that
  /// match a route are forwarded (ip_forward) instead of counted as Ip.InAddrErrors.
  void set_ip_forward(bool on) { ip_forward_on_ = on; }
  bool ip_forward_enabled() const { return ip_forward_on_; }

  Kernel& kernel() const { return *k_; }
  TcpStack& stack() { return *stack_; }
  uint32_t addr() const { return stack_->addr(); }
  /// The TCP socket (struct tcp_opt + sock) behind a Socket this host created (sndbuf, rcvbuf, ...).
  const TcpSocket& tcp_sock(const Socket& s) const;
  UdpStack& udp() { return *udp_; }
  /// The UDP socket behind a Socket made by udp_socket().
  const UdpSocket& udp_sock(const Socket& s) const;

  // ---- process-context socket calls (apps) ---------------------------------------------------
  /// socket(AF_INET, SOCK_STREAM) with TCP_NODELAY when `nodelay`.
  Socket& tcp_socket(const std::string& name, bool nodelay);
  /// connect(): active open to daddr:port; returns 0 or -ECONNREFUSED (-111) on a reset.
  Task<int> connect(Socket& s, uint32_t daddr, uint16_t port);
  /// listen() on `port` + a blocking accept(); returns the connected socket.
  Task<Socket*> listen_accept(uint16_t port, const std::string& name, bool nodelay);
  /// socket(AF_INET, SOCK_DGRAM). write() on it is send() to the connected destination, or, on an
  /// unconnected socket, sendto() the source of the datagram the last read returned (the
  /// recvfrom/sendto pair of a UDP server such as netserver's recv_udp_rr); read() is recv() of
  /// one datagram.
  Socket& udp_socket(const std::string& name);
  /// bind() a UDP socket to `port`; throws std::runtime_error when the port is taken.
  void udp_bind(Socket& s, uint16_t port);
  /// connect() a UDP socket: its default destination (no packet is sent).
  void udp_connect(Socket& s, uint32_t daddr, uint16_t port);

  // ---- SockOps -------------------------------------------------------------------------------
  Task<long> sendmsg(Socket& sock, size_t len, JourneyId journey) override;
  Task<long> recvmsg(Socket& sock, size_t len, int flags) override;

  /// Write `netstat -s` counters into sim().counters under "<host>.netstat".
  void export_counters() const;

 private:
  struct SockState {
    std::unique_ptr<Socket> sock;
    int id = -1;                 ///< TcpStack or UdpStack socket id
    bool udp = false;
    bool wake_pending = false;   ///< a wakeup arrived while the task was not yet asleep
    uint64_t sk_addr = 0;        ///< SMP: DRAM lines of struct sock + tcp_opt (Kernel::smp_object)
    TimerList delack, retrans;
  };
  struct Neighbour {
    NetDevice* dev;
    std::function<std::array<uint8_t, 6>()> mac;
  };

  Task<int> ip_rcv(SkbPtr skb, NetDevice* dev);
  struct Route {
    uint32_t prefix = 0;
    unsigned plen = 0;
    NetDevice* dev = nullptr;
    std::function<std::array<uint8_t, 6>()> mac;
  };
  /// The route a packet to `daddr` takes (longest prefix), nullptr when none.
  const Route* route_for(uint32_t daddr) const;
  /// Whether ip_rcv hands this packet to ip_forward: forwarding on, a well-formed IPv4 header whose
  /// destination is not local, a route for it (ip_route_input's RTN_UNICAST to another host).
  const Route* forward_route(const Skb& skb) const;
  /// ip_rcv -> ip_route_input (cache hit) -> ip_forward -> ip_forward_finish -> ip_output ->
  /// ip_finish_output2 -> dev_queue_xmit, the received skb itself going out (ip_forward.cpp).
  Task<int> ip_forward(SkbPtr skb, const Route& r);
  /// Charge the paths, transmit the packets, apply timers and wakeups of `fx` (from UdpStack when
  /// `udp`: its socket ids are UDP ones).
  Task<void> apply(TcpEffects fx, bool udp = false);
  Task<long> udp_sendmsg(SockState& st, size_t len, JourneyId journey);
  Task<long> udp_recvmsg(SockState& st, size_t len);
  Task<void> charge(const TcpEffects& fx);
  Task<void> transmit(TcpTxPacket& p);
  void set_timer(const TcpTimerRequest& r);
  Task<void> wake(int sock_id, JourneyId j);
  /// release_sock of TCP socket `id` held by this process: its backlog, pass by pass, then unlock.
  Task<void> release_sock(int id);
  SockState& state(int sock_id);
  Socket& adopt(int sock_id, const std::string& name, bool udp = false);
  /// socks_ key of a socket: TCP ids as they are, UDP ids offset by kUdpKey.
  static constexpr int kUdpKey = 1 << 24;
  TimeNs now_ns() const;

  Kernel* k_;
  std::unique_ptr<TcpStack> stack_;
  std::unique_ptr<UdpStack> udp_;
  std::map<uint32_t, Neighbour> neigh_;
  NetDevice* lo_ = nullptr;  ///< the loopback device (add_loopback), nullptr when none
  bool ip_forward_on_ = false;
  std::vector<Route> routes_;
  std::map<int, std::unique_ptr<SockState>> socks_;
  std::map<int, WaitQueue> accept_wq_;  ///< per listening socket (its sk->sleep)
  std::map<int, WaitQueue> connect_wq_;
};

}  // namespace nicsim
