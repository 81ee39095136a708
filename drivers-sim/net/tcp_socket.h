// One Linux 2.4 TCP socket: the struct tcp_opt state and the tcp_input.c / tcp_output.c /
// tcp_timer.c / tcp.c algorithms under their Linux names, as plain C++ driven by TcpStack.
//
// Modelled: three-way handshake with 2.4's SYN options (MSS, SACK-permitted, timestamps, window
// scale); MSS from the MTU (1448 with timestamps at MTU 1500); send and receive buffers
// (tcp_wmem / tcp_rmem, truesize accounting, tcp_new_space growth); receive window selection
// (tcp_select_initial_window, __tcp_select_window, rcv_ssthresh growth by tcp_grow_window,
// window clamp); Nagle with Minshall's variant and TCP_NODELAY; slow start, congestion avoidance
// and RFC 2861 cwnd validation/restart; delayed ACK with the ATO estimator, pingpong mode and
// quickack counting; header prediction (pred_flags) with prequeue and copy-to-user; RTT/RTO
// (Jacobson with 2.4's mdev/rttvar, RTO >= TCP_RTO_MIN); retransmit timer with backoff and
// tcp_enter_loss; fast retransmit/recovery (tcp_fastretrans_alert, rate-halving tcp_cwnd_down,
// reordering threshold tp->reordering), SACK scoreboard with FACK, D-SACK, undo (DSACK, partial,
// full, loss) and reordering detection; out-of-order queue with SACK blocks; zero-window probes;
// FIN/RST basics.
// Not modelled: urgent data, ECN, PMTU discovery, TIME_WAIT recycling, keepalive, SYN-ACK
// retransmission by the listener, memory pressure (tcp_mem), receive-queue collapsing.
#pragma once
#include "drivers-sim/net/msg_tags.h"
#include "drivers-sim/net/tcp_effects.h"
#include "drivers-sim/net/tcp_params.h"
#include "drivers-sim/net/tcp_transfer.h"
#include "drivers-sim/net/wire.h"

#include <algorithm>
#include <deque>
#include <map>
#include <string>

