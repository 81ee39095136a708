// UDP over IPv4 (Linux 2.4 net/ipv4/udp.c udp_sendmsg / udp_rcv / udp_recvmsg, ip_output.c
// ip_build_xmit); see udp.h for what is modelled.
#include "drivers-sim/net/udp.h"
#include "drivers-sim/net/ip_input.h"
#include <stdexcept>

namespace nicsim {

namespace {
/// 65535 - 20 (IP) - 8 (UDP): the largest datagram udp_sendmsg accepts (EMSGSIZE beyond).
constexpr size_t kUdpMaxPayload = 65507;
/// sizeof(struct sk_buff) + the 16-byte-aligned data of a fragment or datagram, as alloc_skb
/// charges it (skb->truesize); the NIC driver's own truesize is used when it gives one.
uint32_t truesize_of(uint32_t given, uint32_t dflt) { return given ? given : dflt; }
}  // namespace

UdpStack::UdpStack(uint32_t addr, NetMib& mib, const TcpParams& params, MessageTags* tags, std::string name)
    : mib_(&mib), p_(params), tags_(tags), name_(std::move(name)),
      port_rover_(uint16_t(params.local_port_low - 1)) {
  local_.primary = addr;
}

int UdpStack::socket() {
  auto s = std::make_unique<UdpSocket>();
  s->id = int(socks_.size());
  // sock_init_data: sk->sndbuf = sysctl_wmem_default, sk->rcvbuf = sysctl_rmem_default (65535).
  s->sndbuf = p_.core_wmem_max_bytes;
  s->rcvbuf = p_.core_rmem_max_bytes;
  socks_.push_back(std::move(s));
  return socks_.back()->id;
}

uint16_t UdpStack::next_ephemeral_port() {
  // udp_v4_get_port(sk, 0): the rover over sysctl_local_port_range, first port without a socket.
  unsigned span = unsigned(p_.local_port_high - p_.local_port_low + 1);
  for (unsigned i = 0; i < span; ++i) {
    ++port_rover_;
    if (port_rover_ < p_.local_port_low || port_rover_ > p_.local_port_high) port_rover_ = p_.local_port_low;
    if (!ports_.count(port_rover_)) return port_rover_;
  }
  throw std::runtime_error(name_ + ": no free local UDP port");
}

void UdpStack::bind(int id, uint16_t port) {
  UdpSocket& s = sock(id);
  if (port == 0) port = next_ephemeral_port();
  auto it = ports_.find(port);
  if (it != ports_.end() && it->second != id)
    throw std::runtime_error(name_ + ": UDP port " + std::to_string(port) + " is in use (EADDRINUSE)");
  if (s.lport) ports_.erase(s.lport);
  s.lport = port;
  ports_[port] = id;
}

void UdpStack::connect(int id, uint32_t daddr, uint16_t dport) {
  UdpSocket& s = sock(id);
  if (!s.lport) bind(id, 0);  // inet_autobind
  s.daddr = daddr;
  s.dport = dport;
}

TcpEffects UdpStack::send(int id, size_t bytes, uint64_t tag, TimeNs now, uint32_t daddr, uint16_t dport) {
  (void)now;
  UdpSocket& s = sock(id);
  const bool connected_dest = daddr == 0;
  if (connected_dest) {
    if (!s.daddr) throw std::logic_error(name_ + ": send on an unconnected UDP socket (EDESTADDRREQ)");
    daddr = s.daddr;
    dport = s.dport;
  }
  if (bytes > kUdpMaxPayload) throw std::invalid_argument(name_ + ": UDP datagram of " + std::to_string(bytes) +
                                                          " bytes exceeds 65507 (EMSGSIZE)");
  if (!s.lport) bind(id, 0);
  TcpEffects fx;
  fx.sock = id;
  fx.path(TcpPath::udp_sendmsg);
  Ipv4Header ip;
  ip.saddr = local_.source_for(daddr);  // ip_route_output: lo's 127.0.0.1 towards 127/8
  ip.daddr = daddr;
  ip.protocol = kIpProtoUdp;
  ip.frag_off = kIpDf;  // ip_dont_fragment: IP_PMTUDISC_WANT, MTU not locked
  const bool fragmented = kIpv4HeaderBytes + kUdpHeaderBytes + bytes > p_.mtu_bytes;
  if (fragmented)
    ip.id = peer_ip_id_[daddr]++;                 // __ip_select_ident (inet_peer)
  else
    ip.id = (s.daddr && connected_dest) ? s.ip_id++ : 0;  // ip_select_ident with DF
  std::vector<std::vector<uint8_t>> pkts = build_udp_packets(ip, s.lport, dport, bytes, p_.mtu_bytes);
  // udp_getfrag copies and checksums the user's bytes as each packet is filled.
  fx.path(TcpPath::udp_sendmsg_copy, uint32_t(bytes));
  const MessageTags::Flow f = flow(ip.saddr, s.lport, daddr, dport);
  uint64_t n = sent_[f]++;
  if (tags_ && tag) {
    tags_->begin(f, n, tag);
    tags_->end(f, n + 1);
  }
  for (size_t i = 0; i < pkts.size(); ++i) {
    fx.path(TcpPath::ip_build_xmit_skb);
    TcpTxPacket t;
    const size_t data = pkts[i].size() - kIpv4HeaderBytes;
    t.payload_bytes = uint32_t(i + 1 == pkts.size() ? data - kUdpHeaderBytes : data);  // the offset-0 one is last
    t.ip = std::move(pkts[i]);
    t.sock = id;
    // The message's first byte rides in the offset-0 fragment (sent last); every packet of it
    // carries the journey so the device marks it.
    t.journey = tag;
    fx.tx.push_back(std::move(t));
  }
  ++(*mib_)[IpMib::OutRequests];
  if (fx.tx.size() > 1) {
    (*mib_)[IpMib::FragCreates] += fx.tx.size();
    ++(*mib_)[IpMib::FragOKs];
  }
  ++(*mib_)[UdpMib::OutDatagrams];
  fx.accepted = bytes;
  return fx;
}

int UdpStack::lookup(uint32_t saddr, uint16_t sport, uint16_t dport) const {
  // udp_v4_lookup: the socket bound to dport; a connected one only for its peer.
  auto it = ports_.find(dport);
  if (it == ports_.end()) return -1;
  const UdpSocket& s = sock(it->second);
  if (s.daddr && (s.daddr != saddr || s.dport != sport)) return -1;
  return s.id;
}

uint64_t UdpStack::journey_of(const uint8_t* p, size_t len) const {
  if (!tags_) return 0;
  Ipv4Header ip;
  if (!parse_ipv4_header(p, len, &ip, nullptr) || ip.protocol != kIpProtoUdp) return 0;
  if (ip.frag_off & kIpOffsetMask) return 0;  // only the offset-0 packet has the UDP header
  if (ip.tot_len < size_t(ip.ihl_bytes) + kUdpHeaderBytes) return 0;
  const uint16_t sport = uint16_t(p[ip.ihl_bytes] << 8 | p[ip.ihl_bytes + 1]);
  const uint16_t dport = uint16_t(p[ip.ihl_bytes + 2] << 8 | p[ip.ihl_bytes + 3]);
  const MessageTags::Flow f = flow(ip.saddr, sport, ip.daddr, dport);
  auto it = received_.find(f);
  return tags_->tag_at(f, it == received_.end() ? 0 : it->second);
}

TcpEffects UdpStack::on_ip_packet(const uint8_t* p, size_t len, TimeNs now, uint32_t truesize, bool csum_unnecessary) {
  TcpEffects fx;
  Ipv4Header ip;
  if (!ip_rcv_checks(p, len, local_, *mib_, fx, &ip)) return fx;
  const uint32_t skb_truesize = truesize_of(truesize, p_.rx_truesize_default_bytes);
  std::vector<uint8_t> whole;
  unsigned skbs = 1;
  if (ip.frag_off & (kIpMf | kIpOffsetMask)) {
    // ip_local_deliver -> ip_defrag
    fx.path(TcpPath::ip_defrag);
    auto d = defrag_.add(p, len, ip, now, *mib_, &skbs);
    if (!d) {
      fx.dropped = false;  // queued, not dropped: the fragment's skb now belongs to the queue
      return fx;
    }
    whole = std::move(*d);
    p = whole.data();
    len = whole.size();
    parse_ipv4_header(p, len, &ip, nullptr);
    csum_unnecessary = false;  // ip_frag_reasm: ip_summed = CHECKSUM_NONE unless all were HW
  }
  if (ip.protocol != kIpProtoUdp) {
    ++(*mib_)[IpMib::InUnknownProtos];
    fx.dropped = true;
    return fx;
  }
  ++(*mib_)[IpMib::InDelivers];
  fx.path(TcpPath::udp_rcv);
  UdpHeader uh;
  const uint8_t* u = p + ip.ihl_bytes;
  const size_t ulen = ip.tot_len - ip.ihl_bytes;
  if (!parse_udp_header(u, ulen, &uh)) {
    ++(*mib_)[UdpMib::InErrors];  // udp_rcv: short packet / length mismatch
    fx.dropped = true;
    return fx;
  }
  int id = lookup(ip.saddr, uh.source, uh.dest);
  if (id < 0) {
    ++(*mib_)[UdpMib::NoPorts];  // icmp_send(ICMP_PORT_UNREACH) is not modelled
    fx.dropped = true;
    return fx;
  }
  UdpSocket& s = sock(id);
  fx.sock = id;
  const uint32_t ts = skb_truesize * skbs;
  // sock_queue_rcv_skb: refuse when rmem_alloc + truesize >= rcvbuf.
  if (s.rmem_alloc + ts >= s.rcvbuf) {
    ++(*mib_)[UdpMib::InErrors];  // udp_queue_rcv_skb: UdpInErrors, IpInDiscards, IpInDelivers--
    ++(*mib_)[IpMib::InDiscards];
    --(*mib_)[IpMib::InDelivers];
    fx.dropped = true;
    return fx;
  }
  UdpDatagram d;
  d.saddr = ip.saddr;
  d.sport = uh.source;
  d.bytes = uint32_t(uh.len - kUdpHeaderBytes);
  d.truesize = ts;
  d.skbs = skbs;
  d.csum_needed = !csum_unnecessary && uh.check != 0;
  d.csum_ok = d.csum_needed ? udp_checksum_ok(p, len) : true;
  const MessageTags::Flow f = flow(ip.saddr, uh.source, ip.daddr, uh.dest);
  uint64_t n = received_[f]++;
  if (tags_) {
    d.tag = tags_->tag_at(f, n);
    std::vector<uint64_t> gone;
    tags_->delivered(f, n + 1, &gone);  // this one and any lost before it
  }
  s.rmem_alloc += ts;
  s.rxq.push_back(d);
  ++(*mib_)[UdpMib::InDatagrams];
  fx.wake_reader = true;  // sk->data_ready = sock_def_readable
  return fx;
}

TcpEffects UdpStack::recv(int id, size_t max, TimeNs now) {
  (void)now;
  UdpSocket& s = sock(id);
  TcpEffects fx;
  fx.sock = id;
  fx.path(TcpPath::udp_recvmsg);
  while (!s.rxq.empty()) {
    UdpDatagram d = s.rxq.front();
    s.rxq.pop_front();
    s.rmem_alloc -= d.truesize;
    const uint32_t copied = uint32_t(std::min<size_t>(max, d.bytes));
    fx.path(TcpPath::udp_recvmsg_copy, copied);
    // skb_copy_and_csum_datagram_iovec checksums the whole datagram while copying.
    if (d.csum_needed) fx.path(TcpPath::rx_csum, d.bytes + uint32_t(kUdpHeaderBytes));
    // skb_free_datagram: charged by the glue when the received skbs are released (InetHost::ip_rcv
    // frees the model's skb as soon as its bytes are queued here), so not reported again.
    if (!d.csum_ok) {
      ++(*mib_)[UdpMib::InErrors];  // csum_copy_err (InDatagrams stays as counted at queueing)
      continue;
    }
    s.last_saddr = d.saddr;
    s.last_sport = d.sport;
    fx.delivered = copied;
    if (d.tag) fx.completed_tags.push_back(d.tag);
    return fx;
  }
  fx.would_block = true;
  return fx;
}

}  // namespace nicsim
