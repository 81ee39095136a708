// One host's TCP/IPv4 input, demultiplexing and socket calls (Linux 2.4 net/ipv4/ip_input.c,
// tcp_ipv4.c, tcp.c, tcp_minisocks.c).
#include "drivers-sim/net/tcp_stack.h"
#include "drivers-sim/net/ip_input.h"

#include <stdexcept>

namespace nicsim {

const char* tcp_path_name(TcpPath p) {
  static const char* const n[] = {"ip_rcv",
                                  "tcp_v4_rcv",
                                  "rx_csum",
                                  "tcp_prequeue",
                                  "sk_add_backlog",
                                  "tcp_rcv_established_fast_ack",
                                  "tcp_rcv_established_fast_data",
                                  "tcp_copy_to_iovec",
                                  "tcp_rcv_established_slow",
                                  "tcp_ofo_queue",
                                  "tcp_rcv_state_process",
                                  "tcp_conn_request",
                                  "tcp_ack_clean_rtx",
                                  "tcp_send_ack",
                                  "tcp_transmit_skb",
                                  "tcp_retransmit_skb",
                                  "tcp_sendmsg",
                                  "tcp_sendmsg_copy",
                                  "tcp_alloc_skb",
                                  "tcp_recvmsg",
                                  "tcp_recvmsg_copy",
                                  "tcp_prequeue_process",
                                  "tcp_backlog_process",
                                  "kfree_skb_rx",
                                  "tcp_delack_timer",
                                  "tcp_write_timer",
                                  "tcp_send_reset",
                                  "udp_sendmsg",
                                  "udp_sendmsg_copy",
                                  "ip_build_xmit_skb",
                                  "ip_defrag",
                                  "udp_rcv",
                                  "udp_recvmsg",
                                  "udp_recvmsg_copy"};
  static_assert(sizeof(n) / sizeof(n[0]) == size_t(TcpPath::Count));
  return n[size_t(p)];
}

void TcpEffects::merge(TcpEffects&& o) {
  for (auto& t : o.tx) tx.push_back(std::move(t));
  timers.insert(timers.end(), o.timers.begin(), o.timers.end());
  paths.insert(paths.end(), o.paths.begin(), o.paths.end());
  completed_tags.insert(completed_tags.end(), o.completed_tags.begin(), o.completed_tags.end());
  if (sock < 0) sock = o.sock;
  accepted += o.accepted;
  delivered += o.delivered;
  would_block = would_block || o.would_block;
  eof = eof || o.eof;
  wake_reader = wake_reader || o.wake_reader;
  wake_writer = wake_writer || o.wake_writer;
  connected = connected || o.connected;
  if (accept_ready < 0) accept_ready = o.accept_ready;
  reset = reset || o.reset;
  dropped = dropped || o.dropped;
  recv_again = recv_again || o.recv_again;
  if (!error) error = o.error;
  backlog_processed = backlog_processed || o.backlog_processed;
}

class TcpStack::Ctx {
 public:
  Ctx(TcpStack& s, TcpEffects& fx, TimeNs now) : s_(s), fx_(fx) {
    s.fx_ = &fx;
    s.now_ = now;
    s.jiffies_ = uint32_t(s.jiffies64(now));
  }
  ~Ctx() {
    // The socket this call served changed state only here: classify it (tcp_transfer.h).
    if (fx_.sock >= 0 && size_t(fx_.sock) < s_.socks_.size()) s_.socks_[size_t(fx_.sock)]->transfer_update(s_.now_);
    s_.fx_ = nullptr;
  }

