// Linux 2.4.20 TCP per-socket algorithms. Function and field names follow net/ipv4/tcp_input.c,
// tcp_output.c, tcp_timer.c, tcp.c and include/net/tcp.h; comments name the Linux function each
// block reproduces. Sequence numbers are 32-bit and compared with seq_before/seq_after.
#include "drivers-sim/net/tcp_socket.h"

#include "drivers-sim/net/tcp_stack.h"

#include <algorithm>

namespace nicsim {

namespace {
// tcp_ack() flags (tcp_input.c).
constexpr int FLAG_DATA = 0x01;
constexpr int FLAG_WIN_UPDATE = 0x02;
constexpr int FLAG_DATA_ACKED = 0x04;
constexpr int FLAG_RETRANS_DATA_ACKED = 0x08;
constexpr int FLAG_SYN_ACKED = 0x10;
constexpr int FLAG_DATA_SACKED = 0x20;
constexpr int FLAG_ECE = 0x40;
constexpr int FLAG_DATA_LOST = 0x80;
constexpr int FLAG_SLOWPATH = 0x100;
constexpr int FLAG_ACKED = FLAG_DATA_ACKED | FLAG_SYN_ACKED;
constexpr int FLAG_NOT_DUP = FLAG_DATA | FLAG_WIN_UPDATE | FLAG_ACKED;
constexpr int FLAG_CA_ALERT = FLAG_DATA_SACKED | FLAG_ECE;

constexpr uint8_t RCV_SHUTDOWN = 1;
constexpr uint8_t SEND_SHUTDOWN = 2;

// Header-prediction word (tcp_flag_word & TCP_HP_BITS): doff nibble, flags byte, window.
constexpr uint32_t TCP_RESERVED_BITS = 0x0F000000;
constexpr uint32_t TCP_FLAG_PSH_WORD = 0x00080000;
constexpr uint32_t TCP_HP_BITS = ~(TCP_RESERVED_BITS | TCP_FLAG_PSH_WORD);
constexpr uint32_t TCP_FLAG_ACK_WORD = 0x00100000;

uint32_t flag_word(const TcpHeader& th) {
  return uint32_t(th.doff_bytes / 4) << 28 | uint32_t(th.flags) << 16 | th.window;
}
// tcp_sack_extend
bool sack_extend(SackBlock& sp, uint32_t seq, uint32_t end_seq) {
  if (!seq_after(seq, sp.end_seq) && !seq_after(sp.start_seq, end_seq)) {
    if (seq_before(seq, sp.start_seq)) sp.start_seq = seq;
    if (seq_after(end_seq, sp.end_seq)) sp.end_seq = end_seq;
    return true;
  }
  return false;
}
uint32_t skb_data_align(uint32_t n, uint32_t line) { return (n + line - 1) / line * line; }
}  // namespace

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
  // tcp_init_metrics with no cached route metrics: keep the RTO measured in the handshake;
  // "Play conservative" reset when timestamps are not in use.
  const TcpParams& p = stack_.params();
  set_rto();
  if (tp.rto < p.timeout_init_jiffies() && !tp.saw_tstamp && tp.srtt) {
    tp.srtt = 0;
    tp.mdev = tp.mdev_max = tp.rttvar = p.timeout_init_jiffies();
    tp.rto = p.timeout_init_jiffies();
  }
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
  retransmit_skb(0);
  ++tp.backoff;
  ++tp.retransmits;
  tp.rto = std::min(tp.rto << 1, p.rto_max_jiffies());
  reset_xmit_timer(TCP_TIME_RETRANS, tp.rto);
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
// Output (tcp_output.c)
// ------------------------------------------------------------------------------------------

void TcpSocket::event_ack_sent() {
  // tcp_event_ack_sent: tcp_dec_quickack_mode + tcp_clear_xmit_timer(TCP_TIME_DACK)
  if (tp.ack.quick && --tp.ack.quick == 0) tp.ack.ato = stack_.params().ato_min_jiffies();
  clear_delack_timer();
}

void TcpSocket::event_data_sent() {
  // tcp_event_data_sent
  uint32_t now = jiffies();
  if (!tp.packets_out && int32_t(now - tp.lsndtime) > int32_t(tp.rto)) cwnd_restart();
  tp.lsndtime = now;
  // "If it is a reply for ato after last received packet, enter pingpong mode."
  if (uint32_t(now - tp.ack.lrcvtime) < tp.ack.ato) tp.ack.pingpong = true;
}

void TcpSocket::emit(uint8_t flags, uint32_t seq, uint32_t len, bool syn_opts, uint64_t off,
                     bool retrans) {
  // tcp_transmit_skb + ip_queue_xmit
  const TcpParams& p = stack_.params();
  NetMib& m = stack_.mib_;
  uint8_t opts[40];
  size_t optlen = 0;
  uint16_t window;
  if (syn_opts) {
    optlen = build_syn_options(opts, uint16_t(tp.advmss), p.tcp_timestamps, jiffies(), tp.ts_recent,
                               p.tcp_sack, p.tcp_window_scaling, tp.rcv_wscale);
    window = uint16_t(std::min<uint32_t>(tp.rcv_wnd, 65535));  // SYN windows are never scaled
  } else {
    SackBlock blocks[4];
    unsigned n = 0;
    if (tp.eff_sacks) {
      // tcp_build_and_update_options: duplicate_sack sits just before selective_acks
      if (tp.dsack) blocks[n++] = tp.duplicate_sack;
      for (unsigned i = 0; n < tp.eff_sacks && i < tp.num_sacks; ++i) blocks[n++] = tp.selective_acks[i];
      if (tp.dsack) {
        tp.dsack = false;
        --tp.eff_sacks;
      }
    }
    optlen = build_options(opts, tp.tstamp_ok, jiffies(), tp.ts_recent, blocks, n);
    window = select_window();
  }
  if (flags & kTcpAck) event_ack_sent();
  if (len) event_data_sent();
  ++m[TcpMib::OutSegs];
  ++m[IpMib::OutRequests];
  TcpHeader th;
  th.source = sport_;
  th.dest = dport_;
  th.seq = seq;
  th.ack_seq = tp.rcv_nxt;
  th.flags = flags;
  th.window = window;
  Ipv4Header ip;
  ip.saddr = saddr_;
  ip.daddr = daddr_;
  ip.ttl = p.ip_default_ttl;
  ip.id = tp.inet_id++;  // ip_select_ident with DF: sk->protinfo.af_inet.id++
  TcpTxPacket pkt;
  pkt.ip = build_tcp_packet(ip, th, opts, optlen, len, p.hw_tx_csum);
  pkt.sock = id_;
  pkt.payload_bytes = len;
  pkt.tcp_flags = flags;
  pkt.retransmission = retrans;
  if (len && stack_.tags_) pkt.journey = stack_.tags_->tag_at(tx_flow(), off);
  fx().tx.push_back(std::move(pkt));
}

void TcpSocket::transmit(size_t idx, bool retrans) {
  TcpTxSkb& skb = write_queue_[idx];
  skb.when = jiffies();
  uint32_t seq = skb.seq;
  uint8_t flags = skb.flags;
  uint32_t len = skb.len();
  uint64_t off = skb.off;
  fx().path(TcpPath::tcp_transmit_skb);
  if (retrans) fx().path(TcpPath::tcp_retransmit_skb);
  emit(flags, seq, len, (flags & kTcpSyn) != 0, off, retrans);
}

void TcpSocket::transmit_ctl(uint8_t flags, uint32_t seq) { emit(flags, seq, 0, false, 0, false); }

void TcpSocket::send_ack() {
  // tcp_send_ack: seq = tcp_acceptable_seq
  if (tp.state == TcpState::Closed) return;
  uint32_t seq = !seq_before(tp.snd_una + tp.snd_wnd, tp.snd_nxt) ? tp.snd_nxt : tp.snd_una + tp.snd_wnd;
  fx().path(TcpPath::tcp_send_ack);
  transmit_ctl(kTcpAck, seq);
}

void TcpSocket::send_delayed_ack() {
  // tcp_send_delayed_ack (tcp_output.c)
  const TcpParams& p = stack_.params();
  uint32_t ato = tp.ack.ato;
  if (ato > p.ato_min_jiffies()) {
    uint32_t max_ato = p.delack_half_second_jiffies();
    if (tp.ack.pingpong || (tp.ack.pending & TCP_ACK_PUSHED)) max_ato = p.delack_max_jiffies();
    // "If some rtt estimate is known, use it to bound delayed ack."
    if (tp.srtt) {
      uint32_t rtt = std::max(tp.srtt >> 3, p.ato_min_jiffies());
      if (rtt < max_ato) max_ato = rtt;
    }
    ato = std::min(ato, max_ato);
  }
  uint32_t timeout = jiffies() + ato;
  // "Use new timeout only if there wasn't a older one earlier."
  if (tp.ack.pending & TCP_ACK_TIMER) {
    // "If delack timer was blocked or is about to expire, send ACK now."
    if (tp.ack.blocked || !seq_after(tp.ack.timeout, jiffies() + (ato >> 2))) {
      send_ack();
      return;
    }
    if (!seq_before(timeout, tp.ack.timeout)) timeout = tp.ack.timeout;
  }
  tp.ack.pending |= TCP_ACK_SCHED | TCP_ACK_TIMER;
  reset_delack_timer(timeout);
}

bool TcpSocket::minshall_check() const {
  return seq_after(tp.snd_sml, tp.snd_una) && !seq_after(tp.snd_sml, tp.snd_nxt);
}

bool TcpSocket::nagle_check(const TcpTxSkb& skb, uint32_t mss, int nonagle) const {
  // tcp_nagle_check: Nagle with Minshall's modification
  return skb.len() < mss && !(skb.flags & kTcpFin) &&
         (nonagle == 2 || (!nonagle && tp.packets_out && minshall_check()));
}

bool TcpSocket::snd_test(const TcpTxSkb& skb, uint32_t mss, int nonagle) const {
  // tcp_snd_test
  return (nonagle == 1 || !nagle_check(skb, mss, nonagle)) &&
         (packets_in_flight() < tp.snd_cwnd || (skb.flags & kTcpFin)) &&
         !seq_after(skb.end_seq, tp.snd_una + tp.snd_wnd);
}

bool TcpSocket::may_send_now() {
  // tcp_may_send_now
  if (send_head_ >= write_queue_.size()) return false;
  bool last = send_head_ + 1 == write_queue_.size();
  return snd_test(write_queue_[send_head_], current_mss(), last ? tp.nonagle : 1);
}

void TcpSocket::update_send_head() {
  // update_send_head
  tp.snd_nxt = write_queue_[send_head_].end_seq;
  ++send_head_;
  if (tp.packets_out++ == 0) reset_xmit_timer(TCP_TIME_RETRANS, tp.rto);
}

void TcpSocket::fragment(size_t idx, uint32_t len) {
  // tcp_fragment: split write_queue_[idx] after `len` data bytes
  TcpTxSkb& skb = write_queue_[idx];
  if (skb.len() <= len) return;
  TcpTxSkb buff = skb;
  buff.seq = skb.seq + len;
  buff.off = skb.off + len;
  buff.truesize = tx_truesize();
  uint8_t flags = skb.flags;
  skb.flags = uint8_t(flags & ~(kTcpFin | kTcpPsh));
  buff.flags = flags;
  skb.end_seq = buff.seq;
  tp.wmem_queued += buff.truesize;
  if (skb.sacked & TCPCB_LOST) ++tp.lost_out;  // both halves are lost
  if (idx < send_head_) ++tp.packets_out;       // "packets_out++" for a sent skb
  write_queue_.insert(write_queue_.begin() + std::ptrdiff_t(idx + 1), buff);
  if (idx < send_head_) ++send_head_;
}

bool TcpSocket::write_xmit(int nonagle) {
  // tcp_write_xmit
  if (tp.state == TcpState::Closed) return false;
  uint32_t mss_now = current_mss();
  bool sent = false;
  while (send_head_ < write_queue_.size()) {
    bool last = send_head_ + 1 == write_queue_.size();
    if (!snd_test(write_queue_[send_head_], mss_now, last ? nonagle : 1)) break;
    if (write_queue_[send_head_].len() > mss_now) fragment(send_head_, mss_now);
    transmit(send_head_, false);
    size_t idx = send_head_;
    update_send_head();
    if (write_queue_[idx].len() < mss_now) tp.snd_sml = write_queue_[idx].end_seq;  // minshall_update
    sent = true;
  }
  if (sent) {
    cwnd_validate();
    return false;
  }
  return !tp.packets_out && send_head_ < write_queue_.size();
}

void TcpSocket::push_pending_frames(int nonagle) {
  // __tcp_push_pending_frames
  if (send_head_ < write_queue_.size()) {
    if (write_xmit(nonagle)) check_probe_timer();
  }
}

void TcpSocket::cwnd_validate() {
  // tcp_cwnd_validate (RFC 2861)
  if (tp.packets_out >= tp.snd_cwnd) {
    tp.snd_cwnd_used = 0;
    tp.snd_cwnd_stamp = jiffies();
  } else {
    if (tp.packets_out > tp.snd_cwnd_used) tp.snd_cwnd_used = tp.packets_out;
    if (int32_t(jiffies() - tp.snd_cwnd_stamp) >= int32_t(tp.rto)) cwnd_application_limited();
  }
}

void TcpSocket::cwnd_application_limited() {
  // tcp_cwnd_application_limited
  if (tp.ca_state == TcpCaState::Open && !tp.nospace) {
    uint32_t win_used = std::max(tp.snd_cwnd_used, 2u);
    if (win_used < tp.snd_cwnd) {
      tp.snd_ssthresh = current_ssthresh();
      tp.snd_cwnd = (tp.snd_cwnd + win_used) >> 1;
    }
    tp.snd_cwnd_used = 0;
  }
  tp.snd_cwnd_stamp = jiffies();
}

void TcpSocket::cwnd_restart() {
  // tcp_cwnd_restart: restart window after an idle period longer than the RTO
  int32_t delta = int32_t(jiffies() - tp.lsndtime);
  uint32_t restart_cwnd = std::min(init_cwnd(), tp.snd_cwnd);
  uint32_t cwnd = tp.snd_cwnd;
  tp.snd_ssthresh = current_ssthresh();
  while ((delta -= int32_t(tp.rto)) > 0 && cwnd > restart_cwnd) cwnd >>= 1;
  tp.snd_cwnd = std::max(cwnd, restart_cwnd);
  tp.snd_cwnd_stamp = jiffies();
  tp.snd_cwnd_used = 0;
}

int TcpSocket::retransmit_skb(size_t idx) {
  // tcp_retransmit_skb
  if (idx >= write_queue_.size() || idx >= send_head_) return -1;
  uint32_t cur_mss = current_mss();
  if (write_queue_[idx].len() > cur_mss) fragment(idx, cur_mss);
  transmit(idx, true);
  TcpTxSkb& skb = write_queue_[idx];
  ++stack_.mib_[TcpMib::RetransSegs];
  ++tp.total_retrans;
  skb.sacked |= TCPCB_RETRANS;
  ++tp.retrans_out;
  if (!tp.retrans_stamp) tp.retrans_stamp = skb.when;
  ++tp.undo_retrans;
  return 0;
}

void TcpSocket::xmit_retransmit_queue() {
  // tcp_xmit_retransmit_queue
  NetMib& m = stack_.mib_;
  int packet_cnt = int(tp.lost_out);
  if (packet_cnt) {
    for (size_t i = 0; i < send_head_; ++i) {
      if (packets_in_flight() >= tp.snd_cwnd) return;
      uint8_t sacked = write_queue_[i].sacked;
      if (sacked & TCPCB_LOST) {
        if (!(sacked & (TCPCB_SACKED_ACKED | TCPCB_SACKED_RETRANS))) {
          if (retransmit_skb(i)) return;
          ++m[tp.ca_state != TcpCaState::Loss ? TcpExtMib::TCPFastRetrans : TcpExtMib::TCPSlowStartRetrans];
          if (i == 0) reset_xmit_timer(TCP_TIME_RETRANS, tp.rto);
        }
        if (--packet_cnt <= 0) break;
      }
    }
  }
  // Forward retransmissions: only in Recovery, only with SACK, only with nothing new to send.
  if (tp.ca_state != TcpCaState::Recovery) return;
  if (!tp.sack_ok) return;
  if (may_send_now()) return;
  uint32_t cnt = 0;
  for (size_t i = 0; i < send_head_; ++i) {
    if (++cnt > tp.fackets_out) break;
    if (packets_in_flight() >= tp.snd_cwnd) break;
    if (write_queue_[i].sacked & TCPCB_TAGBITS) continue;
    if (retransmit_skb(i)) break;
    if (i == 0) reset_xmit_timer(TCP_TIME_RETRANS, tp.rto);
    ++m[TcpExtMib::TCPForwardRetrans];
  }
}

void TcpSocket::clear_retrans() {
  tp.left_out = tp.retrans_out = tp.fackets_out = tp.sacked_out = tp.lost_out = 0;
  tp.undo_marker = 0;
  tp.undo_retrans = 0;
}

void TcpSocket::enter_loss(int how) {
  // tcp_enter_loss (tcp_input.c)
  if (tp.ca_state <= TcpCaState::Disorder || tp.snd_una == tp.high_seq ||
      (tp.ca_state == TcpCaState::Loss && !tp.retransmits)) {
    tp.prior_ssthresh = current_ssthresh();
    tp.snd_ssthresh = recalc_ssthresh();
  }
  tp.snd_cwnd = 1;
  tp.snd_cwnd_cnt = 0;
  tp.snd_cwnd_stamp = jiffies();
  clear_retrans();
  if (!how) tp.undo_marker = tp.snd_una;  // plain RTO, nothing retransmitted yet
  uint32_t cnt = 0;
  for (size_t i = 0; i < send_head_; ++i) {
    TcpTxSkb& skb = write_queue_[i];
    ++cnt;
    if (skb.sacked & TCPCB_RETRANS) tp.undo_marker = 0;
    skb.sacked &= uint8_t((~TCPCB_TAGBITS) | TCPCB_SACKED_ACKED);
    if (!(skb.sacked & TCPCB_SACKED_ACKED) || how) {
      skb.sacked &= uint8_t(~TCPCB_SACKED_ACKED);
      skb.sacked |= TCPCB_LOST;
      ++tp.lost_out;
    } else {
      ++tp.sacked_out;
      tp.fackets_out = cnt;
    }
  }
  sync_left_out();
  tp.reordering = std::min(tp.reordering, stack_.params().tcp_reordering);
  tp.ca_state = TcpCaState::Loss;
  tp.high_seq = tp.snd_nxt;
}

void TcpSocket::entail(uint8_t flags) {
  // tcp_alloc_pskb + skb_entail
  TcpTxSkb skb;
  skb.seq = skb.end_seq = tp.write_seq;
  skb.flags = flags;
  skb.off = write_off_;
  skb.truesize = tx_truesize();
  write_queue_.push_back(skb);
  tp.wmem_queued += skb.truesize;
  fx().path(TcpPath::tcp_alloc_skb);
}

void TcpSocket::mark_push(TcpTxSkb& skb) {
  skb.flags |= kTcpPsh;
  tp.pushed_seq = tp.write_seq;
}

bool TcpSocket::forced_push() const {
  return seq_after(tp.write_seq, tp.pushed_seq + (tp.max_window >> 1));
}

void TcpSocket::push(int nonagle) {
  // tcp_push (tcp.c), flags without MSG_MORE: the last skb gets PSH
  if (send_head_ < write_queue_.size()) {
    mark_push(write_queue_.back());
    push_pending_frames(nonagle);
  }
}

void TcpSocket::send_fin() {
  // tcp_send_fin
  uint32_t mss_now = current_mss();
  if (send_head_ < write_queue_.size() && write_queue_.back().len() < mss_now) {
    write_queue_.back().flags |= kTcpFin;
    ++write_queue_.back().end_seq;
    ++tp.write_seq;
  } else {
    TcpTxSkb skb;
    skb.seq = tp.write_seq;
    skb.end_seq = tp.write_seq + 1;
    skb.flags = kTcpAck | kTcpFin;
    skb.off = write_off_;
    skb.truesize = stack_.params().max_tcp_header_bytes + stack_.params().skb_struct_bytes;
    ++tp.write_seq;
    write_queue_.push_back(skb);
    tp.wmem_queued += skb.truesize;
  }
  push_pending_frames(1);
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

size_t TcpSocket::sendmsg(size_t bytes, uint64_t tag) {
  // tcp_sendmsg (tcp.c)
  fx().path(TcpPath::tcp_sendmsg);
  writer_sleeping_ = false;
  if (tp.state != TcpState::Established && tp.state != TcpState::CloseWait) {
    if (tp.state == TcpState::SynSent || tp.state == TcpState::SynRecv) {
      writer_sleeping_ = true;  // wait_for_tcp_connect
      fx().would_block = true;
    }
    return 0;
  }
  if (tp.shutdown & SEND_SHUTDOWN) return 0;
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

void TcpSocket::release_sock() {
  // __release_sock: process the backlog
  if (backlog_.empty()) return;
  fx().path(TcpPath::tcp_backlog_process, uint32_t(backlog_.size()));
  while (!backlog_.empty()) {
    Seg s = std::move(backlog_.front());
    backlog_.pop_front();
    do_rcv(s);
  }
}

void TcpSocket::recvmsg(size_t len_in) {
  // tcp_recvmsg (tcp.c), blocking, target = 1 byte (SO_RCVLOWAT default)
  NetMib& m = stack_.mib_;
  const size_t target = 1;
  bool resuming = reader_sleeping_;
  reader_sleeping_ = false;
  if (!resuming) fx().path(TcpPath::tcp_recvmsg);
  bool was_owned = owned_by_user_;
  owned_by_user_ = true;  // lock_sock
  in_user_ctx_ = true;
  size_t len = resuming ? tp.ucopy.len : len_in;
  size_t copied = 0;
  bool user_recv = resuming && tp.ucopy.task;
  bool fin_hit = false;
  enum { kTop, kAfterWait, kDoPrequeue } next = resuming ? kAfterWait : kTop;
  size_t copied_bytes_queue = 0;

  while (true) {
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
      if (fin_hit) break;
      if (copied >= target && backlog_.empty()) break;
      if (copied) {
        if (tp.state == TcpState::Closed || (tp.shutdown & RCV_SHUTDOWN)) break;
      } else {
        if (fin_received_ || (tp.shutdown & RCV_SHUTDOWN) || tp.state == TcpState::Closed) break;
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
        release_sock();  // do not sleep, just process backlog
      } else {
        // tcp_data_wait: release_sock, then sleep unless data (or a direct copy) arrived
        release_sock();
        bool ready = readable_bytes() > 0 || (len - tp.ucopy.len) != 0 || fin_received_ ||
                     !prequeue_.empty() || tp.state == TcpState::Closed;
        if (!ready) {
          reader_sleeping_ = true;
          tp.ucopy.len = uint32_t(len);
          fx().would_block = true;
          in_user_ctx_ = false;
          owned_by_user_ = was_owned;
          if (copied_bytes_queue) fx().path(TcpPath::tcp_recvmsg_copy, uint32_t(copied_bytes_queue));
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
    prequeue_process();
    size_t chunk = len - tp.ucopy.len;
    if (chunk) {
      m[TcpExtMib::TCPDirectCopyFromPrequeue] += chunk;
      len -= chunk;
      copied += chunk;
    }
    next = kTop;
  }

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
  }
  cleanup_rbuf(copied);
  in_user_ctx_ = false;
  release_sock();
  owned_by_user_ = was_owned;
  if (copied_bytes_queue) fx().path(TcpPath::tcp_recvmsg_copy, uint32_t(copied_bytes_queue));
  fx().delivered = copied;
  if (stack_.tags_ && copied) stack_.tags_->delivered(rx_flow(), copied_off_, &fx().completed_tags);
  if (copied == 0 && (fin_hit || fin_received_)) {
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

// ------------------------------------------------------------------------------------------
// Input (tcp_input.c, tcp_ipv4.c)
// ------------------------------------------------------------------------------------------

bool TcpSocket::prequeue(const Seg& s) {
  // tcp_prequeue (include/net/tcp.h)
  const TcpParams& p = stack_.params();
  if (p.tcp_low_latency || !tp.ucopy.task) return false;
  prequeue_.push_back(s);
  tp.ucopy.memory += s.truesize;
  fx().path(TcpPath::tcp_prequeue);
  if (tp.ucopy.memory > tp.rcvbuf) {
    while (!prequeue_.empty()) {
      Seg x = std::move(prequeue_.front());
      prequeue_.pop_front();
      do_rcv(x);
      ++stack_.mib_[TcpExtMib::TCPPrequeueDropped];
    }
    tp.ucopy.memory = 0;
  } else if (prequeue_.size() == 1) {
    if (reader_sleeping_) fx().wake_reader = true;  // wake_up_interruptible(sk->sleep)
    if (!ack_scheduled()) reset_xmit_timer(TCP_TIME_DACK, (3 * p.rto_min_jiffies()) / 4);
  }
  return true;
}

void TcpSocket::softirq_rcv(const Seg& s) {
  // tcp_v4_rcv, after the socket lookup
  if (owned_by_user_) {
    backlog_.push_back(s);
    fx().path(TcpPath::sk_add_backlog);
    return;
  }
  if (!prequeue(s)) do_rcv(s);
}

void TcpSocket::do_rcv(const Seg& s) {
  // tcp_v4_do_rcv
  if (tp.state == TcpState::Established) rcv_established(s);
  else rcv_state_process(s);
}

void TcpSocket::store_ts_recent() {
  tp.ts_recent = tp.rcv_tsval;
  tp.ts_recent_stamp = jiffies();
}

void TcpSocket::replace_ts_recent(uint32_t seq) {
  // tcp_replace_ts_recent
  if (tp.saw_tstamp && !seq_after(seq, tp.rcv_wup)) {
    if (int32_t(tp.rcv_tsval - tp.ts_recent) >= 0) store_ts_recent();
  }
}

bool TcpSocket::paws_discard(const Seg& s) const {
  // tcp_paws_discard without the 24-day and disordered-ACK refinements, which a simulated run
  // cannot reach: reject a timestamp older than ts_recent by more than TCP_PAWS_WINDOW (1).
  const auto& th = s.pkt.th;
  bool pure_dup_ack = s.pkt.payload_len == 0 && th.seq == tp.rcv_nxt && th.ack_seq == tp.snd_una;
  return int32_t(tp.ts_recent - tp.rcv_tsval) > 1 && !pure_dup_ack;
}

bool TcpSocket::sequence_ok(uint32_t seq, uint32_t end_seq) const {
  // tcp_sequence
  return !seq_before(end_seq, tp.rcv_wup) && !seq_after(seq, tp.rcv_nxt + receive_window());
}

void TcpSocket::data_ready() {
  // sock_def_readable: wake a reader sleeping in tcp_data_wait
  if (!in_user_ctx_ && reader_sleeping_) fx().wake_reader = true;
}

void TcpSocket::send_dupack(const Seg& s) {
  // tcp_send_dupack
  const TcpParams& p = stack_.params();
  uint32_t seq = s.pkt.th.seq;
  uint32_t end_seq = seq + s.pkt.payload_len + ((s.pkt.th.flags & kTcpSyn) ? 1 : 0) +
                     ((s.pkt.th.flags & kTcpFin) ? 1 : 0);
  if (end_seq != seq && seq_before(seq, tp.rcv_nxt)) {
    ++stack_.mib_[TcpExtMib::DelayedACKLost];
    enter_quickack_mode();
    if (tp.sack_ok && p.tcp_dsack) {
      if (seq_after(end_seq, tp.rcv_nxt)) end_seq = tp.rcv_nxt;
      dsack_set(seq, end_seq);
    }
  }
  send_ack();
}

void TcpSocket::rcv_established(const Seg& s) {
  // tcp_rcv_established (tcp_input.c)
  NetMib& m = stack_.mib_;
  const ParsedTcpPacket& pk = s.pkt;
  const TcpHeader& th = pk.th;
  const uint32_t len = pk.tcp_len;  // TCP header + data, as "len" in Linux
  const uint32_t end_seq = th.seq + pk.payload_len + ((th.flags & kTcpSyn) ? 1 : 0) +
                           ((th.flags & kTcpFin) ? 1 : 0);
  tp.saw_tstamp = false;

  bool fast = (flag_word(th) & TCP_HP_BITS) == tp.pred_flags && th.seq == tp.rcv_nxt;
  if (fast && tp.tcp_header_len == kTcpHeaderBytes + kTcpTsOptionAlignedBytes) {
    if (!pk.opt.ts_aligned_only) {
      fast = false;  // "No? Slow path!"
    } else {
      tp.saw_tstamp = true;
      tp.rcv_tsval = pk.opt.tsval;
      tp.rcv_tsecr = pk.opt.tsecr;
      if (int32_t(tp.rcv_tsval - tp.ts_recent) < 0) fast = false;  // PAWS check in slow path
    }
  }
  if (fast) {
    if (len <= tp.tcp_header_len) {
      if (len == tp.tcp_header_len) {
        // Bulk data transfer: sender. A pure ACK.
        if (tp.tcp_header_len == kTcpHeaderBytes + kTcpTsOptionAlignedBytes && tp.rcv_nxt == tp.rcv_wup)
          store_ts_recent();
        fx().path(TcpPath::tcp_rcv_established_fast_ack);
        ack(s, 0);
        data_snd_check();
        return;
      }
      ++m[TcpMib::InErrs];  // header too small
      return;
    }
    bool eaten = false;
    if (in_user_ctx_ && tp.ucopy.task && tp.copied_seq == tp.rcv_nxt &&
        pk.payload_len <= tp.ucopy.len && owned_by_user_) {
      // tcp_copy_to_iovec
      if (tp.tcp_header_len == kTcpHeaderBytes + kTcpTsOptionAlignedBytes && tp.rcv_nxt == tp.rcv_wup)
        store_ts_recent();
      tp.ucopy.len -= pk.payload_len;
      tp.copied_seq += pk.payload_len;
      copied_off_ += pk.payload_len;
      tp.rcv_nxt = end_seq;
      rcv_nxt_off_ += pk.payload_len;
      ++m[TcpExtMib::TCPHPHitsToUser];
      fx().path(TcpPath::tcp_rcv_established_fast_data);
      fx().path(TcpPath::tcp_copy_to_iovec, pk.payload_len);
      eaten = true;
    }
    if (!eaten) {
      if (tp.tcp_header_len == kTcpHeaderBytes + kTcpTsOptionAlignedBytes && tp.rcv_nxt == tp.rcv_wup)
        store_ts_recent();
      ++m[TcpExtMib::TCPHPHits];
      fx().path(TcpPath::tcp_rcv_established_fast_data);
      TcpRxSkb skb;
      skb.seq = th.seq;
      skb.end_seq = end_seq;
      skb.len = pk.payload_len;
      skb.truesize = s.truesize;
      skb.off = off_of(th.seq);
      queue_rcv(skb);
      tp.rcv_nxt = end_seq;
      rcv_nxt_off_ = skb.off + skb.len;
    }
    event_data_recv(pk.payload_len, th.doff_bytes, th.flags, s.truesize);
    bool skip_ack = false;
    if (th.ack_seq != tp.snd_una) {
      ack(s, FLAG_DATA);
      data_snd_check();
      if (!ack_scheduled()) skip_ack = true;
    }
    if (!skip_ack) {
      if (eaten) {
        if (in_quickack_mode()) send_ack();
        else send_delayed_ack();
      } else {
        ack_snd_check_now(false);
      }
    }
    if (eaten) fx().path(TcpPath::kfree_skb_rx);
    else data_ready();
    return;
  }

  // slow_path
  tp.saw_tstamp = pk.opt.has_ts && tp.tstamp_ok;
  if (tp.saw_tstamp) {
    tp.rcv_tsval = pk.opt.tsval;
    tp.rcv_tsecr = pk.opt.tsecr;
  }
  fx().path(TcpPath::tcp_rcv_established_slow);
  if (tp.saw_tstamp && paws_discard(s)) {
    if (!(th.flags & kTcpRst)) {
      ++m[TcpExtMib::PAWSEstab];
      send_dupack(s);
      return;
    }
  }
  if (!sequence_ok(th.seq, end_seq)) {
    if (!(th.flags & kTcpRst)) send_dupack(s);
    return;
  }
  if (th.flags & kTcpRst) {
    reset();
    return;
  }
  replace_ts_recent(th.seq);
  if ((th.flags & kTcpSyn) && !seq_before(th.seq, tp.rcv_nxt)) {
    ++m[TcpMib::InErrs];
    ++m[TcpExtMib::TCPAbortOnSyn];
    reset();
    return;
  }
  // step5
  if (th.flags & kTcpAck) ack(s, FLAG_SLOWPATH);
  data_queue(s);
  data_snd_check();
  ack_snd_check();
}

void TcpSocket::queue_rcv(const TcpRxSkb& skb) {
  receive_queue_.push_back(skb);
  tp.rmem_alloc += skb.truesize;  // tcp_set_owner_r
}

void TcpSocket::measure_rcv_mss(uint32_t len, uint32_t hdr_len, uint8_t flags) {
  // tcp_measure_rcv_mss
  const TcpParams& p = stack_.params();
  const bool remnant = flags & (kTcpFin | kTcpUrg | kTcpSyn | kTcpPsh);
  uint32_t lss = tp.ack.last_seg_size;
  tp.ack.last_seg_size = 0;
  if (len >= tp.ack.rcv_mss) {
    tp.ack.rcv_mss = len;
    if (remnant) tp.ack.pending |= TCP_ACK_PUSHED;  // "Dubious? Rather, it is final cut."
  } else {
    len += hdr_len;
    if (len >= p.tcp_min_rcvmss_bytes + kTcpHeaderBytes ||
        (len >= p.tcp_min_mss_bytes + kTcpHeaderBytes && !remnant)) {
      len -= tp.tcp_header_len;
      tp.ack.last_seg_size = len;
      if (len == lss) {
        tp.ack.rcv_mss = len;
        return;
      }
    }
    tp.ack.pending |= TCP_ACK_PUSHED;
  }
}

void TcpSocket::incr_quickack() {
  // tcp_incr_quickack
  uint32_t quickacks = tp.rcv_wnd / (2 * tp.ack.rcv_mss);
  if (quickacks == 0) quickacks = 2;
  if (quickacks > tp.ack.quick) tp.ack.quick = std::min(quickacks, stack_.params().tcp_max_quickacks);
}

void TcpSocket::enter_quickack_mode() {
  // tcp_enter_quickack_mode
  incr_quickack();
  tp.ack.pingpong = false;
  tp.ack.ato = stack_.params().ato_min_jiffies();
}

void TcpSocket::grow_window(uint32_t truesize, uint32_t len) {
  // tcp_grow_window + __tcp_grow_window
  if (tp.rcv_ssthresh < tp.window_clamp && int(tp.rcv_ssthresh) < space()) {
    uint32_t incr = 0;
    if (uint32_t(win_from_space(int(truesize))) <= len) {
      incr = 2 * tp.advmss;
    } else {
      int ts = win_from_space(int(truesize)) / 2;
      int window = full_space() / 2;
      while (int(tp.rcv_ssthresh) <= window) {
        if (ts <= int(len)) {
          incr = 2 * tp.ack.rcv_mss;
          break;
        }
        ts >>= 1;
        window >>= 1;
      }
    }
    if (incr) {
      tp.rcv_ssthresh = std::min(tp.rcv_ssthresh + incr, tp.window_clamp);
      tp.ack.quick |= 1;
    }
  }
}

void TcpSocket::event_data_recv(uint32_t len, uint32_t hdr_len, uint8_t flags, uint32_t truesize) {
  // tcp_event_data_recv
  const TcpParams& p = stack_.params();
  tp.ack.pending |= TCP_ACK_SCHED;  // tcp_schedule_ack
  measure_rcv_mss(len, hdr_len, flags);
  uint32_t now = jiffies();
  if (!tp.ack.ato) {
    // "The _first_ data packet received, initialize delayed ACK engine."
    incr_quickack();
    tp.ack.ato = p.ato_min_jiffies();
  } else {
    int32_t m = int32_t(now - tp.ack.lrcvtime);
    if (m <= int32_t(p.ato_min_jiffies() / 2)) {
      tp.ack.ato = (tp.ack.ato >> 1) + p.ato_min_jiffies() / 2;  // "The fastest case is the first."
    } else if (m < int32_t(tp.ack.ato)) {
      tp.ack.ato = (tp.ack.ato >> 1) + uint32_t(m);
      if (tp.ack.ato > tp.rto) tp.ack.ato = tp.rto;
    } else if (m > int32_t(tp.rto)) {
      incr_quickack();  // "Too long gap. Apparently sender falled to restart window"
    }
  }
  tp.ack.lrcvtime = now;
  if (len >= 128) grow_window(truesize, len);
}

void TcpSocket::ack_snd_check_now(bool ofo_possible) {
  // __tcp_ack_snd_check
  if ((tp.rcv_nxt - tp.rcv_wup > tp.ack.rcv_mss && select_window_raw() >= tp.rcv_wnd) ||
      in_quickack_mode() || (ofo_possible && !ofo_.empty())) {
    send_ack();
  } else {
    send_delayed_ack();
  }
}

void TcpSocket::ack_snd_check() {
  // tcp_ack_snd_check
  if (!ack_scheduled()) return;  // "We sent a data segment already."
  ack_snd_check_now(true);
}

void TcpSocket::data_snd_check() {
  // tcp_data_snd_check
  if (send_head_ < write_queue_.size()) {
    const TcpTxSkb& skb = write_queue_[send_head_];
    if (seq_after(skb.end_seq, tp.snd_una + tp.snd_wnd) || packets_in_flight() >= tp.snd_cwnd ||
        write_xmit(tp.nonagle))
      check_probe_timer();
  }
  check_space();
}

void TcpSocket::check_space() {
  // tcp_check_space
  if (tp.queue_shrunk) {
    tp.queue_shrunk = false;
    if (tp.nospace) new_space();
  }
}

void TcpSocket::new_space() {
  // tcp_new_space: grow sndbuf with cwnd, then sk->write_space
  const TcpParams& p = stack_.params();
  if (tp.packets_out < tp.snd_cwnd && !tp.sndbuf_locked) {
    uint32_t sndmem = tp.mss_clamp + p.max_tcp_header_bytes + 16 + p.skb_struct_bytes;
    uint32_t demanded = std::max(tp.snd_cwnd, tp.reordering + 1);
    sndmem *= 2 * demanded;
    if (sndmem > tp.sndbuf) tp.sndbuf = std::min(sndmem, p.tcp_wmem_max_bytes);
    tp.snd_cwnd_stamp = jiffies();
  }
  write_space();
}

void TcpSocket::write_space() {
  // tcp_write_space: wake the writer once a third of the buffer is free
  if (tp.sndbuf >= tp.wmem_queued && tp.sndbuf - tp.wmem_queued >= tp.wmem_queued / 2) {
    tp.nospace = false;
    if (writer_sleeping_) fx().wake_writer = true;
  }
}

// --- tcp_ack and friends -------------------------------------------------------------------

uint32_t TcpSocket::current_ssthresh() const {
  return std::max(tp.snd_ssthresh, (tp.snd_cwnd >> 1) + (tp.snd_cwnd >> 2));
}
uint32_t TcpSocket::recalc_ssthresh() const { return std::max(tp.snd_cwnd >> 1, 2u); }

void TcpSocket::rtt_estimator(uint32_t mrtt) {
  // tcp_rtt_estimator (Jacobson, with 2.4's mdev_max / rttvar)
  const uint32_t rto_min = stack_.params().rto_min_jiffies();
  int32_t m = int32_t(mrtt);
  if (m == 0) m = 1;
  if (tp.srtt != 0) {
    m -= int32_t(tp.srtt >> 3);
    tp.srtt = uint32_t(int32_t(tp.srtt) + m);
    if (m < 0) {
      m = -m;
      m -= int32_t(tp.mdev >> 2);
      if (m > 0) m >>= 3;
    } else {
      m -= int32_t(tp.mdev >> 2);
    }
    tp.mdev = uint32_t(int32_t(tp.mdev) + m);
    if (tp.mdev > tp.mdev_max) {
      tp.mdev_max = tp.mdev;
      if (tp.mdev_max > tp.rttvar) tp.rttvar = tp.mdev_max;
    }
    if (seq_after(tp.snd_una, tp.rtt_seq)) {
      if (tp.mdev_max < tp.rttvar) tp.rttvar -= (tp.rttvar - tp.mdev_max) >> 2;
      tp.rtt_seq = tp.snd_nxt;
      tp.mdev_max = rto_min;
    }
  } else {
    tp.srtt = uint32_t(m) << 3;
    tp.mdev = uint32_t(m) << 2;
    tp.mdev_max = tp.rttvar = std::max(tp.mdev, rto_min);
    tp.rtt_seq = tp.snd_nxt;
  }
}

void TcpSocket::set_rto() {
  // tcp_set_rto + tcp_bound_rto
  tp.rto = (tp.srtt >> 3) + tp.rttvar;
  if (tp.rto > stack_.params().rto_max_jiffies()) tp.rto = stack_.params().rto_max_jiffies();
}

void TcpSocket::ack_saw_tstamp() {
  // tcp_ack_saw_tstamp
  rtt_estimator(jiffies() - tp.rcv_tsecr);
  set_rto();
  tp.backoff = 0;
}

void TcpSocket::ack_update_rtt(int flag, int32_t seq_rtt) {
  // tcp_ack_update_rtt
  if (tp.saw_tstamp && tp.rcv_tsecr) {
    ack_saw_tstamp();
  } else if (seq_rtt >= 0) {
    if (flag & FLAG_RETRANS_DATA_ACKED) return;  // Karn
    rtt_estimator(uint32_t(seq_rtt));
    set_rto();
    tp.backoff = 0;
  }
}

void TcpSocket::ack_packets_out() {
  // tcp_ack_packets_out
  if (tp.packets_out == 0) clear_xmit_timer(TCP_TIME_RETRANS);
  else reset_xmit_timer(TCP_TIME_RETRANS, tp.rto);
}

int TcpSocket::clean_rtx_queue() {
  // tcp_clean_rtx_queue
  int acked = 0;
  int32_t seq_rtt = -1;
  uint32_t now = jiffies();
  uint32_t freed = 0;
  while (send_head_ > 0 && !write_queue_.empty()) {
    TcpTxSkb& skb = write_queue_.front();
    if (seq_after(skb.end_seq, tp.snd_una)) break;
    uint8_t sacked = skb.sacked;
    if (!(skb.flags & kTcpSyn)) {
      acked |= FLAG_DATA_ACKED;
    } else {
      acked |= FLAG_SYN_ACKED;
      tp.retrans_stamp = 0;
    }
    if (sacked) {
      if (sacked & TCPCB_RETRANS) {
        if ((sacked & TCPCB_SACKED_RETRANS) && tp.retrans_out) --tp.retrans_out;
        acked |= FLAG_RETRANS_DATA_ACKED;
        seq_rtt = -1;
      } else if (seq_rtt < 0) {
        seq_rtt = int32_t(now - skb.when);
      }
      if ((sacked & TCPCB_SACKED_ACKED) && tp.sacked_out) --tp.sacked_out;
      if ((sacked & TCPCB_LOST) && tp.lost_out) --tp.lost_out;
    } else if (seq_rtt < 0) {
      seq_rtt = int32_t(now - skb.when);
    }
    if (tp.fackets_out) --tp.fackets_out;
    --tp.packets_out;
    tp.wmem_queued -= std::min(tp.wmem_queued, skb.truesize);  // tcp_free_skb
    tp.queue_shrunk = true;
    write_queue_.pop_front();
    --send_head_;
    ++freed;
  }
  if (freed) fx().path(TcpPath::tcp_ack_clean_rtx, freed);
  if (acked & FLAG_ACKED) {
    ack_update_rtt(acked, seq_rtt);
    ack_packets_out();
  }
  return acked;
}

int TcpSocket::ack_update_window(const Seg& s, uint32_t ack_no, uint32_t ack_seq) {
  // tcp_ack_update_window
  int flag = 0;
  uint32_t nwin = uint32_t(s.pkt.th.window) << tp.snd_wscale;
  // tcp_may_update_window
  if (seq_after(ack_no, tp.snd_una) || seq_after(ack_seq, tp.snd_wl1) ||
      (ack_seq == tp.snd_wl1 && nwin > tp.snd_wnd)) {
    flag |= FLAG_WIN_UPDATE;
    tp.snd_wl1 = ack_seq;  // tcp_update_wl
    if (tp.snd_wnd != nwin) {
      tp.snd_wnd = nwin;
      fast_path_check();  // "the only place, where fast path is recovered for sending TCP"
      if (nwin > tp.max_window) {
        tp.max_window = nwin;
        sync_mss();
      }
    }
  }
  tp.snd_una = ack_no;
  return flag;
}

void TcpSocket::ack_probe() {
  // tcp_ack_probe: the window opened
  if (send_head_ >= write_queue_.size()) return;
  if (!seq_after(write_queue_[send_head_].end_seq, tp.snd_una + tp.snd_wnd)) {
    tp.backoff = 0;
    clear_xmit_timer(TCP_TIME_PROBE0);
  } else {
    reset_xmit_timer(TCP_TIME_PROBE0,
                     std::min<uint32_t>(tp.rto << tp.backoff, stack_.params().rto_max_jiffies()));
  }
}

void TcpSocket::cong_avoid() {
  // tcp_cong_avoid: slow start below ssthresh, else one segment per window of ACKs
  if (tp.snd_cwnd <= tp.snd_ssthresh) {
    if (tp.snd_cwnd < tp.snd_cwnd_clamp) ++tp.snd_cwnd;
  } else {
    if (tp.snd_cwnd_cnt >= tp.snd_cwnd) {
      if (tp.snd_cwnd < tp.snd_cwnd_clamp) ++tp.snd_cwnd;
      tp.snd_cwnd_cnt = 0;
    } else {
      ++tp.snd_cwnd_cnt;
    }
  }
  tp.snd_cwnd_stamp = jiffies();
}

int TcpSocket::ack(const Seg& s, int flag) {
  // tcp_ack (tcp_input.c)
  NetMib& m = stack_.mib_;
  const TcpHeader& th = s.pkt.th;
  uint32_t prior_snd_una = tp.snd_una;
  uint32_t ack_seq = th.seq;
  uint32_t ack_no = th.ack_seq;
  uint32_t end_seq = th.seq + s.pkt.payload_len + ((th.flags & kTcpSyn) ? 1 : 0) +
                     ((th.flags & kTcpFin) ? 1 : 0);
  if (seq_after(ack_no, tp.snd_nxt)) return 0;  // uninteresting_ack
  if (seq_before(ack_no, prior_snd_una)) {      // old_ack
    if (s.pkt.opt.num_sacks && tp.sack_ok) sacktag_write_queue(s, prior_snd_una);
    return 0;
  }
  if (!(flag & FLAG_SLOWPATH) && seq_after(ack_no, prior_snd_una)) {
    // "Window is constant, pure forward advance."
    tp.snd_wl1 = ack_seq;
    tp.snd_una = ack_no;
    flag |= FLAG_WIN_UPDATE;
    ++m[TcpExtMib::TCPHPAcks];
  } else {
    if (ack_seq != end_seq) flag |= FLAG_DATA;
    else ++m[TcpExtMib::TCPPureAcks];
    flag |= ack_update_window(s, ack_no, ack_seq);
    if (s.pkt.opt.num_sacks && tp.sack_ok) flag |= sacktag_write_queue(s, prior_snd_una);
  }
  tp.rcv_tstamp = jiffies();
  if (tp.packets_out == 0) {
    // no_queue
    tp.probes_out = 0;
    if (send_head_ < write_queue_.size()) ack_probe();
    return 1;
  }
  uint32_t prior_packets = tp.packets_out;
  uint32_t prior_in_flight = packets_in_flight();
  flag |= clean_rtx_queue();
  // tcp_ack_is_dubious
  bool dubious = !(flag & FLAG_NOT_DUP) || (flag & FLAG_CA_ALERT) || tp.ca_state != TcpCaState::Open;
  if (dubious) {
    // tcp_may_raise_cwnd
    bool may_raise = (!(flag & FLAG_ECE) || tp.snd_cwnd < tp.snd_ssthresh) &&
                     tp.ca_state != TcpCaState::Recovery && tp.ca_state != TcpCaState::CWR;
    if ((flag & FLAG_DATA_ACKED) && prior_in_flight >= tp.snd_cwnd && may_raise) cong_avoid();
    fastretrans_alert(prior_snd_una, prior_packets, flag);
  } else {
    if ((flag & FLAG_DATA_ACKED) && prior_in_flight >= tp.snd_cwnd) cong_avoid();
  }
  return 1;
}

int TcpSocket::sacktag_write_queue(const Seg& s, uint32_t prior_snd_una) {
  // tcp_sacktag_write_queue (without lost-retransmit detection)
  NetMib& m = stack_.mib_;
  const TcpOptions& o = s.pkt.opt;
  int flag = 0;
  uint32_t prior_fackets = tp.fackets_out;
  uint32_t reord = tp.packets_out;
  bool dup_sack = false;
  if (seq_before(o.sacks[0].start_seq, s.pkt.th.ack_seq)) {
    dup_sack = true;
    tp.sack_ok |= 4;
    ++m[TcpExtMib::TCPDSACKRecv];
  } else if (o.num_sacks > 1 && !seq_after(o.sacks[0].end_seq, o.sacks[1].end_seq) &&
             !seq_before(o.sacks[0].start_seq, o.sacks[1].start_seq)) {
    dup_sack = true;
    tp.sack_ok |= 4;
    ++m[TcpExtMib::TCPDSACKOfoRecv];
  }
  for (unsigned b = 0; b < o.num_sacks; ++b) {
    uint32_t start_seq = o.sacks[b].start_seq;
    uint32_t end_seq = o.sacks[b].end_seq;
    // "Check for stupid SACK blocks": beyond snd_nxt, or an old block that is not a D-SACK
    if (seq_after(end_seq, tp.snd_nxt)) continue;
    if (!dup_sack || b != 0) {
      if (seq_before(start_seq, prior_snd_una)) continue;
    }
    uint32_t fack_count = 0;
    for (size_t i = 0; i < send_head_; ++i) {
      TcpTxSkb& skb = write_queue_[i];
      uint8_t sacked = skb.sacked;
      ++fack_count;
      if (!seq_before(skb.seq, end_seq)) break;
      bool in_sack = !seq_after(start_seq, skb.seq) && !seq_before(end_seq, skb.end_seq);
      // Account D-SACK for a retransmitted packet.
      if (dup_sack && b == 0 && in_sack && (sacked & TCPCB_RETRANS) && seq_after(skb.end_seq, tp.undo_marker))
        --tp.undo_retrans;
      // The frame is ACKed.
      if (!seq_after(skb.end_seq, tp.snd_una)) {
        if (sacked & TCPCB_RETRANS) {
          if (dup_sack && b == 0 && in_sack && (sacked & TCPCB_SACKED_ACKED))
            reord = std::min(fack_count, reord);
        } else {
          // "If it was in a hole, we detected reordering."
          if (fack_count < prior_fackets && !(sacked & TCPCB_SACKED_ACKED))
            reord = std::min(fack_count, reord);
        }
        continue;
      }
      if (!in_sack) continue;
      if (!(sacked & TCPCB_SACKED_ACKED)) {
        if (sacked & TCPCB_SACKED_RETRANS) {
          if (sacked & TCPCB_LOST) {
            skb.sacked &= uint8_t(~(TCPCB_LOST | TCPCB_SACKED_RETRANS));
            if (tp.lost_out) --tp.lost_out;
            if (tp.retrans_out) --tp.retrans_out;
          }
        } else {
          // "New sack for not retransmitted frame, which was in hole. It is reordering."
          if (!(sacked & TCPCB_RETRANS) && fack_count < prior_fackets) reord = std::min(fack_count, reord);
          if (sacked & TCPCB_LOST) {
            skb.sacked &= uint8_t(~TCPCB_LOST);
            if (tp.lost_out) --tp.lost_out;
          }
        }
        skb.sacked |= TCPCB_SACKED_ACKED;
        flag |= FLAG_DATA_SACKED;
        ++tp.sacked_out;
        if (fack_count > tp.fackets_out) tp.fackets_out = fack_count;
      } else {
        if (dup_sack && b == 0 && (sacked & TCPCB_RETRANS)) reord = std::min(fack_count, reord);
      }
      // D-SACK: a redundant retransmission is no longer in flight.
      if (dup_sack && b == 0 && (skb.sacked & TCPCB_SACKED_RETRANS)) {
        skb.sacked &= uint8_t(~TCPCB_SACKED_RETRANS);
        if (tp.retrans_out) --tp.retrans_out;
      }
    }
  }
  tp.left_out = tp.sacked_out + tp.lost_out;
  if (reord < tp.fackets_out && tp.ca_state != TcpCaState::Loss)
    update_reordering((tp.fackets_out + 1) - reord, false);
  return flag;
}

void TcpSocket::update_reordering(uint32_t metric, bool ts) {
  // tcp_update_reordering
  NetMib& m = stack_.mib_;
  if (metric > tp.reordering) {
    tp.reordering = std::min(stack_.params().tcp_max_reordering, metric);
    if (ts) ++m[TcpExtMib::TCPTSReorder];
    else if (is_reno()) ++m[TcpExtMib::TCPRenoReorder];
    else if (is_fack()) ++m[TcpExtMib::TCPFACKReorder];
    else ++m[TcpExtMib::TCPSACKReorder];
    tp.sack_ok &= uint8_t(~2);  // "Disable FACK yet."
  }
}

void TcpSocket::check_reno_reordering(uint32_t addend) {
  // tcp_check_reno_reordering: more dupacks than segments in flight means reordering
  uint32_t holes = std::min(std::max(tp.lost_out, 1u), tp.packets_out);
  if (tp.sacked_out + holes > tp.packets_out) {
    tp.sacked_out = tp.packets_out - holes;
    update_reordering(tp.packets_out + addend, false);
  }
}

void TcpSocket::add_reno_sack() {
  ++tp.sacked_out;
  check_reno_reordering(0);
  sync_left_out();
}

void TcpSocket::remove_reno_sacks(uint32_t acked) {
  if (acked > 0) {
    if (acked - 1 >= tp.sacked_out) tp.sacked_out = 0;
    else tp.sacked_out -= acked - 1;
  }
  check_reno_reordering(acked);
  sync_left_out();
}

void TcpSocket::cwnd_down() {
  // tcp_cwnd_down: rate halving, one segment less per two ACKs
  uint32_t decr = tp.snd_cwnd_cnt + 1;
  tp.snd_cwnd_cnt = decr & 1;
  decr >>= 1;
  if (decr && tp.snd_cwnd > tp.snd_ssthresh / 2) tp.snd_cwnd -= decr;
  tp.snd_cwnd = std::min(tp.snd_cwnd, packets_in_flight() + 1);
  tp.snd_cwnd_stamp = jiffies();
}

void TcpSocket::moderate_cwnd() {
  // tcp_moderate_cwnd: tcp_max_burst = tp->reordering
  tp.snd_cwnd = std::min(tp.snd_cwnd, packets_in_flight() + tp.reordering);
  tp.snd_cwnd_stamp = jiffies();
}

void TcpSocket::mark_head_lost(uint32_t packets, uint32_t high_seq) {
  // tcp_mark_head_lost
  int cnt = int(packets);
  for (size_t i = 0; i < send_head_; ++i) {
    TcpTxSkb& skb = write_queue_[i];
    if (--cnt < 0 || seq_after(skb.end_seq, high_seq)) break;
    if (!(skb.sacked & TCPCB_TAGBITS)) {
      skb.sacked |= TCPCB_LOST;
      ++tp.lost_out;
    }
  }
  sync_left_out();
}

bool TcpSocket::head_timedout() const {
  // tcp_head_timedout
  return tp.packets_out && send_head_ > 0 &&
         int32_t(jiffies() - write_queue_.front().when) > int32_t(tp.rto);
}

void TcpSocket::update_scoreboard() {
  // tcp_update_scoreboard
  if (is_fack()) {
    int lost = int(tp.fackets_out) - int(tp.reordering);
    if (lost <= 0) lost = 1;
    mark_head_lost(uint32_t(lost), tp.high_seq);
  } else {
    mark_head_lost(1, tp.high_seq);
  }
  if (head_timedout()) {
    for (size_t i = 0; i < send_head_; ++i) {
      TcpTxSkb& skb = write_queue_[i];
      if (int32_t(jiffies() - skb.when) <= int32_t(tp.rto)) break;
      if (!(skb.sacked & TCPCB_TAGBITS)) {
        skb.sacked |= TCPCB_LOST;
        ++tp.lost_out;
      }
    }
  }
  sync_left_out();
}

bool TcpSocket::time_to_recover() {
  // tcp_time_to_recover
  if (tp.lost_out) return true;                          // "The loss is proven."
  if (fackets_metric() > tp.reordering) return true;     // the classic dupack threshold
  if (head_timedout()) return true;
  if (tp.packets_out <= tp.reordering &&
      tp.sacked_out >= std::max(tp.packets_out / 2, stack_.params().tcp_reordering) && !may_send_now())
    return true;
  return false;
}

void TcpSocket::try_to_open(int flag) {
  // tcp_try_to_open
  tp.left_out = tp.sacked_out;
  if (tp.retrans_out == 0) tp.retrans_stamp = 0;
  if (tp.ca_state != TcpCaState::CWR) {
    TcpCaState state = TcpCaState::Open;
    if (tp.left_out || tp.retrans_out || tp.undo_marker) state = TcpCaState::Disorder;
    if (tp.ca_state != state) {
      tp.ca_state = state;
      tp.high_seq = tp.snd_nxt;
    }
    moderate_cwnd();
  } else {
    cwnd_down();
  }
}

void TcpSocket::complete_cwr() {
  tp.snd_cwnd = std::min(tp.snd_cwnd, tp.snd_ssthresh);
  tp.snd_cwnd_stamp = jiffies();
}

bool TcpSocket::packet_delayed() const {
  // tcp_packet_delayed: the original transmission, not the retransmission, was acknowledged
  return !tp.retrans_stamp ||
         (tp.saw_tstamp && tp.rcv_tsecr && int32_t(tp.rcv_tsecr - tp.retrans_stamp) < 0);
}

bool TcpSocket::may_undo() const { return tp.undo_marker && (!tp.undo_retrans || packet_delayed()); }

void TcpSocket::undo_cwr(bool undo) {
  // tcp_undo_cwr
  if (tp.prior_ssthresh) {
    tp.snd_cwnd = std::max(tp.snd_cwnd, tp.snd_ssthresh << 1);
    if (undo && tp.prior_ssthresh > tp.snd_ssthresh) tp.snd_ssthresh = tp.prior_ssthresh;
  } else {
    tp.snd_cwnd = std::max(tp.snd_cwnd, tp.snd_ssthresh);
  }
  moderate_cwnd();
  tp.snd_cwnd_stamp = jiffies();
}

bool TcpSocket::try_undo_recovery() {
  // tcp_try_undo_recovery
  NetMib& m = stack_.mib_;
  if (may_undo()) {
    undo_cwr(true);
    ++m[tp.ca_state == TcpCaState::Loss ? TcpExtMib::TCPLossUndo : TcpExtMib::TCPFullUndo];
    tp.undo_marker = 0;
  }
  if (tp.snd_una == tp.high_seq && is_reno()) {
    moderate_cwnd();  // hold state until something above high_seq is ACKed (RFC 2582)
    return true;
  }
  tp.ca_state = TcpCaState::Open;
  return false;
}

void TcpSocket::try_undo_dsack() {
  // tcp_try_undo_dsack
  if (tp.undo_marker && !tp.undo_retrans) {
    undo_cwr(true);
    tp.undo_marker = 0;
    ++stack_.mib_[TcpExtMib::TCPDSACKUndo];
  }
}

bool TcpSocket::try_undo_partial(uint32_t acked) {
  // tcp_try_undo_partial ("Hoe")
  bool failed = is_reno() || tp.fackets_out > tp.reordering;
  if (may_undo()) {
    if (tp.retrans_out == 0) tp.retrans_stamp = 0;
    update_reordering(fackets_metric() + acked, true);
    undo_cwr(false);
    ++stack_.mib_[TcpExtMib::TCPPartialUndo];
    failed = false;
  }
  return failed;
}

bool TcpSocket::try_undo_loss() {
  // tcp_try_undo_loss
  if (may_undo()) {
    for (size_t i = 0; i < send_head_; ++i) write_queue_[i].sacked &= uint8_t(~TCPCB_LOST);
    tp.lost_out = 0;
    tp.left_out = tp.sacked_out;
    undo_cwr(true);
    ++stack_.mib_[TcpExtMib::TCPLossUndo];
    tp.retransmits = 0;
    tp.undo_marker = 0;
    if (!is_reno()) tp.ca_state = TcpCaState::Open;
    return true;
  }
  return false;
}

void TcpSocket::fastretrans_alert(uint32_t prior_snd_una, uint32_t prior_packets, int flag) {
  // tcp_fastretrans_alert (tcp_input.c)
  NetMib& m = stack_.mib_;
  bool is_dupack = tp.snd_una == prior_snd_una && !(flag & FLAG_NOT_DUP);
  if (!tp.packets_out) tp.sacked_out = 0;
  if (tp.sacked_out == 0) tp.fackets_out = 0;
  if (flag & FLAG_ECE) tp.prior_ssthresh = 0;
  // B. Check for reneging SACKs: the head was SACKed but the cumulative ACK did not cover it.
  if (tp.sacked_out && send_head_ > 0 && (write_queue_.front().sacked & TCPCB_SACKED_ACKED)) {
    ++m[TcpExtMib::TCPSACKReneging];
    enter_loss(1);
    ++tp.retransmits;
    retransmit_skb(0);
    reset_xmit_timer(TCP_TIME_RETRANS, tp.rto);
    return;
  }
  // C. Process data loss notification.
  if ((flag & FLAG_DATA_LOST) && seq_before(tp.snd_una, tp.high_seq) &&
      tp.ca_state != TcpCaState::Open && tp.fackets_out > tp.reordering) {
    mark_head_lost(tp.fackets_out - tp.reordering, tp.high_seq);
    ++m[TcpExtMib::TCPLoss];
  }
  sync_left_out();
  // E. State exits when high_seq is ACKed.
  if (tp.ca_state == TcpCaState::Open) {
    tp.retrans_stamp = 0;
  } else if (!seq_before(tp.snd_una, tp.high_seq)) {
    switch (tp.ca_state) {
      case TcpCaState::Loss:
        tp.retransmits = 0;
        if (try_undo_recovery()) return;
        break;
      case TcpCaState::CWR:
        if (tp.snd_una != tp.high_seq) {
          complete_cwr();
          tp.ca_state = TcpCaState::Open;
        }
        break;
      case TcpCaState::Disorder:
        try_undo_dsack();
        if (!tp.undo_marker || is_reno() || tp.snd_una != tp.high_seq) {
          tp.undo_marker = 0;
          tp.ca_state = TcpCaState::Open;
        }
        break;
      case TcpCaState::Recovery:
        if (is_reno()) reset_reno_sack();
        if (try_undo_recovery()) return;
        complete_cwr();
        break;
      default: break;
    }
  }
  // F. Process state.
  bool fallthrough_open = false;
  switch (tp.ca_state) {
    case TcpCaState::Recovery:
      if (prior_snd_una == tp.snd_una) {
        if (is_reno() && is_dupack) add_reno_sack();
      } else {
        uint32_t acked = prior_packets - tp.packets_out;
        if (is_reno()) remove_reno_sacks(acked);
        is_dupack = try_undo_partial(acked);
      }
      break;
    case TcpCaState::Loss:
      if (flag & FLAG_DATA_ACKED) tp.retransmits = 0;
      if (!try_undo_loss()) {
        moderate_cwnd();
        xmit_retransmit_queue();
        return;
      }
      if (tp.ca_state != TcpCaState::Open) return;
      fallthrough_open = true;
      [[fallthrough]];
    default:
      (void)fallthrough_open;
      if (is_reno()) {
        if (tp.snd_una != prior_snd_una) reset_reno_sack();
        if (is_dupack) add_reno_sack();
      }
      if (tp.ca_state == TcpCaState::Disorder) try_undo_dsack();
      if (!time_to_recover()) {
        try_to_open(flag);
        return;
      }
      // Enter Recovery.
      ++m[is_reno() ? TcpExtMib::TCPRenoRecovery : TcpExtMib::TCPSackRecovery];
      tp.high_seq = tp.snd_nxt;
      tp.prior_ssthresh = 0;
      tp.undo_marker = tp.snd_una;
      tp.undo_retrans = int(tp.retrans_out);
      if (tp.ca_state < TcpCaState::CWR) {
        if (!(flag & FLAG_ECE)) tp.prior_ssthresh = current_ssthresh();
        tp.snd_ssthresh = recalc_ssthresh();
      }
      tp.snd_cwnd_cnt = 0;
      tp.ca_state = TcpCaState::Recovery;
  }
  if (is_dupack || head_timedout()) update_scoreboard();
  cwnd_down();
  xmit_retransmit_queue();
}

// --- receive queue, out-of-order queue, SACK blocks -----------------------------------------

void TcpSocket::dsack_set(uint32_t seq, uint32_t end_seq) {
  // tcp_dsack_set
  const TcpParams& p = stack_.params();
  if (tp.sack_ok && p.tcp_dsack) {
    ++stack_.mib_[seq_before(seq, tp.rcv_nxt) ? TcpExtMib::TCPDSACKOldSent : TcpExtMib::TCPDSACKOfoSent];
    tp.dsack = true;
    tp.duplicate_sack = {seq, end_seq};
    tp.eff_sacks = uint8_t(std::min<unsigned>(tp.num_sacks + 1u, 4u - (tp.tstamp_ok ? 1u : 0u)));
  }
}

void TcpSocket::dsack_extend(uint32_t seq, uint32_t end_seq) {
  if (!tp.dsack) dsack_set(seq, end_seq);
  else sack_extend(tp.duplicate_sack, seq, end_seq);
}

void TcpSocket::sack_new_ofo_skb(uint32_t seq, uint32_t end_seq) {
  // tcp_sack_new_ofo_skb + tcp_sack_maybe_coalesce
  SackBlock* sp = tp.selective_acks;
  int cur = tp.num_sacks;
  const unsigned ts = tp.tstamp_ok ? 1u : 0u;
  for (int i = 0; i < cur; ++i) {
    if (sack_extend(sp[i], seq, end_seq)) {
      for (; i > 0; --i) std::swap(sp[i], sp[i - 1]);  // rotate to the front
      if (cur > 1) {
        for (int j = 1; j < tp.num_sacks;) {
          if (sack_extend(sp[0], sp[j].start_seq, sp[j].end_seq)) {
            for (int k = j; k + 1 < tp.num_sacks; ++k) sp[k] = sp[k + 1];
            --tp.num_sacks;
          } else {
            ++j;
          }
        }
        tp.eff_sacks = uint8_t(std::min<unsigned>(tp.num_sacks + (tp.dsack ? 1u : 0u), 4u - ts));
      }
      return;
    }
  }
  int n = cur;
  if (n >= 4) {
    --n;
    --tp.num_sacks;
  }
  for (int i = n; i > 0; --i) sp[i] = sp[i - 1];
  sp[0] = {seq, end_seq};
  ++tp.num_sacks;
  tp.eff_sacks = uint8_t(std::min<unsigned>(tp.num_sacks + (tp.dsack ? 1u : 0u), 4u - ts));
}

void TcpSocket::sack_remove() {
  // tcp_sack_remove
  const unsigned ts = tp.tstamp_ok ? 1u : 0u;
  if (ofo_.empty()) {
    tp.num_sacks = 0;
    tp.eff_sacks = tp.dsack ? 1 : 0;
    return;
  }
  int n = tp.num_sacks;
  for (int i = 0; i < n;) {
    if (!seq_before(tp.rcv_nxt, tp.selective_acks[i].start_seq)) {
      for (int j = i + 1; j < n; ++j) tp.selective_acks[j - 1] = tp.selective_acks[j];
      --n;
      continue;
    }
    ++i;
  }
  if (n != tp.num_sacks) {
    tp.num_sacks = uint8_t(n);
    tp.eff_sacks = uint8_t(std::min<unsigned>(tp.num_sacks + (tp.dsack ? 1u : 0u), 4u - ts));
  }
}

void TcpSocket::ofo_insert(const TcpRxSkb& skb) {
  // the out_of_order_queue part of tcp_data_queue
  if (ofo_.empty()) {
    if (tp.sack_ok) {
      tp.num_sacks = 1;
      tp.dsack = false;
      tp.eff_sacks = 1;
      tp.selective_acks[0] = {skb.seq, skb.end_seq};
    }
    ofo_.emplace(skb.off, skb);
    tp.rmem_alloc += skb.truesize;
    return;
  }
  uint64_t end = skb.off + skb.len + (skb.fin ? 1 : 0);
  // All the bits are present already? Drop with D-SACK.
  for (auto& [o, x] : ofo_) {
    if (o > skb.off) break;
    if (o + x.len + (x.fin ? 1 : 0) >= end) {
      dsack_set(skb.seq, skb.end_seq);
      if (tp.sack_ok) sack_new_ofo_skb(skb.seq, skb.end_seq);
      return;
    }
  }
  // Partial overlap with the previous segment: D-SACK its overlapping part.
  auto it = ofo_.upper_bound(skb.off);
  if (it != ofo_.begin()) {
    auto prev = std::prev(it);
    uint64_t pend = prev->first + prev->second.len;
    if (pend > skb.off) dsack_set(skb.seq, prev->second.end_seq);
  }
  // Clean segments covered by the new one as a whole.
  for (auto n = ofo_.lower_bound(skb.off); n != ofo_.end() && n->first < end;) {
    uint64_t nend = n->first + n->second.len + (n->second.fin ? 1 : 0);
    if (nend > end) {
      dsack_extend(n->second.seq, skb.end_seq);
      break;
    }
    dsack_extend(n->second.seq, n->second.end_seq);
    tp.rmem_alloc -= std::min(tp.rmem_alloc, n->second.truesize);
    n = ofo_.erase(n);
  }
  ofo_.emplace(skb.off, skb);
  tp.rmem_alloc += skb.truesize;
  if (tp.sack_ok) sack_new_ofo_skb(skb.seq, skb.end_seq);
}

void TcpSocket::ofo_queue() {
  // tcp_ofo_queue: move segments that became in-order to the receive queue
  uint32_t dsack_high = tp.rcv_nxt;
  while (!ofo_.empty()) {
    auto it = ofo_.begin();
    TcpRxSkb skb = it->second;
    if (seq_after(skb.seq, tp.rcv_nxt)) break;
    if (seq_before(skb.seq, dsack_high)) {
      uint32_t dsack = dsack_high;
      if (seq_before(skb.end_seq, dsack_high)) dsack_high = skb.end_seq;
      dsack_extend(skb.seq, dsack);
    }
    ofo_.erase(it);
    if (!seq_after(skb.end_seq, tp.rcv_nxt)) {
      tp.rmem_alloc -= std::min(tp.rmem_alloc, skb.truesize);  // already received
      continue;
    }
    receive_queue_.push_back(skb);  // rmem stays charged
    tp.rcv_nxt = skb.end_seq;
    rcv_nxt_off_ = skb.off + skb.len;
    if (skb.fin) fin();
  }
}

void TcpSocket::data_queue(const Seg& s) {
  // tcp_data_queue (tcp_input.c)
  NetMib& m = stack_.mib_;
  const ParsedTcpPacket& pk = s.pkt;
  const TcpHeader& th = pk.th;
  const bool is_fin = th.flags & kTcpFin;
  uint32_t seq = th.seq;
  uint32_t end_seq = th.seq + pk.payload_len + (is_fin ? 1 : 0);
  if (seq == end_seq) return;  // nothing to queue
  if (tp.dsack) {
    tp.dsack = false;
    tp.eff_sacks = uint8_t(std::min<unsigned>(tp.num_sacks, 4u - (tp.tstamp_ok ? 1u : 0u)));
  }
  TcpRxSkb skb;
  skb.seq = seq;
  skb.end_seq = end_seq;
  skb.len = pk.payload_len;
  skb.truesize = s.truesize;
  skb.fin = is_fin;
  skb.off = off_of(seq);

  if (seq == tp.rcv_nxt) {
    if (receive_window() == 0) {
      enter_quickack_mode();  // out_of_window
      tp.ack.pending |= TCP_ACK_SCHED;
      return;
    }
    // In sequence, in window.
    int eaten = -1;
    if (in_user_ctx_ && tp.ucopy.task && tp.copied_seq == tp.rcv_nxt && tp.ucopy.len && owned_by_user_) {
      uint32_t chunk = std::min(skb.len, tp.ucopy.len);
      tp.ucopy.len -= chunk;
      tp.copied_seq += chunk;
      copied_off_ += chunk;
      fx().path(TcpPath::tcp_copy_to_iovec, chunk);
      eaten = (chunk == skb.len && !is_fin) ? 1 : 0;
    }
    if (eaten <= 0) queue_rcv(skb);
    tp.rcv_nxt = end_seq;
    rcv_nxt_off_ = skb.off + skb.len;
    if (skb.len) event_data_recv(skb.len, th.doff_bytes, th.flags, s.truesize);
    if (is_fin) fin();
    if (!ofo_.empty()) {
      ofo_queue();
      // RFC 2581 4.2: SHOULD send immediate ACK when the gap is filled.
      if (ofo_.empty()) tp.ack.pingpong = false;
    }
    if (tp.num_sacks) sack_remove();
    fast_path_check();
    if (eaten > 0) fx().path(TcpPath::kfree_skb_rx);
    else data_ready();
    return;
  }
  if (!seq_after(end_seq, tp.rcv_nxt)) {
    // "A retransmit, 2nd most common case. Force an immediate ack."
    ++m[TcpExtMib::DelayedACKLost];
    dsack_set(seq, end_seq);
    enter_quickack_mode();
    tp.ack.pending |= TCP_ACK_SCHED;
    return;
  }
  // Out of window (e.g. a zero window probe).
  if (!seq_before(seq, tp.rcv_nxt + receive_window())) {
    enter_quickack_mode();
    tp.ack.pending |= TCP_ACK_SCHED;
    return;
  }
  enter_quickack_mode();
  if (seq_before(seq, tp.rcv_nxt)) {
    // Partial packet: seq < rcv_nxt < end_seq.
    dsack_set(seq, tp.rcv_nxt);
    if (!receive_window()) {
      tp.ack.pending |= TCP_ACK_SCHED;
      return;
    }
    queue_rcv(skb);
    tp.rcv_nxt = end_seq;
    rcv_nxt_off_ = skb.off + skb.len;
    if (skb.len) event_data_recv(skb.len, th.doff_bytes, th.flags, s.truesize);
    if (is_fin) fin();
    if (!ofo_.empty()) {
      ofo_queue();
      if (ofo_.empty()) tp.ack.pingpong = false;
    }
    if (tp.num_sacks) sack_remove();
    fast_path_check();
    data_ready();
    return;
  }
  // Out of order: disable header prediction, queue, SACK.
  tp.pred_flags = 0;
  tp.ack.pending |= TCP_ACK_SCHED;
  fx().path(TcpPath::tcp_ofo_queue);
  ofo_insert(skb);
}

void TcpSocket::fin() {
  // tcp_fin
  tp.ack.pending |= TCP_ACK_SCHED;
  tp.shutdown |= RCV_SHUTDOWN;
  fin_received_ = true;
  switch (tp.state) {
    case TcpState::SynRecv:
    case TcpState::Established:
      set_state(TcpState::CloseWait);
      tp.ack.pingpong = true;
      break;
    case TcpState::FinWait1:
      send_ack();
      set_state(TcpState::Closing);
      break;
    case TcpState::FinWait2:
      send_ack();
      set_state(TcpState::TimeWait);  // tcp_time_wait
      clear_xmit_timer(TCP_TIME_RETRANS);
      break;
    default: break;
  }
  // "It _is_ possible, that we have something out-of-order _after_ FIN." Drop them.
  for (auto& [o, x] : ofo_) tp.rmem_alloc -= std::min(tp.rmem_alloc, x.truesize);
  ofo_.clear();
  tp.num_sacks = 0;
  tp.eff_sacks = tp.dsack ? 1 : 0;
  if (!in_user_ctx_ && reader_sleeping_) fx().wake_reader = true;  // sk->state_change
}

void TcpSocket::reset() {
  // tcp_reset
  if (tp.state == TcpState::Established || tp.state == TcpState::CloseWait)
    ++stack_.mib_[TcpMib::EstabResets];
  fx().reset = true;
  if (reader_sleeping_) fx().wake_reader = true;
  if (writer_sleeping_) fx().wake_writer = true;
  set_state(TcpState::Closed);
}

void TcpSocket::rcv_synsent(const Seg& s) {
  // tcp_rcv_synsent_state_process (tcp_input.c)
  const TcpParams& p = stack_.params();
  const ParsedTcpPacket& pk = s.pkt;
  const TcpHeader& th = pk.th;
  // tcp_parse_options
  tp.saw_tstamp = pk.opt.has_ts && p.tcp_timestamps;
  if (tp.saw_tstamp) {
    tp.rcv_tsval = pk.opt.tsval;
    tp.rcv_tsecr = pk.opt.tsecr;
  }
  if (!(th.flags & kTcpAck)) return;  // simultaneous open is not modelled
  if (th.ack_seq != tp.snd_nxt) return;  // reset_and_undo (the stack answers with RST)
  if (th.flags & kTcpRst) {
    reset();
    return;
  }
  if (!(th.flags & kTcpSyn)) return;
  if (pk.opt.has_mss) tp.mss_clamp = pk.opt.mss;
  tp.wscale_ok = pk.opt.has_wscale && p.tcp_window_scaling;
  if (tp.wscale_ok) tp.snd_wscale = pk.opt.wscale;
  tp.sack_ok = (pk.opt.sack_perm && p.tcp_sack) ? 1 : 0;
  tp.snd_wl1 = th.seq;
  ack(s, FLAG_SLOWPATH);
  tp.irs = th.seq;
  tp.rcv_nxt = th.seq + 1;
  tp.rcv_wup = th.seq + 1;
  rcv_nxt_off_ = 0;
  tp.snd_wnd = th.window;  // "The window in SYN & SYN/ACK segments is never scaled."
  tp.snd_wl1 = th.seq;
  if (!tp.wscale_ok) {
    tp.snd_wscale = tp.rcv_wscale = 0;
    tp.window_clamp = std::min(tp.window_clamp, 65535u);
  }
  if (tp.saw_tstamp) {
    tp.tstamp_ok = true;
    tp.tcp_header_len = kTcpHeaderBytes + kTcpTsOptionAlignedBytes;
    tp.advmss -= kTcpTsOptionAlignedBytes;
    store_ts_recent();
  } else {
    tp.tcp_header_len = kTcpHeaderBytes;
  }
  if (tp.sack_ok && p.tcp_fack) tp.sack_ok |= 2;
  sync_mss();
  initialize_rcv_mss();
  init_metrics();
  tp.lsndtime = jiffies();  // prevent a spurious tcp_cwnd_restart on the first data packet
  init_buffer_space();
  tp.copied_seq = tp.rcv_nxt;
  set_state(TcpState::Established);
  if (!tp.snd_wscale) fast_path_on();
  else tp.pred_flags = 0;
  fx().connected = true;
  if (writer_sleeping_) fx().wake_writer = true;
  send_ack();
}

void TcpSocket::rcv_state_process(const Seg& s) {
  // tcp_rcv_state_process (tcp_input.c) for the non-ESTABLISHED states
  NetMib& m = stack_.mib_;
  const ParsedTcpPacket& pk = s.pkt;
  const TcpHeader& th = pk.th;
  fx().path(TcpPath::tcp_rcv_state_process);
  const uint32_t end_seq = th.seq + pk.payload_len + ((th.flags & kTcpSyn) ? 1 : 0) +
                           ((th.flags & kTcpFin) ? 1 : 0);
  switch (tp.state) {
    case TcpState::Closed:
    case TcpState::Listen:
      return;
    case TcpState::SynSent:
      rcv_synsent(s);
      return;
    case TcpState::TimeWait:
      if (th.flags & kTcpFin) send_ack();  // retransmitted FIN: ACK it again
      return;
    default: break;
  }
  tp.saw_tstamp = pk.opt.has_ts && tp.tstamp_ok;
  if (tp.saw_tstamp) {
    tp.rcv_tsval = pk.opt.tsval;
    tp.rcv_tsecr = pk.opt.tsecr;
    if (paws_discard(s) && !(th.flags & kTcpRst)) {
      ++m[TcpExtMib::PAWSEstab];
      send_dupack(s);
      return;
    }
  }
  if (!sequence_ok(th.seq, end_seq)) {
    if (!(th.flags & kTcpRst)) send_dupack(s);
    return;
  }
  if (th.flags & kTcpRst) {
    reset();
    return;
  }
  replace_ts_recent(th.seq);
  if ((th.flags & kTcpSyn) && !seq_before(th.seq, tp.rcv_nxt)) {
    ++m[TcpExtMib::TCPAbortOnSyn];
    reset();
    return;
  }
  if (!(th.flags & kTcpAck)) return;
  int acceptable = ack(s, FLAG_SLOWPATH);
  switch (tp.state) {
    case TcpState::SynRecv:
      if (!acceptable) return;
      tp.copied_seq = tp.rcv_nxt;
      set_state(TcpState::Established);
      tp.snd_una = th.ack_seq;
      tp.snd_wnd = uint32_t(th.window) << tp.snd_wscale;
      tp.snd_wl1 = th.seq;
      // "tcp_ack considers this ACK as duplicate and does not calculate rtt. Fix it at least
      // with timestamps."
      if (tp.saw_tstamp && tp.rcv_tsecr && !tp.srtt) ack_saw_tstamp();
      if (tp.tstamp_ok) tp.advmss -= kTcpTsOptionAlignedBytes;
      init_metrics();
      initialize_rcv_mss();
      init_buffer_space();
      fast_path_on();
      break;
    case TcpState::FinWait1:
      if (tp.snd_una == tp.write_seq) {
        set_state(TcpState::FinWait2);
        tp.shutdown |= SEND_SHUTDOWN;
      }
      break;
    case TcpState::Closing:
      if (tp.snd_una == tp.write_seq) {
        set_state(TcpState::TimeWait);
        return;
      }
      break;
    case TcpState::LastAck:
      if (tp.snd_una == tp.write_seq) {
        set_state(TcpState::Closed);  // tcp_done
        return;
      }
      break;
    default: break;
  }
  // step 7: process the segment text
  switch (tp.state) {
    case TcpState::CloseWait:
    case TcpState::Closing:
    case TcpState::LastAck:
      break;
    case TcpState::FinWait1:
    case TcpState::FinWait2:
    case TcpState::Established:
      data_queue(s);
      break;
    default: break;
  }
  if (tp.state != TcpState::Closed) {
    data_snd_check();
    ack_snd_check();
  }
}

}  // namespace nicsim
