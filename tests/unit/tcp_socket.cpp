// Linux 2.4 TCP behaviour of TcpStack/TcpSocket, driven over an ideal wire (tcp_harness.h).
// Expected values are worked from the 2.4 rules quoted in each test, not copied from a run.
#include "tcp_harness.h"

#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace tcp_socket_test {
using namespace nicsim;
using namespace nicsim::test;

namespace {
constexpr TimeNs kSocketMs = 1000000;

// tcp_win_from_space with tcp_adv_win_scale = 2: space - space/4
int win_from_space(int space) { return space - space / 4; }

std::vector<const WirePacket*> sent_by(const TcpPair& p, int from) {
  std::vector<const WirePacket*> v;
  for (auto& w : p.wire)
    if (w.from == from) v.push_back(&w);
  return v;
}

// A one-way stream of `bytes` from a's socket sa to b's sb, b reading up to 64 KB per call, started
// 10 ms into the run and run until b has read it all (or 5 s).
struct Stream {
  App w, r;
  Stream(TcpPair& p, int sa, int sb, size_t bytes, uint64_t tag = 0) : w{0, sa, false}, r{1, sb, true} {
    w.to_send = bytes;
    w.tag = tag;
    r.recv_max = 65536;
    p.apps = {&w, &r};
    p.service(r);
    p.now = 10 * kSocketMs;
    p.service(w);
    p.run_while([&] { return r.delivered < bytes; }, 5000 * kSocketMs);
  }
};
}  // namespace

TEST_CASE("Handshake: 2.4 SYN and SYN-ACK options and windows, MSS 1448, cwnd 2, RTO 210 ms",
          "[net][tcp]") {
  TcpPair p;
  auto [sa, sb] = p.connect();
  REQUIRE(sb >= 0);
  const TcpParams& P = p.a.params();
  REQUIRE(p.wire.size() == 3);
  const WirePacket& syn = p.wire[0];
  const WirePacket& synack = p.wire[1];
  const WirePacket& ack = p.wire[2];

  // SYN: 20 IP + 20 TCP + 20 options = 60 bytes (74 on Ethernet).
  CHECK(syn.pkt.ip.size() == 60);
  CHECK(syn.p.th.flags == kTcpSyn);
  CHECK(syn.p.th.source == P.local_port_low);  // first port of the rover
  CHECK(syn.p.opt.mss == 1460);
  CHECK(syn.p.opt.sack_perm);
  CHECK(syn.p.opt.has_ts);
  CHECK(syn.p.opt.tsecr == 0);
  CHECK(syn.p.opt.has_wscale);
  CHECK(syn.p.opt.wscale == 0);
  // tcp_select_initial_window: space = tcp_full_space = win_from_space(87380) = 65535, rounded
  // to the MSS, limited to MAX_TCP_WINDOW 32767 (so window scale 0), then to 4 * MSS (RFC 1414).
  const uint32_t full = uint32_t(win_from_space(int(P.tcp_rmem_default_bytes)));
  CHECK(full == 65535);
  CHECK(syn.p.th.window == 4 * 1460);
  // SYN-ACK: the same options; MSS for the window is 1460 - 12 because timestamps are on.
  CHECK(synack.pkt.ip.size() == 60);
  CHECK(synack.p.th.flags == (kTcpSyn | kTcpAck));
  CHECK(synack.p.th.window == 4 * 1448);
  CHECK(synack.p.opt.tsecr == syn.p.opt.tsval);
  CHECK(synack.p.th.ack_seq == syn.p.th.seq + 1);
  // Final ACK: header 20 + 32.
  CHECK(ack.pkt.ip.size() == 52);
  CHECK(ack.pure_ack());
  CHECK(ack.p.th.window == 4 * 1460);

  for (TcpStack* s : {&p.a, &p.b}) {
    const TcpSocket& k = s->sock(s == &p.a ? sa : sb);
    CHECK(k.state() == TcpState::Established);
    CHECK(k.tp.tcp_header_len == 32);
    CHECK(k.tp.mss_cache == 1448);
    CHECK(k.tp.advmss == 1448);
    CHECK(k.tp.snd_cwnd == 2);  // tcp_v4_init_sock / tcp_create_openreq_child
    CHECK(k.tp.snd_ssthresh == 0x7fffffffu);
    CHECK(k.tp.sack_ok == 3);   // SACK + FACK
    // The handshake RTT (40 µs) is 0 jiffies -> m = 1: srtt = 8, rttvar = max(4, TCP_RTO_MIN 20).
    CHECK(k.tp.srtt == 8);
    CHECK(k.tp.rto == 1 + P.rto_min_jiffies());
    CHECK(k.tp.rto == 21);
    // tcp_init_buffer_space: clamp = full space, minus one segment "forced reservation".
    CHECK(k.tp.window_clamp == full - k.tp.advmss);
    CHECK(k.tp.ack.rcv_mss == 536);  // tcp_initialize_rcv_mss: min(.., TCP_MIN_RCVMSS)
    CHECK(k.tp.pred_flags != 0);
  }
  CHECK(p.a.sock(sa).tp.rcv_ssthresh == 4 * 1460);
  CHECK(p.b.sock(sb).tp.rcv_ssthresh == 4 * 1448);
  CHECK(p.a.mib()[TcpMib::ActiveOpens] == 1);
  CHECK(p.b.mib()[TcpMib::PassiveOpens] == 1);
  CHECK(p.a.mib()[TcpMib::CurrEstab] == 1);
  CHECK(p.b.mib()[TcpMib::CurrEstab] == 1);
  CHECK(p.a.mib()[TcpMib::OutSegs] == 2);
  CHECK(p.b.mib()[TcpMib::OutSegs] == 1);
  CHECK(p.b.mib()[TcpMib::InSegs] == 2);
}