 private:
  TcpStack& s_;
  TcpEffects& fx_;
};

TcpStack::TcpStack(uint32_t addr, const TcpParams& params, MessageTags* tags, std::string name)
    : addr_(addr), p_(params), tags_(tags), name_(std::move(name)),
      port_rover_(uint16_t(params.local_port_low - 1)) {
  local_.primary = addr;
  if (p_.hz == 0 || p_.jiffies_phase_ns >= p_.tick_ns())
    throw std::invalid_argument("TcpParams: hz must be > 0 and jiffies_phase_ns < 1/hz");
}

TimeNs TcpStack::jiffy_time(uint64_t j) const {
  if (j <= p_.jiffies_at_zero) return 0;
  uint64_t t = (j - p_.jiffies_at_zero) * p_.tick_ns();
  return t > p_.jiffies_phase_ns ? t - p_.jiffies_phase_ns : 0;
}

int TcpStack::socket() {
  int id = int(socks_.size());
  socks_.push_back(std::make_unique<TcpSocket>(*this, id));
  return id;
}

void TcpStack::set_nodelay(int s, bool on) { sock(s).tp.nonagle = on ? 1 : 0; }

void TcpStack::set_sndbuf(int s, uint32_t bytes) {
  // sock_setsockopt SO_SNDBUF: clamp to wmem_max, double, at least SOCK_MIN_SNDBUF (2048)
  bytes = std::min(bytes, p_.core_wmem_max_bytes);
  TcpSocket& k = sock(s);
  k.tp.sndbuf = std::max<uint32_t>(bytes * 2, 2048);
  k.tp.sndbuf_locked = true;
}

void TcpStack::set_rcvbuf(int s, uint32_t bytes) {
  // sock_setsockopt SO_RCVBUF: clamp to rmem_max, double, at least SOCK_MIN_RCVBUF (256)
  bytes = std::min(bytes, p_.core_rmem_max_bytes);
  TcpSocket& k = sock(s);
  k.tp.rcvbuf = std::max<uint32_t>(bytes * 2, 256);
  k.tp.rcvbuf_locked = true;
}

int TcpStack::listen(uint16_t port) {
  if (listeners_.count(port))
    throw std::runtime_error(name_ + ": port " + std::to_string(port) + " already in use");
  int id = socket();
  TcpSocket& s = sock(id);
  s.saddr_ = addr_;
  s.sport_ = port;
  s.tp.state = TcpState::Listen;
  listeners_[port].sock = id;
  return id;
}

uint16_t TcpStack::next_ephemeral_port() {
  // tcp_v4_get_port with the port rover over sysctl_local_port_range
  unsigned span = unsigned(p_.local_port_high - p_.local_port_low + 1);
  for (unsigned i = 0; i < span; ++i) {
    ++port_rover_;
    if (port_rover_ < p_.local_port_low || port_rover_ > p_.local_port_high) port_rover_ = p_.local_port_low;
    if (listeners_.count(port_rover_)) continue;
    bool used = false;
    for (auto& [k, v] : ehash_)
      if (k.lport == port_rover_) { used = true; break; }
    if (!used) return port_rover_;
  }
  throw std::runtime_error(name_ + ": no free local port");
}

uint32_t TcpStack::secure_isn(uint32_t saddr, uint32_t daddr, uint16_t sport, uint16_t dport,
                              TimeNs now) const {
  // secure_tcp_sequence_number: a keyed hash of the 4-tuple plus a 1 MHz clock. The hash here is
  // FNV-1a (deterministic per run; the real one is half-MD4 with a boot-time secret).
  uint32_t h = 2166136261u;
  auto mix = [&h](uint32_t v) {
    for (int i = 0; i < 4; ++i) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 16777619u;
    }
  };
  mix(saddr);
  mix(daddr);
  mix(uint32_t(sport) << 16 | dport);
  return h + uint32_t(now / 1000);
}

void TcpStack::hash(TcpSocket& s) { ehash_[Key{s.daddr_, s.dport_, s.sport_}] = s.id_; }

void TcpStack::unhash(TcpSocket& s) {
  auto it = ehash_.find(Key{s.daddr_, s.dport_, s.sport_});
  if (it != ehash_.end() && it->second == s.id_) ehash_.erase(it);
}