namespace nicsim {

class TcpStack;

enum class TcpState : uint8_t {
  Closed, Listen, SynSent, SynRecv, Established, FinWait1, FinWait2, CloseWait, Closing, LastAck,
  TimeWait
};
const char* tcp_state_name(TcpState s);

/// tp->ca_state (include/net/tcp.h TCP_CA_*).
enum class TcpCaState : uint8_t { Open, Disorder, CWR, Recovery, Loss };

// TCP_SKB_CB(skb)->sacked bits (include/net/tcp.h).
constexpr uint8_t TCPCB_SACKED_ACKED = 0x01;
constexpr uint8_t TCPCB_SACKED_RETRANS = 0x02;
constexpr uint8_t TCPCB_LOST = 0x04;
constexpr uint8_t TCPCB_TAGBITS = 0x07;
constexpr uint8_t TCPCB_EVER_RETRANS = 0x80;
constexpr uint8_t TCPCB_RETRANS = TCPCB_SACKED_RETRANS | TCPCB_EVER_RETRANS;

// tp->ack.pending bits.
constexpr uint8_t TCP_ACK_SCHED = 1;
constexpr uint8_t TCP_ACK_TIMER = 2;
constexpr uint8_t TCP_ACK_PUSHED = 4;

// tp->pending (retransmit_timer's event).
constexpr uint8_t TCP_TIME_RETRANS = 1;
constexpr uint8_t TCP_TIME_DACK = 2;
constexpr uint8_t TCP_TIME_PROBE0 = 3;

/// A segment on the write queue (sk->write_queue; TCP_SKB_CB fields).
struct TcpTxSkb {
  uint32_t seq = 0;
  uint32_t end_seq = 0;
  uint8_t flags = 0;      ///< TCPCB_FLAG_*: the TCP header flags it is sent with
  uint8_t sacked = 0;     ///< TCPCB_* scoreboard bits
  uint32_t when = 0;      ///< jiffies of its last transmission
  uint32_t truesize = 0;  ///< bytes charged to sk->wmem_queued
  uint64_t off = 0;       ///< stream offset of its first data byte
  /// Data bytes (end_seq - seq without SYN/FIN).
  uint32_t len() const {
    return end_seq - seq - ((flags & kTcpSyn) ? 1u : 0u) - ((flags & kTcpFin) ? 1u : 0u);
  }
};

/// A data segment on the receive or out-of-order queue.
struct TcpRxSkb {
  uint32_t seq = 0;
  uint32_t end_seq = 0;   ///< includes FIN
  uint32_t len = 0;       ///< data bytes
  uint32_t truesize = 0;  ///< bytes charged to sk->rmem_alloc
  bool fin = false;
  uint64_t off = 0;       ///< stream offset of its first data byte
};

/// A received packet held on the prequeue or the backlog.
struct TcpRxSegment {
  ParsedTcpPacket pkt;
  uint32_t truesize = 0;
};

/// struct tcp_opt (+ the struct sock fields TCP uses), Linux 2.4 names. Read-only for users.
struct TcpOpt {
  TcpState state = TcpState::Closed;
  // Send sequence space.
  uint32_t iss = 0, snd_una = 0, snd_nxt = 0, snd_wnd = 0, snd_wl1 = 0, max_window = 0;
  uint32_t write_seq = 0, pushed_seq = 0, snd_sml = 0;
  uint8_t snd_wscale = 0, rcv_wscale = 0;
  bool wscale_ok = false, tstamp_ok = false;
  uint8_t sack_ok = 0;  ///< bit0 SACK, bit1 FACK, bit2 peer sent D-SACK
  // Congestion control.
  uint32_t snd_cwnd = 2, snd_ssthresh = 0x7fffffff, snd_cwnd_cnt = 0, snd_cwnd_clamp = 0xffff;
  uint32_t snd_cwnd_used = 0, snd_cwnd_stamp = 0, lsndtime = 0;
  uint32_t packets_out = 0, retrans_out = 0, sacked_out = 0, lost_out = 0, fackets_out = 0,
           left_out = 0;
  uint32_t reordering = 3;
  TcpCaState ca_state = TcpCaState::Open;
  uint32_t high_seq = 0, undo_marker = 0, prior_ssthresh = 0, retrans_stamp = 0;
  int undo_retrans = 0;
  uint8_t retransmits = 0, backoff = 0, probes_out = 0;
  uint32_t total_retrans = 0;
  // RTT (jiffies; srtt scaled by 8, mdev by 4 as in Linux).
  uint32_t srtt = 0, mdev = 0, mdev_max = 0, rttvar = 0, rtt_seq = 0, rto = 0, rcv_tstamp = 0;
  // Receive sequence space.
  uint32_t irs = 0, rcv_nxt = 0, rcv_wup = 0, rcv_wnd = 0, rcv_ssthresh = 0, window_clamp = 0;
  uint32_t copied_seq = 0;
  struct {
    uint8_t pending = 0;      ///< TCP_ACK_SCHED | TCP_ACK_TIMER | TCP_ACK_PUSHED
    uint32_t quick = 0;       ///< quickack segments left
    bool pingpong = false;    ///< interactive session: delay ACKs to piggyback
    bool blocked = false;     ///< delack timer found the socket locked
    uint32_t ato = 0;         ///< ACK timeout estimate, jiffies
    uint32_t timeout = 0;     ///< delack timer expiry, jiffies
    uint32_t lrcvtime = 0;    ///< jiffies of the last data segment received
    uint32_t last_seg_size = 0;
    uint32_t rcv_mss = 0;     ///< MSS estimate of the peer's segments
  } ack;
  // Timestamps.
  uint32_t ts_recent = 0, ts_recent_stamp = 0, rcv_tsval = 0, rcv_tsecr = 0;
  bool saw_tstamp = false;
  // MSS.
  uint32_t tcp_header_len = kTcpHeaderBytes, mss_cache = 536, mss_clamp = 536, advmss = 1460;
  uint32_t pmtu = 1500;
  uint32_t pred_flags = 0;
  int nonagle = 0;  ///< 0: Nagle; 1: TCP_NODELAY
  // Memory.
  uint32_t sndbuf = 16384, rcvbuf = 87380, wmem_queued = 0, rmem_alloc = 0;
  bool sndbuf_locked = false, rcvbuf_locked = false;
  bool queue_shrunk = false, nospace = false;
  // ucopy: the reader blocked in tcp_recvmsg.
  struct {
    bool task = false;  ///< tp->ucopy.task != NULL
    uint32_t len = 0;   ///< bytes the reader still wants
    uint32_t memory = 0;
  } ucopy;
  // SACK state of the receiver.
  SackBlock selective_acks[4]{};
  SackBlock duplicate_sack{};
  uint8_t num_sacks = 0, eff_sacks = 0;
  bool dsack = false;
  // retransmit_timer.
  uint8_t pending = 0;
  uint32_t timeout = 0;
  uint8_t shutdown = 0;  ///< RCV_SHUTDOWN 1 | SEND_SHUTDOWN 2
  uint16_t inet_id = 0;  ///< sk->protinfo.af_inet.id (IP ID of the next packet)
};

/// An open_request (SYN_RECV mini socket) on a listener (struct open_request).
struct TcpOpenReq {
  uint32_t rcv_isn = 0, snt_isn = 0;
  uint16_t mss = 536;           ///< peer's MSS option
  bool tstamp_ok = false, sack_ok = false, wscale_ok = false;
  uint8_t snd_wscale = 0, rcv_wscale = 0;
  uint32_t rcv_wnd = 0, window_clamp = 0;
  uint32_t ts_recent = 0;
  uint16_t sport = 0;           ///< our (listening) port
  uint32_t loc_addr = 0;        ///< our address the SYN was sent to (req->af.v4_req.loc_addr)
};

class TcpSocket {
 public:
  TcpSocket(TcpStack& stack, int id);