TEST_CASE("Connecting to a port nobody listens on is answered with a RST", "[net][tcp]") {
  TcpPair p;
  int sa = p.a.socket();
  p.apply(0, p.a.connect(sa, kIpB, 9, 0));
  p.run_until(kSocketMs);
  REQUIRE(p.wire.size() == 2);
  CHECK(p.wire[1].p.th.flags == (kTcpRst | kTcpAck));
  CHECK(p.wire[1].p.th.ack_seq == p.wire[0].p.th.seq + 1);
  CHECK(p.a.sock(sa).state() == TcpState::Closed);
  CHECK(p.b.mib()[TcpMib::OutRsts] == 1);
}

TEST_CASE("Data segments: 66 bytes of headers, full segments fill the 1500-byte MTU", "[net][tcp]") {
  TcpPair p;
  auto [sa, sb] = p.connect();
  p.now = 50 * kSocketMs;
  auto fx = p.apply(0, p.a.send(sa, 1, 7, p.now));
  REQUIRE(fx.tx.size() == 1);
  CHECK(fx.tx[0].ip.size() + kEthHeaderBytes == 66 + 1);
  CHECK(fx.tx[0].journey == 7);
  CHECK(fx.accepted == 1);
  const std::vector<uint8_t> bytes = fx.tx[0].ip;
  p.run_until(60 * kSocketMs);
  // The receiving stack finds the message a data packet belongs to (for journey marks) until
  // the application has read it.
  CHECK(p.b.journey_of(bytes.data(), bytes.size()) == 7);
  auto rfx = p.recv(1, sb, 10);
  CHECK(rfx.delivered == 1);
  REQUIRE(rfx.completed_tags.size() == 1);
  CHECK(rfx.completed_tags[0] == 7);
  fx = p.apply(0, p.a.send(sa, 3 * 1448, 8, p.now));
  // cwnd 2: two full segments leave at once, the third waits for an ACK.
  REQUIRE(fx.tx.size() == 2);
  CHECK(fx.tx[0].ip.size() == 1500);
  CHECK(fx.tx[1].ip.size() == 1500);
  CHECK(fx.accepted == 3 * 1448);
  CHECK(p.a.sock(sa).tp.packets_out == 2);
}

TEST_CASE("Delayed ACK: quickack for rcv_wnd/(2 rcv_mss) segments, then the 40 ms ATO timer",
          "[net][tcp]") {
  TcpPair p;
  auto [sa, sb] = p.connect();
  const TcpParams& P = p.b.params();
  const TcpSocket& B = p.b.sock(sb);
  // tcp_incr_quickack on the first data segment: rcv_wnd 5792 / (2 * rcv_mss 536) = 5.
  const uint32_t quick = B.tp.rcv_wnd / (2 * B.tp.ack.rcv_mss);
  REQUIRE(quick == 5);
  // Seven 1-byte messages, 1 ms apart, all inside jiffy 10 after t = 0 (no reader on b).
  const TimeNs t0 = 100 * kSocketMs + kSocketMs / 2;
  for (int i = 0; i < 7; ++i) {
    p.run_until(t0 + TimeNs(i) * kSocketMs);
    p.apply(0, p.a.send(sa, 1, 0, p.now));
  }
  p.run_until(t0 + 7 * kSocketMs);
  auto acks = [&] {
    std::vector<const WirePacket*> v;
    for (auto* w : sent_by(p, 1))
      if (w->t >= t0 && w->pure_ack()) v.push_back(w);
    return v;
  };
  // Messages 1..5 are ACKed on arrival (quickack); 6 and 7 wait.
  auto v = acks();
  REQUIRE(v.size() == quick);
  for (uint32_t i = 0; i < quick; ++i) CHECK(v[i]->t == t0 + TimeNs(i) * kSocketMs + p.one_way);
  CHECK(B.tp.ack.quick == 0);
  CHECK((B.tp.ack.pending & TCP_ACK_TIMER) != 0);
  // tcp_send_delayed_ack: ato = TCP_ATO_MIN (4 jiffies); the timer expires at the tick of
  // jiffies(arrival of message 6) + 4, i.e. between 30 and 40 ms after the arrival.
  const TimeNs arrive6 = t0 + 5 * kSocketMs + p.one_way;
  const uint64_t j6 = p.b.jiffies64(arrive6);
  const TimeNs expect = p.b.jiffy_time(j6 + P.ato_min_jiffies());
  CHECK(expect - arrive6 > 30 * kSocketMs);
  CHECK(expect - arrive6 <= 40 * kSocketMs);
  p.run_until(expect + kSocketMs);
  v = acks();
  REQUIRE(v.size() == quick + 1);
  CHECK(v.back()->t == expect);
  CHECK(v.back()->p.th.ack_seq == p.a.sock(sa).tp.snd_nxt);  // one ACK covers 6 and 7
  CHECK(p.b.mib()[TcpExtMib::DelayedACKs] == 1);
  CHECK(p.b.mib()[TcpExtMib::TCPHPHits] == 7);  // all header-predicted, queued (no reader)
  // The timer was not in pingpong mode: ato doubles (tcp_delack_timer "inflate ATO").
  CHECK(B.tp.ack.ato == std::min(2 * P.ato_min_jiffies(), B.tp.rto));
}

