// TcpSocket: construction, struct tcp_opt helpers (include/net/tcp.h), timers (tcp_timer.c) and
// the socket calls (tcp.c: tcp_v4_connect, tcp_sendmsg, tcp_recvmsg, tcp_close). The other
// parts: tcp_output.cpp, tcp_input.cpp, tcp_ack.cpp. Names follow Linux 2.4.20; comments name
// the Linux function each block reproduces. Sequence numbers are 32-bit (seq_before/seq_after).
#include "drivers-sim/net/tcp_socket.h"

#include "drivers-sim/net/tcp_internal.h"
#include "drivers-sim/net/tcp_stack.h"

#include <algorithm>

namespace nicsim {

using namespace tcp_detail;

const char* tcp_state_name(TcpState s) {
  static const char* const n[] = {"CLOSE",      "LISTEN",    "SYN_SENT", "SYN_RECV",
                                  "ESTABLISHED", "FIN_WAIT1", "FIN_WAIT2", "CLOSE_WAIT",
                                  "CLOSING",    "LAST_ACK",  "TIME_WAIT"};
  return n[size_t(s)];
}

uint32_t tcp_select_initial_window(const TcpParams& p, int space, uint32_t mss,
                                   uint32_t* window_clamp, bool wscale_ok, uint8_t* rcv_wscale) {
  // tcp_select_initial_window (tcp_output.c)
  if (*window_clamp == 0) *window_clamp = 65535u << 14;
  uint32_t sp = space < 0 ? 0u : uint32_t(space);
  sp = std::min(*window_clamp, sp);
  if (sp > mss) sp = (sp / mss) * mss;
  // "offering an initial window larger than 32767 will break some buggy TCP stacks"
  uint32_t rcv_wnd = std::min(sp, p.max_tcp_window_bytes);
  *rcv_wscale = 0;
  if (wscale_ok) {
    while (sp > 65535 && *rcv_wscale < 14) { sp >>= 1; ++*rcv_wscale; }
    if (*rcv_wscale && p.tcp_app_win && sp >= mss &&
        sp - std::max(p.tcp_app_win >= 32 ? 0u : (sp >> p.tcp_app_win), mss >> *rcv_wscale) < 65536 / 2)
      --*rcv_wscale;
  }
  // "Set initial window to value enough for senders, following RFC1414."
  if (mss > (1u << *rcv_wscale)) {
    uint32_t init_cwnd = 4;
    if (mss > 1460 * 3) init_cwnd = 2;
    else if (mss > 1460) init_cwnd = 3;
    if (rcv_wnd > init_cwnd * mss) rcv_wnd = init_cwnd * mss;
  }
  *window_clamp = std::min(65535u << *rcv_wscale, *window_clamp);
  return rcv_wnd;
}

TcpSocket::TcpSocket(TcpStack& stack, int id) : stack_(stack), id_(id) {
  const TcpParams& p = stack.params();
  // tcp_v4_init_sock
  tp.rto = p.timeout_init_jiffies();
  tp.mdev = p.timeout_init_jiffies();
  tp.snd_cwnd = p.initial_cwnd_segments;
  tp.snd_ssthresh = 0x7fffffff;
  tp.snd_cwnd_clamp = ~0u;
  tp.mss_cache = 536;
  tp.mss_clamp = 536;
  tp.reordering = p.tcp_reordering;
  tp.sndbuf = p.tcp_wmem_default_bytes;
  tp.rcvbuf = p.tcp_rmem_default_bytes;
  tp.pmtu = p.mtu_bytes;
  tp.advmss = p.mtu_bytes - kIpv4HeaderBytes - kTcpHeaderBytes;
}

TcpEffects& TcpSocket::fx() const { return *stack_.fx_; }
uint32_t TcpSocket::jiffies() const { return stack_.jiffies_; }

size_t TcpSocket::readable_bytes() const {
  size_t n = 0;
  for (auto& skb : receive_queue_) {
    uint32_t off = seq_after(tp.copied_seq, skb.seq) ? tp.copied_seq - skb.seq : 0;
    if (off < skb.len) n += skb.len - off;
  }
  return n;
}

uint64_t TcpSocket::off_of(uint32_t seq) const {
  return rcv_nxt_off_ + uint64_t(int64_t(int32_t(seq - tp.rcv_nxt)));
}

// ------------------------------------------------------------------------------------------
// Small helpers from include/net/tcp.h
// ------------------------------------------------------------------------------------------

void TcpSocket::sync_left_out() {
  if (tp.sack_ok && tp.sacked_out >= tp.packets_out - tp.lost_out)
    tp.sacked_out = tp.packets_out - tp.lost_out;
  tp.left_out = tp.sacked_out + tp.lost_out;
}

int TcpSocket::win_from_space(int space) const {
  int s = stack_.params().tcp_adv_win_scale;
  return s <= 0 ? (space >> -s) : space - (space >> s);
}
int TcpSocket::space() const { return win_from_space(int(tp.rcvbuf) - int(tp.rmem_alloc)); }
int TcpSocket::full_space() const { return win_from_space(int(tp.rcvbuf)); }

uint32_t TcpSocket::receive_window() const {
  int32_t win = int32_t(tp.rcv_wup + tp.rcv_wnd - tp.rcv_nxt);
  return win < 0 ? 0 : uint32_t(win);
}

uint32_t TcpSocket::select_window_raw() {
  // __tcp_select_window (tcp_output.c)
  int mss = int(tp.ack.rcv_mss);
  int free_space = space();
  int full = std::min(int(tp.window_clamp), full_space());
  if (mss > full) mss = full;
  if (mss <= 0) mss = 1;
  if (free_space < full / 2) {
    tp.ack.quick = 0;
    if (free_space < mss) return 0;
  }
  if (free_space > int(tp.rcv_ssthresh)) free_space = int(tp.rcv_ssthresh);
  // "Get the largest window that is a nice multiple of mss ... If our current window offering
  // is within 1 mss of the free space we just keep it."
  int window = int(tp.rcv_wnd);
  if (window <= free_space - mss || window > free_space) window = (free_space / mss) * mss;
  return uint32_t(window);
}

uint16_t TcpSocket::select_window() {
  // tcp_select_window (tcp_output.c)
  uint32_t cur_win = receive_window();
  uint32_t new_win = select_window_raw();
  if (new_win < cur_win) new_win = cur_win;  // never shrink the offered window
  tp.rcv_wnd = new_win;
  tp.rcv_wup = tp.rcv_nxt;
  new_win >>= tp.rcv_wscale;
  if (new_win == 0) tp.pred_flags = 0;  // advertising zero window: disable fast path
  return uint16_t(std::min<uint32_t>(new_win, 65535));
}

void TcpSocket::fast_path_on() {
  // __tcp_fast_path_on
  tp.pred_flags = (tp.tcp_header_len / 4) << 28 | TCP_FLAG_ACK_WORD | (tp.snd_wnd >> tp.snd_wscale);
}

void TcpSocket::fast_path_check() {
  // tcp_fast_path_check
  if (ofo_.empty() && tp.rcv_wnd && tp.rmem_alloc < tp.rcvbuf) fast_path_on();
}

void TcpSocket::sync_mss() {
  // tcp_sync_mss (tcp_output.c)
  int mss_now = int(tp.pmtu) - int(kIpv4HeaderBytes) - int(kTcpHeaderBytes);
  if (mss_now > int(tp.mss_clamp)) mss_now = int(tp.mss_clamp);
  if (mss_now < 48) mss_now = 48;
  mss_now -= int(tp.tcp_header_len) - int(kTcpHeaderBytes);
  if (tp.max_window && mss_now > int(tp.max_window >> 1))
    mss_now = std::max(int(tp.max_window >> 1), 68 - int(tp.tcp_header_len));
  tp.mss_cache = uint32_t(std::max(mss_now, 8));
}

uint32_t TcpSocket::current_mss() const {
  // tcp_current_mss: SACK blocks we send shrink the room for data
  uint32_t mss = tp.mss_cache;
  if (tp.eff_sacks) mss -= uint32_t(kTcpSackBaseAlignedBytes + tp.eff_sacks * kTcpSackPerBlockBytes);
  return mss;
}

void TcpSocket::initialize_rcv_mss() {
  // tcp_initialize_rcv_mss
  const TcpParams& p = stack_.params();
  uint32_t hint = std::min(tp.advmss, tp.mss_cache);
  hint = std::min(hint, tp.rcv_wnd / 2);
  hint = std::min(hint, p.tcp_min_rcvmss_bytes);
  hint = std::max(hint, p.tcp_min_mss_bytes);
  tp.ack.rcv_mss = hint;
}

void TcpSocket::init_buffer_space() {
  // tcp_init_buffer_space (tcp_input.c); tcp_fixup_rcvbuf/sndbuf
  const TcpParams& p = stack_.params();
  if (!tp.rcvbuf_locked) {
    int rcvmem = int(tp.advmss + p.max_tcp_header_bytes + 16 + p.skb_struct_bytes);
    while (win_from_space(rcvmem) < int(tp.advmss)) rcvmem += 128;
    if (tp.rcvbuf < uint32_t(4 * rcvmem)) tp.rcvbuf = std::min<uint32_t>(4 * rcvmem, p.tcp_rmem_max_bytes);
  }
  if (!tp.sndbuf_locked) {
    int sndmem = int(tp.mss_clamp + p.max_tcp_header_bytes + 16 + p.skb_struct_bytes);
    if (tp.sndbuf < uint32_t(3 * sndmem)) tp.sndbuf = std::min<uint32_t>(3 * sndmem, p.tcp_wmem_max_bytes);
  }
  uint32_t maxwin = uint32_t(full_space());
  if (tp.window_clamp >= maxwin) {
    tp.window_clamp = maxwin;
    if (p.tcp_app_win && maxwin > 4 * tp.advmss)
      tp.window_clamp = std::max(maxwin - (p.tcp_app_win >= 32 ? 0u : maxwin >> p.tcp_app_win), 4 * tp.advmss);
  }
  // "Force reservation of one segment."
  if (p.tcp_app_win && tp.window_clamp > 2 * tp.advmss && tp.window_clamp + tp.advmss > maxwin)
    tp.window_clamp = std::max(2 * tp.advmss, maxwin - tp.advmss);
  tp.rcv_ssthresh = std::min(tp.rcv_ssthresh, tp.window_clamp);
  tp.snd_cwnd_stamp = jiffies();
}

void TcpSocket::init_metrics() {
  // tcp_init_metrics (2.4.20 tcp_input.c): a reordering degree the route learnt from an earlier
  // connection is taken over, and FACK is turned off with it; no other route metric is cached, so
  // the RTO stays the one measured in the handshake, with the "Play conservative" reset when
  // timestamps are not in use.
  const TcpParams& p = stack_.params();
  const TcpStack::RouteMetrics& dst = stack_.dst_metrics(daddr_);
  if (dst.reordering && tp.reordering != dst.reordering) {
    tp.sack_ok &= ~2;
    tp.reordering = dst.reordering;
  }
  set_rto();
  if (tp.rto < p.timeout_init_jiffies() && !tp.saw_tstamp && tp.srtt) {
    tp.srtt = 0;
    tp.mdev = tp.mdev_max = tp.rttvar = p.timeout_init_jiffies();
    tp.rto = p.timeout_init_jiffies();
  }
}

void TcpSocket::update_metrics() {
  // tcp_update_metrics (2.4.20 tcp_input.c), RTAX_REORDERING only: a session that failed to
  // estimate the RTT (backoff, or no srtt) updates nothing; otherwise the route keeps the larger
  // reordering degree, unless the connection's equals the sysctl.
  if (tp.backoff || !tp.srtt) return;
  TcpStack::RouteMetrics& dst = stack_.dst_metrics(daddr_);
  if (dst.reordering < tp.reordering && tp.reordering != stack_.params().tcp_reordering)
    dst.reordering = tp.reordering;
}

uint32_t TcpSocket::init_cwnd() const { return stack_.params().initial_cwnd_segments; }

uint32_t TcpSocket::tx_truesize() const {
  // tcp_alloc_pskb(sk, select_size() = mss_cache, ...): SKB_DATA_ALIGN(mss + MAX_TCP_HEADER)
  // + sizeof(struct sk_buff), charged to sk->wmem_queued (tcp_charge_skb).
  const TcpParams& p = stack_.params();
  return skb_data_align(tp.mss_cache + p.max_tcp_header_bytes, p.l1_cache_bytes) + p.skb_struct_bytes;
}

void TcpSocket::set_state(TcpState s) {
  // tcp_set_state
  TcpState old = tp.state;
  NetMib& m = stack_.mib_;
  if (s == TcpState::Established && old != TcpState::Established) ++m[TcpMib::CurrEstab];
  else if (old == TcpState::Established && s != TcpState::Established && m[TcpMib::CurrEstab])
    --m[TcpMib::CurrEstab];
  // tcp_update_metrics runs where 2.4.20 calls it: entering TIME_WAIT (tcp_time_wait) and on the
  // last ACK of LAST_ACK (tcp_rcv_state_process, before tcp_done).
  if ((s == TcpState::TimeWait && old != TcpState::TimeWait) || (s == TcpState::Closed && old == TcpState::LastAck))
    update_metrics();
  tp.state = s;
  if (s == TcpState::Closed) {
    stack_.unhash(*this);
    clear_delack_timer();
    clear_xmit_timer(TCP_TIME_RETRANS);
  }
}

// ------------------------------------------------------------------------------------------
// Timers
// ------------------------------------------------------------------------------------------

void TcpSocket::reset_xmit_timer(uint8_t what, uint32_t when) {
  // tcp_reset_xmit_timer
  const TcpParams& p = stack_.params();
  if (when > p.rto_max_jiffies()) when = p.rto_max_jiffies();
  if (what == TCP_TIME_RETRANS || what == TCP_TIME_PROBE0) {
    tp.pending = what;
    tp.timeout = jiffies() + when;
    uint64_t j64 = stack_.jiffies64(stack_.now_);
    fx().timers.push_back({id_, TcpTimer::Retransmit, false, stack_.jiffy_time(j64 + std::max(when, 1u))});
  } else {
    tp.ack.pending |= TCP_ACK_TIMER;
    reset_delack_timer(jiffies() + when);
  }
}

void TcpSocket::clear_xmit_timer(uint8_t what) {
  // tcp_clear_xmit_timer
  if (what == TCP_TIME_RETRANS || what == TCP_TIME_PROBE0) {
    if (tp.pending == 0) return;
    tp.pending = 0;
    fx().timers.push_back({id_, TcpTimer::Retransmit, true, 0});
  }
}

void TcpSocket::reset_delack_timer(uint32_t expires) {
  tp.ack.timeout = expires;
  uint64_t j64 = stack_.jiffies64(stack_.now_);
  int32_t d = int32_t(expires - jiffies());
  fx().timers.push_back({id_, TcpTimer::DelayedAck, false, stack_.jiffy_time(j64 + std::max(d, 1))});
}

void TcpSocket::clear_delack_timer() {
  // tcp_clear_xmit_timer(sk, TCP_TIME_DACK)
  bool had = tp.ack.pending & TCP_ACK_TIMER;
  tp.ack.blocked = false;
  tp.ack.pending = 0;
  if (had) fx().timers.push_back({id_, TcpTimer::DelayedAck, true, 0});
}

void TcpSocket::delack_timer() {
  // tcp_delack_timer (tcp_timer.c)
  const TcpParams& p = stack_.params();
  NetMib& m = stack_.mib_;
  fx().path(TcpPath::tcp_delack_timer);
  if (owned_by_user_) {
    tp.ack.blocked = true;
    ++m[TcpExtMib::DelayedACKLocked];
    reset_delack_timer(jiffies() + p.ato_min_jiffies());
    return;
  }
  if (tp.state == TcpState::Closed || !(tp.ack.pending & TCP_ACK_TIMER)) return;
  if (int32_t(tp.ack.timeout - jiffies()) > 0) {
    reset_delack_timer(tp.ack.timeout);
    return;
  }
  tp.ack.pending &= uint8_t(~TCP_ACK_TIMER);
  if (!prequeue_.empty()) {
    m[TcpExtMib::TCPSchedulerFailed] += prequeue_.size();
    while (!prequeue_.empty()) {
      Seg s = std::move(prequeue_.front());
      prequeue_.pop_front();
      do_rcv(s);
    }
    tp.ucopy.memory = 0;
  }
  if (ack_scheduled()) {
    if (!tp.ack.pingpong) {
      tp.ack.ato = std::min(tp.ack.ato << 1, tp.rto);  // delayed ACK missed: inflate ATO
    } else {
      tp.ack.pingpong = false;  // leave pingpong mode and deflate ATO
      tp.ack.ato = p.ato_min_jiffies();
    }
    send_ack();
    ++m[TcpExtMib::DelayedACKs];
    ++xfer_.ev.delayed_acks;
  }
}

void TcpSocket::write_timer() {
  // tcp_write_timer (tcp_timer.c)
  fx().path(TcpPath::tcp_write_timer);
  if (owned_by_user_) {
    reset_xmit_timer(tp.pending ? tp.pending : TCP_TIME_RETRANS, stack_.params().hz / 20);
    return;
  }
  if (tp.state == TcpState::Closed || !tp.pending) return;
  if (int32_t(tp.timeout - jiffies()) > 0) {
    uint64_t j64 = stack_.jiffies64(stack_.now_);
    fx().timers.push_back({id_, TcpTimer::Retransmit, false,
                           stack_.jiffy_time(j64 + uint32_t(tp.timeout - jiffies()))});
    return;
  }
  uint8_t event = tp.pending;
  tp.pending = 0;
  if (event == TCP_TIME_RETRANS) retransmit_timer();
  else if (event == TCP_TIME_PROBE0) probe_timer();
}

void TcpSocket::retransmit_timer() {
  // tcp_retransmit_timer (tcp_timer.c)
  const TcpParams& p = stack_.params();
  NetMib& m = stack_.mib_;
  if (tp.packets_out == 0) return;
  ++xfer_.ev.timeouts;
  record(TcpSeqEvent::timeout, rel_seq(tp.snd_una));
  if (tp.retransmits == 0) {
    if (tp.ca_state == TcpCaState::Disorder || tp.ca_state == TcpCaState::Recovery) {
      if (tp.sack_ok) {
        ++m[tp.ca_state == TcpCaState::Recovery ? TcpExtMib::TCPSackRecoveryFail
                                                : TcpExtMib::TCPSackFailures];
      } else {
        ++m[tp.ca_state == TcpCaState::Recovery ? TcpExtMib::TCPRenoRecoveryFail
                                                : TcpExtMib::TCPRenoFailures];
      }
    } else if (tp.ca_state == TcpCaState::Loss) {
      ++m[TcpExtMib::TCPLossFailures];
    } else {
      ++m[TcpExtMib::TCPTimeouts];
    }
  }
  enter_loss(0);
  if (retransmit_skb(0) > 0) {
    // "Retransmission failed because of local congestion, do not backoff."
    if (!tp.retransmits) tp.retransmits = 1;
    const uint32_t retry = std::min(tp.rto, p.resource_probe_jiffies());
    reset_xmit_timer(TCP_TIME_RETRANS, retry);
    rto_episode_ = true;
    if (stack_.on_rto_event) stack_.on_rto_event({stack_.now_, id_, false, tp.backoff, retry, true});
    return;
  }
  ++tp.backoff;
  ++tp.retransmits;
  tp.rto = std::min(tp.rto << 1, p.rto_max_jiffies());
  reset_xmit_timer(TCP_TIME_RETRANS, tp.rto);
  rto_episode_ = true;
  if (stack_.on_rto_event) stack_.on_rto_event({stack_.now_, id_, false, tp.backoff, tp.rto});
}

void TcpSocket::probe_timer() {
  // tcp_probe_timer
  if (tp.packets_out || send_head_ >= write_queue_.size()) {
    tp.probes_out = 0;
    return;
  }
  send_probe0();
}

void TcpSocket::send_probe0() {
  // tcp_send_probe0 + tcp_write_wakeup
  const TcpParams& p = stack_.params();
  if (send_head_ < write_queue_.size() &&
      seq_before(write_queue_[send_head_].seq, tp.snd_una + tp.snd_wnd)) {
    uint32_t mss = current_mss();
    TcpTxSkb& skb = write_queue_[send_head_];
    uint32_t seg_size = std::min(tp.snd_una + tp.snd_wnd - skb.seq, mss);
    if (seg_size < skb.len()) {
      write_queue_[send_head_].flags |= kTcpPsh;
      fragment(send_head_, seg_size);
    }
    transmit(send_head_, false);
    update_send_head();
  } else {
    // tcp_xmit_probe_skb: an old ACK (seq snd_una - 1) that makes the peer answer
    transmit_ctl(kTcpAck, tp.snd_una - 1);
    fx().path(TcpPath::tcp_send_ack);
  }
  if (tp.packets_out || send_head_ >= write_queue_.size()) {
    tp.probes_out = 0;
    tp.backoff = 0;
    return;
  }
  ++tp.backoff;
  ++tp.probes_out;
  reset_xmit_timer(TCP_TIME_PROBE0, std::min<uint32_t>(tp.rto << tp.backoff, p.rto_max_jiffies()));
}

void TcpSocket::check_probe_timer() {
  // tcp_check_probe_timer
  if (!tp.packets_out && !tp.pending) reset_xmit_timer(TCP_TIME_PROBE0, tp.rto);
}

// ------------------------------------------------------------------------------------------
// Socket calls (tcp.c)
// ------------------------------------------------------------------------------------------

void TcpSocket::open_active(uint32_t saddr, uint16_t sport, uint32_t daddr, uint16_t dport) {
  // tcp_v4_connect + tcp_connect
  const TcpParams& p = stack_.params();
  saddr_ = saddr;
  sport_ = sport;
  daddr_ = daddr;
  dport_ = dport;
  tp.mss_clamp = 536;
  tp.tcp_header_len = uint32_t(kTcpHeaderBytes + (p.tcp_timestamps ? kTcpTsOptionAlignedBytes : 0));
  tp.max_window = 0;
  sync_mss();
  tp.advmss = p.mtu_bytes - kIpv4HeaderBytes - kTcpHeaderBytes;
  initialize_rcv_mss();
  tp.rcv_wnd = tcp_select_initial_window(p, full_space(), tp.advmss, &tp.window_clamp,
                                         p.tcp_window_scaling, &tp.rcv_wscale);
  tp.rcv_ssthresh = tp.rcv_wnd;
  tp.snd_wnd = 0;
  tp.snd_wl1 = 0;
  tp.snd_una = tp.write_seq;
  tp.snd_sml = tp.write_seq;
  tp.rcv_nxt = tp.rcv_wup = tp.copied_seq = 0;
  tp.rto = p.timeout_init_jiffies();
  tp.retransmits = 0;
  clear_retrans();
  tp.inet_id = uint16_t(tp.write_seq ^ jiffies());
  TcpTxSkb skb;
  skb.seq = tp.write_seq++;
  skb.end_seq = tp.write_seq;
  skb.flags = kTcpSyn;
  skb.truesize = p.max_tcp_header_bytes + p.skb_struct_bytes;
  tp.snd_nxt = tp.write_seq;
  tp.pushed_seq = tp.write_seq;
  tp.retrans_stamp = jiffies();
  write_queue_.push_back(skb);
  tp.wmem_queued += skb.truesize;
  send_head_ = 1;
  ++tp.packets_out;
  set_state(TcpState::SynSent);
  transmit(0, false);
  ++stack_.mib_[TcpMib::ActiveOpens];
  reset_xmit_timer(TCP_TIME_RETRANS, tp.rto);
}

void TcpSocket::init_from_openreq(uint32_t saddr, uint16_t sport, uint32_t daddr, uint16_t dport,
                                  const TcpOpenReq& req, const Seg& ack_seg) {
  // tcp_create_openreq_child + tcp_v4_syn_recv_sock
  const TcpParams& p = stack_.params();
  saddr_ = saddr;
  sport_ = sport;
  daddr_ = daddr;
  dport_ = dport;
  tp.state = TcpState::SynRecv;
  tp.irs = req.rcv_isn;
  tp.rcv_nxt = tp.rcv_wup = tp.copied_seq = req.rcv_isn + 1;
  tp.iss = req.snt_isn;
  tp.snd_una = tp.snd_nxt = tp.write_seq = tp.pushed_seq = tp.snd_sml = req.snt_isn + 1;
  tp.snd_wl1 = req.rcv_isn;
  tp.srtt = 0;
  tp.mdev = p.timeout_init_jiffies();
  tp.rto = p.timeout_init_jiffies();
  tp.snd_cwnd = p.initial_cwnd_segments;
  tp.snd_cwnd_cnt = 0;
  tp.snd_ssthresh = 0x7fffffff;
  tp.ca_state = TcpCaState::Open;
  tp.reordering = p.tcp_reordering;
  tp.window_clamp = req.window_clamp;
  tp.rcv_ssthresh = req.rcv_wnd;
  tp.rcv_wnd = req.rcv_wnd;
  tp.wscale_ok = req.wscale_ok;
  if (tp.wscale_ok) {
    tp.snd_wscale = req.snd_wscale;
    tp.rcv_wscale = req.rcv_wscale;
  } else {
    tp.snd_wscale = tp.rcv_wscale = 0;
    tp.window_clamp = std::min(tp.window_clamp, 65535u);
  }
  tp.snd_wnd = uint32_t(ack_seg.pkt.th.window) << tp.snd_wscale;
  tp.max_window = tp.snd_wnd;
  tp.tstamp_ok = req.tstamp_ok;
  if (tp.tstamp_ok) {
    tp.ts_recent = req.ts_recent;
    tp.ts_recent_stamp = jiffies();
    tp.tcp_header_len = kTcpHeaderBytes + kTcpTsOptionAlignedBytes;
  } else {
    tp.ts_recent_stamp = 0;
    tp.tcp_header_len = kTcpHeaderBytes;
  }
  tp.sack_ok = req.sack_ok ? uint8_t(p.tcp_fack ? 3 : 1) : 0;
  tp.mss_clamp = req.mss;
  tp.pmtu = p.mtu_bytes;
  sync_mss();
  tp.advmss = p.mtu_bytes - kIpv4HeaderBytes - kTcpHeaderBytes;
  initialize_rcv_mss();
  tp.inet_id = uint16_t(tp.write_seq ^ jiffies());
  tp.lsndtime = jiffies();
  ++stack_.mib_[TcpMib::PassiveOpens];
}

namespace {
/// sock_error (include/net/sock.h): the socket's pending error, negated, cleared as it is read.
int take_sock_error(int& sk_err) {
  const int e = sk_err;
  sk_err = 0;
  return -e;
}
}  // namespace

size_t TcpSocket::sendmsg(size_t bytes, uint64_t tag) {
  // tcp_sendmsg (tcp.c)
  fx().path(TcpPath::tcp_sendmsg);
  writer_sleeping_ = false;
  if (tp.state == TcpState::SynSent || tp.state == TcpState::SynRecv) {
    writer_sleeping_ = true;  // wait_for_tcp_connect
    fx().would_block = true;
    return 0;
  }
  // No connection any more (wait_for_tcp_connect), a pending error or SEND_SHUTDOWN: do_error,
  // sock_error else -EPIPE.
  if ((tp.state != TcpState::Established && tp.state != TcpState::CloseWait) || sk_err_ ||
      (tp.shutdown & SEND_SHUTDOWN)) {
    const int err = take_sock_error(sk_err_);
    fx().error = err ? err : -kEpipe;
    return 0;
  }
  uint32_t mss_now = current_mss();
  if (!write_open_ && stack_.tags_) stack_.tags_->begin(tx_flow(), write_off_, tag);
  write_open_ = true;
  size_t copied = 0;
  while (copied < bytes) {
    int copy = 0;
    if (send_head_ < write_queue_.size()) copy = int(mss_now) - int(write_queue_.back().len());
    if (send_head_ >= write_queue_.size() || copy <= 0) {
      // new_segment
      if (tp.wmem_queued >= tp.sndbuf) {  // !tcp_memory_free: wait_for_sndbuf
        tp.nospace = true;
        if (copied) push(1);
        writer_sleeping_ = true;
        fx().would_block = true;
        break;
      }
      entail(kTcpAck);
      copy = int(mss_now);
    }
    if (size_t(copy) > bytes - copied) copy = int(bytes - copied);
    TcpTxSkb& skb = write_queue_.back();
    if (!copied) skb.flags &= uint8_t(~kTcpPsh);
    tp.write_seq += uint32_t(copy);
    skb.end_seq += uint32_t(copy);
    write_off_ += uint64_t(copy);
    copied += size_t(copy);
    if (skb.len() != mss_now) continue;
    if (forced_push()) {
      mark_push(skb);
      push_pending_frames(1);
    } else if (send_head_ + 1 == write_queue_.size()) {
      // tcp_push_one
      if (snd_test(write_queue_[send_head_], mss_now, 1)) {
        transmit(send_head_, false);
        update_send_head();
      }
    }
  }
  if (copied) fx().path(TcpPath::tcp_sendmsg_copy, uint32_t(copied));
  if (copied == bytes) {
    if (stack_.tags_) stack_.tags_->end(tx_flow(), write_off_);
    write_open_ = false;
  }
  if (copied && !fx().would_block) push(tp.nonagle);
  return copied;
}

void TcpSocket::cleanup_rbuf(size_t copied) {
  // cleanup_rbuf (tcp.c)
  bool time_to_ack = false;
  if (ack_scheduled()) {
    if (tp.ack.blocked || tp.rcv_nxt - tp.rcv_wup > tp.ack.rcv_mss ||
        (copied > 0 && (tp.ack.pending & TCP_ACK_PUSHED) && !tp.ack.pingpong && tp.rmem_alloc == 0))
      time_to_ack = true;
  }
  if (copied > 0 && !time_to_ack && !(tp.shutdown & RCV_SHUTDOWN)) {
    uint32_t rcv_window_now = receive_window();
    if (2 * rcv_window_now <= tp.window_clamp) {
      uint32_t new_window = select_window_raw();
      if (new_window && new_window >= 2 * rcv_window_now) time_to_ack = true;
    }
  }
  if (time_to_ack) send_ack();
}

void TcpSocket::prequeue_process() {
  // tcp_prequeue_process (tcp.c)
  stack_.mib_[TcpExtMib::TCPPrequeued] += prequeue_.size();
  fx().path(TcpPath::tcp_prequeue_process, uint32_t(prequeue_.size()));
  while (!prequeue_.empty()) {
    Seg s = std::move(prequeue_.front());
    prequeue_.pop_front();
    do_rcv(s);
  }
  tp.ucopy.memory = 0;
}

bool TcpSocket::release_sock() {
  // __release_sock (net/core/sock.c): sk->backlog_rcv (tcp_v4_do_rcv) on each queued skb
  if (backlog_.empty()) return false;
  fx().path(TcpPath::tcp_backlog_process, uint32_t(backlog_.size()));
  while (!backlog_.empty()) {
    Seg s = std::move(backlog_.front());
    backlog_.pop_front();
    do_rcv(s);
  }
  return true;
}

void TcpSocket::recvmsg(size_t len_in) {
  // tcp_recvmsg (tcp.c), blocking, target = 1 byte (SO_RCVLOWAT default). The reader holds the
  // socket lock (lock_sock) from entry to exit except while it sleeps in tcp_data_wait, and what
  // it copies takes CPU time: input arriving meanwhile goes to the backlog (tcp_v4_rcv sees
  // sk->lock.users). So a pass that copied or processed input returns recv_again with the lock
  // still held; the caller charges the pass and calls again, and the loop goes on at the test
  // that reads the backlog ("if (copied >= target && sk->backlog.tail == NULL) break"). The exit's
  // release_sock does the same, pass by pass, until the backlog is empty.
  using At = RecvYield::At;
  NetMib& m = stack_.mib_;
  const size_t target = 1;
  const bool relock = recv_yield_.active;
  recv_yield_.active = false;
  // One process per socket: lock_sock by another owner (which would make this one wait) does not
  // arise in the model.
  if (!relock && owned_by_user_) throw std::logic_error("tcp_recvmsg: the socket is already locked by its user");
  const bool resuming = !relock && reader_sleeping_;
  reader_sleeping_ = false;
  if (!resuming && !relock) fx().path(TcpPath::tcp_recvmsg);
  owned_by_user_ = true;  // lock_sock
  in_user_ctx_ = true;
  size_t len = relock ? recv_yield_.len : resuming ? tp.ucopy.len : len_in;
  size_t copied = relock ? recv_yield_.copied : 0;
  bool user_recv = relock ? recv_yield_.user_recv : resuming && tp.ucopy.task;
  bool fin_hit = false;
  bool worked = false;  // this pass copied or processed input
  enum { kTop, kTest, kAfterWait, kDoPrequeue, kExit, kRelease } next =
      !relock ? (resuming ? kAfterWait : kTop)
              : recv_yield_.at == At::Exit ? kExit : recv_yield_.at == At::Release ? kRelease : kTest;
  size_t copied_bytes_queue = 0;
  // This call's copies from the receive queue, charged as one path step when it returns.
  auto charge_queue_copies = [&] {
    if (copied_bytes_queue) fx().path(TcpPath::tcp_recvmsg_copy, uint32_t(copied_bytes_queue));
  };
  // Return to the caller with the lock held; the next recv() goes on at `at`.
  auto yield = [&](At at) {
    recv_yield_ = RecvYield{true, at, len, copied, user_recv};
    in_user_ctx_ = false;
    charge_queue_copies();
    fx().recv_again = true;
  };

  while (next != kExit && next != kRelease) {
    if (next == kTop) {
      if (len == 0) break;
      // Copy from the receive queue.
      while (len > 0 && !receive_queue_.empty()) {
        TcpRxSkb& skb = receive_queue_.front();
        uint32_t offset = tp.copied_seq - skb.seq;
        if (offset < skb.len) {
          size_t used = std::min<size_t>(skb.len - offset, len);
          tp.copied_seq += uint32_t(used);
          copied_off_ += used;
          copied += used;
          len -= used;
          copied_bytes_queue += used;
          worked = true;
          if (used + offset < skb.len) break;
        }
        if (skb.fin && tp.copied_seq == skb.end_seq - 1) {
          ++tp.copied_seq;  // found_fin_ok
          fin_hit = true;
        }
        // tcp_eat_skb
        tp.rmem_alloc -= std::min(tp.rmem_alloc, skb.truesize);
        receive_queue_.pop_front();
        fx().path(TcpPath::kfree_skb_rx);
        if (fin_hit) break;
      }
      if (fin_hit || len == 0) break;
      next = kTest;
      continue;
    }
    if (next == kTest) {
      if (worked) {  // the copies take time with the lock held: the backlog is read after them
        yield(At::Test);
        return;
      }
      if (copied >= target && backlog_.empty()) break;
      if (copied) {
        if (sk_err_ || tp.state == TcpState::Closed || (tp.shutdown & RCV_SHUTDOWN)) break;
      } else {
        if (fin_received_) break;  // sk->done
        if (sk_err_) {             // sock_error: the error is reported once
          fx().error = take_sock_error(sk_err_);
          break;
        }
        if ((tp.shutdown & RCV_SHUTDOWN) || tp.state == TcpState::Closed) break;
      }
      cleanup_rbuf(copied);
      bool jump_prequeue = false;
      if (tp.ucopy.task == user_recv) {
        if (!user_recv) {  // install new reader
          user_recv = true;
          tp.ucopy.task = true;
        }
        tp.ucopy.len = uint32_t(len);
        if (!prequeue_.empty()) jump_prequeue = true;
      }
      if (jump_prequeue) {
        next = kDoPrequeue;
        continue;
      }
      if (copied >= target) {
        if (release_sock()) worked = true;  // do not sleep, just process backlog
      } else {
        // tcp_data_wait: release_sock, then sleep unless data (or a direct copy) arrived
        if (release_sock()) worked = true;
        bool ready = readable_bytes() > 0 || (len - tp.ucopy.len) != 0 || fin_received_ ||
                     !prequeue_.empty() || tp.state == TcpState::Closed || sk_err_;
        if (!ready) {
          reader_sleeping_ = true;
          tp.ucopy.len = uint32_t(len);
          fx().would_block = true;
          in_user_ctx_ = false;
          owned_by_user_ = false;
          charge_queue_copies();
          return;
        }
      }
      next = kAfterWait;
      continue;
    }
    if (next == kAfterWait) {
      if (user_recv) {
        size_t chunk = len - tp.ucopy.len;
        if (chunk) {
          m[TcpExtMib::TCPDirectCopyFromBacklog] += chunk;
          len -= chunk;
          copied += chunk;
        }
        if (tp.rcv_nxt == tp.copied_seq && !prequeue_.empty()) {
          next = kDoPrequeue;
          continue;
        }
      }
      next = kTop;
      continue;
    }
    // kDoPrequeue
    if (!prequeue_.empty()) worked = true;
    prequeue_process();
    size_t chunk = len - tp.ucopy.len;
    if (chunk) {
      m[TcpExtMib::TCPDirectCopyFromPrequeue] += chunk;
      len -= chunk;
      copied += chunk;
    }
    next = kTop;
  }
  if (next != kExit && next != kRelease) {  // the loop ended
    if (worked) {  // the last pass's copies, too, are made with the lock held
      yield(At::Exit);
      return;
    }
    next = kExit;
  }

  if (next == kExit) {
    if (user_recv) {
      if (!prequeue_.empty()) {
        tp.ucopy.len = copied > 0 ? uint32_t(len) : 0;
        prequeue_process();
        size_t chunk = len - tp.ucopy.len;
        if (copied > 0 && chunk) {
          m[TcpExtMib::TCPDirectCopyFromPrequeue] += chunk;
          len -= chunk;
          copied += chunk;
        }
      }
      tp.ucopy.task = false;
      tp.ucopy.len = 0;
      user_recv = false;
    }
    cleanup_rbuf(copied);
  }
  // release_sock: each pass processes what the backlog holds with the lock kept; the pass that
  // finds it empty unlocks.
  in_user_ctx_ = false;
  if (release_sock()) {
    yield(At::Release);
    return;
  }
  owned_by_user_ = false;
  charge_queue_copies();
  fx().delivered = copied;
  if (stack_.tags_ && copied) stack_.tags_->delivered(rx_flow(), copied_off_, &fx().completed_tags);
  if (copied == 0 && !fx().error && (fin_hit || fin_received_ || tp.state == TcpState::Closed)) {
    fx().eof = true;
    eof_reported_ = true;
  }
}

void TcpSocket::close() {
  // tcp_close: unread data -> RST (TCPAbortOnClose); otherwise FIN after queued data
  NetMib& m = stack_.mib_;
  reader_sleeping_ = writer_sleeping_ = false;
  tp.ucopy.task = false;
  switch (tp.state) {
    case TcpState::Established:
    case TcpState::CloseWait:
    case TcpState::SynRecv:
      if (readable_bytes() > 0) {
        ++m[TcpExtMib::TCPAbortOnClose];
        TcpHeader th;
        th.source = sport_;
        th.dest = dport_;
        th.seq = tp.snd_nxt;
        th.flags = kTcpRst | kTcpAck;
        th.ack_seq = tp.rcv_nxt;
        Ipv4Header ip;
        ip.saddr = saddr_;
        ip.daddr = daddr_;
        ip.id = tp.inet_id++;
        ip.ttl = stack_.params().ip_default_ttl;
        TcpTxPacket pkt;
        pkt.ip = build_tcp_packet(ip, th, nullptr, 0, 0, stack_.params().hw_tx_csum);
        pkt.sock = id_;
        pkt.tcp_flags = th.flags;
        fx().tx.push_back(std::move(pkt));
        fx().path(TcpPath::tcp_send_reset);
        ++m[TcpMib::OutSegs];
        ++m[TcpMib::OutRsts];
        set_state(TcpState::Closed);
        return;
      }
      set_state(tp.state == TcpState::CloseWait ? TcpState::LastAck : TcpState::FinWait1);
      tp.shutdown |= SEND_SHUTDOWN;
      send_fin();
      return;
    case TcpState::SynSent:
    case TcpState::Listen:
      set_state(TcpState::Closed);
      return;
    default:
      return;
  }
}

}  // namespace nicsim
