// Header bytes, checksums and option layouts of drivers-sim/net/wire.h.
#include "drivers-sim/net/wire.h"

#include <catch2/catch.hpp>
#include <vector>

// This file's own names, apart from the other files of a unity batch.
namespace tcp_wire_test {
using namespace nicsim;


TEST_CASE("IPv4 header checksum matches the RFC 1071 arithmetic on a known header", "[net][wire]") {
  // 45 00 00 73 00 00 40 00 40 11 [b8 61] c0 a8 00 01 c0 a8 00 c7: a UDP packet whose header
  // checksum, worked by hand with one's-complement sums, is 0xb861.
  Ipv4Header h;
  h.tot_len = 0x73;
  h.id = 0;
  h.frag_off = kIpDf;
  h.ttl = 64;
  h.protocol = 17;
  h.saddr = 0xc0a80001;
  h.daddr = 0xc0a800c7;
  uint8_t b[20];
  put_ipv4_header(b, h);
  CHECK(b[10] == 0xb8);
  CHECK(b[11] == 0x61);
  Ipv4Header back;
  bool ok = false;
  uint8_t full[0x73] = {};
  std::copy(b, b + 20, full);
  REQUIRE(parse_ipv4_header(full, sizeof full, &back, &ok));
  CHECK(ok);
  full[8] ^= 1;  // corrupt the TTL
  REQUIRE(parse_ipv4_header(full, sizeof full, &back, &ok));
  CHECK_FALSE(ok);
}

TEST_CASE("A data segment with timestamps carries 66 bytes of headers on Ethernet", "[net][wire]") {
  uint8_t opts[40];
  size_t optlen = build_options(opts, true, 12345, 678, nullptr, 0);
  CHECK(optlen == kTcpTsOptionAlignedBytes);
  // NOP, NOP, TIMESTAMP(8), len 10 (the layout tcp_rcv_established predicts)
  CHECK(opts[0] == 1);
  CHECK(opts[1] == 1);
  CHECK(opts[2] == 8);
  CHECK(opts[3] == 10);
  Ipv4Header ip;
  ip.saddr = 0x0a000001;
  ip.daddr = 0x0a000002;
  TcpHeader th;
  th.source = 32768;
  th.dest = 5002;
  th.seq = 1000;
  th.ack_seq = 2000;
  th.flags = kTcpAck | kTcpPsh;
  th.window = 5840;
  auto pkt = build_tcp_packet(ip, th, opts, optlen, 1, false);
  CHECK(kEthHeaderBytes + pkt.size() - 1 == 66);
  // MSS 1448 = MTU 1500 - 20 (IP) - 20 (TCP) - 12 (timestamps): a full segment fills the MTU.
  auto full = build_tcp_packet(ip, th, opts, optlen, 1448, false);
  CHECK(full.size() == 1500);
  ParsedTcpPacket p;
  REQUIRE(parse_tcp_packet(full.data(), full.size(), &p));
  CHECK(p.payload_len == 1448);
  CHECK(p.th.doff_bytes == 32);
  CHECK(p.opt.ts_aligned_only);
  CHECK(p.opt.tsval == 12345);
  CHECK(p.opt.tsecr == 678);
  CHECK(p.th.window == 5840);
  CHECK(p.th.flags == (kTcpAck | kTcpPsh));
}

TEST_CASE("TCP checksum covers pseudo header, header and payload", "[net][wire]") {
  Ipv4Header ip;
  ip.saddr = 0x0a000001;
  ip.daddr = 0x0a000002;
  TcpHeader th;
  th.source = 1;
  th.dest = 2;
  th.seq = 0xdeadbeef;
  th.flags = kTcpAck;
  auto pkt = build_tcp_packet(ip, th, nullptr, 0, 7, false);
  CHECK(tcp_checksum_ok(pkt.data(), pkt.size()));
  pkt.back() ^= 0x40;  // flip a payload bit
  CHECK_FALSE(tcp_checksum_ok(pkt.data(), pkt.size()));
  pkt.back() ^= 0x40;
  pkt[12] ^= 1;  // the source address is in the pseudo header (IP checksum aside)
  CHECK_FALSE(tcp_checksum_ok(pkt.data(), pkt.size()));
}

TEST_CASE("CHECKSUM_HW leaves the pseudo-header sum for the NIC to complete", "[net][wire]") {
  Ipv4Header ip;
  ip.saddr = 0xc0a80101;
  ip.daddr = 0xc0a80102;
  TcpHeader th;
  th.source = 5002;
  th.dest = 40000;
  th.flags = kTcpAck;
  uint8_t opts[40];
  size_t optlen = build_options(opts, true, 1, 2, nullptr, 0);
  auto pkt = build_tcp_packet(ip, th, opts, optlen, 100, true);
  CHECK_FALSE(tcp_checksum_ok(pkt.data(), pkt.size()));
  // The NIC sums from the TCP header (checksum field included, holding the pseudo sum) to the
  // end and stores the complement: the result must verify.
  uint8_t* t = pkt.data() + 20;
  size_t tcp_len = pkt.size() - 20;
  uint16_t c = csum_fold(csum_partial(t, tcp_len, 0));
  t[16] = uint8_t(c >> 8);
  t[17] = uint8_t(c);
  CHECK(tcp_checksum_ok(pkt.data(), pkt.size()));
}

TEST_CASE("SYN options are MSS, SACK-permitted + timestamp, NOP + window scale (20 bytes)",
          "[net][wire]") {
  uint8_t o[40];
  size_t n = build_syn_options(o, 1460, true, 0x01020304, 0, true, true, 0);
  REQUIRE(n == 20);
  const uint8_t expect[20] = {2, 4, 0x05, 0xb4, 4, 2, 8, 10, 1, 2, 3, 4, 0, 0, 0, 0, 1, 3, 3, 0};
  for (size_t i = 0; i < n; ++i) CHECK(o[i] == expect[i]);
  TcpOptions p;
  parse_tcp_options(o, n, true, &p);
  CHECK(p.has_mss);
  CHECK(p.mss == 1460);
  CHECK(p.sack_perm);
  CHECK(p.has_ts);
  CHECK(p.tsval == 0x01020304);
  CHECK(p.has_wscale);
  CHECK(p.wscale == 0);
  // Without SACK the timestamp is NOP-padded; without timestamps SACK_PERM is NOP-padded.
  CHECK(build_syn_options(o, 1460, true, 1, 0, false, false, 0) == 16);
  CHECK(o[4] == 1);
  CHECK(o[5] == 1);
  CHECK(build_syn_options(o, 1460, false, 0, 0, true, true, 2) == 12);
  CHECK(o[6] == 4);
  CHECK(o[11] == 2);
}

TEST_CASE("SACK blocks follow the timestamp and parse back", "[net][wire]") {
  uint8_t o[40];
  SackBlock s[3] = {{100, 200}, {300, 400}, {500, 600}};
  size_t n = build_options(o, true, 7, 8, s, 3);
  CHECK(n == 12 + 4 + 3 * 8);
  TcpOptions p;
  parse_tcp_options(o, n, false, &p);
  CHECK_FALSE(p.ts_aligned_only);
  REQUIRE(p.num_sacks == 3);
  CHECK(p.sacks[1].start_seq == 300);
  CHECK(p.sacks[2].end_seq == 600);
  // SACK blocks are ignored in a SYN; MSS is ignored outside one (tcp_parse_options).
  parse_tcp_options(o, n, true, &p);
  CHECK(p.num_sacks == 0);
}

TEST_CASE("Sequence arithmetic wraps", "[net][wire]") {
  CHECK(seq_before(0xfffffff0u, 0x10u));
  CHECK(seq_after(0x10u, 0xfffffff0u));
  CHECK_FALSE(seq_before(5, 5));
  CHECK(ipv4_to_string(ipv4_from_string("10.0.0.2")) == "10.0.0.2");
  CHECK_THROWS(ipv4_from_string("10.0.0"));
  CHECK_THROWS(ipv4_from_string("10.0.0.256"));
}

TEST_CASE("csum_partial gives the word-by-word 32-bit sum for every length, offset and start sum",
          "[net][wire]") {
  // The reference: RFC 1071 §4.1's loop over big-endian 16-bit words, the odd byte padded, the
  // 64-bit total folded to 32 bits with end-around carry (what csum_partial returned before the
  // eight-bytes-at-a-time loop).
  auto reference = [](const uint8_t* p, size_t n, uint32_t sum) {
    uint64_t s = sum;
    size_t i = 0;
    for (; i + 1 < n; i += 2) s += uint32_t(p[i]) << 8 | p[i + 1];
    if (i < n) s += uint32_t(p[i]) << 8;
    while (s >> 32) s = (s & 0xffffffffu) + (s >> 32);
    return uint32_t(s);
  };
  std::vector<uint8_t> buf(70000 + 8);
  uint32_t x = 12345;
  for (auto& b : buf) b = static_cast<uint8_t>((x = x * 1103515245u + 12345u) >> 16);
  for (size_t off : {0u, 1u, 3u, 7u})
    for (size_t n : {0u, 1u, 2u, 7u, 8u, 9u, 15u, 16u, 17u, 63u, 64u, 65u, 1448u, 1514u, 1518u, 65535u, 70000u})
      for (uint32_t start : {0u, 1u, 0xffffu, 0x7fffffffu, 0xfffffffeu, 0xffffffffu}) {
        INFO("offset " << off << " length " << n << " start sum " << start);
        CHECK(csum_partial(buf.data() + off, n, start) == reference(buf.data() + off, n, start));
      }
  // All-ones words (the largest lane increments) over more than one 8192-step block.
  std::vector<uint8_t> ones(8 * 8192 * 2 + 6, 0xff);
  CHECK(csum_partial(ones.data(), ones.size(), 0xffffffffu) == reference(ones.data(), ones.size(), 0xffffffffu));
}

}  // namespace tcp_wire_test