TEST_CASE("ACK at once on the second full-sized segment, even in pingpong mode", "[net][tcp]") {
  TcpPair p;
  auto [sa, sb] = p.connect();
  // b is not reading: message 1 is header-predicted onto the receive queue and, b being in
  // quickack mode, ACKed at once. b then reads it and answers within ato of its arrival:
  // tcp_event_data_sent enters pingpong mode, so quickack mode (quick && !pingpong) is off.
  p.now = 20 * kSocketMs;
  p.apply(0, p.a.send(sa, 1, 0, p.now));
  p.run_until(21 * kSocketMs);
  auto rfx = p.recv(1, sb, 100);
  REQUIRE(rfx.delivered == 1);
  REQUIRE_FALSE(p.b.sock(sb).reader_sleeping());
  p.apply(1, p.b.send(sb, 1, 0, p.now));
  const TcpSocket& B = p.b.sock(sb);
  REQUIRE(B.tp.ack.pingpong);
  p.run_until(30 * kSocketMs);
  // The second segment of the write arrives 100 µs after the first.
  int data_segs = 0;
  p.extra_delay = [&](const WirePacket& w) -> TimeNs {
    return w.from == 0 && w.p.payload_len == 1448 && ++data_segs == 2 ? 100000 : 0;
  };
  p.now = 40 * kSocketMs;
  const size_t before = p.wire.size();
  auto fx = p.apply(0, p.a.send(sa, 2 * 1448, 0, p.now));
  REQUIRE(fx.tx.size() == 2);
  const uint32_t end2 = p.wire[before].p.th.seq + 2 * 1448;
  auto from_b = [&] {
    std::vector<const WirePacket*> v;
    for (size_t i = before; i < p.wire.size(); ++i)
      if (p.wire[i].from == 1) v.push_back(&p.wire[i]);
    return v;
  };
  // First segment: rcv_nxt - rcv_wup = 1448 is not more than rcv_mss (now 1448), no quickack
  // in pingpong mode, no out-of-order data -> tcp_send_delayed_ack.
  p.run_until(p.now + p.one_way);
  CHECK(from_b().empty());
  CHECK(B.tp.ack.rcv_mss == 1448);
  CHECK((B.tp.ack.pending & TCP_ACK_TIMER) != 0);
  // Second segment: 2896 > rcv_mss and the window does not shrink -> ACK at once.
  const TimeNs arrive2 = p.now + 100000;
  p.run_until(arrive2);
  auto v = from_b();
  REQUIRE(v.size() == 1);
  CHECK(v[0]->pure_ack());
  CHECK(v[0]->t == arrive2);
  CHECK(v[0]->p.th.ack_seq == end2);
  CHECK((B.tp.ack.pending & TCP_ACK_TIMER) == 0);  // tcp_event_ack_sent cleared the timer
  CHECK(p.b.mib()[TcpExtMib::DelayedACKs] == 0);
}

TEST_CASE("Ping-pong: replies piggyback ACKs, data goes header-predicted to the user",
          "[net][tcp]") {
  TcpPair p;
  auto [sa, sb] = p.connect();
  const size_t handshake = p.wire.size();
  App ra{0, sa, true}, rb{1, sb, true};
  ra.recv_max = rb.recv_max = 1;
  p.apps = {&ra, &rb};
  const int N = 20;
  p.service(rb);  // b sleeps in recvmsg
  p.now = 10 * kSocketMs;
  for (int i = 0; i < N; ++i) {
    p.apply(0, p.a.send(sa, 1, uint64_t(i + 1), p.now));
    p.service(ra);  // a sleeps in recvmsg until the reply
    size_t want_b = size_t(i + 1);
    REQUIRE(p.run_while([&] { return rb.delivered < want_b; }, p.now + kSocketMs));
    p.apply(1, p.b.send(sb, 1, uint64_t(1001 + i), p.now));
    p.service(rb);
    REQUIRE(p.run_while([&] { return ra.delivered < want_b; }, p.now + kSocketMs));
  }
  p.run_until(p.now + 5 * kSocketMs);  // well before any delayed-ACK timer (>= 30 ms)
  // Message boundaries: every message's tag completed on the far side, in order.
  REQUIRE(rb.tags.size() == size_t(N));
  REQUIRE(ra.tags.size() == size_t(N));
  for (int i = 0; i < N; ++i) {
    CHECK(rb.tags[size_t(i)] == uint64_t(i + 1));
    CHECK(ra.tags[size_t(i)] == uint64_t(1001 + i));
  }
  // Each side sends exactly one pure ACK after the handshake: for the first segment it
  // receives, while still in quickack mode; its next send is within ato of that arrival, so
  // tcp_event_data_sent sets pingpong and all later ACKs ride on data.
  int pure[2] = {0, 0};
  for (size_t i = handshake; i < p.wire.size(); ++i)
    if (p.wire[i].pure_ack()) ++pure[p.wire[i].from];
  CHECK(pure[0] == 1);
  CHECK(pure[1] == 1);
  CHECK(p.a.sock(sa).tp.ack.pingpong);
  CHECK(p.b.sock(sb).tp.ack.pingpong);
  for (TcpStack* s : {&p.a, &p.b}) {
    const NetMib& m = s->mib();
    CHECK(m[TcpExtMib::DelayedACKs] == 0);
    CHECK(m[TcpExtMib::TCPHPHitsToUser] == uint64_t(N));  // reader asleep: prequeue, copy to iovec
    CHECK(m[TcpExtMib::TCPHPHits] == 0);
    CHECK(m[TcpExtMib::TCPDirectCopyFromPrequeue] == uint64_t(N));  // bytes
    // N data segments plus the peer's one pure ACK went through the prequeue.
    CHECK(m[TcpExtMib::TCPPrequeued] == uint64_t(N + 1));
  }
  // TCPHPAcks: a counts b's pure ACK (acks message 1) and replies 2..N (reply 1 acks nothing
  // new) = N; b counts a's pure ACK and messages 3..N = N - 1.
  CHECK(p.a.mib()[TcpExtMib::TCPHPAcks] == uint64_t(N));
  CHECK(p.b.mib()[TcpExtMib::TCPHPAcks] == uint64_t(N - 1));
  // TCPPureAcks: only the handshake's final ACK, taken by b's slow path (tcp_rcv_state_process).
  CHECK(p.a.mib()[TcpExtMib::TCPPureAcks] == 0);
  CHECK(p.b.mib()[TcpExtMib::TCPPureAcks] == 1);
}