  int id() const { return id_; }
  TcpState state() const { return tp.state; }
  uint32_t saddr() const { return saddr_; }
  uint32_t daddr() const { return daddr_; }
  uint16_t sport() const { return sport_; }
  uint16_t dport() const { return dport_; }
  /// Bytes the application can read now (receive queue beyond copied_seq).
  size_t readable_bytes() const;
  /// The reader sleeps in recvmsg (tp->ucopy.task set by a recv() that returned would_block).
  bool reader_sleeping() const { return reader_sleeping_; }
  /// A FIN from the peer was received (sk->done).
  bool fin_received() const { return fin_received_; }
  bool writer_sleeping() const { return writer_sleeping_; }
  size_t write_queue_len() const { return write_queue_.size(); }
  size_t ofo_queue_len() const { return ofo_.size(); }
  size_t prequeue_len() const { return prequeue_.size(); }
  size_t backlog_len() const { return backlog_.size(); }
  /// In-flight packets as tcp_packets_in_flight() counts them.
  uint32_t packets_in_flight() const { return tp.packets_out - tp.left_out + tp.retrans_out; }
  /// Transfer-time attribution and events so far (tcp_transfer.h); TcpStack::transfer_finish
  /// charges the time up to a given instant.
  const TcpTransfer& transfer() const { return xfer_; }
  /// Stream bytes the application wrote (tp->write_seq - ISN - 1, 64-bit) and read.
  uint64_t bytes_written() const { return write_off_; }
  uint64_t bytes_read() const { return copied_off_; }
  /// Stream bytes the peer acknowledged (bytes_written minus what is still unacknowledged).
  uint64_t bytes_acked() const { return write_off_ - std::min<uint64_t>(write_off_, uint32_t(tp.write_seq - tp.snd_una)); }
  /// The sender / receiver state the socket is in now (tcp_transfer.h, first match wins).
  TcpSendState send_state() const;
  TcpRecvState recv_state() const;

  TcpOpt tp;  ///< Linux state, public for inspection; only the socket writes it.

 private:
  friend class TcpStack;
  using Seg = TcpRxSegment;

  // --- called by TcpStack (each inside a Ctx that sets now/jiffies/effects) ---
  void open_active(uint32_t saddr, uint16_t sport, uint32_t daddr, uint16_t dport);
  void init_from_openreq(uint32_t saddr, uint16_t sport, uint32_t daddr, uint16_t dport,
                         const TcpOpenReq& req, const Seg& ack_seg);
  void softirq_rcv(const Seg& s);           ///< tcp_v4_rcv after lookup: prequeue/backlog/do_rcv
  void do_rcv(const Seg& s);                ///< tcp_v4_do_rcv
  size_t sendmsg(size_t bytes, uint64_t tag);
  void recvmsg(size_t len);
  void close();
  void delack_timer();
  void write_timer();
  /// __release_sock's one pass: process the backlog queued so far (the lock stays owned); true
  /// when there was any.
  bool release_sock();

  // --- helpers (include/net/tcp.h) ---
  bool is_reno() const { return !(tp.sack_ok & 1); }
  bool is_fack() const { return (tp.sack_ok & 2) != 0; }
  uint32_t fackets_metric() const { return is_reno() ? tp.sacked_out + 1 : tp.fackets_out; }
  void sync_left_out();
  int win_from_space(int space) const;
  int space() const;
  int full_space() const;
  uint32_t receive_window() const;
  uint32_t select_window_raw();
  uint16_t select_window();
  void fast_path_on();
  void fast_path_check();
  void sync_mss();
  uint32_t current_mss() const;
  void initialize_rcv_mss();
  void init_buffer_space();
  void init_metrics();
  void update_metrics();
  uint32_t init_cwnd() const;
  uint32_t tx_truesize() const;
  MessageTags::Flow tx_flow() const { return {saddr_, daddr_, sport_, dport_}; }
  MessageTags::Flow rx_flow() const { return {daddr_, saddr_, dport_, sport_}; }

