// Where Linux 2.4 reads dev->features for the transmit checksum (docs/developers.md "Checksum
// offload"), and how its IPv4/TCP receive path credits a device's CHECKSUM_HW sum.
#pragma once
#include "drivers-sim/kernel/netdevice.h"
#include "drivers-sim/kernel/skb.h"
#include <cstddef>
#include <cstdint>

namespace nicsim {

/// skb->ip_summed of a TCP segment sent through a device with `features`: CHECKSUM_HW when the
/// route's device checksums TCP/IPv4 (tcp_sendmsg 2.4.20: sk->route_caps & (NETIF_F_IP_CSUM |
/// NETIF_F_NO_CSUM | NETIF_F_HW_CSUM); route_caps is the output device's features), else
/// CHECKSUM_NONE (the stack computes it, csum_and_copy_from_user).
inline uint8_t tx_ip_summed(uint32_t features) {
  return (features & (NETIF_F_IP_CSUM | NETIF_F_NO_CSUM | NETIF_F_HW_CSUM)) ? CHECKSUM_HW : CHECKSUM_NONE;
}

/// Receive, skb->ip_summed == CHECKSUM_HW with the device's sum `csum` in skb->csum (sungem gem_rx):
/// whether Linux 2.4.16 ends with CHECKSUM_UNNECESSARY for this IPv4/TCP packet, `ip` its `len` bytes
/// from the IP header on (skb->len after eth_type_trans). Two steps of LH@2.4.16:
///  * net/ipv4/ip_input.c ip_rcv: when skb->len > iph->tot_len (link padding, or an FCS the device
///    left in the frame) it trims to tot_len and drops CHECKSUM_HW to CHECKSUM_NONE -> false;
///  * net/ipv4/tcp_ipv4.c tcp_v4_checksum_init: CHECKSUM_UNNECESSARY if tcp_v4_check(th, len, saddr,
///    daddr, skb->csum) (csum_tcpudp_magic over the sum: no pass over the data) folds to 0, else
///    "hw tcp v4 csum failed" and CHECKSUM_NONE -> false.
/// The sum is the 16-bit ones-complement sum (held in 32 bits) of the TCP segment, or of the IP
/// header and the segment: a valid IP header sums to 0xffff, which adds nothing. Returns false for
/// a packet too short for its IP header.
inline bool rx_tcp_hw_csum_unnecessary(const uint8_t* ip, size_t len, uint32_t csum) {
  if (len < 20) return false;
  const size_t ihl = size_t(ip[0] & 0x0fu) * 4u;
  const size_t tot_len = size_t(ip[2]) << 8 | ip[3];
  if (ihl < 20 || tot_len < ihl || tot_len > len) return false;
  if (len > tot_len) return false;  // ip_rcv: __pskb_trim, CHECKSUM_HW -> CHECKSUM_NONE
  // csum_tcpudp_nofold + csum_fold: saddr, daddr, proto and the TCP length added to the sum.
  uint64_t s = csum;
  for (size_t i = 12; i < 20; i += 2) s += uint32_t(ip[i]) << 8 | ip[i + 1];
  s += 6u;  // IPPROTO_TCP
  s += uint32_t(tot_len - ihl);
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return uint16_t(~s) == 0;
}

}  // namespace nicsim