TEST_CASE("Slow start: one more segment of cwnd per ACK while cwnd-limited", "[net][tcp]") {
  TcpPair p;
  auto [sa, sb] = p.connect();
  const TcpSocket& A = p.a.sock(sa);
  p.now = 10 * kSocketMs;
  p.apply(0, p.a.send(sa, 10 * 1448, 0, p.now));
  REQUIRE(A.tp.packets_out == 2);
  // b does not read; it is in quickack mode (5 quick ACKs, and tcp_grow_window sets quick |= 1),
  // so it ACKs each segment on arrival. ACK 1: prior in flight 2 >= cwnd 2 -> cwnd 3, in flight
  // 1 -> 2 more sent. ACK 2: prior in flight 3 >= 3 -> cwnd 4, 2 more sent.
  p.run_until(p.now + 2 * p.one_way);
  CHECK(A.tp.snd_cwnd == 4);
  CHECK(A.tp.packets_out == 4);
  CHECK(p.a.mib()[TcpMib::OutSegs] == 2 + 6);
  (void)sb;
}

TEST_CASE("Bulk transfer: cwnd grows, the receive window grows to the tcp_grow_window bound",
          "[net][tcp]") {
  TcpPair p;
  auto [sa, sb] = p.connect();
  App w{0, sa, false};
  w.to_send = 400000;
  w.tag = 42;
  App r{1, sb, true};
  r.recv_max = 65536;
  p.apps = {&w, &r};
  p.service(r);
  p.now = 10 * kSocketMs;
  p.service(w);
  p.run_while([&] { return r.delivered < 400000; }, 2000 * kSocketMs);
  CHECK(r.delivered == 400000);
  REQUIRE(r.tags.size() == 1);
  CHECK(r.tags[0] == 42);
  const TcpSocket& A = p.a.sock(sa);
  const TcpSocket& B = p.b.sock(sb);
  CHECK(A.tp.snd_cwnd > 10);
  CHECK(A.tp.snd_ssthresh == 0x7fffffffu);  // no loss
  CHECK(p.a.mib()[TcpMib::RetransSegs] == 0);
  // tcp_grow_window with e1000-sized skbs (truesize 2344): win_from_space(2344) = 1758 > 1448,
  // so __tcp_grow_window adds 2 * rcv_mss = 2896 while rcv_ssthresh <= full_space / 2 = 32767.
  const TcpParams& P = p.b.params();
  const uint32_t truesize = P.rx_truesize_default_bytes;
  REQUIRE(uint32_t(win_from_space(int(truesize))) > 1448);
  uint32_t ss = 4 * 1448;
  while (ss <= uint32_t(win_from_space(int(P.tcp_rmem_default_bytes))) / 2) ss += 2 * 1448;
  CHECK(ss == 34752);
  CHECK(B.tp.rcv_ssthresh == ss);
  // The advertised window settles at the largest multiple of the MSS within rcv_ssthresh.
  const WirePacket* last_ack = nullptr;
  for (auto& wp : p.wire)
    if (wp.from == 1 && wp.pure_ack()) last_ack = &wp;
  REQUIRE(last_ack);
  CHECK(last_ack->p.th.window == (ss / 1448) * 1448);
  // The sender's window never exceeded what b offered.
  CHECK(A.tp.max_window <= ss);
}

TEST_CASE("RTO with a full device queue: the retransmission's NET_XMIT_DROP keeps the RTO and backoff and retries "
          "after min(RTO, HZ/2)",
          "[net][tcp][faults]") {
  // 2.4.20 tcp_retransmit_timer: "Retransmission failed because of local congestion, do not
  // backoff": retransmits = 1, the timer re-armed at min(rto, TCP_RESOURCE_PROBE_INTERVAL), no
  // doubling (research/link-faults-failover.md §A9).
  TcpPair p;
  auto [sa, sb] = p.connect();
  const TcpSocket& A = p.a.sock(sa);
  bool queue_full = false;
  int data_seen = 0;
  p.a.local_xmit_drops = [&](uint32_t) { return queue_full; };
  // The first data segment dies on the wire; what the full queue refuses never reaches it.
  p.drop = [&](const WirePacket& w) { return w.from == 0 && w.p.payload_len > 0 && (data_seen++ == 0 || queue_full); };
  p.now = 10 * kSocketMs + 123;
  const uint64_t j_send = p.a.jiffies64(p.now);
  p.apply(0, p.a.send(sa, 100, 0, p.now));
  const uint32_t rto = A.tp.rto;
  REQUIRE(rto == 21);
  queue_full = true;  // e.g. a stopped queue whose pfifo_fast band is full
  const TimeNs first = p.a.jiffy_time(j_send + rto);
  p.run_until(first);
  CHECK(A.tp.ca_state == TcpCaState::Loss);  // tcp_enter_loss ran
  CHECK(A.tp.rto == rto);                    // not doubled
  CHECK(A.tp.backoff == 0);
  CHECK(A.tp.retransmits == 1);
  CHECK(p.a.mib()[TcpMib::RetransSegs] == 0);  // only "if (err == 0)"
  CHECK(p.a.mib()[TcpExtMib::TCPTimeouts] == 1);
  // The retry after min(rto, HZ/2) = rto finds room and backs off as usual.
  queue_full = false;
  const TimeNs retry = p.a.jiffy_time(j_send + 2 * rto);
  p.run_until(retry - 1);
  CHECK(p.a.mib()[TcpMib::RetransSegs] == 0);
  p.run_until(retry);
  CHECK(A.tp.backoff == 1);
  CHECK(A.tp.rto == 2 * rto);
  p.run_until(retry + kSocketMs);
  CHECK(p.a.mib()[TcpMib::RetransSegs] == 1);
  CHECK(p.b.sock(sb).readable_bytes() == 100);
}

