#include "drivers-sim/net/wire.h"
#include "core/fidelity.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace nicsim {

namespace {
inline void put16(uint8_t* p, uint16_t v) { p[0] = uint8_t(v >> 8); p[1] = uint8_t(v); }
inline void put32(uint8_t* p, uint32_t v) {
  p[0] = uint8_t(v >> 24); p[1] = uint8_t(v >> 16); p[2] = uint8_t(v >> 8); p[3] = uint8_t(v);
}
inline uint16_t get16(const uint8_t* p) { return uint16_t(p[0] << 8 | p[1]); }
inline uint32_t get32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}
}  // namespace

uint32_t csum_partial(const uint8_t* p, size_t n, uint32_t sum) {
  uint64_t s = sum;
  size_t i = 0;
  // Eight bytes at a time: the four big-endian 16-bit words of a 64-bit load are summed in two
  // 32-bit lanes (words 0 and 2 in one, 1 and 3 in the other), which cannot carry into each other
  // for fewer than 2^15 steps; the lanes are added into `s` every 8192 steps. The result is the
  // same 32-bit value as the word-by-word loop below (the plain sum of the words, then folded).
  constexpr uint64_t kLanes = 0x0000ffff0000ffffull;
  while (i + 8 <= n) {
    uint64_t acc = 0;
    for (size_t k = 0; k < 8192 && i + 8 <= n; ++k, i += 8) {
      uint64_t v;
      std::memcpy(&v, p + i, 8);
      v = __builtin_bswap64(v);
      acc += (v & kLanes) + ((v >> 16) & kLanes);
    }
    s += (acc & 0xffffffffu) + (acc >> 32);
  }
  for (; i + 1 < n; i += 2) s += uint32_t(p[i]) << 8 | p[i + 1];
  if (i < n) s += uint32_t(p[i]) << 8;
  while (s >> 32) s = (s & 0xffffffffu) + (s >> 32);
  return uint32_t(s);
}

uint16_t csum_fold(uint32_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return uint16_t(~sum);
}

uint32_t pseudo_header_sum(uint32_t saddr, uint32_t daddr, uint8_t protocol, uint16_t length) {
  uint64_t s = (saddr >> 16) + (saddr & 0xffff) + (daddr >> 16) + (daddr & 0xffff) +
               uint32_t(protocol) + length;
  while (s >> 32) s = (s & 0xffffffffu) + (s >> 32);
  return uint32_t(s);
}

void put_eth_header(uint8_t* p, const EthHeader& h) {
  std::memcpy(p, h.dst.data(), 6);
  std::memcpy(p + 6, h.src.data(), 6);
  put16(p + 12, h.ethertype);
}

bool parse_eth_header(const uint8_t* p, size_t len, EthHeader* out) {
  if (len < kEthHeaderBytes) return false;
  std::memcpy(out->dst.data(), p, 6);
  std::memcpy(out->src.data(), p + 6, 6);
  out->ethertype = get16(p + 12);
  return true;
}

void put_ipv4_header(uint8_t* p, const Ipv4Header& h) {
  p[0] = 0x45;  // version 4, IHL 5
  p[1] = h.tos;
  put16(p + 2, h.tot_len);
  put16(p + 4, h.id);
  put16(p + 6, h.frag_off);
  p[8] = h.ttl;
  p[9] = h.protocol;
  put16(p + 10, 0);
  put32(p + 12, h.saddr);
  put32(p + 16, h.daddr);
  put16(p + 10, inet_checksum(p, kIpv4HeaderBytes));
}

bool parse_ipv4_header(const uint8_t* p, size_t len, Ipv4Header* out, bool* csum_ok) {
  if (len < kIpv4HeaderBytes || (p[0] >> 4) != 4) return false;
  unsigned ihl = (p[0] & 0xf) * 4u;
  if (ihl < kIpv4HeaderBytes || ihl > len) return false;
  out->ihl_bytes = uint8_t(ihl);
  out->tos = p[1];
  out->tot_len = get16(p + 2);
  out->id = get16(p + 4);
  out->frag_off = get16(p + 6);
  out->ttl = p[8];
  out->protocol = p[9];
  out->check = get16(p + 10);
  out->saddr = get32(p + 12);
  out->daddr = get32(p + 16);
  if (out->tot_len < ihl || out->tot_len > len) return false;
  if (csum_ok) *csum_ok = csum_fold(csum_partial(p, ihl, 0)) == 0;
  return true;
}

