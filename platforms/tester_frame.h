// The UDP/IPv4 test frame the pktgen-style tester ports (models/ether/traffic_gen.h) send, for the
// workloads that flood or route them (rx_flood, forwarding). Addresses from RFC 2544 Appendix C's
// 198.18.0.0/15 benchmark range; source MAC 00:10:94:00:00:<port + 1>, a tester's OUI-style address.
#pragma once
#include "drivers-sim/net/wire.h"
#include <array>
#include <cstdint>
#include <vector>

namespace nicsim {

/// A frame of `len` bytes without FCS (at least 42: Ethernet + IPv4 + UDP headers) from tester port
/// `port` to `dst_mac`: IPv4 (TTL 64, no DF) from `saddr` to `daddr`, UDP from `sport` to `dport`
/// with checksum 0 (none, RFC 768, allowed over IPv4), the payload zero.
inline std::vector<uint8_t> tester_udp_frame(unsigned len, const std::array<uint8_t, 6>& dst_mac, unsigned port,
                                             uint32_t saddr, uint32_t daddr, uint16_t sport, uint16_t dport) {
  std::vector<uint8_t> f(len, 0);
  EthHeader eh;
  eh.dst = dst_mac;
  eh.src = {0x00, 0x10, 0x94, 0x00, 0x00, static_cast<uint8_t>(port + 1)};
  eh.ethertype = kEtherTypeIpv4;
  put_eth_header(f.data(), eh);
  Ipv4Header ip;
  ip.tot_len = static_cast<uint16_t>(len - kEthHeaderBytes);
  ip.protocol = kIpProtoUdp;
  ip.frag_off = 0;
  ip.ttl = 64;
  ip.saddr = saddr;
  ip.daddr = daddr;
  put_ipv4_header(f.data() + kEthHeaderBytes, ip);
  uint8_t* udp = f.data() + kEthHeaderBytes + kIpv4HeaderBytes;
  const uint16_t ulen = static_cast<uint16_t>(ip.tot_len - kIpv4HeaderBytes);
  udp[0] = static_cast<uint8_t>(sport >> 8), udp[1] = static_cast<uint8_t>(sport);
  udp[2] = static_cast<uint8_t>(dport >> 8), udp[3] = static_cast<uint8_t>(dport);
  udp[4] = static_cast<uint8_t>(ulen >> 8), udp[5] = static_cast<uint8_t>(ulen);
  return f;
}

}  // namespace nicsim
