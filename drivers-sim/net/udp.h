// One host's UDP over IPv4 (Linux 2.4 net/ipv4/udp.c, ip_output.c ip_build_xmit, ip_fragment.c
// ip_defrag), beside TcpStack and sharing its MIB. Pure C++ like TcpStack: every entry point takes
// the current simulated time and returns TcpEffects (packets, paths to charge, wakeups); nothing
// sleeps. Source: LH@2.4.16 (liexusong/Linux-2.4.16) net/ipv4/udp.c and ip_output.c.
//
// What is modelled:
//  * sockets: bind (a port in use is refused, EADDRINUSE), connect (sets the default destination;
//    autobinds an ephemeral port as udp_v4_get_port does), send to the connected destination or to
//    an explicit one (sendto), receive queue bounded by sk->rcvbuf (sock_queue_rcv_skb: a datagram
//    whose truesize would take rmem_alloc past rcvbuf is dropped and counted in Udp InErrors);
//  * udp_sendmsg -> ip_build_xmit: one packet, or ip_build_xmit_slow's fragments last-first when
//    the datagram exceeds the MTU (build_udp_packets, wire.h); DF as ip_dont_fragment sets it for
//    IP_PMTUDISC_WANT (the 2.4 default); IP id: the socket's counter for an unfragmented datagram of
//    a connected socket, 0 for an unconnected one (ip_select_ident with DF), and the per-peer
//    counter (inet_peer, __ip_select_ident) for a fragmented datagram; Udp OutDatagrams, Ip
//    OutRequests, FragCreates/FragOKs;
//  * input: the IP checks (shared with TcpStack, ip_input.h), ip_defrag for fragments (ip_frag.h),
//    udp_rcv: length and socket lookup (connected sockets match the source too, udp_v4_lookup's
//    scoring), NoPorts for nobody (the ICMP port unreachable is not modelled), InDatagrams when
//    queued; the checksum is verified at recvmsg as skb_copy_and_csum_datagram_iovec does, unless
//    the NIC said CHECKSUM_UNNECESSARY (a bad one: InErrors, the datagram is dropped and the reader
//    keeps waiting; Linux returns -EAGAIN to it);
//  * udp_recvmsg: one datagram per call, truncated to the reader's length (MSG_TRUNC not reported).
// Journeys: UDP keeps datagram boundaries, so a datagram is a message: the sender records its tag
// under the flow's datagram count, the receiver looks it up by its own arrival count on that flow
// (a datagram lost in between shifts later journeys by one; results never depend on journeys).
#pragma once
#include "drivers-sim/net/ip_frag.h"
#include "drivers-sim/net/ip_input.h"
#include "drivers-sim/net/mib.h"
#include "drivers-sim/net/msg_tags.h"
#include "drivers-sim/net/tcp_effects.h"
#include "drivers-sim/net/tcp_params.h"
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace nicsim {

/// One received datagram waiting in a socket's receive queue.
struct UdpDatagram {
  uint32_t saddr = 0;
  uint16_t sport = 0;
  uint32_t bytes = 0;             ///< UDP payload bytes
  uint32_t truesize = 0;          ///< charged to rmem_alloc while queued
  unsigned skbs = 1;              ///< fragments (skbs) the datagram arrived in
  bool csum_needed = true;        ///< no CHECKSUM_UNNECESSARY from the NIC
  bool csum_ok = true;            ///< its UDP checksum verifies
  uint64_t tag = 0;               ///< journey of the message, 0 when none
};

/// struct sock of a UDP socket (the fields this model uses).
struct UdpSocket {
  int id = -1;
  uint16_t lport = 0;             ///< bound local port (0: not yet bound)
  uint32_t daddr = 0;             ///< connected destination (0: not connected)
  uint16_t dport = 0;
  uint16_t ip_id = 0;             ///< sk->protinfo.af_inet.id
  uint32_t sndbuf = 65535;        ///< sysctl_wmem_default (SK_WMEM_MAX)
  uint32_t rcvbuf = 65535;        ///< sysctl_rmem_default (SK_RMEM_MAX)
  uint32_t rmem_alloc = 0;
  std::deque<UdpDatagram> rxq;    ///< sk->receive_queue
  uint32_t last_saddr = 0;        ///< source of the datagram the last recv returned (recvfrom)
  uint16_t last_sport = 0;
};

class UdpStack {
 public:
  /// `addr`: this host's address (host order); `mib`: the host's MIB (TcpStack's), outliving this;
  /// `params`: mtu_bytes, local ports, rx truesize; `tags` may be null.
  UdpStack(uint32_t addr, NetMib& mib, const TcpParams& params, MessageTags* tags = nullptr, std::string name = "");

  // --- process context ---
  /// socket(AF_INET, SOCK_DGRAM): a new unbound socket; returns its id.
  int socket();
  /// bind() to `port`. Throws std::runtime_error when another UDP socket holds it (EADDRINUSE).
  void bind(int sock, uint16_t port);
  /// connect(): default destination daddr:dport; binds an ephemeral port first if unbound.
  void connect(int sock, uint32_t daddr, uint16_t dport);
  /// Deliver datagrams to `a` locally too and send from it towards it (LocalAddrs; 127.0.0.1 on lo).
  void add_local_addr(uint32_t a) { local_.add(a); }
  /// send() of one datagram of `bytes` to the connected destination, or to daddr:dport when
  /// `daddr` != 0 (sendto). accepted = bytes; tx = its packets. Throws std::logic_error for an
  /// unconnected socket without a destination, std::invalid_argument beyond 65507 bytes (EMSGSIZE).
  TcpEffects send(int sock, size_t bytes, uint64_t tag, TimeNs now, uint32_t daddr = 0, uint16_t dport = 0);
  /// recv() of one datagram, at most `max` bytes delivered (the rest is discarded, as for a short
  /// read of a datagram). would_block when the queue is empty (call again after wake_reader).
  /// completed_tags: the datagram's journey, if any.
  TcpEffects recv(int sock, size_t max, TimeNs now);

  // --- NET_RX softirq ---
  /// One received IPv4 packet that is UDP or a fragment (of anything): ip_rcv's checks, ip_defrag,
  /// udp_rcv. A reassembled datagram of another protocol is counted InUnknownProtos and dropped.
  TcpEffects on_ip_packet(const uint8_t* ip, size_t len, TimeNs now, uint32_t truesize = 0,
                          bool csum_unnecessary = false);
  /// Journey of the datagram an unfragmented UDP packet (or first fragment) carries, 0 when none
  /// or unknown (does not change state; the count it uses is the next arrival's).
  uint64_t journey_of(const uint8_t* ip, size_t len) const;

  const UdpSocket& sock(int id) const { return *socks_.at(size_t(id)); }
  UdpSocket& sock(int id) { return *socks_.at(size_t(id)); }
  size_t socket_count() const { return socks_.size(); }
  const IpDefrag& defrag() const { return defrag_; }

 private:
  int lookup(uint32_t saddr, uint16_t sport, uint16_t dport) const;
  uint16_t next_ephemeral_port();
  MessageTags::Flow flow(uint32_t saddr, uint16_t sport, uint32_t daddr, uint16_t dport) const {
    return MessageTags::Flow{saddr, daddr, sport, dport};
  }

  LocalAddrs local_;  ///< the host's address (primary) and the addresses of the host's other interfaces (lo)
  NetMib* mib_;
  TcpParams p_;
  MessageTags* tags_;
  std::string name_;
  std::vector<std::unique_ptr<UdpSocket>> socks_;
  std::map<uint16_t, int> ports_;                 ///< bound port -> socket
  std::map<uint32_t, uint16_t> peer_ip_id_;       ///< inet_peer ip_id_count per destination
  std::map<MessageTags::Flow, uint64_t> sent_, received_;  ///< datagrams per flow (journey keys)
  IpDefrag defrag_;
  uint16_t port_rover_;
};

}  // namespace nicsim
