// TcpSocket ACK processing: Linux 2.4.20 tcp_input.c tcp_ack (RTT/RTO, retransmit queue
// cleaning, window update, congestion avoidance), the SACK scoreboard, reordering detection and
// tcp_fastretrans_alert with its undo heuristics.
#include "drivers-sim/net/tcp_socket.h"

#include "drivers-sim/net/tcp_internal.h"
#include "drivers-sim/net/tcp_stack.h"

#include <algorithm>

namespace nicsim {

using namespace tcp_detail;
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
  if (rto_episode_ && seq_after(ack_no, tp.snd_una)) {  // new data acknowledged after a timeout
    rto_episode_ = false;
    if (stack_.on_rto_event) stack_.on_rto_event({stack_.now_, id_, true, tp.retransmits, tp.rto});
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
  if (stack_.recording_) {  // tcptrace's ACK line and window edge, and each SACK block
    record(TcpSeqEvent::ack, rel_seq(ack_no), rel_seq(ack_no) + tp.snd_wnd);
    for (unsigned b = 0; b < s.pkt.opt.num_sacks; ++b)
      record(TcpSeqEvent::sack, rel_seq(s.pkt.opt.sacks[b].start_seq), rel_seq(s.pkt.opt.sacks[b].end_seq));
  }
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
    ++xfer_.ev.dsacks_received;
  } else if (o.num_sacks > 1 && !seq_after(o.sacks[0].end_seq, o.sacks[1].end_seq) &&
             !seq_before(o.sacks[0].start_seq, o.sacks[1].start_seq)) {
    dup_sack = true;
    tp.sack_ok |= 4;
    ++m[TcpExtMib::TCPDSACKOfoRecv];
    ++xfer_.ev.dsacks_received;
  }
  // "D-SACK for already forgotten data... Do dumb counting." (2.4.20 tcp_sacktag_write_queue, as
  // imported in ReactOS's transport/tcp/tcp_input.c): a late original of a segment whose
  // retransmission is already cumulatively ACKed (no longer on the write queue) still counts
  // against undo_retrans, so try_undo_dsack can undo the spurious recovery.
  if (dup_sack && !seq_after(o.sacks[0].end_seq, prior_snd_una) && seq_after(o.sacks[0].end_seq, tp.undo_marker))
    --tp.undo_retrans;
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
    ++xfer_.ev.reordering;
    record(TcpSeqEvent::reorder, tp.reordering);
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
    ++(tp.ca_state == TcpCaState::Loss ? xfer_.ev.undo_loss : xfer_.ev.undo_full);
    record(TcpSeqEvent::undo, rel_seq(tp.snd_una));
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
    ++xfer_.ev.undo_dsack;
    record(TcpSeqEvent::undo, rel_seq(tp.snd_una));
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
    ++xfer_.ev.undo_partial;
    record(TcpSeqEvent::undo, rel_seq(tp.snd_una));
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
    ++xfer_.ev.undo_loss;
    record(TcpSeqEvent::undo, rel_seq(tp.snd_una));
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
  if (is_dupack) {
    ++xfer_.ev.dupacks;
    record(TcpSeqEvent::dupack, rel_seq(tp.snd_una));
  }
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
      [[fallthrough]];  // loss is undone: process as in Open
    default:
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
      ++xfer_.ev.recoveries;
      record(TcpSeqEvent::recovery, rel_seq(tp.snd_nxt));
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

}  // namespace nicsim