TEST_CASE("RTO: a lost segment is resent after rto = srtt/8 + rttvar, cwnd drops to 1",
          "[net][tcp]") {
  TcpPair p;
  auto [sa, sb] = p.connect();
  const TcpSocket& A = p.a.sock(sa);
  int data_seen = 0;
  p.drop = [&](const WirePacket& w) { return w.from == 0 && w.p.payload_len > 0 && data_seen++ == 0; };
  p.now = 10 * kSocketMs + 123;
  const uint64_t j_send = p.a.jiffies64(p.now);
  p.apply(0, p.a.send(sa, 100, 0, p.now));
  const uint32_t rto = A.tp.rto;
  REQUIRE(rto == 21);
  const TimeNs sent = p.now;
  const TimeNs expect = p.a.jiffy_time(j_send + rto);
  CHECK(expect - sent > 200 * kSocketMs);  // never below TCP_RTO_MIN
  CHECK(expect - sent <= 210 * kSocketMs);
  p.run_until(expect);
  // tcp_retransmit_timer -> tcp_enter_loss: ssthresh = max(cwnd/2, 2) = 2, cwnd = 1, and the
  // RTO doubles (backoff).
  CHECK(A.tp.snd_cwnd == 1);
  CHECK(A.tp.snd_ssthresh == 2);
  CHECK(A.tp.rto == 2 * rto);
  CHECK(A.tp.ca_state == TcpCaState::Loss);
  p.run_until(expect + kSocketMs);
  std::vector<const WirePacket*> data;
  for (auto& w : p.wire)
    if (w.from == 0 && w.p.payload_len > 0) data.push_back(&w);
  REQUIRE(data.size() == 2);
  CHECK(data[1]->t == expect);
  CHECK(data[1]->p.th.seq == data[0]->p.th.seq);
  CHECK(data[1]->pkt.retransmission);
  CHECK(p.a.mib()[TcpMib::RetransSegs] == 1);
  CHECK(p.a.mib()[TcpExtMib::TCPTimeouts] == 1);
  CHECK(p.b.sock(sb).readable_bytes() == 100);
  CHECK(A.tp.packets_out == 0);  // acknowledged after the retransmission
  // The ACK echoes the retransmission's timestamp, so tcp_ack_saw_tstamp samples the RTT again
  // (no Karn ambiguity with timestamps) and the RTO is back to srtt/8 + rttvar.
  CHECK(A.tp.rto == rto);
  // In Loss state the ACK grows cwnd in slow start (1 -> 2). high_seq is acked, so the Loss
  // state ends; nothing was undone (the retransmission itself was acked), undo_marker stays
  // set and tcp_try_to_open parks the connection in Disorder until the next ACK.
  CHECK(A.tp.snd_cwnd == 2);
  CHECK(A.tp.ca_state == TcpCaState::Disorder);
}

TEST_CASE("Fast retransmit with SACK after one loss -- the out-of-order queue reassembles",
          "[net][tcp]") {
  TcpPair p;
  auto [sa, sb] = p.connect();
  int data_seen = 0;
  uint32_t lost_seq = 0;
  p.drop = [&](const WirePacket& w) {
    if (w.from == 0 && w.p.payload_len > 0 && !w.pkt.retransmission && ++data_seen == 30) {
      lost_seq = w.p.th.seq;
      return true;
    }
    return false;
  };
  Stream st(p, sa, sb, 300000, 9);
  const App& r = st.r;
  CHECK(r.delivered == 300000);
  REQUIRE(r.tags.size() == 1);
  const NetMib& ma = p.a.mib();
  const NetMib& mb = p.b.mib();
  CHECK(ma[TcpMib::RetransSegs] == 1);        // exactly the lost segment
  CHECK(ma[TcpExtMib::TCPSackRecovery] == 1);
  CHECK(ma[TcpExtMib::TCPFastRetrans] == 1);
  CHECK(ma[TcpExtMib::TCPTimeouts] == 0);
  CHECK(p.a.sock(sa).tp.snd_ssthresh < 0x7fffffffu);
  // b queued the segments after the hole out of order and SACKed them: its ACKs during the
  // hole carry a SACK block starting right after the lost segment.
  uint64_t ofo = 0;
  for (auto& fx : p.log[1]) ofo += fx.count(TcpPath::tcp_ofo_queue);
  CHECK(ofo >= 3);
  int sacks = 0;
  for (auto& wp : p.wire)
    if (wp.from == 1 && wp.p.opt.num_sacks && wp.p.th.ack_seq == lost_seq &&
        wp.p.opt.sacks[0].start_seq == lost_seq + 1448)
      ++sacks;
  CHECK(sacks >= 3);
  // Out-of-order arrival enters quickack mode without counting DelayedACKLost (research §2.3).
  CHECK(mb[TcpExtMib::DelayedACKLost] == 0);
  CHECK(p.b.sock(sb).ofo_queue_len() == 0);
  CHECK(p.b.sock(sb).tp.num_sacks == 0);
}