size_t build_syn_options(uint8_t* out, uint16_t mss, bool ts, uint32_t tsval, uint32_t tsecr,
                         bool sack, bool wscale, uint8_t rcv_wscale) {
  size_t n = 0;
  out[n++] = kTcpOptMss; out[n++] = 4; put16(out + n, mss); n += 2;
  if (ts) {
    if (sack) { out[n++] = kTcpOptSackPerm; out[n++] = 2; }
    else { out[n++] = kTcpOptNop; out[n++] = kTcpOptNop; }
    out[n++] = kTcpOptTimestamp; out[n++] = 10;
    put32(out + n, tsval); n += 4;
    put32(out + n, tsecr); n += 4;
  } else if (sack) {
    out[n++] = kTcpOptNop; out[n++] = kTcpOptNop; out[n++] = kTcpOptSackPerm; out[n++] = 2;
  }
  if (wscale) {
    out[n++] = kTcpOptNop; out[n++] = kTcpOptWscale; out[n++] = 3; out[n++] = rcv_wscale;
  }
  return n;
}

size_t build_options(uint8_t* out, bool ts, uint32_t tsval, uint32_t tsecr, const SackBlock* sacks,
                     unsigned nsacks) {
  size_t n = 0;
  if (ts) {
    out[n++] = kTcpOptNop; out[n++] = kTcpOptNop; out[n++] = kTcpOptTimestamp; out[n++] = 10;
    put32(out + n, tsval); n += 4;
    put32(out + n, tsecr); n += 4;
  }
  if (nsacks) {
    out[n++] = kTcpOptNop; out[n++] = kTcpOptNop; out[n++] = kTcpOptSack;
    out[n++] = uint8_t(2 + nsacks * kTcpSackPerBlockBytes);
    for (unsigned i = 0; i < nsacks; ++i) {
      put32(out + n, sacks[i].start_seq); n += 4;
      put32(out + n, sacks[i].end_seq); n += 4;
    }
  }
  return n;
}

void parse_tcp_options(const uint8_t* opt, size_t len, bool syn, TcpOptions* o) {
  *o = TcpOptions{};
  o->ts_aligned_only = len == kTcpTsOptionAlignedBytes && opt[0] == kTcpOptNop &&
                       opt[1] == kTcpOptNop && opt[2] == kTcpOptTimestamp && opt[3] == 10;
  size_t i = 0;
  while (i < len) {
    uint8_t kind = opt[i];
    if (kind == kTcpOptEol) return;
    if (kind == kTcpOptNop) { ++i; continue; }
    if (i + 1 >= len) return;
    uint8_t olen = opt[i + 1];
    if (olen < 2 || i + olen > len) return;  // "don't parse partial options"
    const uint8_t* d = opt + i + 2;
    switch (kind) {
      case kTcpOptMss:
        if (olen == 4 && syn) { o->has_mss = true; o->mss = get16(d); }
        break;
      case kTcpOptWscale:
        if (olen == 3 && syn) { o->has_wscale = true; o->wscale = d[0] > 14 ? 14 : d[0]; }
        break;
      case kTcpOptTimestamp:
        if (olen == 10) { o->has_ts = true; o->tsval = get32(d); o->tsecr = get32(d + 4); }
        break;
      case kTcpOptSackPerm:
        if (olen == 2 && syn) o->sack_perm = true;
        break;
      case kTcpOptSack:
        if (!syn && olen >= 2 + kTcpSackPerBlockBytes && (olen - 2) % kTcpSackPerBlockBytes == 0) {
          unsigned nb = (olen - 2) / kTcpSackPerBlockBytes;
          if (nb > 4) nb = 4;
          o->num_sacks = uint8_t(nb);
          for (unsigned b = 0; b < nb; ++b) {
            o->sacks[b].start_seq = get32(d + 8 * b);
            o->sacks[b].end_seq = get32(d + 8 * b + 4);
          }
        }
        break;
      default: break;
    }
    i += olen;
  }
}

void put_tcp_header(uint8_t* p, const TcpHeader& h) {
  put16(p, h.source);
  put16(p + 2, h.dest);
  put32(p + 4, h.seq);
  put32(p + 8, h.ack_seq);
  p[12] = uint8_t((h.doff_bytes / 4) << 4);
  p[13] = h.flags;
  put16(p + 14, h.window);
  put16(p + 16, h.check);
  put16(p + 18, h.urg_ptr);
}

