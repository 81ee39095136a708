#include "drivers-sim/net/inet.h"
#include "core/events.h"
#include "drivers-sim/kernel/csum_offload.h"
#include "core/sim_context.h"
#include "drivers-sim/net/sock_errno.h"
#include "drivers-sim/net/wire.h"
#include <algorithm>
#include <fmt/format.h>
#include <cstring>
#include <stdexcept>

namespace nicsim {

namespace {
/// SMP locked ops of a TCP sleep for data or for send space (net/ipv4/tcp.c 2.4.20 tcp_data_wait /
/// wait_for_tcp_memory): add_wait_queue and remove_wait_queue (spin_lock_irqsave each), and the
/// release_sock + lock_sock around schedule_timeout (spin_lock_bh each).
constexpr unsigned kTcpWaitLockedOps = 4;
/// The same for a datagram socket (net/core/datagram.c wait_for_packet): add/remove_wait_queue.
constexpr unsigned kDatagramWaitLockedOps = 2;
/// Bytes of struct sock + tcp_opt the per-message paths write (lock, queues, sequence state) as
/// tracked lines on SMP. estimate: 4 lines of the ~1.2 KB 2.4 struct sock (include/net/sock.h).
constexpr size_t kSockLineBytes = 256;
}  // namespace

InetHost::InetHost(Kernel& k, uint32_t ip, MessageTags* tags, TcpParams params) : k_(&k) {
  params.hz = k.params().hz;
  stack_ = std::make_unique<TcpStack>(ip, params, tags, k.host());
  // The fault timeline (core/events.h): TCP's timeouts and its first new data acknowledged after one.
  const uint32_t hz = params.hz;
  stack_->on_rto_event = [host = k.host(), hz](const TcpStack::RtoEvent& e) {
    const sc_time at = sc_time::from_value(e.t * 1000);  // ns -> ps ticks (now_ns divides by 1000)
    const double rto_ms = hz ? 1000.0 * e.rto_jiffies / hz : 0.0;
    if (e.resumed)
      run_events().note(at, fmt::format("{}.tcp{}", host, e.sock), "TCP new data acked",
                        fmt::format("first ACK of new data after {} timeout(s)", e.backoff));
    else if (e.local_drop)
      run_events().note(at, fmt::format("{}.tcp{}", host, e.sock), "TCP retransmission timeout",
                        fmt::format("local drop (NET_XMIT_DROP): backoff {} kept, retry in {:.0f} ms", e.backoff, rto_ms));
    else
      run_events().note(at, fmt::format("{}.tcp{}", host, e.sock), "TCP retransmission timeout",
                        fmt::format("backoff {}, next RTO {:.0f} ms", e.backoff, rto_ms));
  };
  // dev_queue_xmit's answer to a packet toward `daddr` now: NET_XMIT_DROP when its device's
  // pfifo_fast band for TCP's priority (sk->priority 0) already holds more than tx_queue_len; a
  // device without a queue (txqueuelen 0: noqueue, a bond) never drops here.
  stack_->local_xmit_drops = [this](uint32_t daddr) {
    auto it = neigh_.find(daddr);
    if (it == neigh_.end() || !it->second.dev) return false;
    const NetDevice& d = *it->second.dev;
    return d.tx_queue_len > 0 && d.qdisc_band_len(prio2band(0)) > d.tx_queue_len;
  };
  udp_ = std::make_unique<UdpStack>(ip, stack_->mib(), params, tags, k.host());
  k.dev_add_pack(ETH_P_IP, [this](SkbPtr skb, NetDevice* dev) { return ip_rcv(std::move(skb), dev); });
}

InetHost::~InetHost() = default;

void InetHost::add_neighbour(uint32_t dst, NetDevice& dev, std::function<std::array<uint8_t, 6>()> dst_mac) {
  neigh_[dst] = Neighbour{&dev, std::move(dst_mac)};
}

void InetHost::add_loopback(NetDevice& lo, uint32_t addr) {
  lo_ = &lo;
  stack_->add_local_addr(addr);
  udp_->add_local_addr(addr);
}

TimeNs InetHost::now_ns() const { return static_cast<TimeNs>(sc_core::sc_time_stamp().value() / 1000); }

InetHost::SockState& InetHost::state(int id) {
  auto it = socks_.find(id);
  if (it == socks_.end()) throw std::logic_error("InetHost: unknown socket " + std::to_string(id));
  return *it->second;
}

Socket& InetHost::adopt(int id, const std::string& name, bool udp) {
  auto st = std::make_unique<SockState>();
  st->id = id;
  st->udp = udp;
  const int key = udp ? id + kUdpKey : id;
  st->sock = std::make_unique<Socket>();
  st->sock->name = name;
  st->sock->ops = this;
  st->sock->sk = reinterpret_cast<void*>(static_cast<intptr_t>(key));
  st->sk_addr = k_->smp_object(kSockLineBytes);
  Socket& s = *st->sock;
  socks_[key] = std::move(st);
  return s;
}

Socket& InetHost::tcp_socket(const std::string& name, bool nodelay) {
  int id = stack_->socket();
  stack_->set_nodelay(id, nodelay);
  return adopt(id, name);
}

static int sock_id(const Socket& s) { return static_cast<int>(reinterpret_cast<intptr_t>(s.sk)); }

const TcpSocket& InetHost::tcp_sock(const Socket& s) const { return stack_->sock(sock_id(s)); }

const UdpSocket& InetHost::udp_sock(const Socket& s) const { return udp_->sock(sock_id(s) - kUdpKey); }

Socket& InetHost::udp_socket(const std::string& name) { return adopt(udp_->socket(), name, true); }

void InetHost::udp_bind(Socket& s, uint16_t port) { udp_->bind(sock_id(s) - kUdpKey, port); }

void InetHost::udp_connect(Socket& s, uint32_t daddr, uint16_t port) { udp_->connect(sock_id(s) - kUdpKey, daddr, port); }

Task<int> InetHost::connect(Socket& s, uint32_t daddr, uint16_t port) {
  int id = sock_id(s);
  TcpEffects fx = stack_->connect(id, daddr, port, now_ns());
  co_await apply(std::move(fx));
  while (stack_->sock(id).state() != TcpState::Established) {
    if (stack_->sock(id).state() == TcpState::Closed) co_return -kEconnrefused;
    co_await connect_wq_[id].wait();
  }
  co_return 0;
}

Task<Socket*> InetHost::listen_accept(uint16_t port, const std::string& name, bool nodelay) {
  int l = stack_->listen(port);
  for (;;) {
    int c = stack_->accept(l);
    if (c >= 0) {
      stack_->set_nodelay(c, nodelay);
      co_return &adopt(c, name);
    }
    co_await accept_wq_[l].wait();
  }
}

// ---- costs -------------------------------------------------------------------------------------

Task<void> InetHost::charge(const TcpEffects& fx) {
  // TcpPath -> the kernel cost table (drivers-sim/kernel/costs_linux_2_4_20_p4xeon.cpp). tcp_v4_rcv's entry covers the
  // header-predicted tcp_rcv_established, so the fast-path steps add nothing; the slow path adds
  // a tcp_ack. Copies of freshly DMA'd data are out of cache; copies from the user are cached.
  // The steps' costs follow one another with no code between them that reads the simulated time
  // or touches shared state, so they are one burn chain (task.h CpuBurnChain, Cpu::burn_chain:
  // the same times, interrupts and profile as awaiting each cost in turn).
  CpuBurnChain chain;
  for (const TcpPathStep& st : fx.paths) {
    CpuBurn b[3];
    unsigned nb = 0;
    uint32_t reps = 1;
    switch (st.path) {
      case TcpPath::ip_rcv: b[nb++] = k_->cost(CostId::ip_rcv); break;
      case TcpPath::tcp_v4_rcv: b[nb++] = k_->cost(CostId::tcp_v4_rcv); break;
      case TcpPath::rx_csum: b[nb++] = k_->cost(CostId::csum_partial, st.n); break;
      case TcpPath::tcp_copy_to_iovec: b[nb++] = k_->cost(CostId::copy_user_uncached, st.n); break;
      case TcpPath::tcp_rcv_established_slow:
      case TcpPath::tcp_rcv_state_process:
      case TcpPath::tcp_conn_request: b[nb++] = k_->cost(CostId::tcp_ack); break;
      case TcpPath::tcp_ack_clean_rtx:  // the write queue's original: cloned, but it has no dst to release
      case TcpPath::kfree_skb_rx:       // a received skb: its input route, never cloned
        b[nb++] = k_->skb_free_cost(false);  // one LOCK-prefixed op fewer than a transmitted clone
        reps = st.n;
        break;
      case TcpPath::tcp_send_ack:
        b[nb++] = k_->cost(CostId::skb_alloc);
        b[nb++] = k_->cost(CostId::tcp_transmit_skb);
        b[nb++] = k_->cost(CostId::ip_output);
        break;
      case TcpPath::tcp_transmit_skb:
      case TcpPath::tcp_send_reset:
        b[nb++] = k_->cost(CostId::tcp_transmit_skb);
        b[nb++] = k_->cost(CostId::ip_output);
        break;
      case TcpPath::tcp_sendmsg: b[nb++] = k_->cost(CostId::tcp_sendmsg); break;
      case TcpPath::tcp_sendmsg_copy: b[nb++] = k_->cost(CostId::copy_user_cached, st.n); break;
      case TcpPath::tcp_alloc_skb: b[nb++] = k_->cost(CostId::skb_alloc); break;
      case TcpPath::tcp_recvmsg: b[nb++] = k_->cost(CostId::tcp_recvmsg); break;
      case TcpPath::tcp_recvmsg_copy: b[nb++] = k_->cost(CostId::copy_user_uncached, st.n); break;
      case TcpPath::tcp_rcv_established_fast_ack: b[nb++] = k_->cost(CostId::tcp_ack); break;
      case TcpPath::tcp_rcv_established_fast_data:
      case TcpPath::tcp_prequeue:
      case TcpPath::sk_add_backlog:
      case TcpPath::tcp_ofo_queue:
      case TcpPath::tcp_retransmit_skb:   // also reported as tcp_transmit_skb
      case TcpPath::tcp_prequeue_process:  // the per-packet paths that follow are charged
      case TcpPath::tcp_backlog_process:
      case TcpPath::tcp_delack_timer:      // the timer callback itself is charged by run_timer_list
      case TcpPath::tcp_write_timer: break;
      // UDP: udp_getfrag copies and checksums in one pass (csum_partial_copy_fromiovecend),
      // charged as the copy plus the checksum; each packet or fragment is one skb through
      // ip_build_xmit's output; the receive copy of a datagram just DMA'd is out of cache.
      case TcpPath::udp_sendmsg: b[nb++] = k_->cost(CostId::udp_sendmsg); break;
      case TcpPath::udp_sendmsg_copy:
        b[nb++] = k_->cost(CostId::copy_user_cached, st.n);
        b[nb++] = k_->cost(CostId::csum_partial, st.n);
        break;
      case TcpPath::ip_build_xmit_skb:
        b[nb++] = k_->cost(CostId::skb_alloc);
        b[nb++] = k_->cost(CostId::ip_output);
        break;
      case TcpPath::ip_defrag: b[nb++] = k_->cost(CostId::ip_defrag); break;
      case TcpPath::udp_rcv: b[nb++] = k_->cost(CostId::udp_rcv); break;
      case TcpPath::udp_recvmsg: b[nb++] = k_->cost(CostId::udp_recvmsg); break;
      case TcpPath::udp_recvmsg_copy: b[nb++] = k_->cost(CostId::copy_user_uncached, st.n); break;
      case TcpPath::Count: break;
    }
    for (uint32_t r = 0; r < reps; ++r)
      for (unsigned i = 0; i < nb; ++i)
        if (!chain.add(b[i])) {  // full: run what it holds, then go on
          co_await chain;
          chain.add(b[i]);
        }
  }
  co_await chain;
}

// ---- effects -----------------------------------------------------------------------------------

Task<void> InetHost::transmit(TcpTxPacket& p) {
  if (p.ip.size() < kIpv4HeaderBytes) co_return;
  uint32_t daddr = (uint32_t(p.ip[16]) << 24) | (uint32_t(p.ip[17]) << 16) | (uint32_t(p.ip[18]) << 8) | p.ip[19];
  auto it = neigh_.find(daddr);
  // The local table first (2.4.20 fib_lookup: local_table before main_table): 127.0.0.0/8 and the
  // host's own addresses go to lo, whose hard header is eth_header with a zero destination.
  const bool local = lo_ && ((daddr >> 24) == 127 || stack_->local_addrs().has(daddr));
  if (!local && it == neigh_.end()) {
    ++sim().counters.at(k_->host() + ".ip.OutNoRoutes");
    co_return;
  }
  NetDevice& dev = local ? *lo_ : *it->second.dev;
  // MAX_TCP_HEADER headroom as tcp_alloc_skb reserves; the bytes are real.
  SkbPtr skb = k_->make_skb(static_cast<uint32_t>(16 + ETH_HLEN + p.ip.size()));
  skb->reserve(16 + ETH_HLEN);
  std::memcpy(skb->put(static_cast<uint32_t>(p.ip.size())), p.ip.data(), p.ip.size());
  EthHeader eh;
  eh.dst = local ? std::array<uint8_t, 6>{} : it->second.mac();
  eh.src = dev.dev_addr;
  eh.ethertype = ETH_P_IP;
  put_eth_header(skb->push(ETH_HLEN), eh);
  skb->protocol = ETH_P_IP;
  skb->dev = &dev;
  skb->journey = p.journey;
  // What IP gets is a clone of a write-queue skb for data, FIN and the active open's SYN
  // (tcp_write_xmit, tcp_retransmit_skb, tcp_send_fin, tcp_connect: tcp_transmit_skb(sk,
  // skb_clone(skb, ...))); ACKs, the SYN-ACK and resets are fresh skbs sent as they are.
  // A UDP datagram (udp_sendmsg's ip_build_xmit) is never cloned.
  const bool tcp = p.ip.size() > 9 && p.ip[9] == kIpProtoTcp;
  skb->cloned = tcp && (p.payload_bytes > 0 || (p.tcp_flags & kTcpFin) ||
                        ((p.tcp_flags & kTcpSyn) && !(p.tcp_flags & kTcpAck)));
  // The device finishes the TCP checksum when it says it can (route_caps = dev->features). The bytes
  // keep the full software checksum either way (TcpParams::hw_tx_csum): a NIC that inserts it writes
  // the same value. The CPU charge is the same too: tcp_sendmsg_copy is charged as a plain copy,
  // the offloaded path (docs/developers.md "Checksum offload").
  skb->ip_summed = tx_ip_summed(dev.features);
  if (skb->ip_summed == CHECKSUM_HW) {  // skb->nh / skb->h as ip_queue_xmit and tcp_transmit_skb set them
    skb->nh_off = skb->data_off + ETH_HLEN;
    skb->h_off = skb->nh_off + 4u * (p.ip[0] & 0x0fu);
    // tcp_v4_send_check (LH@2.4.16 net/ipv4/tcp_ipv4.c): skb->csum = offsetof(struct tcphdr, check)
    if (tcp) skb->csum = 16;
  }
  if (p.journey) k_->mark(p.journey, "IP output");
  co_await k_->dev_queue_xmit(std::move(skb));
}

void InetHost::set_timer(const TcpTimerRequest& r) {
  auto sit = socks_.find(r.sock);
  if (sit == socks_.end()) return;  // a socket the glue does not own (e.g. a listener child not yet accepted)
  TimerList& t = r.timer == TcpTimer::DelayedAck ? sit->second->delack : sit->second->retrans;
  if (r.cancel) {
    k_->del_timer(t);
    return;
  }
  // TcpStack expresses expiries as absolute tick times of its own jiffies clock; the kernel's
  // timer wheel counts its own ticks. Convert the distance, rounding to whole ticks (>= 1).
  TimeNs now = now_ns();
  double period_ns = tick_period(k_->params().hz).to_seconds() * 1e9;
  double ahead = r.at > now ? static_cast<double>(r.at - now) / period_ns : 0.0;
  uint64_t ticks = std::max<uint64_t>(1, static_cast<uint64_t>(ahead + 0.5));
  int id = r.sock;
  TcpTimer which = r.timer;
  t.function = [this, id, which]() -> Task<void> {
    TcpEffects fx = stack_->on_timer(id, which, now_ns());
    co_await apply(std::move(fx));
  };
  k_->mod_timer(t, k_->jiffies() + ticks);
}

Task<void> InetHost::wake(int id, JourneyId j) {
  auto it = socks_.find(id);
  if (it == socks_.end()) co_return;
  SockState& st = *it->second;
  if (st.sock->wait.empty()) {
    st.wake_pending = true;
    co_return;
  }
  co_await k_->wake_up(st.sock->wait, j);
}

Task<void> InetHost::apply(TcpEffects fx, bool udp) {
  co_await charge(fx);
  if (udp) {
    for (auto& p : fx.tx) co_await transmit(p);
    if (fx.sock >= 0 && fx.wake_reader) co_await wake(fx.sock + kUdpKey, 0);
    co_return;
  }
  for (auto& p : fx.tx) co_await transmit(p);
  for (auto& r : fx.timers) set_timer(r);
  if (fx.accept_ready >= 0) {  // the listener's own sk->sleep: only its acceptor wakes
    auto w = accept_wq_.find(fx.accept_ready);
    if (w != accept_wq_.end() && !w->second.empty()) co_await k_->wake_up(w->second);
  }
  if (fx.sock >= 0 && (fx.connected || fx.reset)) {
    auto c = connect_wq_.find(fx.sock);
    if (c != connect_wq_.end() && !c->second.empty()) co_await k_->wake_up(c->second);
  }
  if (fx.sock >= 0 && (fx.wake_reader || fx.wake_writer || fx.reset)) co_await wake(fx.sock, 0);
}

// ---- NET_RX softirq ----------------------------------------------------------------------------

uint32_t ip_tcp_header_bytes(const uint8_t* p, uint32_t len) {
  if (len < kIpv4HeaderBytes) return len;
  const uint32_t ihl = (p[0] & 0x0fu) * 4u;
  if (ihl < kIpv4HeaderBytes || ihl > len) return std::min<uint32_t>(len, kIpv4HeaderBytes);
  if (p[9] == kIpProtoUdp && (((p[6] & 0x1fu) | p[7]) == 0)) return std::min(len, ihl + 8);
  if (p[9] != kIpProtoTcp || len < ihl + 20) return ihl;
  const uint32_t doff = (p[ihl + 12] >> 4) * 4u;
  return std::min(len, ihl + std::max<uint32_t>(doff, 20));
}

Task<int> InetHost::ip_rcv(SkbPtr skb, NetDevice* dev) {
  (void)dev;
  if (ip_forward_on_)
    if (const Route* r = forward_route(*skb)) {
      int rc = co_await ip_forward(std::move(skb), *r);
      co_return rc;
    }
  // UDP, and fragments of anything (only UDP is sent fragmented here: TCP segments fit the MSS),
  // go to UdpStack; the rest to TcpStack. Both run ip_rcv's checks on the same MIB.
  const uint8_t* d = skb->data();
  const bool udp =
      skb->len >= kIpv4HeaderBytes && (d[9] == kIpProtoUdp || (((d[6] & 0x3fu) << 8 | d[7]) & (kIpMf | kIpOffsetMask)));
  JourneyId j = udp ? udp_->journey_of(d, skb->len) : stack_->journey_of(d, skb->len);
  if (j) k_->mark(j, udp ? "IP/UDP rx" : "IP/TCP rx");
  // ip_rcv reads the IP header and tcp_v4_rcv / udp_rcv the transport header: lines of the frame
  // the NIC's DMA wrote; those the driver's eth_type_trans did not already load are cache misses.
  const uint32_t hdr = ip_tcp_header_bytes(d, skb->len);
  co_await k_->load_dma_lines(skb->data_phys(), hdr, j, "RX IP/transport header");
  // CHECKSUM_HW (a device's sum in skb->csum): ip_rcv's trim and tcp_v4_checksum_init's check
  // (rx_tcp_hw_csum_unnecessary). UDP keeps its software check for such packets.
  const bool csum_ok = skb->ip_summed == CHECKSUM_UNNECESSARY ||
                       (!udp && skb->ip_summed == CHECKSUM_HW && rx_tcp_hw_csum_unnecessary(d, skb->len, skb->csum));
  TcpEffects fx = udp ? udp_->on_ip_packet(d, skb->len, now_ns(), skb->truesize, csum_ok)
                      : stack_->on_ip_packet(d, skb->len, now_ns(), skb->truesize, csum_ok);
  // bh_lock_sock + the socket's receive state (struct sock, tcp_opt): shared with the process
  // that reads and writes it, maybe on the other CPU (Kernel::touch_lines; nothing on UP).
  if (fx.sock >= 0 && k_->num_cpus() > 1)
    if (auto s = socks_.find(udp ? fx.sock + kUdpKey : fx.sock); s != socks_.end())
      co_await k_->touch_lines(s->second->sk_addr, kSockLineBytes, Kernel::LineAccess::Rmw, "sock/tcp_opt", j);
  int rc = fx.dropped ? NET_RX_DROP : NET_RX_SUCCESS;
  // A TCP socket that took the skb charges its free itself (kfree_skb_rx, when the segment is done
  // with); the rest (UDP's skb_free_datagram, a refused or unmatched segment) is freed here.
  const bool taken = !udp && fx.skb_taken;
  // Wake-ups for this packet carry its journey, so the CPU model marks the run-queue wait in it.
  bool wake_reader = fx.wake_reader;
  int sid = fx.sock;
  fx.wake_reader = false;
  co_await apply(std::move(fx), udp);
  if (wake_reader && sid >= 0) co_await wake(udp ? sid + kUdpKey : sid, j);
  if (taken) skb.reset();
  else co_await k_->kfree_skb(std::move(skb));
  co_return rc;
}

// ---- process context ---------------------------------------------------------------------------

Task<long> InetHost::udp_sendmsg(SockState& st, size_t len, JourneyId journey) {
  const int id = st.id;
  const UdpSocket& us = udp_->sock(id);
  uint32_t daddr = 0;
  uint16_t dport = 0;
  if (!us.daddr) {  // sendto the last reader's peer (see udp_socket)
    if (!us.last_saddr) co_return -kEdestaddrreq;
    daddr = us.last_saddr;
    dport = us.last_sport;
  }
  if (len > 65507) co_return -kEmsgsize;
  if (journey) k_->mark(journey, "UDP tx");
  TcpEffects fx = udp_->send(id, len, journey, now_ns(), daddr, dport);
  co_await apply(std::move(fx), true);
  co_return static_cast<long>(len);
}

Task<long> InetHost::udp_recvmsg(SockState& st, size_t len) {
  for (;;) {
    TcpEffects fx = udp_->recv(st.id, len, now_ns());
    size_t got = fx.delivered;
    bool block = fx.would_block;
    JourneyId j = fx.completed_tags.empty() ? 0 : fx.completed_tags.back();
    co_await apply(std::move(fx), true);
    if (!block) {
      st.sock->rx_journey = j;
      if (j) k_->mark(j, "copy to user");
      co_return static_cast<long>(got);
    }
    // skb_recv_datagram: wait_for_packet on sk->sleep. Its add_wait_queue (the locked ops) comes
    // before the last test, and nothing may take simulated time between that test and the sleep:
    // a wakeup in between would find nobody on the queue and be lost.
    co_await k_->locked_ops(kDatagramWaitLockedOps);
    if (st.wake_pending) {
      st.wake_pending = false;
      continue;
    }
    co_await st.sock->wait.wait();
    st.wake_pending = false;
  }
}

Task<long> InetHost::sendmsg(Socket& sock, size_t len, JourneyId journey) {
  int id = sock_id(sock);
  SockState& st = state(id);
  if (st.sk_addr)  // lock_sock: the socket's lines (SMP only)
    co_await k_->touch_lines(st.sk_addr, kSockLineBytes, Kernel::LineAccess::Rmw, "sock/tcp_opt", journey);
  if (st.udp) co_return co_await udp_sendmsg(st, len, journey);
  if (journey) k_->mark(journey, "TCP tx");
  size_t left = len;
  while (left > 0) {
    // tcp_sendmsg holds the socket lock while it copies and transmits: ACKs arriving meanwhile go
    // to the backlog and are processed by its release_sock, in this process's time.
    stack_->set_owned_by_user(id, true);
    TcpEffects fx = stack_->send(id, left, journey, now_ns());
    size_t took = fx.accepted;
    bool block = fx.would_block, reset = fx.reset;
    const int err = fx.error;  // tcp_sendmsg's do_error: what was copied, else the error
    co_await apply(std::move(fx));
    co_await release_sock(id);
    left -= took;
    if (err) co_return len == left ? err : static_cast<long>(len - left);
    if (reset) co_return len == left ? -kEpipe : static_cast<long>(len - left);
    if (left > 0 && block) {
      // wait_for_tcp_memory: release_sock above, then add_wait_queue (the locked ops) before the
      // last test, and no simulated time between the test and the sleep (else an ACK's wakeup is
      // lost).
      co_await k_->locked_ops(kTcpWaitLockedOps);
      if (st.wake_pending) {
        st.wake_pending = false;
        continue;
      }
      co_await sock.wait.wait();
      st.wake_pending = false;
    }
  }
  co_return static_cast<long>(len);
}

Task<long> InetHost::recvmsg(Socket& sock, size_t len, int flags) {
  int id = sock_id(sock);
  SockState& st = state(id);
  if (st.sk_addr)  // lock_sock: the socket's lines (SMP only)
    co_await k_->touch_lines(st.sk_addr, kSockLineBytes, Kernel::LineAccess::Rmw, "sock/tcp_opt");
  if (st.udp) co_return co_await udp_recvmsg(st, len);
  if (len == 0) co_return 0;  // sock_recvmsg of nothing: tcp_recvmsg's loop never runs
  stack_->set_in_recv(id, true, now_ns());  // the receiver's transfer attribution (tcp_transfer.h)
  for (;;) {
    TcpEffects fx = stack_->recv(id, len, now_ns());
    size_t got = fx.delivered;
    bool block = fx.would_block, eof = fx.eof, again = fx.recv_again;
    const int err = fx.error;
    JourneyId j = fx.completed_tags.empty() ? 0 : fx.completed_tags.back();
    co_await apply(std::move(fx));
    if (again) continue;  // tcp_recvmsg goes on, the lock held through that pass's time
    if (err) {            // sock_error: -ECONNRESET after a reset, reported once
      stack_->set_in_recv(id, false, now_ns());
      co_return err;
    }
    if (got > 0) {
      sock.rx_journey = j;
      if (j) k_->mark(j, "copy to user");
      stack_->set_in_recv(id, false, now_ns());
      co_return static_cast<long>(got);
    }
    if (eof) {
      stack_->set_in_recv(id, false, now_ns());
      co_return 0;
    }
    if (!block) continue;
    // tcp_data_wait: add_wait_queue (the locked ops) before the last test, and no simulated time
    // between the test and the sleep (else a segment's wakeup is lost).
    co_await k_->locked_ops(kTcpWaitLockedOps);
    if (st.wake_pending) {
      st.wake_pending = false;
      continue;
    }
    co_await sock.wait.wait();
    st.wake_pending = false;
  }
}

Task<void> InetHost::release_sock(int id) {
  // release_sock / __release_sock: each pass processes what the backlog holds, in process context
  // with the lock still owned, until a pass finds it empty (TcpStack::release_sock).
  for (;;) {
    TcpEffects fx = stack_->release_sock(id, now_ns());
    const bool more = fx.backlog_processed;
    co_await apply(std::move(fx));
    if (!more) co_return;
  }
}

void InetHost::export_counters() const { nicsim::export_counters(stack_->mib(), sim().counters, k_->host() + ".netstat"); }

}  // namespace nicsim
