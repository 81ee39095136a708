// Transfer-time attribution of the TCP model (drivers-sim/net/tcp_transfer.h) on the two-stack
// bench (tcp_harness.h): the states sum to each socket's lifetime exactly, each limit shows up
// as the state that names it when the set-up makes it the limit, and a planted reordering shows
// up as spurious retransmissions undone, not as loss.
#include "tests/unit/tcp_harness.h"
#include <catch2/catch.hpp>
#include <numeric>

// This file's own names, apart from the other files of a unity batch.
namespace tcp_transfer_attribution_test {
using namespace nicsim;
using namespace nicsim::test;

namespace {

constexpr TimeNs kAttribMs = 1000000;

TransferNs sum_send(const TcpTransfer& x) { return std::accumulate(x.send_ns.begin(), x.send_ns.end(), TransferNs(0)); }
TransferNs sum_recv(const TcpTransfer& x) { return std::accumulate(x.recv_ns.begin(), x.recv_ns.end(), TransferNs(0)); }
TransferNs in(const TcpTransfer& x, TcpSendState s) { return x.send_ns[size_t(s)]; }
TransferNs in(const TcpTransfer& x, TcpRecvState s) { return x.recv_ns[size_t(s)]; }
double share(const TcpTransfer& x, TcpSendState s) { return double(in(x, s)) / double(x.last_ns - x.first_ns); }

/// A bulk transfer of `bytes` from a to b; the reader drains whenever woken. The harness's reader
/// calls recv() directly, so the syscall layer's set_in_recv is called around it as InetHost does.
struct AttribBulk {
  TcpPair p;
  int sa = -1, sb = -1;
  App w{0, -1, false}, r{1, -1, true};
  /// `sndbuf`/`rcvbuf` > 0: SO_SNDBUF on the writer / SO_RCVBUF on the listener before connect
  /// (the connection's windows are chosen at the handshake, tcp_select_initial_window).
  explicit AttribBulk(TimeNs one_way = 50000, uint32_t sndbuf = 0, uint32_t rcvbuf = 0) : p(one_way) {
    p.gbps = 1.0;
    int l = p.b.listen(5002);
    p.b.set_nodelay(l, true);
    if (rcvbuf) p.b.set_rcvbuf(l, rcvbuf);
    sa = p.a.socket();
    p.a.set_nodelay(sa, true);
    if (sndbuf) p.a.set_sndbuf(sa, sndbuf);
    p.apply(0, p.a.connect(sa, kIpB, 5002, p.now));
    p.run_while([&] { return (sb = p.b.accept(l)) < 0; }, p.now + 1000 * kAttribMs);
    REQUIRE(sb >= 0);
    w.sock = sa;
    r.sock = sb;
  }
  void run(size_t bytes, TimeNs limit = 5000 * kAttribMs) {
    w.to_send = bytes;
    r.recv_max = 65536;
    p.apps = {&w, &r};
    p.b.set_in_recv(sb, true, p.now);  // the reader sits in recv() from the start
    p.service(r);
    p.now += kAttribMs;
    p.service(w);
    p.run_while([&] { return r.delivered < bytes; }, p.now + limit);
    p.run_until(p.now + 50 * kAttribMs);  // ACKs, delayed ACKs, the late originals
    p.a.transfer_finish(p.now);
    p.b.transfer_finish(p.now);
  }
  const TcpTransfer& tx() { return p.a.sock(sa).transfer(); }
  const TcpTransfer& rx() { return p.b.sock(sb).transfer(); }
};

}  // namespace

TEST_CASE("transfer attribution: sender and receiver states each sum to the socket's lifetime", "[net][tcp][transfer]") {
  AttribBulk b;
  b.run(2000000);
  REQUIRE(b.r.delivered == 2000000);
  for (const TcpTransfer* x : {&b.tx(), &b.rx()}) {
    REQUIRE(x->started);
    CHECK(x->last_ns == b.p.now);
    CHECK(sum_send(*x) == x->last_ns - x->first_ns);
    CHECK(sum_recv(*x) == x->last_ns - x->first_ns);
  }
  // The writer's socket connected at time 0 and went idle once everything was acknowledged.
  CHECK(b.tx().first_ns == 0);
  CHECK(in(b.tx(), TcpSendState::connecting) > 0);
  CHECK(in(b.tx(), TcpSendState::idle) > 0);
  CHECK(b.p.a.sock(b.sa).bytes_acked() == 2000000);
  // The reader was only ever in recv(): reading or asleep there.
  CHECK(in(b.rx(), TcpRecvState::not_reading) == 0);
  CHECK(in(b.rx(), TcpRecvState::waiting) + in(b.rx(), TcpRecvState::delack_wait) > 0);
  CHECK(b.tx().ev.retrans_segs == 0);
}

TEST_CASE("transfer attribution: a small receive buffer makes the sender rwnd-limited", "[net][tcp][transfer]") {
  // 2 ms one way at 1 Gb/s needs ~500 KB in flight; SO_RCVBUF 8 KB (16 KB after Linux doubles it)
  // offers a few segments of window: the head of the queue waits for the peer's window.
  AttribBulk small(2 * kAttribMs, 0, 8192), large(2 * kAttribMs, 0, 4 << 20);
  small.run(1000000);
  REQUIRE(small.r.delivered == 1000000);
  CHECK(share(small.tx(), TcpSendState::rwnd_limited) > 0.5);
  CHECK(share(small.tx(), TcpSendState::rwnd_limited) > 10 * share(small.tx(), TcpSendState::cwnd_limited));
  // With a receive buffer far above the path's ~500 KB the window is never the limit: slow start
  // (cwnd) is.
  large.run(1000000);
  // (the receiver still opens its window gradually, tcp_grow_window: rwnd_limited is not 0)
  CHECK(in(large.tx(), TcpSendState::cwnd_limited) > 0);
  CHECK(share(small.tx(), TcpSendState::rwnd_limited) > share(large.tx(), TcpSendState::rwnd_limited) + 0.2);
}

TEST_CASE("transfer attribution: a planted reordering is spurious retransmissions undone, not loss",
          "[net][tcp][transfer]") {
  AttribBulk b;
  int data_seen = 0;
  b.p.extra_delay = [&](const WirePacket& w) -> TimeNs {
    if (w.from == 0 && w.p.payload_len > 0 && !w.pkt.retransmission && ++data_seen == 40)
      return 150000;  // overtaken by the next ~12 segments: past the 3-dupack threshold, so fast
                      // retransmit fires, but arriving within a round trip of the retransmission,
                      // while the undo marker is still set (2.4 clears it when Disorder ends)
    return 0;
  };
  b.run(400000);
  REQUIRE(b.r.delivered == 400000);
  const TcpTransferEvents& e = b.tx().ev;
  const TcpOpt& tp = b.p.a.sock(b.sa).tp;
  CAPTURE(e.undo_full, e.undo_partial, e.undo_loss, e.retrans_segs, tp.undo_marker, tp.undo_retrans, int(tp.ca_state));
  CHECK(e.dupacks >= 3);
  CHECK(e.recoveries == 1);
  CHECK(e.fast_retrans == 1);
  CHECK(e.dsacks_received >= 1);  // the late original reported back as a duplicate
  // ... so the retransmission was spurious and the recovery is undone (cwnd restored).
  CHECK(e.undone() == 1);
  CHECK(e.timeouts == 0);
  CHECK(in(b.tx(), TcpSendState::loss) == 0);
  CHECK(in(b.tx(), TcpSendState::recovery) > 0);
  CHECK(b.rx().ev.ofo_segs > 0);
  CHECK(sum_send(b.tx()) == b.tx().last_ns - b.tx().first_ns);
}

TEST_CASE("transfer attribution: a lost segment is a recovery that is not undone", "[net][tcp][transfer]") {
  AttribBulk b;
  int data_seen = 0;
  b.p.drop = [&](const WirePacket& w) { return w.from == 0 && w.p.payload_len > 0 && !w.pkt.retransmission && ++data_seen == 40; };
  b.run(400000);
  REQUIRE(b.r.delivered == 400000);
  const TcpTransferEvents& e = b.tx().ev;
  CHECK(e.recoveries == 1);
  CHECK(e.fast_retrans == 1);
  CHECK(e.undone() == 0);
  CHECK(e.timeouts == 0);
  CHECK(in(b.tx(), TcpSendState::recovery) > 0);
}

TEST_CASE("transfer attribution: an RTO is time in the loss state", "[net][tcp][transfer]") {
  // Drop the last data segment and its first retransmission... the tail has no dupacks: only
  // the retransmission timer recovers it.
  AttribBulk b;
  const size_t bytes = 20 * 1448;
  b.p.drop = [&](const WirePacket& w) {
    return w.from == 0 && w.p.payload_len > 0 && !w.pkt.retransmission && w.p.th.seq + w.p.payload_len ==
                                                                                b.p.a.sock(b.sa).tp.iss + 1 + bytes;
  };
  b.run(bytes);
  REQUIRE(b.r.delivered == bytes);
  CHECK(b.tx().ev.timeouts == 1);
  CHECK(in(b.tx(), TcpSendState::loss) > 0);
  CHECK(b.tx().ev.recoveries == 0);
}

TEST_CASE("transfer attribution: a writer with more window than send buffer is sndbuf-limited", "[net][tcp][transfer]") {
  // 2 ms one way, SO_SNDBUF 8 KB: the window would take far more than the buffer holds, so the
  // writer sleeps in tcp_sendmsg with everything it queued already in flight.
  AttribBulk b(2 * kAttribMs, 8192);
  b.run(500000);
  REQUIRE(b.r.delivered == 500000);
  CHECK(share(b.tx(), TcpSendState::sndbuf_limited) > 0.5);
}

TEST_CASE("transfer attribution: the time-sequence record has every segment and ACK", "[net][tcp][transfer]") {
  AttribBulk b;
  b.p.a.set_recording(true);
  b.run(100 * 1448);
  size_t tx = 0, acks = 0, cwnd = 0;
  for (const TcpSeqEvent& e : b.p.a.seq_events()) {
    if (e.kind == TcpSeqEvent::tx) {
      CHECK(e.b - e.a == 1448);
      ++tx;
    }
    acks += e.kind == TcpSeqEvent::ack;
    cwnd += e.kind == TcpSeqEvent::cwnd;
  }
  CHECK(tx == 100);
  size_t wire_acks = 0;
  for (auto& w : b.p.wire) wire_acks += w.from == 1 && w.pure_ack();
  CHECK(acks == wire_acks);  // every pure ACK b sent reached a and was recorded there
  CHECK(cwnd > 2);           // slow start grew the window
  CHECK(b.p.b.seq_events().empty());
}

}  // namespace tcp_transfer_attribution_test