// Every skb a socket takes is freed once, wherever its segment ends: copied to the user from the
// prequeue (tcp_rcv_established's __kfree_skb), queued and eaten by tcp_recvmsg (tcp_eat_skb), a
// pure ACK, a duplicate, or an out-of-order segment later moved in order. The caller (ip_rcv's
// glue) frees only the skbs no socket took.
TEST_CASE("Each received TCP skb a socket takes is freed exactly once -- in order, out of order and pure ACKs",
          "[net][tcp]") {
  TcpPair p;
  auto [sa, sb] = p.connect();
  int data_seen = 0;
  p.drop = [&](const WirePacket& w) {
    return w.from == 0 && w.p.payload_len > 0 && !w.pkt.retransmission && ++data_seen == 30;
  };
  Stream st(p, sa, sb, 300000);
  REQUIRE(st.r.delivered == 300000);
  p.run_until(p.now + 500 * kSocketMs);  // the last delayed ACK and its processing
  for (int h : {0, 1}) {
    uint64_t taken = 0, freed = 0, ofo = 0;
    for (auto& fx : p.log[h]) {
      taken += fx.skb_taken ? 1 : 0;
      freed += fx.count(TcpPath::kfree_skb_rx);
      ofo += fx.count(TcpPath::tcp_ofo_queue);
    }
    INFO("host " << h);
    // a takes b's ACKs (one per two segments, more around the loss); b every segment that
    // arrived: 300000 B are 208 segments, one of them lost and sent again.
    CHECK(taken >= (h == 0 ? 100u : 208u));
    CHECK(freed == taken);
    if (h == 1) CHECK(ofo >= 3);  // the hole's followers went through the out-of-order queue
  }
}

TEST_CASE("Out-of-order arrival: immediate ACK with a SACK block, no header prediction",
          "[net][tcp]") {
  TcpPair p;
  auto [sa, sb] = p.connect();
  const TcpSocket& B = p.b.sock(sb);
  bool first = true;
  p.extra_delay = [&](const WirePacket& w) -> TimeNs {
    if (w.from == 0 && w.p.payload_len > 0 && first) {
      first = false;
      return 100000;  // the first of the two segments arrives 100 µs late
    }
    return 0;
  };
  p.now = 10 * kSocketMs;
  auto fx = p.apply(0, p.a.send(sa, 2 * 1448, 0, p.now));
  REQUIRE(fx.tx.size() == 2);
  ParsedTcpPacket s1, s2;
  parse_tcp_packet(fx.tx[0].ip.data(), fx.tx[0].ip.size(), &s1);
  parse_tcp_packet(fx.tx[1].ip.data(), fx.tx[1].ip.size(), &s2);
  p.run_until(p.now + p.one_way);  // only the second segment has arrived
  CHECK(B.ofo_queue_len() == 1);
  CHECK(B.tp.pred_flags == 0);
  CHECK(B.tp.num_sacks == 1);
  const WirePacket& dup = p.wire.back();
  REQUIRE(dup.from == 1);
  CHECK(dup.pure_ack());
  CHECK(dup.p.th.ack_seq == s1.th.seq);  // still waiting for the first
  REQUIRE(dup.p.opt.num_sacks == 1);
  CHECK(dup.p.opt.sacks[0].start_seq == s2.th.seq);
  CHECK(dup.p.opt.sacks[0].end_seq == s2.th.seq + 1448);
  CHECK(dup.pkt.ip.size() == 20 + 32 + 4 + 8);  // NOP,NOP,SACK + one block after the timestamp
  p.run_until(p.now + p.one_way + 200000);
  CHECK(B.ofo_queue_len() == 0);
  CHECK(B.tp.rcv_nxt == s2.th.seq + 1448);
  CHECK(B.readable_bytes() == 2 * 1448);
  CHECK(B.tp.pred_flags != 0);  // tcp_fast_path_check once the ofo queue is empty
  const WirePacket& fill = p.wire.back();
  CHECK(fill.from == 1);
  CHECK(fill.p.th.ack_seq == s2.th.seq + 1448);
  CHECK(fill.p.opt.num_sacks == 0);
  // a saw one SACKed segment: Disorder, then Open again; no retransmission.
  CHECK(p.a.mib()[TcpMib::RetransSegs] == 0);
  CHECK(p.a.sock(sa).tp.ca_state == TcpCaState::Open);
}

TEST_CASE("A late segment causes a spurious fast retransmit, a D-SACK and quick ack mode",
          "[net][tcp]") {
  TcpPair p;
  auto [sa, sb] = p.connect();
  int data_seen = 0;
  p.extra_delay = [&](const WirePacket& w) -> TimeNs {
    if (w.from == 0 && w.p.payload_len > 0 && !w.pkt.retransmission && ++data_seen == 30)
      return 2 * kSocketMs;  // overtaken by everything sent in the next 2 ms
    return 0;
  };
  Stream st(p, sa, sb, 200000);
  const App& r = st.r;
  CHECK(r.delivered == 200000);
  p.run_until(p.now + 10 * kSocketMs);  // let the late original arrive
  const NetMib& ma = p.a.mib();
  const NetMib& mb = p.b.mib();
  // More than tp->reordering (3) segments were SACKed above the hole: recovery and one
  // retransmission of the "lost" segment.
  CHECK(ma[TcpExtMib::TCPSackRecovery] == 1);
  CHECK(ma[TcpMib::RetransSegs] == 1);
  // The retransmission fills the hole; the late original is duplicate data: tcp_data_queue
  // counts DelayedACKLost ("Quick ack mode was activated"), enters quickack and sends a D-SACK.
  CHECK(mb[TcpExtMib::DelayedACKLost] == 1);
  CHECK(mb[TcpExtMib::TCPDSACKOldSent] == 1);
  CHECK(ma[TcpExtMib::TCPDSACKRecv] == 1);
  CHECK(ma[TcpExtMib::TCPTimeouts] == 0);
}

