// UdpStack (drivers-sim/net/udp.h), IPv4 fragmentation (wire.h build_udp_packets) and reassembly
// (ip_frag.h) as pure logic: Linux 2.4 ip_build_xmit_slow's last-first fragments, ip_defrag, the
// Udp MIB and its netstat -s lines, rcvbuf drops, checksum errors, port demultiplexing.
#include "drivers-sim/net/udp.h"
#include "drivers-sim/net/wire.h"

#include <catch2/catch.hpp>

#include <algorithm>

// This file's own names, apart from the other files of a unity batch.
namespace net_udp_test {
using namespace nicsim;

namespace {
constexpr uint32_t kA = 0x0a000101, kB = 0x0a000102;  // 10.0.1.1, 10.0.1.2

struct UdpPair {
  NetMib ma, mb;
  MessageTags tags;
  TcpParams p;
  UdpStack a{kA, ma, p, &tags, "a"}, b{kB, mb, p, &tags, "b"};
};

Ipv4Header hdr(const std::vector<uint8_t>& pkt) {
  Ipv4Header h;
  REQUIRE(parse_ipv4_header(pkt.data(), pkt.size(), &h, nullptr));
  return h;
}
}  // namespace

TEST_CASE("UDP: a datagram that fits the MTU is one DF packet with a valid checksum", "[net][udp]") {
  UdpPair t;
  int s = t.a.socket();
  t.a.connect(s, kB, 7000);
  TcpEffects fx = t.a.send(s, 1472, 0, 0);  // 20 + 8 + 1472 = 1500 = MTU
  REQUIRE(fx.tx.size() == 1);
  const auto& pkt = fx.tx[0].ip;
  CHECK(pkt.size() == 1500);
  Ipv4Header h = hdr(pkt);
  CHECK(h.protocol == kIpProtoUdp);
  CHECK(h.frag_off == kIpDf);
  CHECK(udp_checksum_ok(pkt.data(), pkt.size()));
  CHECK(fx.tx[0].payload_bytes == 1472);
  CHECK(t.ma[UdpMib::OutDatagrams] == 1);
  CHECK(t.ma[IpMib::FragCreates] == 0);
  CHECK(fx.count(TcpPath::ip_build_xmit_skb) == 1);
  CHECK(fx.count(TcpPath::udp_sendmsg_copy) == 1472);
}

TEST_CASE("UDP: ip_build_xmit_slow sends 1480-byte fragments last first, MF on all but the last", "[net][udp]") {
  UdpPair t;
  int s = t.a.socket();
  t.a.connect(s, kB, 7000);
  TcpEffects fx = t.a.send(s, 4096, 0, 0);  // 4104 B of UDP: offsets 0, 1480, 2960 (1144 B)
  REQUIRE(fx.tx.size() == 3);
  Ipv4Header f0 = hdr(fx.tx[0].ip), f1 = hdr(fx.tx[1].ip), f2 = hdr(fx.tx[2].ip);
  CHECK((f0.frag_off & kIpOffsetMask) * 8 == 2960);
  CHECK(!(f0.frag_off & kIpMf));
  CHECK(f0.tot_len == 20 + 1144);
  CHECK((f1.frag_off & kIpOffsetMask) * 8 == 1480);
  CHECK((f1.frag_off & kIpMf));
  CHECK(f1.tot_len == 1500);
  CHECK((f2.frag_off & kIpOffsetMask) == 0);
  CHECK((f2.frag_off & kIpMf));
  CHECK(f0.id == f1.id);
  CHECK(f1.id == f2.id);
  CHECK(t.ma[IpMib::FragCreates] == 3);
  CHECK(t.ma[IpMib::FragOKs] == 1);
  uint32_t payload = 0;
  for (auto& p : fx.tx) payload += p.payload_bytes;
  CHECK(payload == 4096);
}

TEST_CASE("UDP: a datagram that divides evenly into fragments ends with a full one", "[net][udp]") {
  UdpPair t;
  int s = t.a.socket();
  t.a.connect(s, kB, 7000);
  TcpEffects fx = t.a.send(s, 2960 - 8, 0, 0);  // 2960 B of UDP = 2 x 1480
  REQUIRE(fx.tx.size() == 2);
  CHECK((hdr(fx.tx[0].ip).frag_off & kIpOffsetMask) * 8 == 1480);
  CHECK(hdr(fx.tx[0].ip).tot_len == 1500);
  CHECK(hdr(fx.tx[1].ip).tot_len == 1500);
}

TEST_CASE("UDP: fragments reassemble in any order into one datagram the reader gets whole", "[net][udp]") {
  UdpPair t;
  int srv = t.b.socket();
  t.b.bind(srv, 7000);
  int cli = t.a.socket();
  t.a.connect(cli, kB, 7000);
  TcpEffects fx = t.a.send(cli, 4096, 42, 0);
  std::vector<std::vector<uint8_t>> pkts;
  for (auto& p : fx.tx) pkts.push_back(p.ip);
  std::swap(pkts[0], pkts[2]);  // first fragment first, then the rest
  int wakes = 0;
  for (size_t i = 0; i < pkts.size(); ++i) {
    TcpEffects r = t.b.on_ip_packet(pkts[i].data(), pkts[i].size(), 1000 + i);
    CHECK(r.count(TcpPath::ip_defrag) == 1);
    CHECK(!r.dropped);
    wakes += r.wake_reader;
    if (i + 1 < pkts.size()) CHECK(r.count(TcpPath::udp_rcv) == 0);
  }
  CHECK(wakes == 1);
  CHECK(t.mb[IpMib::ReasmReqds] == 3);
  CHECK(t.mb[IpMib::ReasmOKs] == 1);
  CHECK(t.mb[UdpMib::InDatagrams] == 1);
  CHECK(t.b.defrag().pending() == 0);
  TcpEffects rd = t.b.recv(srv, 65536, 2000);
  CHECK(rd.delivered == 4096);
  CHECK(rd.count(TcpPath::rx_csum) == 4104);  // checksummed while copying (no CHECKSUM_UNNECESSARY)
  REQUIRE(rd.completed_tags.size() == 1);
  CHECK(rd.completed_tags[0] == 42);
  CHECK(t.b.sock(srv).last_saddr == kA);
  CHECK(t.b.recv(srv, 65536, 2001).would_block);
}

TEST_CASE("UDP: an unbound port counts NoPorts, a connected socket ignores other sources", "[net][udp]") {
  UdpPair t;
  int cli = t.a.socket();
  t.a.connect(cli, kB, 7000);
  TcpEffects fx = t.a.send(cli, 64, 0, 0);
  TcpEffects r = t.b.on_ip_packet(fx.tx[0].ip.data(), fx.tx[0].ip.size(), 10);
  CHECK(r.dropped);
  CHECK(t.mb[UdpMib::NoPorts] == 1);
  int srv = t.b.socket();
  t.b.bind(srv, 7000);
  t.b.connect(srv, kA, 9999);  // not the client's port
  r = t.b.on_ip_packet(fx.tx[0].ip.data(), fx.tx[0].ip.size(), 20);
  CHECK(r.dropped);
  CHECK(t.mb[UdpMib::NoPorts] == 2);
  CHECK_THROWS_AS(t.b.bind(t.b.socket(), 7000), std::runtime_error);
}

TEST_CASE("UDP: a datagram past rcvbuf is dropped (InErrors, InDiscards), a bad checksum is skipped at read",
          "[net][udp]") {
  UdpPair t;
  int srv = t.b.socket();
  t.b.bind(srv, 7000);
  int cli = t.a.socket();
  t.a.connect(cli, kB, 7000);
  const uint32_t truesize = 20000;  // 3 fit under 65535, the 4th does not
  for (int i = 0; i < 4; ++i) {
    TcpEffects fx = t.a.send(cli, 100, 0, 0);
    t.b.on_ip_packet(fx.tx[0].ip.data(), fx.tx[0].ip.size(), 10, truesize);
  }
  CHECK(t.mb[UdpMib::InDatagrams] == 3);
  CHECK(t.mb[UdpMib::InErrors] == 1);
  CHECK(t.mb[IpMib::InDiscards] == 1);
  CHECK(t.mb[IpMib::InDelivers] == 3);
  for (int i = 0; i < 3; ++i) CHECK(t.b.recv(srv, 100, 20).delivered == 100);
  // Corrupt one payload byte (the IP header stays valid).
  TcpEffects fx = t.a.send(cli, 100, 0, 0);
  fx.tx[0].ip.back() ^= 0x55;
  t.b.on_ip_packet(fx.tx[0].ip.data(), fx.tx[0].ip.size(), 30);
  TcpEffects rd = t.b.recv(srv, 100, 40);
  CHECK(rd.would_block);
  CHECK(t.mb[UdpMib::InErrors] == 2);
}

TEST_CASE("IP reassembly: a queue older than 30 s is dropped when the next fragment arrives", "[net][udp]") {
  UdpPair t;
  int cli = t.a.socket();
  t.a.connect(cli, kB, 7000);
  TcpEffects fx1 = t.a.send(cli, 3000, 0, 0);
  TcpEffects fx2 = t.a.send(cli, 3000, 0, 0);
  t.b.on_ip_packet(fx1.tx[0].ip.data(), fx1.tx[0].ip.size(), 0);
  CHECK(t.b.defrag().pending() == 1);
  t.b.on_ip_packet(fx2.tx[0].ip.data(), fx2.tx[0].ip.size(), IpDefrag::kFragTimeNs + 1);
  CHECK(t.mb[IpMib::ReasmTimeout] == 1);
  CHECK(t.mb[IpMib::ReasmFails] == 1);
  CHECK(t.b.defrag().pending() == 1);
}

TEST_CASE("UDP: netstat -s prints the Udp section from the counters", "[net][udp][netstat]") {
  NetMib m;
  m[UdpMib::InDatagrams] = 12;
  m[UdpMib::NoPorts] = 3;
  m[UdpMib::InErrors] = 1;
  m[UdpMib::OutDatagrams] = 14;
  const std::string s = netstat_s(m);
  CHECK(s.find("Udp:\n    12 packets received\n    3 packets to unknown port received.\n"
               "    1 packet receive errors\n    14 packets sent\n") != std::string::npos);
}

}  // namespace net_udp_test
