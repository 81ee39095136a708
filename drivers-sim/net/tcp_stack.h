// One host's TCP/IPv4 stack (Linux 2.4 net/ipv4): IP input checks, socket demultiplexing
// (established 4-tuple table, listening ports, open requests), port allocation, per-host MIB
// counters, and the entry points the kernel/driver glue calls. Pure C++: every call takes the
// current simulated time and returns TcpEffects (see tcp_effects.h); nothing sleeps, nothing
// does I/O.
//
// Glue contract (who calls what, in which Linux context):
//  * NET_RX softirq, per received IPv4 packet: on_ip_packet(bytes, len, now, truesize, csum_ok).
//  * timer softirq, when a TcpTimerRequest expires: on_timer(sock, timer, now).
//  * process context: socket(), set_nodelay(), listen(), connect(), accept(), send(), recv(),
//    close(); set_owned_by_user() / release_sock() if the glue models the socket lock.
//  * every TcpEffects::tx packet goes to the device (dev_queue_xmit) in the caller's context;
//    wake_reader / wake_writer wake the task sleeping on that socket, which then calls recv() /
//    send() again; TcpEffects::paths lists the Linux code paths to charge CPU time for.
#pragma once
#include "drivers-sim/net/ip_input.h"
#include "drivers-sim/net/mib.h"
#include "drivers-sim/net/msg_tags.h"
#include "drivers-sim/net/tcp_socket.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace nicsim {

class TcpStack {
 public:
  /// `addr`: this host's IPv4 address (host order). `tags`: the run's shared message-boundary
  /// registry (may be null: no journey tags then). `name`: for messages.
  TcpStack(uint32_t addr, const TcpParams& params = {}, MessageTags* tags = nullptr,
           std::string name = "");

  // --- process context: socket calls ---------------------------------------------------------
  /// socket(AF_INET, SOCK_STREAM): a new closed socket; returns its id.
  int socket();
  /// setsockopt TCP_NODELAY (tp->nonagle = 1).
  void set_nodelay(int sock, bool on);
  /// setsockopt SO_SNDBUF / SO_RCVBUF: Linux 2.4 doubles the value (sock_setsockopt) and locks it.
  void set_sndbuf(int sock, uint32_t bytes);
  void set_rcvbuf(int sock, uint32_t bytes);
  /// bind + listen on `port` with a new socket; returns the listening socket's id.
  /// Throws std::runtime_error when the port is in use.
  int listen(uint16_t port);
  /// Active open of `sock` to daddr:dport from an ephemeral port (tcp_v4_connect): sends the SYN.
  /// TcpEffects::connected comes later, from the on_ip_packet that carries the SYN-ACK.
  TcpEffects connect(int sock, uint32_t daddr, uint16_t dport, TimeNs now);
  /// accept(): the id of the oldest established child of `listener`, or -1 when none.
  int accept(int listener);
  /// write(): queue `bytes` of an application message tagged `tag` (journey id; 0 = none).
  /// Returns accepted = bytes copied; would_block when the send buffer filled first: wait for
  /// wake_writer and call send() again with the rest and the same tag.
  TcpEffects send(int sock, size_t bytes, uint64_t tag, TimeNs now);
  /// read() of up to `max` bytes (tcp_recvmsg, blocking, target 1 byte). delivered > 0: bytes
  /// read; completed_tags: messages whose last byte was read. would_block: nothing to read, the
  /// reader now sleeps in recvmsg (packets go to the prequeue): call recv() again after
  /// wake_reader. eof: the peer closed. recv_again: the reader copied or processed input and
  /// still holds the socket lock: charge these effects (softirq input meanwhile goes to the
  /// backlog), then call recv() again at once; `max` is ignored on that call.
  TcpEffects recv(int sock, size_t max, TimeNs now);
  /// close(): send FIN after queued data.
  TcpEffects close(int sock, TimeNs now);
  /// lock_sock by the glue (sk->lock.users) around a call whose effects take time, e.g. send():
  /// while set, softirq input goes to the backlog. release_sock() processes what the backlog
  /// holds with the lock kept (backlog_processed): charge that, then call it again; the call that
  /// finds the backlog empty drops the lock.
  void set_owned_by_user(int sock, bool owned);
  TcpEffects release_sock(int sock, TimeNs now);

  // --- softirq context -------------------------------------------------------------------------
  /// One received IPv4 packet (ip_rcv .. tcp_v4_rcv). `truesize`: skb->truesize charged to the
  /// socket (0: TcpParams::rx_truesize_default_bytes). `csum_unnecessary`: the NIC verified the
  /// TCP checksum (CHECKSUM_UNNECESSARY); otherwise it is verified here.
  TcpEffects on_ip_packet(const uint8_t* ip, size_t len, TimeNs now, uint32_t truesize = 0,
                          bool csum_unnecessary = false);
  /// A timer requested through TcpEffects::timers expired.
  TcpEffects on_timer(int sock, TcpTimer timer, TimeNs now);