TEST_CASE("Nagle holds a small segment while one is unacknowledged -- TCP_NODELAY does not",
          "[net][tcp]") {
  for (bool nodelay : {false, true}) {
    TcpPair p;
    auto [sa, sb] = p.connect(5002, nodelay);
    p.now = 10 * kSocketMs;
    auto f1 = p.apply(0, p.a.send(sa, 10, 0, p.now));
    auto f2 = p.apply(0, p.a.send(sa, 10, 0, p.now));
    CHECK(f1.tx.size() == 1);
    // tcp_nagle_check (Minshall): a small segment is in flight and unacknowledged.
    CHECK(f2.tx.size() == (nodelay ? 1u : 0u));
    CHECK(f2.accepted == 10);
    (void)sb;
  }
}

TEST_CASE("A full send buffer blocks the writer -- freed space wakes it", "[net][tcp]") {
  TcpPair p;
  auto [sa, sb] = p.connect();
  const TcpSocket& A = p.a.sock(sa);
  p.now = 10 * kSocketMs;
  auto fx = p.apply(0, p.a.send(sa, 100000, 0, p.now));
  CHECK(fx.would_block);
  // tcp_sendmsg stops allocating once wmem_queued >= sndbuf (16384); each skb is charged its
  // truesize, SKB_DATA_ALIGN(1448 + MAX_TCP_HEADER) + sizeof(struct sk_buff).
  const TcpParams& P = p.a.params();
  const uint32_t ts = (1448 + P.max_tcp_header_bytes + P.l1_cache_bytes - 1) / P.l1_cache_bytes *
                          P.l1_cache_bytes + P.skb_struct_bytes;
  const uint32_t skbs = (P.tcp_wmem_default_bytes + ts - 1) / ts;
  CHECK(fx.accepted == skbs * 1448);
  CHECK(A.tp.wmem_queued == skbs * ts);
  CHECK(A.writer_sleeping());
  p.run_until(p.now + 10 * kSocketMs);
  CHECK(p.wakes_writer[{0, sa}] >= 1);
  (void)sb;
}

TEST_CASE("close() sends FIN -- the reader sees EOF after the data", "[net][tcp]") {
  TcpPair p;
  auto [sa, sb] = p.connect();
  p.now = 10 * kSocketMs;
  p.apply(0, p.a.send(sa, 5, 0, p.now));
  p.apply(0, p.a.close(sa, p.now));
  p.run_until(20 * kSocketMs);
  CHECK(p.b.sock(sb).state() == TcpState::CloseWait);
  auto fx = p.recv(1, sb, 100);
  CHECK(fx.delivered == 5);
  fx = p.recv(1, sb, 100);
  CHECK(fx.delivered == 0);
  CHECK(fx.eof);
  p.apply(1, p.b.close(sb, p.now));
  p.run_until(30 * kSocketMs);
  CHECK(p.b.sock(sb).state() == TcpState::Closed);
  CHECK(p.a.sock(sa).state() == TcpState::TimeWait);
}

TEST_CASE("A socket owned by the user takes softirq input on the backlog until release_sock",
          "[net][tcp]") {
  TcpPair p;
  auto [sa, sb] = p.connect();
  p.b.set_owned_by_user(sb, true);
  p.now = 10 * kSocketMs;
  p.apply(0, p.a.send(sa, 3, 0, p.now));
  p.run_until(11 * kSocketMs);
  const TcpEffects& rx = p.log[1].back();
  CHECK(rx.count(TcpPath::sk_add_backlog) == 1);
  CHECK(p.b.sock(sb).backlog_len() == 1);
  CHECK(p.b.sock(sb).readable_bytes() == 0);
  const size_t before = p.wire.size();
  auto fx = p.apply(1, p.b.release_sock(sb, p.now));
  CHECK(fx.count(TcpPath::tcp_backlog_process) == 1);
  CHECK(fx.count(TcpPath::tcp_rcv_established_fast_data) == 1);
  CHECK(p.b.sock(sb).readable_bytes() == 3);
  // First data segment: quickack mode, so the ACK leaves from release_sock.
  REQUIRE(p.wire.size() == before + 1);
  CHECK(p.wire.back().pure_ack());
  // That pass kept the lock (__release_sock loops until the backlog is empty): input arriving
  // while its effects take time still queues behind it; the next pass, finding none, unlocks.
  CHECK(fx.backlog_processed);
  p.apply(0, p.a.send(sa, 2, 0, p.now));
  p.run_until(12 * kSocketMs);
  CHECK(p.b.sock(sb).backlog_len() == 1);
  fx = p.apply(1, p.b.release_sock(sb, p.now));
  CHECK(fx.backlog_processed);
  CHECK(p.b.sock(sb).readable_bytes() == 5);
  fx = p.apply(1, p.b.release_sock(sb, p.now));
  CHECK_FALSE(fx.backlog_processed);
  CHECK(fx.paths.empty());
  p.apply(0, p.a.send(sa, 1, 0, p.now));
  p.run_until(13 * kSocketMs);
  CHECK(p.b.sock(sb).backlog_len() == 0);
  CHECK(p.b.sock(sb).readable_bytes() == 6);
}

/// At 50 ms `a` sends two full segments (cwnd 2: both leave at once); run until `b` holds the first,
/// its second still one serialization behind on the wire.
void first_of_two_segments_arrives(TcpPair& p, int sa, int sb) {
  p.now = 50 * kSocketMs;
  auto fx = p.apply(0, p.a.send(sa, 2 * 1448, 0, p.now));
  REQUIRE(fx.tx.size() == 2);
  p.run_while([&] { return p.b.sock(sb).readable_bytes() == 0; }, 60 * kSocketMs);
  REQUIRE(p.b.sock(sb).readable_bytes() == 1448);
}