TcpEffects TcpStack::connect(int s, uint32_t daddr, uint16_t dport, TimeNs now) {
  TcpEffects fx;
  Ctx c(*this, fx, now);
  fx.sock = s;
  TcpSocket& k = sock(s);
  if (k.tp.state != TcpState::Closed)
    throw std::runtime_error(name_ + ": connect on a socket that is not closed");
  uint16_t sport = next_ephemeral_port();
  const uint32_t saddr = local_.source_for(daddr);  // ip_route_connect: lo's address towards 127/8
  k.saddr_ = saddr;
  k.sport_ = sport;
  k.daddr_ = daddr;
  k.dport_ = dport;
  k.tp.iss = secure_isn(saddr, daddr, sport, dport, now);
  k.tp.write_seq = k.tp.iss;
  hash(k);  // tcp_v4_hash_connecting
  k.open_active(saddr, sport, daddr, dport);
  return fx;
}

int TcpStack::accept(int listener) {
  TcpSocket& l = sock(listener);
  auto it = listeners_.find(l.sport_);
  if (it == listeners_.end() || it->second.accept_queue.empty()) return -1;
  int c = it->second.accept_queue.front();
  it->second.accept_queue.pop_front();
  return c;
}

TcpEffects TcpStack::send(int s, size_t bytes, uint64_t tag, TimeNs now) {
  TcpEffects fx;
  Ctx c(*this, fx, now);
  fx.sock = s;
  fx.accepted = sock(s).sendmsg(bytes, tag);
  return fx;
}

TcpEffects TcpStack::recv(int s, size_t max, TimeNs now) {
  TcpEffects fx;
  Ctx c(*this, fx, now);
  fx.sock = s;
  sock(s).recvmsg(max);
  return fx;
}

TcpEffects TcpStack::close(int s, TimeNs now) {
  TcpEffects fx;
  Ctx c(*this, fx, now);
  fx.sock = s;
  TcpSocket& k = sock(s);
  if (k.tp.state == TcpState::Listen) listeners_.erase(k.sport_);
  k.close();
  return fx;
}

void TcpStack::set_owned_by_user(int s, bool owned) { sock(s).owned_by_user_ = owned; }

TcpEffects TcpStack::release_sock(int s, TimeNs now) {
  TcpEffects fx;
  Ctx c(*this, fx, now);
  fx.sock = s;
  TcpSocket& k = sock(s);
  // __release_sock: each pass takes what the backlog holds and processes it with sk->lock.users
  // still set, so input arriving meanwhile queues behind it; the lock is dropped when a pass
  // finds the backlog empty.
  fx.backlog_processed = k.release_sock();
  if (!fx.backlog_processed) k.owned_by_user_ = false;
  return fx;
}

TcpEffects TcpStack::on_timer(int s, TcpTimer timer, TimeNs now) {
  TcpEffects fx;
  Ctx c(*this, fx, now);
  fx.sock = s;
  if (timer == TcpTimer::DelayedAck) sock(s).delack_timer();
  else sock(s).write_timer();
  return fx;
}

void TcpStack::emit_packet(std::vector<uint8_t> pkt, int s, uint64_t journey, uint32_t payload,
                           uint8_t flags, bool retrans) {
  ++mib_[TcpMib::OutSegs];
  ++mib_[IpMib::OutRequests];
  TcpTxPacket t;
  t.ip = std::move(pkt);
  t.sock = s;
  t.journey = journey;
  t.payload_bytes = payload;
  t.tcp_flags = flags;
  t.retransmission = retrans;
  fx_->tx.push_back(std::move(t));
}

void TcpStack::send_reset(const ParsedTcpPacket& pk) {
  // tcp_v4_send_reset: never answer a RST with a RST
  const TcpHeader& th = pk.th;
  if (th.flags & kTcpRst) return;
  TcpHeader r;
  r.source = th.dest;
  r.dest = th.source;
  if (th.flags & kTcpAck) {
    r.seq = th.ack_seq;
    r.flags = kTcpRst;
  } else {
    r.seq = 0;
    r.ack_seq = th.seq + ((th.flags & kTcpSyn) ? 1 : 0) + ((th.flags & kTcpFin) ? 1 : 0) + pk.payload_len;
    r.flags = kTcpRst | kTcpAck;
  }
  Ipv4Header ip;
  ip.saddr = pk.ip.daddr;  // tcp_v4_send_reset: the reply's source is the segment's destination
  ip.daddr = pk.ip.saddr;
  ip.ttl = p_.ip_default_ttl;
  ip.id = 0;
  fx_->path(TcpPath::tcp_send_reset);
  ++mib_[TcpMib::OutRsts];
  emit_packet(build_tcp_packet(ip, r, nullptr, 0, 0, p_.hw_tx_csum), -1, 0, 0, r.flags, false);
}

