// Real header bytes for Ethernet II, IPv4 and TCP, as Linux 2.4 writes them: pure builders and
// parsers, the Internet checksum (RFC 1071) and TCP sequence arithmetic. No SystemC.
//
// Layouts: Ethernet II (IEEE 802.3 clause 3, 14 bytes), IPv4 (RFC 791, 20 bytes, no options),
// TCP (RFC 793, 20 bytes + options). Option encodings follow Linux 2.4 include/net/tcp.h:
// tcp_syn_build_options() for SYN / SYN-ACK and tcp_build_and_update_options() for all other
// segments (NOP,NOP,TIMESTAMP = 12 bytes; NOP,NOP,SACK with 8 bytes per block).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace nicsim {

constexpr size_t kEthHeaderBytes = 14;          ///< dst MAC, src MAC, EtherType (802.3 clause 3)
constexpr size_t kIpv4HeaderBytes = 20;         ///< RFC 791 header without options (IHL = 5)
constexpr size_t kTcpHeaderBytes = 20;          ///< RFC 793 header without options (doff = 5)
constexpr size_t kTcpTsOptionAlignedBytes = 12; ///< TCPOLEN_TSTAMP_ALIGNED: NOP,NOP,TS(10)
constexpr size_t kTcpSackBaseAlignedBytes = 4;  ///< TCPOLEN_SACK_BASE_ALIGNED: NOP,NOP,kind,len
constexpr size_t kTcpSackPerBlockBytes = 8;     ///< TCPOLEN_SACK_PERBLOCK
constexpr uint16_t kEtherTypeIpv4 = 0x0800;
constexpr uint8_t kIpProtoTcp = 6;
constexpr uint16_t kIpDf = 0x4000;              ///< IP_DF in frag_off (host order)
constexpr uint16_t kIpMf = 0x2000;              ///< IP_MF in frag_off (host order)
constexpr uint16_t kIpOffsetMask = 0x1fff;      ///< IP_OFFSET: fragment offset in 8-byte units
constexpr uint8_t kIpProtoUdp = 17;
constexpr size_t kUdpHeaderBytes = 8;           ///< RFC 768 header

// TCP header flag bits (RFC 793 / RFC 3168), in the 13th byte of the header.
constexpr uint8_t kTcpFin = 0x01, kTcpSyn = 0x02, kTcpRst = 0x04, kTcpPsh = 0x08, kTcpAck = 0x10,
                  kTcpUrg = 0x20, kTcpEce = 0x40, kTcpCwr = 0x80;

// TCP option kinds (RFC 793, 1323, 2018).
constexpr uint8_t kTcpOptEol = 0, kTcpOptNop = 1, kTcpOptMss = 2, kTcpOptWscale = 3,
                  kTcpOptSackPerm = 4, kTcpOptSack = 5, kTcpOptTimestamp = 8;

/// seq1 is before seq2 in 32-bit sequence space (Linux before()).
inline bool seq_before(uint32_t seq1, uint32_t seq2) { return int32_t(seq1 - seq2) < 0; }
/// seq2 is before seq1 (Linux after()).
inline bool seq_after(uint32_t seq1, uint32_t seq2) { return seq_before(seq2, seq1); }

/// One's-complement sum of `n` bytes (big-endian 16-bit words, odd byte padded) added to `sum`;
/// unfolded 32-bit accumulator (Linux csum_partial semantics).
uint32_t csum_partial(const uint8_t* p, size_t n, uint32_t sum);
/// Fold a 32-bit accumulator to 16 bits and complement it (Linux csum_fold).
uint16_t csum_fold(uint32_t sum);
/// The Internet checksum (RFC 1071) of `n` bytes: csum_fold(csum_partial(p, n, 0)).
inline uint16_t inet_checksum(const uint8_t* p, size_t n) { return csum_fold(csum_partial(p, n, 0)); }
/// Unfolded sum of the TCP/UDP pseudo header (saddr, daddr, zero, protocol, length).
uint32_t pseudo_header_sum(uint32_t saddr, uint32_t daddr, uint8_t protocol, uint16_t length);

