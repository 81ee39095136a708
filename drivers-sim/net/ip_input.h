// ip_rcv's checks on a received IPv4 packet (Linux 2.4 net/ipv4/ip_input.c ip_rcv, and
// ip_route_input's local-delivery decision reduced to "is it for this host's address"), shared by
// TcpStack and UdpStack so both count the Ip MIB alike.
#pragma once
#include "drivers-sim/net/mib.h"
#include "drivers-sim/net/tcp_effects.h"
#include "drivers-sim/net/wire.h"
#include <vector>

namespace nicsim {

/// Charge the ip_rcv path in `fx`, count Ip InReceives, parse the header of `p` (`len` bytes) into
/// `*ip` and check it is well formed, its checksum verifies and it is addressed to `addr`. On a
/// failure counts InHdrErrors or InAddrErrors, sets fx.dropped and returns false.
bool ip_rcv_checks(const uint8_t* p, size_t len, uint32_t addr, NetMib& mib, TcpEffects& fx, Ipv4Header* ip);

/// The IPv4 addresses a host delivers locally (ip_route_input's RTN_LOCAL): its interface's
/// address (`primary`, host order) and those configured on other interfaces (127.0.0.1 on `lo`,
/// drivers-sim/drivers/loopback). Source selection follows 2.4.20 ip_route_output_slow: a
/// destination that is one of the host's own addresses leaves through lo with that address as
/// source; one in 127.0.0.0/8 with lo's 127.0.0.1 (inet_select_addr); any other with `primary`.
struct LocalAddrs {
  uint32_t primary = 0;
  std::vector<uint32_t> extra;  ///< added with add(); e.g. 0x7f000001
  bool has(uint32_t a) const;
  void add(uint32_t a);
  /// The source address of a packet to `daddr`.
  uint32_t source_for(uint32_t daddr) const;
};

/// ip_rcv_checks with the local-delivery decision "addressed to one of `local`".
bool ip_rcv_checks(const uint8_t* p, size_t len, const LocalAddrs& local, NetMib& mib, TcpEffects& fx, Ipv4Header* ip);

}  // namespace nicsim
