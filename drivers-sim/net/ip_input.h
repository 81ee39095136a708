// ip_rcv's checks on a received IPv4 packet (Linux 2.4 net/ipv4/ip_input.c ip_rcv, and
// ip_route_input's local-delivery decision reduced to "is it for this host's address"), shared by
// TcpStack and UdpStack so both count the Ip MIB alike.
#pragma once
#include "drivers-sim/net/mib.h"
#include "drivers-sim/net/tcp_effects.h"
#include "drivers-sim/net/wire.h"

namespace nicsim {

/// Charge the ip_rcv path in `fx`, count Ip InReceives, parse the header of `p` (`len` bytes) into
/// `*ip` and check it is well formed, its checksum verifies and it is addressed to `addr`. On a
/// failure counts InHdrErrors or InAddrErrors, sets fx.dropped and returns false.
bool ip_rcv_checks(const uint8_t* p, size_t len, uint32_t addr, NetMib& mib, TcpEffects& fx, Ipv4Header* ip);

}  // namespace nicsim
