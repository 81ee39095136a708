// TcpSocket output path: Linux 2.4.20 net/ipv4/tcp_output.c (tcp_transmit_skb, Nagle and
// tcp_snd_test, tcp_write_xmit, delayed ACK scheduling, retransmission queue, cwnd validation).
#include "drivers-sim/net/tcp_socket.h"

#include "drivers-sim/net/tcp_internal.h"
#include "drivers-sim/net/tcp_stack.h"

#include <algorithm>

namespace nicsim {

using namespace tcp_detail;
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
  if (len) record(retrans ? TcpSeqEvent::retrans : TcpSeqEvent::tx, rel_seq(seq), rel_seq(seq + len));
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
  // tcp_transmit_skb returns what dev_queue_xmit answered: the packet still goes down (the device
  // queue drops and counts it), but a NET_XMIT_DROP (1) skips the retransmission bookkeeping
  // ("if (err == 0)") and tells the caller: "local congestion".
  const bool dropped = stack_.local_xmit_drops && stack_.local_xmit_drops(daddr_);
  transmit(idx, true);
  if (dropped) return NET_XMIT_DROP_ERR;
  TcpTxSkb& skb = write_queue_[idx];
  ++stack_.mib_[TcpMib::RetransSegs];
  ++tp.total_retrans;
  ++xfer_.ev.retrans_segs;
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
          if (tp.ca_state != TcpCaState::Loss) ++xfer_.ev.fast_retrans;
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
    ++xfer_.ev.fast_retrans;
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

}  // namespace nicsim
