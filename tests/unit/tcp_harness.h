// Test bench for the TCP model: two TcpStacks joined by an ideal wire with a fixed one-way
// delay, a timer wheel that honours TcpTimerRequest (replace / cancel), optional drop and
// reorder hooks, and small "apps" that read or write whenever the stack wakes them. Pure C++.
#pragma once
#include "drivers-sim/net/tcp_stack.h"

#include <functional>
#include <map>
#include <tuple>
#include <vector>

namespace nicsim::test {

constexpr uint32_t kIpA = 0x0a000001;  // 10.0.0.1
constexpr uint32_t kIpB = 0x0a000002;  // 10.0.0.2

struct WirePacket {
  TimeNs t = 0;        ///< transmit time
  int from = 0;        ///< 0 = host a, 1 = host b
  TcpTxPacket pkt;
  ParsedTcpPacket p;   ///< parsed headers
  bool dropped = false;
  bool pure_ack() const {
    return p.payload_len == 0 && p.th.flags == kTcpAck;
  }
};

/// A reader that drains a socket whenever woken, or a writer that pushes a byte count.
struct App {
  App(int h, int s, bool is_reader) : host(h), sock(s), reader(is_reader) {}
  int host = 0, sock = -1;
  bool reader = false;
  size_t recv_max = 1 << 20;
  size_t delivered = 0;
  std::vector<uint64_t> tags;
  size_t to_send = 0;   ///< writer: bytes still to write
  uint64_t tag = 0;
  size_t accepted = 0;
  bool blocked = false;
};

class TcpPair {
 public:
  explicit TcpPair(TimeNs one_way_ns = 20000, const TcpParams& pa = {}, const TcpParams& pb = {})
      : a(kIpA, pa, &tags, "a"), b(kIpB, pb, &tags, "b"), one_way(one_way_ns) {}

  MessageTags tags;
  TcpStack a, b;
  TimeNs now = 0;
  TimeNs one_way;
  double gbps = 0;  ///< >0: frames serialise at this rate (+38 B preamble/FCS/IFG each)
  std::vector<WirePacket> wire;
  std::vector<TcpEffects> log[2];            ///< every TcpEffects each host produced
  std::function<bool(const WirePacket&)> drop;          ///< true: lose this packet
  std::function<TimeNs(const WirePacket&)> extra_delay; ///< added to the one-way delay
  std::map<std::pair<int, int>, int> wakes_reader, wakes_writer;
  std::vector<App*> apps;

  TcpStack& host(int h) { return h == 0 ? a : b; }

  /// Record and schedule everything `fx` asks for; returns it for inspection.
  TcpEffects apply(int h, TcpEffects fx) {
    for (auto& tx : fx.tx) {
      WirePacket w;
      w.t = now;
      w.from = h;
      w.pkt = tx;
      parse_tcp_packet(tx.ip.data(), tx.ip.size(), &w.p);
      w.dropped = drop && drop(w);
      TimeNs start = std::max(now, link_free_[h]);
      TimeNs ser = gbps > 0 ? TimeNs(double((tx.ip.size() + kEthHeaderBytes + 38) * 8) / gbps) : 0;
      link_free_[h] = start + ser;
      TimeNs at = start + ser + one_way + (extra_delay ? extra_delay(w) : 0);
      if (!w.dropped) {
        Ev e;
        e.kind = 0;
        e.host = 1 - h;
        e.bytes = tx.ip;
        push(at, std::move(e));
      }
      wire.push_back(std::move(w));
    }
    for (auto& tr : fx.timers) {
      auto key = std::make_tuple(h, tr.sock, int(tr.timer));
      uint64_t g = ++gen_[key];
      if (!tr.cancel) {
        Ev e;
        e.kind = 1;
        e.host = h;
        e.sock = tr.sock;
        e.timer = tr.timer;
        e.gen = g;
        push(std::max(tr.at, now), std::move(e));
      }
    }
    if (fx.wake_reader) ++wakes_reader[{h, fx.sock}];
    if (fx.wake_writer) ++wakes_writer[{h, fx.sock}];
    log[h].push_back(fx);
    return fx;
  }

