// TcpSocket input path: Linux 2.4.20 tcp_input.c / tcp_ipv4.c / tcp.c receive side
// (prequeue, backlog, tcp_rcv_established header prediction, delayed-ACK engine, tcp_data_queue
// with the out-of-order queue and SACK blocks, FIN/RST, the handshake states).
#include "drivers-sim/net/tcp_socket.h"

#include "drivers-sim/net/tcp_internal.h"
#include "drivers-sim/net/tcp_stack.h"

#include <algorithm>

namespace nicsim {

using namespace tcp_detail;
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
    ++xfer_.ev.backlogged;
    return;
  }
  if (!prequeue(s)) do_rcv(s);
}

void TcpSocket::do_rcv(const Seg& s) {
  // tcp_v4_do_rcv. Each received skb is freed once: by tcp_recvmsg's tcp_eat_skb when it was
  // queued, else here, where tcp_rcv_established / tcp_rcv_state_process end with __kfree_skb
  // (data copied straight to the user, a pure ACK, a duplicate, a segment refused).
  seg_queued_ = false;
  if (tp.state == TcpState::Established) rcv_established(s);
  else rcv_state_process(s);
  if (!seg_queued_) fx().path(TcpPath::kfree_skb_rx);
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

bool TcpSocket::validate_incoming(const Seg& s, uint32_t end_seq, bool syn_counts_in_errs) {
  // The checks 2.4.20 tcp_input.c writes twice, in tcp_rcv_established's slow path and in
  // tcp_rcv_state_process (2.6.25 made them one function, tcp_validate_incoming): the timestamp
  // option and PAWS, tcp_sequence, RST, tcp_replace_ts_recent, and a SYN in the window.
  NetMib& m = stack_.mib_;
  const ParsedTcpPacket& pk = s.pkt;
  const TcpHeader& th = pk.th;
  tp.saw_tstamp = pk.opt.has_ts && tp.tstamp_ok;
  if (tp.saw_tstamp) {
    tp.rcv_tsval = pk.opt.tsval;
    tp.rcv_tsecr = pk.opt.tsecr;
    if (paws_discard(s) && !(th.flags & kTcpRst)) {
      ++m[TcpExtMib::PAWSEstab];
      send_dupack(s);
      return false;
    }
  }
  if (!sequence_ok(th.seq, end_seq)) {
    if (!(th.flags & kTcpRst)) send_dupack(s);
    return false;
  }
  if (th.flags & kTcpRst) {
    reset();
    return false;
  }
  replace_ts_recent(th.seq);
  if ((th.flags & kTcpSyn) && !seq_before(th.seq, tp.rcv_nxt)) {
    if (syn_counts_in_errs) ++m[TcpMib::InErrs];  // tcp_rcv_established's copy counts it, the other not
    ++m[TcpExtMib::TCPAbortOnSyn];
    reset();
    return false;
  }
  return true;
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
    if (!eaten) data_ready();
    return;
  }

  // slow_path
  fx().path(TcpPath::tcp_rcv_established_slow);
  if (!validate_incoming(s, end_seq, true)) return;
  // step5
  if (th.flags & kTcpAck) ack(s, FLAG_SLOWPATH);
  data_queue(s);
  data_snd_check();
  ack_snd_check();
}

void TcpSocket::queue_rcv(const TcpRxSkb& skb) {
  seg_queued_ = true;
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
    seg_queued_ = true;
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
    fx().path(TcpPath::kfree_skb_rx);  // __kfree_skb of the covered segment
  }
  ofo_.emplace(skb.off, skb);
  tp.rmem_alloc += skb.truesize;
  seg_queued_ = true;
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
      fx().path(TcpPath::kfree_skb_rx);                          // __kfree_skb
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
    if (eaten <= 0) data_ready();
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
  ++xfer_.ev.ofo_segs;
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
  if (!ofo_.empty()) fx().path(TcpPath::kfree_skb_rx, uint32_t(ofo_.size()));  // __skb_queue_purge
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
  // tcp_reset's sk->err, as BSD reports it
  sk_err_ = tp.state == TcpState::SynSent ? kEconnrefused : tp.state == TcpState::CloseWait ? kEpipe : kEconnreset;
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
  if (!validate_incoming(s, end_seq, false)) return;
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