  // --- transfer attribution (tcp_transfer.h) ----------------------------------------------------
  /// The syscall layer: the application entered (`in`) or left recv() on `sock` at `now`.
  void set_in_recv(int sock, bool in, TimeNs now);
  /// Charge every socket's time up to `now` (end of a run) to its current states.
  void transfer_finish(TimeNs now);
  /// Keep a time-sequence record of every socket (TcpSeqEvent: segments, ACKs, SACK blocks,
  /// retransmissions, cwnd); off by default (it grows with the run).
  /// Called at each retransmission timeout and at the first ACK of new data after one (the run's
  /// fault timeline, docs/faults.md): always on, it fires only on timeouts.
  struct RtoEvent {
    TimeNs t = 0;
    int sock = -1;
    bool resumed = false;       ///< false: the timer fired; true: new data acknowledged after it
    unsigned backoff = 0;       ///< tp->backoff after the timeout (resumed: the timeouts in the episode)
    uint32_t rto_jiffies = 0;   ///< the RTO armed next (timeout) / in force (resumed); local_drop: the retry
    /// The retransmission met a full device queue (NET_XMIT_DROP): tcp_retransmit_timer kept the
    /// backoff and the RTO and re-armed the timer at min(RTO, TCP_RESOURCE_PROBE_INTERVAL).
    bool local_drop = false;
  };
  std::function<void(const RtoEvent&)> on_rto_event;
  /// Whether a packet to `daddr` would be dropped by the device's queue now: dev_queue_xmit's
  /// NET_XMIT_DROP (pfifo_fast's band full), which ip_queue_xmit and tcp_transmit_skb pass back up
  /// (2.4.20 tcp_output.c). The glue (InetHost) answers from the route's device; unset: never.
  /// Only retransmissions consult it (tcp_retransmit_skb's "local congestion"): the loss and
  /// recovery states they run in make tcp_enter_cwr a no-op there.
  std::function<bool(uint32_t daddr)> local_xmit_drops;
  void set_recording(bool on) { recording_ = on; }
  bool recording() const { return recording_; }
  const std::vector<TcpSeqEvent>& seq_events() const { return seq_events_; }

  // --- inspection ------------------------------------------------------------------------------
  TcpSocket& sock(int id) { return *socks_.at(size_t(id)); }
  const TcpSocket& sock(int id) const { return *socks_.at(size_t(id)); }
  size_t socket_count() const { return socks_.size(); }
  NetMib& mib() { return mib_; }
  const NetMib& mib() const { return mib_; }
  std::string netstat_s() const { return nicsim::netstat_s(mib_); }
  const TcpParams& params() const { return p_; }
  /// The metrics the routing cache keeps for one destination (struct dst_entry, 2.4.20
  /// net/ipv4/route.c; a host route, DST_HOST): only RTAX_REORDERING is modelled. 0: not learnt.
  struct RouteMetrics {
    uint32_t reordering = 0;  ///< dst->reordering
  };
  /// The cached metrics of destination `daddr` (created empty on first use). Route cache garbage
  /// collection (ip_rt_gc, rt_cache_flush) is not modelled: an entry lives as long as the stack.
  RouteMetrics& dst_metrics(uint32_t daddr) { return rt_cache_[daddr]; }
  const std::map<uint32_t, RouteMetrics>& route_cache() const { return rt_cache_; }
  uint32_t addr() const { return addr_; }
  /// Deliver packets to `a` locally too and use it as the source towards it (127.0.0.1 when the
  /// host's `lo` is configured; LocalAddrs).
  void add_local_addr(uint32_t a) { local_.add(a); }
  const LocalAddrs& local_addrs() const { return local_; }
  const std::string& name() const { return name_; }
  MessageTags* tags() const { return tags_; }
  /// Journey tag of the application message whose data an IPv4/TCP packet carries (first data
  /// byte), 0 when none or unknown. For marking journeys on the receive path.
  uint64_t journey_of(const uint8_t* ip, size_t len) const;
  /// jiffies at simulated time `t` (HZ ticks since jiffy 0, with TcpParams::jiffies_phase_ns).
  uint64_t jiffies64(TimeNs t) const {
    return (t + p_.jiffies_phase_ns) / p_.tick_ns() + p_.jiffies_at_zero;
  }
  /// Simulated time of the tick at which jiffies becomes `j`.
  TimeNs jiffy_time(uint64_t j) const;

 private:
  friend class TcpSocket;
  struct Key {
    uint32_t raddr;
    uint16_t rport, lport;
    bool operator<(const Key& o) const {
      return raddr != o.raddr ? raddr < o.raddr : rport != o.rport ? rport < o.rport : lport < o.lport;
    }
  };
  struct Listener {
    int sock = -1;
    std::map<std::pair<uint32_t, uint16_t>, TcpOpenReq> syn_table;  ///< (raddr, rport) -> req
    std::deque<int> accept_queue;
  };
  /// Per-call context: sets fx_/now_/jiffies_ for the duration of an entry point.
  class Ctx;

  void conn_request(Listener& l, const ParsedTcpPacket& pkt);
  void send_synack(const TcpOpenReq& req, uint32_t raddr, uint16_t rport);
  void send_reset(const ParsedTcpPacket& pkt);
  void emit_packet(std::vector<uint8_t> pkt, int sock, uint64_t journey, uint32_t payload,
                   uint8_t flags, bool retrans);
  uint32_t secure_isn(uint32_t saddr, uint32_t daddr, uint16_t sport, uint16_t dport,
                      TimeNs now) const;
  uint16_t next_ephemeral_port();
  void hash(TcpSocket& s);             ///< put the socket in the 4-tuple table
  void unhash(TcpSocket& s);
  void child_ready(int listener_sock, int child);

  uint32_t addr_;
  LocalAddrs local_;  ///< addr_ and the addresses of the host's other interfaces (lo)
  TcpParams p_;
  MessageTags* tags_;
  std::string name_;
  NetMib mib_;
  std::vector<std::unique_ptr<TcpSocket>> socks_;
  std::map<Key, int> ehash_;
  std::map<uint16_t, Listener> listeners_;
  std::map<uint32_t, RouteMetrics> rt_cache_;  ///< by destination address
  uint16_t port_rover_;
  TcpEffects* fx_ = nullptr;  ///< effects of the call in progress
  TimeNs now_ = 0;            ///< time of the call in progress
  uint32_t jiffies_ = 0;      ///< tcp_time_stamp of the call in progress
  bool recording_ = false;
  std::vector<TcpSeqEvent> seq_events_;
};

}  // namespace nicsim