using MacAddr = std::array<uint8_t, 6>;

struct EthHeader {
  MacAddr dst{};
  MacAddr src{};
  uint16_t ethertype = kEtherTypeIpv4;
};
/// Write a 14-byte Ethernet II header at `p`.
void put_eth_header(uint8_t* p, const EthHeader& h);
/// Parse a 14-byte Ethernet II header; false when `len` < 14.
bool parse_eth_header(const uint8_t* p, size_t len, EthHeader* out);

struct Ipv4Header {
  uint8_t ihl_bytes = kIpv4HeaderBytes;  ///< header length in bytes (IHL * 4)
  uint8_t tos = 0;
  uint16_t tot_len = 0;                  ///< header + payload, bytes
  uint16_t id = 0;
  uint16_t frag_off = kIpDf;             ///< flags + fragment offset (host order)
  uint8_t ttl = 64;                      ///< sysctl_ip_default_ttl = IPDEFTTL (include/linux/ip.h)
  uint8_t protocol = kIpProtoTcp;
  uint16_t check = 0;                    ///< header checksum as found on the wire
  uint32_t saddr = 0;                    ///< host order
  uint32_t daddr = 0;                    ///< host order
};
/// Write a 20-byte IPv4 header (no options) at `p`, computing the header checksum.
void put_ipv4_header(uint8_t* p, const Ipv4Header& h);
/// Parse an IPv4 header. Returns false when the bytes are not a well-formed IPv4 header
/// (version != 4, IHL < 5, tot_len outside [ihl, len]); `*csum_ok` tells whether the header
/// checksum verifies.
bool parse_ipv4_header(const uint8_t* p, size_t len, Ipv4Header* out, bool* csum_ok);

struct SackBlock {
  uint32_t start_seq = 0;
  uint32_t end_seq = 0;
};

/// TCP options as tcp_parse_options() (tcp_input.c) extracts them.
struct TcpOptions {
  bool has_mss = false;
  uint16_t mss = 0;
  bool sack_perm = false;
  bool has_ts = false;
  uint32_t tsval = 0;
  uint32_t tsecr = 0;
  bool has_wscale = false;
  uint8_t wscale = 0;
  uint8_t num_sacks = 0;
  std::array<SackBlock, 4> sacks{};
  /// The options are exactly NOP,NOP,TIMESTAMP (the header-prediction layout, tcp_rcv_established).
  bool ts_aligned_only = false;
};

struct TcpHeader {
  uint16_t source = 0;
  uint16_t dest = 0;
  uint32_t seq = 0;
  uint32_t ack_seq = 0;
  uint8_t doff_bytes = kTcpHeaderBytes;  ///< header length incl. options, bytes
  uint8_t flags = 0;                     ///< kTcpFin | kTcpSyn | ...
  uint16_t window = 0;                   ///< raw 16-bit field (unscaled)
  uint16_t check = 0;
  uint16_t urg_ptr = 0;
};

/// Option bytes of a SYN or SYN-ACK in Linux 2.4's order (tcp_syn_build_options):
/// MSS; then SACK_PERM+TIMESTAMP packed (or NOP,NOP,TIMESTAMP without SACK, or NOP,NOP,SACK_PERM
/// without timestamps); then NOP,WSCALE when window scaling is offered. Returns the bytes written
/// (a multiple of 4: 20 with everything on). `out` needs 40 bytes.
size_t build_syn_options(uint8_t* out, uint16_t mss, bool ts, uint32_t tsval, uint32_t tsecr,
                         bool sack, bool wscale, uint8_t rcv_wscale);
/// Option bytes of a non-SYN segment (tcp_build_and_update_options): NOP,NOP,TIMESTAMP when `ts`,
/// then NOP,NOP,SACK with `nsacks` blocks. Returns the bytes written; `out` needs 40 bytes.
size_t build_options(uint8_t* out, bool ts, uint32_t tsval, uint32_t tsecr, const SackBlock* sacks,
                     unsigned nsacks);
/// Parse `len` option bytes (tcp_parse_options). Malformed options end the parse silently, as in
/// Linux; SACK blocks are only read when not a SYN (`syn` false).
void parse_tcp_options(const uint8_t* opt, size_t len, bool syn, TcpOptions* out);