bool parse_tcp_header(const uint8_t* p, size_t len, TcpHeader* out) {
  if (len < kTcpHeaderBytes) return false;
  out->source = get16(p);
  out->dest = get16(p + 2);
  out->seq = get32(p + 4);
  out->ack_seq = get32(p + 8);
  out->doff_bytes = uint8_t((p[12] >> 4) * 4);
  out->flags = p[13];
  out->window = get16(p + 14);
  out->check = get16(p + 16);
  out->urg_ptr = get16(p + 18);
  return out->doff_bytes >= kTcpHeaderBytes && out->doff_bytes <= len;
}

std::vector<uint8_t> build_tcp_packet(Ipv4Header ip, TcpHeader th, const uint8_t* opts,
                                      size_t optlen, size_t payload_len, bool hw_csum) {
  const size_t tcp_len = kTcpHeaderBytes + optlen + payload_len;
  std::vector<uint8_t> pkt(kIpv4HeaderBytes + tcp_len, 0);
  ip.tot_len = uint16_t(pkt.size());
  ip.protocol = kIpProtoTcp;
  put_ipv4_header(pkt.data(), ip);
  uint8_t* t = pkt.data() + kIpv4HeaderBytes;
  th.doff_bytes = uint8_t(kTcpHeaderBytes + optlen);
  th.check = 0;
  put_tcp_header(t, th);
  if (optlen) std::memcpy(t + kTcpHeaderBytes, opts, optlen);
  uint32_t pseudo = pseudo_header_sum(ip.saddr, ip.daddr, kIpProtoTcp, uint16_t(tcp_len));
  uint16_t check;
  if (hw_csum) {
    check = uint16_t(~csum_fold(pseudo));  // ~tcp_v4_check(th, len, saddr, daddr, 0)
  } else {
    // The payload is zeros and adds nothing to the one's-complement sum.
    check = csum_fold(csum_partial(t, kTcpHeaderBytes + optlen, pseudo));
  }
  put16(t + 16, check);
  return pkt;
}

bool tcp_checksum_ok(const uint8_t* p, size_t len) {
  Ipv4Header ip;
  if (!parse_ipv4_header(p, len, &ip, nullptr)) return false;
  const uint8_t* t = p + ip.ihl_bytes;
  size_t tcp_len = ip.tot_len - ip.ihl_bytes;
  uint32_t s = pseudo_header_sum(ip.saddr, ip.daddr, ip.protocol, uint16_t(tcp_len));
  // Fast mode (core/fidelity.h): the sum covers the TCP header and options only; exact mode sums
  // every byte of the segment (2 % of a bulk stream's instructions, bench/README.md). The verdict
  // is the same: the model's TCP payload bytes are zeros (build_tcp_packet; applications' data is
  // not carried), and zeros add nothing to the one's-complement sum. The CPU time of the
  // checksum is the cost table's csum_partial entry either way (TcpPath::rx_csum).
  size_t n = tcp_len;
  if (run_fidelity() == Fidelity::Fast && tcp_len >= kTcpHeaderBytes) {
    const size_t doff = size_t(t[12] >> 4) * 4;
    if (doff >= kTcpHeaderBytes && doff <= tcp_len) n = doff;
  }
  return csum_fold(csum_partial(t, n, s)) == 0;
}

void put_udp_header(uint8_t* p, const UdpHeader& h) {
  put16(p, h.source);
  put16(p + 2, h.dest);
  put16(p + 4, h.len);
  put16(p + 6, h.check);
}

bool parse_udp_header(const uint8_t* p, size_t len, UdpHeader* out) {
  if (len < kUdpHeaderBytes) return false;
  out->source = get16(p);
  out->dest = get16(p + 2);
  out->len = get16(p + 4);
  out->check = get16(p + 6);
  return out->len >= kUdpHeaderBytes && out->len <= len;
}