  // --- output (tcp_output.c) ---
  void transmit(size_t idx, bool retrans);  ///< tcp_transmit_skb of write_queue_[idx]
  void transmit_ctl(uint8_t flags, uint32_t seq);  ///< a segment without data (ACK / probe)
  void emit(uint8_t flags, uint32_t seq, uint32_t len, bool syn_opts, uint64_t off, bool retrans);
  void send_ack();
  void send_delayed_ack();
  bool write_xmit(int nonagle);
  void push_pending_frames(int nonagle);
  bool snd_test(const TcpTxSkb& skb, uint32_t mss, int nonagle) const;
  bool nagle_check(const TcpTxSkb& skb, uint32_t mss, int nonagle) const;
  bool minshall_check() const;
  bool may_send_now();
  void update_send_head();
  void cwnd_validate();
  void cwnd_restart();
  void cwnd_application_limited();
  void event_data_sent();
  void event_ack_sent();
  void fragment(size_t idx, uint32_t mss);
  /// tcp_retransmit_skb: 0 when sent; NET_XMIT_DROP_ERR when the device queue dropped it (local
  /// congestion, TcpStack::local_xmit_drops); -1 when there is nothing to send at `idx`.
  int retransmit_skb(size_t idx);
  static constexpr int NET_XMIT_DROP_ERR = 1;  ///< NET_XMIT_DROP as tcp_transmit_skb returns it
  void xmit_retransmit_queue();
  void enter_loss(int how);
  void check_probe_timer();
  void send_probe0();
  void send_fin();
  void entail(uint8_t flags);
  void mark_push(TcpTxSkb& skb);
  bool forced_push() const;
  void push(int nonagle);

  // --- input (tcp_input.c) ---
  void rcv_established(const Seg& s);
  void rcv_state_process(const Seg& s);
  void rcv_synsent(const Seg& s);
  int ack(const Seg& s, int flag);
  int ack_update_window(const Seg& s, uint32_t ack, uint32_t ack_seq);
  int clean_rtx_queue();
  void ack_update_rtt(int flag, int32_t seq_rtt);
  void ack_saw_tstamp();
  void rtt_estimator(uint32_t mrtt);
  void set_rto();
  void ack_packets_out();
  void ack_probe();
  void cong_avoid();
  void fastretrans_alert(uint32_t prior_snd_una, uint32_t prior_packets, int flag);
  int sacktag_write_queue(const Seg& s, uint32_t prior_snd_una);
  void update_reordering(uint32_t metric, bool ts);
  void check_reno_reordering(uint32_t addend);
  void add_reno_sack();
  void remove_reno_sacks(uint32_t acked);
  void reset_reno_sack() { tp.sacked_out = 0; tp.left_out = tp.lost_out; }
  void cwnd_down();
  void moderate_cwnd();
  void mark_head_lost(uint32_t packets, uint32_t high_seq);
  void update_scoreboard();
  bool head_timedout() const;
  bool time_to_recover();
  void try_to_open(int flag);
  void complete_cwr();
  bool packet_delayed() const;
  bool may_undo() const;
  void undo_cwr(bool undo);
  bool try_undo_recovery();
  void try_undo_dsack();
  bool try_undo_partial(uint32_t acked);
  bool try_undo_loss();
  void clear_retrans();
  uint32_t current_ssthresh() const;
  uint32_t recalc_ssthresh() const;
  void data_queue(const Seg& s);
  void ofo_queue();
  void ofo_insert(const TcpRxSkb& skb);
  void sack_new_ofo_skb(uint32_t seq, uint32_t end_seq);
  void sack_remove();
  void dsack_set(uint32_t seq, uint32_t end_seq);
  void dsack_extend(uint32_t seq, uint32_t end_seq);
  void event_data_recv(uint32_t len, uint32_t hdr_len, uint8_t flags, uint32_t truesize);
  void measure_rcv_mss(uint32_t len, uint32_t hdr_len, uint8_t flags);
  void incr_quickack();
  void enter_quickack_mode();
  bool in_quickack_mode() const { return tp.ack.quick && !tp.ack.pingpong; }
  bool ack_scheduled() const { return (tp.ack.pending & TCP_ACK_SCHED) != 0; }
  void grow_window(uint32_t truesize, uint32_t len);
  void ack_snd_check();
  void ack_snd_check_now(bool ofo_possible);
  void data_snd_check();
  void check_space();
  void new_space();
  void write_space();
  void send_dupack(const Seg& s);
  void fin();
  void reset();
  /// The slow-path checks of tcp_rcv_established and tcp_rcv_state_process; false when they dealt
  /// with the segment (a duplicate ACK sent, dropped or the connection reset). `syn_counts_in_errs`:
  /// an in-window SYN counts Tcp.InErrs too (tcp_rcv_established's copy).
  bool validate_incoming(const Seg& s, uint32_t end_seq, bool syn_counts_in_errs);
  bool sequence_ok(uint32_t seq, uint32_t end_seq) const;
  void store_ts_recent();
  void replace_ts_recent(uint32_t seq);
  bool paws_discard(const Seg& s) const;
  void data_ready();
  void cleanup_rbuf(size_t copied);
  void prequeue_process();
  bool prequeue(const Seg& s);
  void queue_rcv(const TcpRxSkb& skb);
  uint64_t off_of(uint32_t seq) const;