TEST_CASE("A reader copying holds the socket lock: what arrives meanwhile is copied to it from the "
          "backlog (TCPDirectCopyFromBacklog)",
          "[net][tcp]") {
  TcpPair p;
  auto [sa, sb] = p.connect();
  first_of_two_segments_arrives(p, sa, sb);
  REQUIRE(p.b.sock(sb).backlog_len() == 0);
  // The read copies the first segment from the receive queue; that copy takes time, so tcp_recvmsg
  // returns to its caller with the lock still held and nothing delivered yet.
  TcpEffects r = p.apply(1, p.b.recv(sb, 1 << 20, p.now));
  CHECK(r.recv_again);
  CHECK(r.delivered == 0);
  CHECK(r.count(TcpPath::tcp_recvmsg_copy) == 1448);
  // The second segment arrives during the copy: tcp_v4_rcv finds the socket owned.
  p.run_until(60 * kSocketMs);
  CHECK(p.b.sock(sb).backlog_len() == 1);
  CHECK(p.b.sock(sb).transfer().ev.backlogged == 1);  // explain --transfer's "backlogged"
  CHECK(p.b.sock(sb).readable_bytes() == 0);
  // Back in tcp_recvmsg: the backlog is not empty, so release_sock processes it with the reader
  // installed (ucopy), and the header-predicted segment is copied straight to the user.
  r = p.apply(1, p.b.recv(sb, 1 << 20, p.now));
  CHECK(r.count(TcpPath::tcp_backlog_process) == 1);
  CHECK(r.count(TcpPath::tcp_copy_to_iovec) == 1448);
  CHECK(p.b.mib()[TcpExtMib::TCPDirectCopyFromBacklog] == 1448);
  CHECK(r.recv_again);  // that copy took time too
  r = p.apply(1, p.b.recv(sb, 1 << 20, p.now));
  CHECK_FALSE(r.recv_again);
  CHECK(r.delivered == 2 * 1448);
  CHECK(p.b.sock(sb).backlog_len() == 0);
  // The lock is free again: the next segment is not put on the backlog.
  p.apply(0, p.a.send(sa, 10, 0, p.now));
  p.run_until(70 * kSocketMs);
  CHECK(p.b.sock(sb).backlog_len() == 0);
  CHECK(p.b.sock(sb).readable_bytes() == 10);
}

TEST_CASE("After a reset the reader gets -ECONNRESET once, then end of file, and the writer -EPIPE", "[net][tcp]") {
  TcpPair p;
  auto [sa, sb] = p.connect();
  p.now = 10 * kSocketMs;
  // b closes with a's data unread: tcp_close sends a RST (TCPAbortOnClose), a's tcp_reset sets sk->err.
  p.apply(0, p.a.send(sa, 5, 0, p.now));
  p.run_until(11 * kSocketMs);
  p.apply(1, p.b.close(sb, p.now));
  p.run_until(12 * kSocketMs);
  REQUIRE(p.a.sock(sa).state() == TcpState::Closed);
  TcpEffects r = p.recv(0, sa, 100);
  CHECK(r.error == -104);  // ECONNRESET, as sock_error reports it
  CHECK_FALSE(r.eof);
  CHECK_FALSE(r.would_block);
  r = p.recv(0, sa, 100);
  CHECK(r.error == 0);
  CHECK(r.eof);
  CHECK(r.delivered == 0);
  TcpEffects w = p.apply(0, p.a.send(sa, 10, 0, p.now));
  CHECK(w.error == -32);  // EPIPE
  CHECK(w.accepted == 0);
  CHECK_FALSE(w.would_block);
}

TEST_CASE("tcp_recvmsg's exit holds the lock through release_sock, pass by pass, and then unlocks",
          "[net][tcp]") {
  TcpPair p;
  auto [sa, sb] = p.connect();
  first_of_two_segments_arrives(p, sa, sb);
  // A read of exactly the first segment: the copy fills it, the loop ends, and the exit waits for
  // that copy's time with the lock held.
  TcpEffects r = p.apply(1, p.b.recv(sb, 1448, p.now));
  CHECK(r.recv_again);
  p.run_until(60 * kSocketMs);  // the second segment arrives meanwhile
  CHECK(p.b.sock(sb).backlog_len() == 1);
  // The exit: cleanup_rbuf, then release_sock processes the backlog (no reader installed now: the
  // segment is queued) and keeps the lock for that pass's time.
  r = p.apply(1, p.b.recv(sb, 1448, p.now));
  CHECK(r.recv_again);
  CHECK(r.count(TcpPath::tcp_backlog_process) == 1);
  CHECK(p.b.sock(sb).readable_bytes() == 1448);
  r = p.apply(1, p.b.recv(sb, 1448, p.now));
  CHECK_FALSE(r.recv_again);
  CHECK(r.delivered == 1448);
  CHECK(p.b.mib()[TcpExtMib::TCPDirectCopyFromBacklog] == 0);
  // Unlocked: the next read starts a new tcp_recvmsg and takes the queued segment.
  r = p.recv(1, sb, 1448);
  CHECK(r.delivered == 1448);
}

TEST_CASE("A read on a socket its user already holds is a logic error (one process per socket)", "[net][tcp]") {
  TcpPair p;
  auto [sa, sb] = p.connect();
  (void)sa;
  p.b.set_owned_by_user(sb, true);
  CHECK_THROWS_AS(p.b.recv(sb, 100, p.now), std::logic_error);
}

}  // namespace tcp_socket_test
