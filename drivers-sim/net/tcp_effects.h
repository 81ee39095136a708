// What a call into the TCP model asks the rest of the simulator to do. The TCP model never does
// I/O and never sleeps: every entry point takes the current time and returns TcpEffects — packets
// to hand to the device, timers to arm or cancel, sleepers to wake, and the list of Linux code
// paths it ran (so the kernel model can charge their CPU cost from its cost table).
#pragma once
#include <cstdint>
#include <vector>

namespace nicsim {

/// Simulated time in nanoseconds.
using TimeNs = uint64_t;

/// Linux 2.4 code paths the glue charges CPU time for (TCP's, and UDP's: UdpStack reports its
/// work in the same TcpEffects). `n` in TcpPathStep is a byte count for
/// the *_copy / csum paths and a count of occurrences otherwise. The execution context follows
/// from the entry point: on_ip_packet = NET_RX softirq, on_timer = timer softirq, the socket calls
/// (send, recv, connect, close, release_sock) = process context (prequeue/backlog processing in
/// recv runs in process context, as tcp_prequeue_process does).
enum class TcpPath : uint8_t {
  ip_rcv,                         ///< ip_rcv + ip_rcv_finish + ip_local_deliver (per packet)
  tcp_v4_rcv,                     ///< tcp_v4_rcv: checks, socket lookup (per packet)
  rx_csum,                        ///< software TCP checksum over n bytes (no CHECKSUM_UNNECESSARY)
  tcp_prequeue,                   ///< softirq put the skb on ucopy.prequeue (reader asleep in recvmsg)
  sk_add_backlog,                 ///< socket owned by user: skb put on the backlog
  tcp_rcv_established_fast_ack,   ///< header-predicted pure ACK (TCPHPAcks / TCPPureAcks path)
  tcp_rcv_established_fast_data,  ///< header-predicted data segment (TCPHPHits or, followed by
                                  ///< tcp_copy_to_iovec, TCPHPHitsToUser)
  tcp_copy_to_iovec,              ///< data copied straight to the reader's iovec, n bytes
  tcp_rcv_established_slow,       ///< slow path: tcp_ack(FLAG_SLOWPATH) + tcp_data_queue
  tcp_ofo_queue,                  ///< a segment was put on the out_of_order_queue
  tcp_rcv_state_process,          ///< non-ESTABLISHED state processing (handshake, FIN states)
  tcp_conn_request,               ///< listener: SYN -> open_request + SYN-ACK (tcp_v4_conn_request)
  tcp_ack_clean_rtx,              ///< tcp_clean_rtx_queue freed n acknowledged skbs
  tcp_send_ack,                   ///< pure ACK: alloc_skb + tcp_transmit_skb + ip_queue_xmit
  tcp_transmit_skb,               ///< data/SYN/FIN segment: skb_clone + tcp_transmit_skb + ip_queue_xmit
  tcp_retransmit_skb,             ///< a retransmission (also counted under tcp_transmit_skb)
  tcp_sendmsg,                    ///< tcp_sendmsg body (per call, excluding the syscall itself)
  tcp_sendmsg_copy,               ///< copy from user into the skb, n bytes
  tcp_alloc_skb,                  ///< a new tx skb (tcp_alloc_pskb + skb_entail)
  tcp_recvmsg,                    ///< tcp_recvmsg body (per call, excluding the syscall itself)
  tcp_recvmsg_copy,               ///< skb_copy_datagram_iovec from receive_queue, n bytes
  tcp_prequeue_process,           ///< process context drained n skbs from the prequeue
  tcp_backlog_process,            ///< release_sock processed n skbs from the backlog
  kfree_skb_rx,                   ///< n received skbs freed: consumed, refused, or dropped from a queue
  tcp_delack_timer,               ///< tcp_delack_timer ran
  tcp_write_timer,                ///< tcp_write_timer ran (retransmit or zero-window probe)
  tcp_send_reset,                 ///< tcp_v4_send_reset
  // UDP (net/ipv4/udp.c) and the IP paths only it takes here (UdpStack, udp.h); same contexts:
  // on_ip_packet = NET_RX softirq, send/recv = process context.
  udp_sendmsg,                    ///< udp_sendmsg + ip_build_xmit set-up (per call)
  udp_sendmsg_copy,               ///< udp_getfrag: csum_partial_copy_fromiovecend, n bytes
  ip_build_xmit_skb,              ///< one packet or fragment: sock_alloc_send_skb + IP header + output
  ip_defrag,                      ///< ip_defrag queued one fragment (n = 1 per fragment)
  udp_rcv,                        ///< udp_rcv + udp_queue_rcv_skb + sock_queue_rcv_skb + data_ready
  udp_recvmsg,                    ///< udp_recvmsg + skb_recv_datagram (per call)
  udp_recvmsg_copy,               ///< skb_copy_datagram_iovec, n bytes (checksum as rx_csum)
  Count
};

const char* tcp_path_name(TcpPath p);

struct TcpPathStep {
  TcpPath path;
  uint32_t n;  ///< bytes for *_copy and rx_csum, otherwise occurrences
};

/// Linux's per-socket TCP timers: TCP_TIME_DACK (delack_timer) and the retransmit_timer that
/// serves TCP_TIME_RETRANS and TCP_TIME_PROBE0.
enum class TcpTimer : uint8_t { DelayedAck, Retransmit };

/// Arm (`cancel` false) or cancel a timer. The glue keeps one pending expiry per (sock, timer);
/// a new request replaces the previous one. Expiries fall on timer ticks (jiffies).
struct TcpTimerRequest {
  int sock = -1;
  TcpTimer timer = TcpTimer::DelayedAck;
  bool cancel = false;
  TimeNs at = 0;  ///< absolute expiry (the tick at which the kernel would run the timer)
};

/// One IPv4 packet for the device (the glue adds the Ethernet header and queues it).
struct TcpTxPacket {
  std::vector<uint8_t> ip;     ///< real IPv4 + TCP header bytes and (zero) payload
  int sock = -1;               ///< the sending socket (-1: a reset sent on nobody's behalf)
  uint64_t journey = 0;        ///< tag (JourneyId) of the message whose first carried byte this is
  uint32_t payload_bytes = 0;  ///< TCP payload bytes
  uint8_t tcp_flags = 0;       ///< kTcpSyn | kTcpAck | ...
  bool retransmission = false;
};

struct TcpEffects {
  std::vector<TcpTxPacket> tx;             ///< packets to transmit, in order
  std::vector<TcpTimerRequest> timers;     ///< timer changes, in order (later ones win)
  std::vector<TcpPathStep> paths;          ///< Linux paths run, in order
  int sock = -1;                           ///< socket the call concerned (-1 when none)
  size_t accepted = 0;                     ///< send(): bytes copied into the send queue
  size_t delivered = 0;                    ///< recv(): bytes copied to the user
  std::vector<uint64_t> completed_tags;    ///< recv(): messages whose last byte was delivered
  bool would_block = false;                ///< send(): sndbuf full; recv(): no data, reader sleeps
  bool eof = false;                        ///< recv(): the peer closed and all data was read
  bool wake_reader = false;                ///< wake the task sleeping in recvmsg on `sock`
  bool wake_writer = false;                ///< wake the task waiting for send space on `sock`
  bool connected = false;                  ///< `sock` completed its active open
  int accept_ready = -1;                   ///< listener socket with a new connection to accept()
  bool reset = false;                      ///< `sock` was reset by the peer
  bool dropped = false;                    ///< the packet was discarded
  bool skb_taken = false;                  ///< a socket took the received skb: it charges its free
                                           ///< (kfree_skb_rx) when the segment is done with, not the caller
  bool recv_again = false;                 ///< recv(): the reader still holds the socket lock with
                                           ///< work done (copies, backlog): charge these effects,
                                           ///< then call recv() again (TcpStack::recv)
  int error = 0;                           ///< send() / recv(): a negative errno the call returns
                                           ///< (sock_error's -ECONNRESET, -EPIPE), 0 when none
  bool backlog_processed = false;          ///< release_sock(): a backlog batch was processed with
                                           ///< the lock held: charge it, then call release_sock() again

  void path(TcpPath p, uint32_t n = 1) { paths.push_back({p, n}); }
  /// Sum of `n` over steps of path `p`.
  uint64_t count(TcpPath p) const {
    uint64_t s = 0;
    for (auto& st : paths)
      if (st.path == p) s += st.n;
    return s;
  }
  /// Append `o` (packets, timers, paths, tags; flags are OR-ed).
  void merge(TcpEffects&& o);
};

}  // namespace nicsim