void TcpStack::send_synack(const TcpOpenReq& req, uint32_t raddr, uint16_t rport) {
  // tcp_v4_send_synack + tcp_make_synack
  uint8_t opts[40];
  const uint32_t advmss = p_.mtu_bytes - kIpv4HeaderBytes - kTcpHeaderBytes;
  size_t optlen = build_syn_options(opts, uint16_t(advmss), req.tstamp_ok, jiffies_, req.ts_recent,
                                    req.sack_ok, req.wscale_ok, req.rcv_wscale);
  TcpHeader th;
  th.source = req.sport;
  th.dest = rport;
  th.seq = req.snt_isn;
  th.ack_seq = req.rcv_isn + 1;
  th.flags = kTcpSyn | kTcpAck;
  th.window = uint16_t(std::min<uint32_t>(req.rcv_wnd, 65535));
  Ipv4Header ip;
  ip.saddr = req.loc_addr;
  ip.daddr = raddr;
  ip.ttl = p_.ip_default_ttl;
  ip.id = 0;  // ip_build_and_send_pkt: the listening socket has no daddr
  emit_packet(build_tcp_packet(ip, th, opts, optlen, 0, p_.hw_tx_csum), -1, 0, 0, th.flags, false);
}

void TcpStack::conn_request(Listener& l, const ParsedTcpPacket& pk) {
  // tcp_v4_conn_request
  TcpSocket& ls = sock(l.sock);
  const TcpHeader& th = pk.th;
  TcpOpenReq req;
  req.rcv_isn = th.seq;
  req.mss = pk.opt.has_mss ? pk.opt.mss : 536;
  req.tstamp_ok = pk.opt.has_ts && p_.tcp_timestamps;
  req.sack_ok = pk.opt.sack_perm && p_.tcp_sack;
  req.wscale_ok = pk.opt.has_wscale && p_.tcp_window_scaling;
  req.snd_wscale = pk.opt.wscale;
  req.ts_recent = pk.opt.tsval;
  req.sport = th.dest;
  req.loc_addr = pk.ip.daddr;
  req.snt_isn = secure_isn(req.loc_addr, pk.ip.saddr, th.dest, th.source, now_);
  uint32_t clamp = ls.tp.window_clamp;
  const uint32_t advmss = p_.mtu_bytes - kIpv4HeaderBytes - kTcpHeaderBytes;
  req.rcv_wnd = tcp_select_initial_window(p_, ls.full_space(),
                                          advmss - (req.tstamp_ok ? kTcpTsOptionAlignedBytes : 0),
                                          &clamp, req.wscale_ok, &req.rcv_wscale);
  req.window_clamp = clamp;
  l.syn_table[{pk.ip.saddr, th.source}] = req;
  fx_->path(TcpPath::tcp_conn_request);
  send_synack(req, pk.ip.saddr, th.source);
}