  /// read() as a process makes it: recv() again while the stack returns recv_again (the reader
  /// kept the socket lock; no time passes between the passes here). The passes' effects merged.
  TcpEffects recv(int h, int sock, size_t max) {
    TcpEffects fx = apply(h, host(h).recv(sock, max, now));
    while (fx.recv_again) {
      TcpEffects more = apply(h, host(h).recv(sock, max, now));
      const bool again = more.recv_again;
      fx.merge(std::move(more));
      fx.recv_again = again;
    }
    return fx;
  }

  /// Process the next event; false when there is none.
  bool step() {
    if (q_.empty()) return false;
    auto it = q_.begin();
    Ev e = std::move(it->second);
    now = std::max(now, it->first.first);
    q_.erase(it);
    if (e.kind == 0) {
      apply(e.host, host(e.host).on_ip_packet(e.bytes.data(), e.bytes.size(), now, 0, true));
    } else {
      auto key = std::make_tuple(e.host, e.sock, int(e.timer));
      if (gen_[key] != e.gen) return true;  // replaced or cancelled
      apply(e.host, host(e.host).on_timer(e.sock, e.timer, now));
    }
    service_apps();
    return true;
  }
  TimeNs next_time() const { return q_.empty() ? TimeNs(-1) : q_.begin()->first.first; }
  /// Run every event up to and including time `t`; then now = t.
  void run_until(TimeNs t) {
    while (!q_.empty() && q_.begin()->first.first <= t) step();
    now = std::max(now, t);
  }
  /// Run until `pred` holds or no event is left before `limit`.
  bool run_while(const std::function<bool()>& keep_going, TimeNs limit) {
    while (keep_going()) {
      if (q_.empty() || q_.begin()->first.first > limit) return false;
      step();
    }
    return true;
  }

  /// Give `app` a chance to run now (initially, and after each event when woken).
  void service(App& ap) {
    TcpStack& s = host(ap.host);
    if (ap.reader) {
      for (;;) {
        TcpEffects fx = recv(ap.host, ap.sock, ap.recv_max);
        ap.delivered += fx.delivered;
        ap.tags.insert(ap.tags.end(), fx.completed_tags.begin(), fx.completed_tags.end());
        if (fx.would_block || fx.eof || fx.delivered == 0) break;
      }
    } else if (ap.to_send) {
      TcpEffects fx = apply(ap.host, s.send(ap.sock, ap.to_send, ap.tag, now));
      ap.to_send -= fx.accepted;
      ap.accepted += fx.accepted;
      ap.blocked = fx.would_block;
    }
  }
  void service_apps() {
    for (App* ap : apps) {
      auto key = std::make_pair(ap->host, ap->sock);
      int& w = ap->reader ? wakes_reader[key] : wakes_writer[key];
      if (w > 0) {
        w = 0;
        service(*ap);
      }
    }
  }

  /// Connect a -> b:port at the current time and run the handshake. Returns {a sock, b sock}.
  std::pair<int, int> connect(uint16_t port = 5002, bool nodelay = true) {
    int l = b.listen(port);
    if (nodelay) b.set_nodelay(l, true);
    int sa = a.socket();
    if (nodelay) a.set_nodelay(sa, true);
    apply(0, a.connect(sa, kIpB, port, now));
    int sb = -1;
    run_while(
        [&] {
          sb = b.accept(l);
          return sb < 0;
        },
        now + 1000000000);
    return {sa, sb};
  }

 private:
  struct Ev {
    int kind = 0;  // 0 packet, 1 timer
    int host = 0;
    int sock = -1;
    TcpTimer timer = TcpTimer::DelayedAck;
    uint64_t gen = 0;
    std::vector<uint8_t> bytes;
  };
  void push(TimeNs at, Ev e) { q_.emplace(std::make_pair(at, seq_++), std::move(e)); }
  std::map<std::pair<TimeNs, uint64_t>, Ev> q_;
  TimeNs link_free_[2] = {0, 0};
  uint64_t seq_ = 0;
  std::map<std::tuple<int, int, int>, uint64_t> gen_;
};

}  // namespace nicsim::test