std::vector<std::vector<uint8_t>> build_udp_packets(Ipv4Header ip, uint16_t sport, uint16_t dport,
                                                    size_t payload_len, uint32_t mtu) {
  const size_t udp_len = kUdpHeaderBytes + payload_len;
  if (udp_len + kIpv4HeaderBytes > 0xffff) throw std::invalid_argument("UDP datagram larger than 65535 bytes (EMSGSIZE)");
  if (mtu < kIpv4HeaderBytes + kUdpHeaderBytes + 8) throw std::invalid_argument("MTU too small for a UDP datagram");
  ip.protocol = kIpProtoUdp;
  // The datagram's bytes: header + zero payload, checksum over both and the pseudo header.
  std::vector<uint8_t> udp(udp_len, 0);
  UdpHeader uh{sport, dport, uint16_t(udp_len), 0};
  put_udp_header(udp.data(), uh);
  uint16_t check = csum_fold(csum_partial(udp.data(), kUdpHeaderBytes,
                                          pseudo_header_sum(ip.saddr, ip.daddr, kIpProtoUdp, uint16_t(udp_len))));
  put16(udp.data() + 6, check == 0 ? 0xffff : check);
  std::vector<std::vector<uint8_t>> out;
  auto emit = [&](size_t off, size_t n, bool mf) {
    std::vector<uint8_t> pkt(kIpv4HeaderBytes + n);
    Ipv4Header h = ip;
    h.tot_len = uint16_t(pkt.size());
    h.frag_off = uint16_t((ip.frag_off & kIpDf) | (mf ? kIpMf : 0) | ((off >> 3) & kIpOffsetMask));
    put_ipv4_header(pkt.data(), h);
    std::memcpy(pkt.data() + kIpv4HeaderBytes, udp.data() + off, n);
    out.push_back(std::move(pkt));
  };
  if (udp_len + kIpv4HeaderBytes <= mtu) {
    emit(0, udp_len, false);
    return out;
  }
  const size_t per = (mtu - kIpv4HeaderBytes) & ~size_t(7);
  // ip_build_xmit_slow: offset = length - length % per (the last fragment's start; a multiple
  // of per when the data divides evenly, then the last fragment is a full one).
  size_t off = udp_len - udp_len % per;
  if (off == udp_len) off -= per;
  bool mf = false;
  for (;;) {
    emit(off, std::min(per, udp_len - off), mf);
    mf = true;
    if (off == 0) break;
    off -= per;
  }
  return out;
}

bool udp_checksum_ok(const uint8_t* p, size_t len) {
  Ipv4Header ip;
  if (!parse_ipv4_header(p, len, &ip, nullptr)) return false;
  const uint8_t* u = p + ip.ihl_bytes;
  size_t udp_len = ip.tot_len - ip.ihl_bytes;
  UdpHeader uh;
  if (!parse_udp_header(u, udp_len, &uh)) return false;
  if (uh.check == 0) return true;
  uint32_t s = pseudo_header_sum(ip.saddr, ip.daddr, kIpProtoUdp, uh.len);
  return csum_fold(csum_partial(u, uh.len, s)) == 0;
}

bool parse_tcp_packet(const uint8_t* p, size_t len, ParsedTcpPacket* out) {
  bool csum_ok = false;
  if (!parse_ipv4_header(p, len, &out->ip, &csum_ok)) return false;
  if (out->ip.protocol != kIpProtoTcp) return false;
  const uint8_t* t = p + out->ip.ihl_bytes;
  size_t tcp_len = out->ip.tot_len - out->ip.ihl_bytes;
  if (!parse_tcp_header(t, tcp_len, &out->th)) return false;
  parse_tcp_options(t + kTcpHeaderBytes, out->th.doff_bytes - kTcpHeaderBytes,
                    (out->th.flags & kTcpSyn) != 0, &out->opt);
  out->tcp_len = uint32_t(tcp_len);
  out->payload_len = uint32_t(tcp_len - out->th.doff_bytes);
  return true;
}

uint32_t ipv4_from_string(const std::string& s) {
  uint32_t a = 0;
  unsigned parts = 0, cur = 0, digits = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == '.') {
      if (digits == 0 || cur > 255) throw std::invalid_argument("bad IPv4 address: " + s);
      a = a << 8 | cur;
      ++parts; cur = 0; digits = 0;
    } else if (s[i] >= '0' && s[i] <= '9' && digits < 3) {
      cur = cur * 10 + unsigned(s[i] - '0');
      ++digits;
    } else {
      throw std::invalid_argument("bad IPv4 address: " + s);
    }
  }
  if (parts != 4) throw std::invalid_argument("bad IPv4 address: " + s);
  return a;
}

std::string ipv4_to_string(uint32_t a) {
  return std::to_string(a >> 24) + "." + std::to_string((a >> 16) & 255) + "." +
         std::to_string((a >> 8) & 255) + "." + std::to_string(a & 255);
}

}  // namespace nicsim