TcpEffects TcpStack::on_ip_packet(const uint8_t* p, size_t len, TimeNs now, uint32_t truesize,
                                  bool csum_unnecessary) {
  TcpEffects fx;
  Ctx c(*this, fx, now);
  Ipv4Header ip;
  if (!ip_rcv_checks(p, len, local_, mib_, fx, &ip)) return fx;
  if (ip.protocol != kIpProtoTcp) {
    ++mib_[IpMib::InUnknownProtos];
    fx.dropped = true;
    return fx;
  }
  ++mib_[IpMib::InDelivers];
  // tcp_v4_rcv
  fx.path(TcpPath::tcp_v4_rcv);
  TcpSocket::Seg seg;
  if (!parse_tcp_packet(p, len, &seg.pkt)) {
    ++mib_[TcpMib::InErrs];
    fx.dropped = true;
    return fx;
  }
  ++mib_[TcpMib::InSegs];
  if (!csum_unnecessary) {
    fx.path(TcpPath::rx_csum, seg.pkt.tcp_len);
    if (!tcp_checksum_ok(p, len)) {
      ++mib_[TcpMib::InErrs];
      fx.dropped = true;
      return fx;
    }
  }
  seg.truesize = truesize ? truesize : p_.rx_truesize_default_bytes;
  const TcpHeader& th = seg.pkt.th;

  auto est = ehash_.find(Key{ip.saddr, th.source, th.dest});
  if (est != ehash_.end()) {
    fx.sock = est->second;
    fx.skb_taken = true;
    sock(est->second).softirq_rcv(seg);
    return fx;
  }
  auto lit = listeners_.find(th.dest);
  if (lit == listeners_.end()) {
    send_reset(seg.pkt);  // no_tcp_socket
    fx.dropped = true;
    return fx;
  }
  Listener& l = lit->second;
  fx.sock = l.sock;
  auto rq = l.syn_table.find({ip.saddr, th.source});
  if (rq != l.syn_table.end()) {
    // tcp_v4_hnd_req -> tcp_check_req
    TcpOpenReq req = rq->second;
    if (th.flags & kTcpRst) {
      l.syn_table.erase(rq);
      fx.dropped = true;
      return fx;
    }
    if ((th.flags & kTcpSyn) && !(th.flags & kTcpAck)) {
      if (th.seq == req.rcv_isn) send_synack(req, ip.saddr, th.source);  // retransmitted SYN
      return fx;
    }
    if (!(th.flags & kTcpAck)) {
      fx.dropped = true;
      return fx;
    }
    if (th.ack_seq != req.snt_isn + 1) {
      send_reset(seg.pkt);
      fx.dropped = true;
      return fx;
    }
    // tcp_v4_syn_recv_sock: the child socket
    TcpSocket& ls = sock(l.sock);
    int cid = socket();
    TcpSocket& ch = sock(cid);
    ch.tp.nonagle = ls.tp.nonagle;
    ch.tp.sndbuf = ls.tp.sndbuf;
    ch.tp.rcvbuf = ls.tp.rcvbuf;
    ch.tp.sndbuf_locked = ls.tp.sndbuf_locked;
    ch.tp.rcvbuf_locked = ls.tp.rcvbuf_locked;
    ch.init_from_openreq(ip.daddr, th.dest, ip.saddr, th.source, req, seg);
    ch.listener_ = l.sock;
    l.syn_table.erase(rq);
    hash(ch);
    fx.sock = cid;
    fx.skb_taken = true;
    // tcp_child_process -> tcp_rcv_state_process
    ch.do_rcv(seg);
    if (ch.tp.state != TcpState::SynRecv && ch.tp.state != TcpState::Closed) {
      l.accept_queue.push_back(cid);
      fx.accept_ready = l.sock;
    }
    return fx;
  }
  // tcp_rcv_state_process(TCP_LISTEN)
  if (th.flags & kTcpRst) {
    fx.dropped = true;
    return fx;
  }
  if (th.flags & kTcpAck) {
    send_reset(seg.pkt);
    fx.dropped = true;
    return fx;
  }
  if (th.flags & kTcpSyn) {
    conn_request(l, seg.pkt);
    return fx;
  }
  fx.dropped = true;
  return fx;
}

uint64_t TcpStack::journey_of(const uint8_t* p, size_t len) const {
  if (!tags_) return 0;
  ParsedTcpPacket pk;
  if (!parse_tcp_packet(p, len, &pk) || pk.payload_len == 0) return 0;
  auto est = ehash_.find(Key{pk.ip.saddr, pk.th.source, pk.th.dest});
  if (est == ehash_.end()) return 0;
  const TcpSocket& s = sock(est->second);
  if (s.tp.state == TcpState::SynSent || s.tp.state == TcpState::Closed) return 0;
  return tags_->tag_at({pk.ip.saddr, pk.ip.daddr, pk.th.source, pk.th.dest}, s.off_of(pk.th.seq));
}

}  // namespace nicsim