/// Write a TCP header (without options) at `p`; `h.check` is written as given.
void put_tcp_header(uint8_t* p, const TcpHeader& h);
/// Parse the fixed TCP header; false when `len` < 20 or doff < 20 or doff > len.
bool parse_tcp_header(const uint8_t* p, size_t len, TcpHeader* out);

/// Build a complete IPv4+TCP packet: `ip` header fields (tot_len is computed), `th` (doff is
/// computed from `optlen`), `optlen` option bytes from `opts`, then `payload_len` payload bytes
/// (zeros: no model reads NetPIPE's payload). The TCP checksum is complete when `hw_csum` is
/// false; with `hw_csum` it holds only the folded pseudo-header sum, as Linux leaves it for a NIC
/// with NETIF_F_HW_CSUM (tcp_v4_send_check, CHECKSUM_HW), to be completed by the NIC.
std::vector<uint8_t> build_tcp_packet(Ipv4Header ip, TcpHeader th, const uint8_t* opts,
                                      size_t optlen, size_t payload_len, bool hw_csum);
/// The TCP checksum over an IPv4 packet's TCP segment verifies (pseudo header included).
bool tcp_checksum_ok(const uint8_t* ip_packet, size_t len);

/// A parsed IPv4/TCP packet.
struct ParsedTcpPacket {
  Ipv4Header ip;
  TcpHeader th;
  TcpOptions opt;
  uint32_t payload_len = 0;  ///< TCP payload bytes
  uint32_t tcp_len = 0;      ///< TCP header + payload bytes
};
/// Parse an IPv4 packet carrying TCP. Returns false when either header is malformed or the
/// protocol is not TCP. Checksums are not verified here.
bool parse_tcp_packet(const uint8_t* p, size_t len, ParsedTcpPacket* out);

/// RFC 768 UDP header (host order).
struct UdpHeader {
  uint16_t source = 0;
  uint16_t dest = 0;
  uint16_t len = 0;    ///< header + payload, bytes
  uint16_t check = 0;  ///< 0: no checksum (a computed 0 is sent as 0xffff, udp_sendmsg)
};
void put_udp_header(uint8_t* p, const UdpHeader& h);
/// Parse the 8-byte UDP header; false when `len` < 8 or the header's len is outside [8, len].
bool parse_udp_header(const uint8_t* p, size_t len, UdpHeader* out);

/// The IPv4 packets of one UDP datagram as Linux 2.4's ip_build_xmit emits them
/// (net/ipv4/ip_output.c, LH@2.4.16 liexusong/Linux-2.4.16): one packet when 20 + 8 +
/// `payload_len` fits `mtu`; otherwise ip_build_xmit_slow's fragments of (mtu - 20) & ~7 data
/// bytes each, built and returned LAST FRAGMENT FIRST ("Start at the end of the frame by handling
/// the remainder"), MF on all but the last, `ip.frag_off`'s DF bit kept on every fragment as the
/// code does. `ip.id` is written into every packet; `ip.protocol` is set to UDP. The UDP checksum
/// (pseudo header included, udp_getfrag's csum_partial_copy_fromiovecend) covers the whole
/// datagram; the payload is zeros. Throws std::invalid_argument when the datagram exceeds 65535
/// bytes of IP (EMSGSIZE) or `mtu` < 28 + 8.
std::vector<std::vector<uint8_t>> build_udp_packets(Ipv4Header ip, uint16_t sport, uint16_t dport,
                                                    size_t payload_len, uint32_t mtu);
/// The UDP checksum of a complete (unfragmented or reassembled) IPv4/UDP datagram verifies, or it
/// carries none (check 0).
bool udp_checksum_ok(const uint8_t* ip_packet, size_t len);

/// "10.0.0.1" -> host-order address; throws std::invalid_argument on malformed input.
uint32_t ipv4_from_string(const std::string& s);
/// Host-order address -> dotted quad.
std::string ipv4_to_string(uint32_t a);

}  // namespace nicsim
