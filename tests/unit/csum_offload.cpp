// dev->features read where Linux 2.4.20 reads them for the TX checksum, and the receive side's
// CHECKSUM_HW credit of 2.4.16 (drivers-sim/kernel/csum_offload.h).
#include "drivers-sim/kernel/csum_offload.h"
#include "drivers-sim/net/wire.h"
#include <catch2/catch.hpp>
#include <vector>

// This file's own names, apart from the other files of a unity batch.
namespace csum_offload_test {
using namespace nicsim;


TEST_CASE("checksum offload: a segment is CHECKSUM_HW only through a device that checksums TCP/IPv4",
          "[net][csum]") {
  CHECK(tx_ip_summed(0) == CHECKSUM_NONE);
  CHECK(tx_ip_summed(NETIF_F_SG) == CHECKSUM_NONE);
  CHECK(tx_ip_summed(NETIF_F_SG | NETIF_F_HIGHDMA) == CHECKSUM_NONE);
  CHECK(tx_ip_summed(NETIF_F_IP_CSUM) == CHECKSUM_HW);
  CHECK(tx_ip_summed(NETIF_F_SG | NETIF_F_HW_CSUM) == CHECKSUM_HW);  // e1000 on 82543+ (e1000_probe)
  CHECK(tx_ip_summed(NETIF_F_NO_CSUM) == CHECKSUM_HW);               // loopback
}

namespace {
// A 1448-byte-payload TCP segment as the stack builds it (full software checksum).
std::vector<uint8_t> tcp_packet() {
  Ipv4Header ip;
  ip.saddr = 0x0a000001;
  ip.daddr = 0x0a000002;
  ip.id = 7;
  TcpHeader th;
  th.source = 5001;
  th.dest = 5002;
  th.seq = 1000;
  th.ack_seq = 2000;
  th.flags = kTcpAck;
  th.window = 5840;
  return build_tcp_packet(ip, th, nullptr, 0, 1448, false);
}
}  // namespace

TEST_CASE("checksum offload: CHECKSUM_HW on receive is credited as LH@2.4.16 ip_rcv + tcp_v4_checksum_init do",
          "[net][csum]") {
  std::vector<uint8_t> p = tcp_packet();
  REQUIRE(tcp_checksum_ok(p.data(), p.size()));
  const size_t ihl = 20;
  // The device's sum of the TCP segment (what sungem puts in skb->csum), unfolded 32 bits.
  const uint32_t seg = csum_partial(p.data() + ihl, p.size() - ihl, 0);
  CHECK(rx_tcp_hw_csum_unnecessary(p.data(), p.size(), seg));
  // From the IP header on (sungem's RXDMA_CFG checksum start 14/2 half-words = after the MAC
  // header): a valid IP header adds ones-complement zero.
  const uint32_t from_ip = csum_fold(csum_partial(p.data(), p.size(), 0)) ^ 0xffffu;
  CHECK(rx_tcp_hw_csum_unnecessary(p.data(), p.size(), from_ip));
  // A wrong sum: tcp_v4_checksum_init falls back to CHECKSUM_NONE.
  CHECK_FALSE(rx_tcp_hw_csum_unnecessary(p.data(), p.size(), seg + 1));
  // A corrupted payload byte with the device's sum of the corrupted bytes still verifies only if
  // the sender's checksum matches: it does not.
  std::vector<uint8_t> bad = p;
  bad[100] ^= 0x40;
  CHECK_FALSE(rx_tcp_hw_csum_unnecessary(bad.data(), bad.size(), csum_partial(bad.data() + ihl, bad.size() - ihl, 0)));
  // Four bytes beyond tot_len (an FCS left in the frame, MAC_RXCFG_SFCS clear): ip_rcv trims and
  // drops CHECKSUM_HW to CHECKSUM_NONE, whatever the sum.
  std::vector<uint8_t> fcs = p;
  fcs.insert(fcs.end(), {0xde, 0xad, 0xbe, 0xef});
  CHECK_FALSE(rx_tcp_hw_csum_unnecessary(fcs.data(), fcs.size(), seg));
  CHECK_FALSE(rx_tcp_hw_csum_unnecessary(p.data(), 10, seg));  // shorter than an IP header
}

}  // namespace csum_offload_test
