// TcpSocket's transfer-time attribution (tcp_transfer.h): the state classification at the end of
// each TcpStack entry point, and the optional time-sequence record.
#include "drivers-sim/net/tcp_transfer.h"

#include "drivers-sim/net/tcp_internal.h"
#include "drivers-sim/net/tcp_stack.h"

namespace nicsim {

using namespace tcp_detail;

const char* tcp_send_state_name(TcpSendState s) {
  static const char* const n[] = {"connecting", "sending", "cwnd_limited", "rwnd_limited", "nagle",
                                  "sndbuf_limited", "recovery", "loss", "idle", "closed"};
  static_assert(sizeof(n) / sizeof(n[0]) == size_t(TcpSendState::Count));
  return n[size_t(s)];
}

const char* tcp_recv_state_name(TcpRecvState s) {
  static const char* const n[] = {"connecting", "reading", "waiting", "delack_wait", "not_reading", "closed"};
  static_assert(sizeof(n) / sizeof(n[0]) == size_t(TcpRecvState::Count));
  return n[size_t(s)];
}

namespace {
bool before_established(TcpState s, bool was) {
  return !was && (s == TcpState::Closed || s == TcpState::SynSent || s == TcpState::SynRecv || s == TcpState::Listen);
}
bool after_connection(TcpState s, bool was) { return was && (s == TcpState::Closed || s == TcpState::TimeWait); }
}  // namespace

TcpSendState TcpSocket::send_state() const {
  if (before_established(tp.state, was_established_)) return TcpSendState::connecting;
  if (after_connection(tp.state, was_established_)) return TcpSendState::closed;
  if (tp.ca_state == TcpCaState::Loss) return TcpSendState::loss;
  if (tp.ca_state == TcpCaState::Recovery) return TcpSendState::recovery;
  if (send_head_ < write_queue_.size()) {
    // tcp_snd_test's three tests in 2.4.20's order (Nagle, congestion window, receive window);
    // the window tests name the limit, Nagle only when both windows would let it go.
    const TcpTxSkb& skb = write_queue_[send_head_];
    if (packets_in_flight() >= tp.snd_cwnd && !(skb.flags & kTcpFin)) return TcpSendState::cwnd_limited;
    if (seq_after(skb.end_seq, tp.snd_una + tp.snd_wnd)) return TcpSendState::rwnd_limited;
    bool last = send_head_ + 1 == write_queue_.size();
    if (tp.nonagle != 1 && nagle_check(skb, current_mss(), last ? tp.nonagle : 1)) return TcpSendState::nagle;
    return TcpSendState::sending;
  }
  if (writer_sleeping_) return TcpSendState::sndbuf_limited;
  if (!write_queue_.empty()) return TcpSendState::sending;
  return TcpSendState::idle;
}

TcpRecvState TcpSocket::recv_state() const {
  if (before_established(tp.state, was_established_)) return TcpRecvState::connecting;
  if (after_connection(tp.state, was_established_)) return TcpRecvState::closed;
  if (!in_recv_) return TcpRecvState::not_reading;
  if (!reader_sleeping_) return TcpRecvState::reading;
  return (tp.ack.pending & TCP_ACK_TIMER) ? TcpRecvState::delack_wait : TcpRecvState::waiting;
}

void TcpSocket::transfer_update(TimeNs now) {
  if (tp.state == TcpState::Established) was_established_ = true;
  xfer_.advance(now, send_state(), recv_state());
  if (stack_.recording_ && was_established_ && (tp.snd_cwnd != rec_cwnd_ || tp.snd_ssthresh != rec_ssthresh_)) {
    rec_cwnd_ = tp.snd_cwnd;
    rec_ssthresh_ = tp.snd_ssthresh;
    record(TcpSeqEvent::cwnd, tp.snd_cwnd, tp.snd_ssthresh);
  }
}

void TcpSocket::record(TcpSeqEvent::Kind k, uint32_t a, uint32_t b) {
  if (!stack_.recording_) return;
  stack_.seq_events_.push_back({stack_.now_, id_, k, a, b});
}

void TcpStack::set_in_recv(int s, bool in, TimeNs now) {
  TcpSocket& k = sock(s);
  k.in_recv_ = in;
  k.transfer_update(now);
}

void TcpStack::transfer_finish(TimeNs now) {
  for (auto& s : socks_)
    if (s->xfer_.started) s->transfer_update(now);
}

}  // namespace nicsim
