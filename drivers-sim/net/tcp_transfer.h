// Transfer-time attribution of one TCP socket (`nicsim explain --transfer`, result.json
// `transfer`): what the socket's sending side and receiving side were doing at every instant of
// its life, and the loss-recovery events behind it. Pure C++, no SystemC.
//
// The socket's state changes only inside TcpStack's entry points, so TcpStack classifies the
// socket it served at the end of every entry point (TcpSocket::transfer_update) and charges the
// time since the previous classification to the previous state: per socket the sender states sum
// exactly to `last_ns - first_ns`, and so do the receiver states (integer nanoseconds).
//
// Sender states, first match wins (the names follow Linux 4.10's tcp_chrono_* instrumentation,
// include/net/tcp.h enum tcp_chrono: "busy", "rwnd_limited", "sndbuf_limited"; the cwnd and Nagle
// reasons are tcp_snd_test's other two tests, 2.4.20 include/net/tcp.h tcp_snd_test):
//   connecting     before ESTABLISHED (SYN_SENT / SYN_RECV)
//   closed         CLOSED / TIME_WAIT after the connection
//   loss           tp->ca_state == TCP_CA_Loss: after a retransmission timeout (RTO)
//   recovery       tp->ca_state == TCP_CA_Recovery: fast retransmit / fast recovery
//   cwnd_limited   unsent data whose tcp_snd_test fails on tcp_packets_in_flight() >= snd_cwnd
//   rwnd_limited   unsent data beyond snd_una + snd_wnd (the peer's receive window)
//   nagle          unsent data held by tcp_nagle_check (a small segment, one unacknowledged)
//   sndbuf_limited the writer sleeps in tcp_sendmsg for send-buffer space (wait_for_sndbuf) with
//                  everything queued already sent: more window than buffer
//   sending        data queued or in flight and nothing above holds it (Linux's "busy"; includes
//                  time the writer spends producing the next write)
//   idle           nothing queued, nothing in flight
// Receiver states (the syscall layer, InetHost::recvmsg, says when the application is in
// recv(): TcpStack::set_in_recv):
//   connecting / closed  as above
//   reading        inside recv() and not asleep: copying or about to
//   delack_wait    asleep in recv() waiting for data while a delayed ACK is pending
//                  (tp->ack.pending & TCP_ACK_TIMER): the ACK the sender may be waiting for is held
//   waiting        asleep in recv() waiting for data, no ACK held
//   not_reading    the application is not in recv() (writing, computing, or it never reads)
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

namespace nicsim {

using TransferNs = uint64_t;

enum class TcpSendState : uint8_t {
  connecting, sending, cwnd_limited, rwnd_limited, nagle, sndbuf_limited, recovery, loss, idle, closed,
  Count
};
enum class TcpRecvState : uint8_t { connecting, reading, waiting, delack_wait, not_reading, closed, Count };

const char* tcp_send_state_name(TcpSendState s);  ///< "cwnd_limited", ...
const char* tcp_recv_state_name(TcpRecvState s);

/// Per-socket loss-recovery and receive events, counted where the TCP model does what Linux does
/// (each next to its netstat -s counter).
struct TcpTransferEvents {
  uint64_t dupacks = 0;          ///< ACKs tcp_fastretrans_alert took as duplicate (no advance, no data/window change)
  uint64_t recoveries = 0;       ///< fast-retransmit episodes entered (TCPRenoRecovery + TCPSackRecovery)
  uint64_t fast_retrans = 0;     ///< segments retransmitted by fast retransmit (TCPFastRetrans + TCPForwardRetrans)
  uint64_t timeouts = 0;         ///< retransmission timer expiries with data out (tcp_retransmit_timer)
  uint64_t retrans_segs = 0;     ///< every retransmitted segment (RetransSegs)
  uint64_t undo_full = 0;        ///< spurious recovery undone at its end (TCPFullUndo)
  uint64_t undo_partial = 0;     ///< undone on a partial ACK (TCPPartialUndo)
  uint64_t undo_dsack = 0;       ///< undone by D-SACKs (TCPDSACKUndo)
  uint64_t undo_loss = 0;        ///< RTO undone (TCPLossUndo)
  uint64_t reordering = 0;       ///< tp->reordering raised (tcp_update_reordering: TCP*Reorder)
  uint64_t dsacks_received = 0;  ///< D-SACK blocks received (TCPDSACKRecv + TCPDSACKOfoRecv)
  uint64_t ofo_segs = 0;         ///< receiver: segments put on the out-of-order queue
  uint64_t delayed_acks = 0;     ///< receiver: ACKs sent by the delayed-ACK timer (DelayedACKs)
  uint64_t backlogged = 0;       ///< segments (data or ACKs) that found the socket locked by its user,
                                 ///< copying in tcp_recvmsg or tcp_sendmsg, and waited on sk->backlog
  uint64_t undone() const { return undo_full + undo_partial + undo_dsack + undo_loss; }
};

/// The accounting of one socket. `first_ns`/`last_ns`: the first and latest classification.
struct TcpTransfer {
  bool started = false;
  TransferNs first_ns = 0, last_ns = 0;
  TcpSendState snd = TcpSendState::connecting;
  TcpRecvState rcv = TcpRecvState::connecting;
  std::array<TransferNs, size_t(TcpSendState::Count)> send_ns{};
  std::array<TransferNs, size_t(TcpRecvState::Count)> recv_ns{};
  TcpTransferEvents ev;
  /// Charge now - last_ns to the current states, then take `s`, `r` from `now` on.
  void advance(TransferNs now, TcpSendState s, TcpRecvState r) {
    if (!started) {
      started = true;
      first_ns = last_ns = now;
    } else if (now > last_ns) {
      send_ns[size_t(snd)] += now - last_ns;
      recv_ns[size_t(rcv)] += now - last_ns;
      last_ns = now;
    }
    snd = s;
    rcv = r;
  }
};

/// One event of a socket's time-sequence record (TcpStack::set_recording): what tcptrace draws.
/// Sequence numbers are relative to the socket's ISN + 1 (send side) or the peer's (ACKs are of
/// our data, so relative to our ISN + 1 as well).
struct TcpSeqEvent {
  enum Kind : uint8_t {
    tx,         ///< a data segment sent: a = seq, b = end_seq
    retrans,    ///< a data segment retransmitted: a, b
    ack,        ///< an ACK of our data received: a = ack, b = right edge of the window (ack + wnd)
    sack,       ///< a SACK block in that ACK: a = start, b = end
    dupack,     ///< the ACK counted as duplicate: a = ack
    recovery,   ///< fast recovery entered: a = high_seq
    timeout,    ///< retransmission timer expired: a = snd_una
    undo,       ///< a spurious retransmission undone: a = snd_una
    reorder,    ///< reordering detected: a = new tp->reordering
    cwnd,       ///< snd_cwnd changed: a = snd_cwnd (segments), b = snd_ssthresh
  };
  TransferNs t = 0;
  int sock = -1;
  Kind kind = tx;
  uint32_t a = 0, b = 0;
};

}  // namespace nicsim