  // --- timers ---
  void reset_xmit_timer(uint8_t what, uint32_t when_jiffies);
  void clear_xmit_timer(uint8_t what);
  void reset_delack_timer(uint32_t expires_jiffies);
  void clear_delack_timer();
  void retransmit_timer();
  bool rto_episode_ = false;  ///< a retransmission timeout happened and no new data was acknowledged since
  void probe_timer();
  void set_state(TcpState s);

  // --- transfer attribution (tcp_transfer.cpp) ---
  void transfer_update(TimeNs now);  ///< classify now; charge the time since the last call
  void record(TcpSeqEvent::Kind k, uint32_t a, uint32_t b = 0);  ///< when the stack records
  uint32_t rel_seq(uint32_t seq) const { return seq - tp.iss - 1; }

  TcpStack& stack_;
  int id_;
  uint32_t saddr_ = 0, daddr_ = 0;
  uint16_t sport_ = 0, dport_ = 0;
  int listener_ = -1;  ///< for children: the listening socket that accept()s them

  std::deque<TcpTxSkb> write_queue_;
  size_t send_head_ = 0;  ///< index of the first unsent skb (== size() when none)
  std::deque<TcpRxSkb> receive_queue_;
  std::map<uint64_t, TcpRxSkb> ofo_;  ///< out_of_order_queue keyed by stream offset
  std::deque<Seg> prequeue_;
  std::deque<Seg> backlog_;
  bool owned_by_user_ = false;   ///< sk->lock.users (glue-controlled, plus inside recvmsg)
  bool in_user_ctx_ = false;     ///< running inside tcp_recvmsg (tp->ucopy.task == current)
  bool seg_queued_ = false;      ///< do_rcv's segment went to the receive or out-of-order queue
  bool reader_sleeping_ = false;
  bool writer_sleeping_ = false;
  /// tcp_recvmsg's locals across a return to the glue with the lock held (TcpEffects::recv_again).
  struct RecvYield {
    enum class At { Test, Exit, Release };  ///< the backlog test, the exit, release_sock's next pass
    bool active = false;
    At at = At::Test;
    size_t len = 0, copied = 0;
    bool user_recv = false;
  } recv_yield_;
  int sk_err_ = 0;  ///< sk->err: a positive errno the next recv()/send() returns once (sock_error)
  bool write_open_ = false;      ///< a tagged write is partly accepted
  uint64_t write_off_ = 0;       ///< stream offset of the next byte written (tp->write_seq)
  uint64_t rcv_nxt_off_ = 0;     ///< stream offset of rcv_nxt
  uint64_t copied_off_ = 0;      ///< stream offset of copied_seq
  bool fin_received_ = false;
  bool eof_reported_ = false;
  bool in_recv_ = false;          ///< the application is inside recv() (InetHost::recvmsg)
  bool was_established_ = false;  ///< reached ESTABLISHED once (closed vs connecting)
  TcpTransfer xfer_;
  uint32_t rec_cwnd_ = 0, rec_ssthresh_ = 0;  ///< last recorded snd_cwnd / snd_ssthresh

  // Per-call context lives in the stack (set by each TcpStack entry point).
  TcpEffects& fx() const;
  uint32_t jiffies() const;
};

/// tcp_select_initial_window (tcp_output.c): the window offered in a SYN / SYN-ACK.
/// `space` bytes of buffer, `mss` the MSS to round to; returns rcv_wnd, and sets
/// *window_clamp (0 on input = unlimited) and *rcv_wscale.
uint32_t tcp_select_initial_window(const TcpParams& p, int space, uint32_t mss,
                                   uint32_t* window_clamp, bool wscale_ok, uint8_t* rcv_wscale);

}  // namespace nicsim
