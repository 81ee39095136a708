// What reordering does to the Linux 2.4 TCP model (tests/unit/tcp_harness.h bench), as 2.4.20
// tcp_input.c counts it: planted reorderings -- a single swap (segment n+1 before n) and the
// two-way interleaving of balance-rr over two links of different delay -- and their effect on
// dupacks (TCPPureAcks on the sender), quick ack mode (DelayedACKLost only for duplicate data),
// fast retransmit at tp->reordering (the net.ipv4.tcp_reordering sysctl), the reordering estimate
// (TCP*Reorder), undo of the spurious recovery (D-SACK), and the per-route reordering cache
// (tcp_update_metrics / tcp_init_metrics) that the next connection to the peer starts from.
#include "drivers-sim/net/tcp_sysctl.h"
#include "tests/unit/tcp_harness.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace tcp_reordering_test {
using namespace nicsim;
using namespace nicsim::test;

namespace {

constexpr TimeNs kMs = 1000000;

/// Bulk transfer of `bytes` from a to b over a 1 Gb/s wire; `delay_of(k)` is the extra one-way
/// delay of the k-th original data segment (0-based); retransmissions are not delayed.
struct Bulk {
  TcpPair p;
  int sa = -1, sb = -1;
  size_t delivered = 0;
  Bulk(const TcpParams& pa, const TcpParams& pb, std::function<TimeNs(int)> delay_of, size_t bytes,
       uint16_t port = 5002)
      : p(20000, pa, pb) {
    p.gbps = 1.0;
    std::tie(sa, sb) = p.connect(port);
    int k = 0;
    p.extra_delay = [&, delay_of, k](const WirePacket& w) mutable -> TimeNs {
      if (w.from != 0 || w.p.payload_len == 0 || w.pkt.retransmission) return 0;
      return delay_of(k++);
    };
    run(bytes);
  }
  void run(size_t bytes) {
    App w{0, sa, false};
    w.to_send = bytes;
    App r{1, sb, true};
    r.recv_max = 65536;
    p.apps = {&w, &r};
    p.service(r);
    p.now += 10 * kMs;
    p.service(w);
    p.run_while([&] { return r.delivered < bytes; }, p.now + 20000 * kMs);
    p.run_until(p.now + 50 * kMs);
    delivered = r.delivered;
    p.apps.clear();
  }
  uint64_t a(TcpExtMib c) const { return p.a.mib()[c]; }
  uint64_t b(TcpExtMib c) const { return p.b.mib()[c]; }
  uint64_t a(TcpMib c) const { return p.a.mib()[c]; }
};

/// balance-rr over two links: every second segment takes the slower link, `lag` later.
std::function<TimeNs(int)> two_links(TimeNs lag) {
  return [lag](int k) { return (k % 2) ? lag : TimeNs(0); };
}

}  // namespace

TEST_CASE("tcp reordering: n+1 before n -- an immediate dupack with SACK, quick ack without DelayedACKLost, no "
          "retransmission",
          "[net][tcp][reordering]") {
  // Every 10th segment is overtaken by the next one (12.3 us per frame at 1 Gb/s, 20 us late).
  Bulk t({}, {}, [](int k) { return (k % 10 == 5) ? TimeNs(20000) : TimeNs(0); }, 300000);
  CHECK(t.delivered == 300000);
  CHECK(t.a(TcpMib::RetransSegs) == 0);       // one SACKed segment is below tp->reordering = 3
  CHECK(t.b(TcpExtMib::DelayedACKLost) == 0);  // out of order is not duplicate data
  CHECK(t.b(TcpExtMib::TCPDSACKOldSent) == 0);
  // The receiver's ACKs of a hole are slow-path dupacks at the sender (TCPPureAcks).
  CHECK(t.a(TcpExtMib::TCPPureAcks) > 0);
  CHECK(t.p.a.sock(t.sa).tp.reordering == 3);
}

TEST_CASE("tcp reordering: two-way interleaving beyond tp->reordering -- spurious fast retransmits, each seen by "
          "the receiver as duplicate data and D-SACKed",
          "[net][tcp][reordering]") {
  // The slow link lags by 60 us: about five segments of the fast link overtake each of its own.
  Bulk t({}, {}, two_links(60000), 600000);
  CHECK(t.delivered == 600000);
  const uint64_t retrans = t.a(TcpMib::RetransSegs);
  INFO("RetransSegs " << retrans << " DelayedACKLost " << t.b(TcpExtMib::DelayedACKLost) << " FACKReorder "
                      << t.a(TcpExtMib::TCPFACKReorder) << " SACKReorder " << t.a(TcpExtMib::TCPSACKReorder)
                      << " TSReorder " << t.a(TcpExtMib::TCPTSReorder) << " FullUndo " << t.a(TcpExtMib::TCPFullUndo)
                      << " SackRecovery " << t.a(TcpExtMib::TCPSackRecovery) << " reordering "
                      << t.p.a.sock(t.sa).tp.reordering);
  REQUIRE(retrans > 0);  // > 3 segments SACKed above the hole: tcp_time_to_recover
  CHECK(t.a(TcpExtMib::TCPSackRecovery) > 0);
  CHECK(t.a(TcpExtMib::TCPTimeouts) == 0);
  // No segment was lost, so every retransmission is a second copy of data the receiver gets: the
  // later of the two is duplicate data, which tcp_data_queue counts as DelayedACKLost ("Quick ack
  // mode was activated") and answers with a D-SACK (seed 004: 234 retransmitted, 234 quick acks).
  CHECK(t.b(TcpExtMib::DelayedACKLost) == retrans);
  CHECK(t.b(TcpExtMib::TCPDSACKOldSent) == retrans);
  CHECK(t.a(TcpExtMib::TCPDSACKRecv) == retrans);
  // Whether the recovery is undone depends on when the D-SACK returns relative to the end of
  // recovery (tcp_try_undo_recovery needs undo_retrans == 0 by then); on this bench the
  // retransmission overtakes the late original, so it usually does not, and the next interleaving
  // costs again (the deeper interleaving below is undone and learnt).
}

TEST_CASE("tcp reordering: a deeper interleaving is undone and learnt -- tp->reordering rises, FACK is turned off",
          "[net][tcp][reordering]") {
  // 100 us lag: about eight segments overtake each late one; recoveries are undone (the late
  // originals' evidence arrives within them) and tcp_update_reordering raises the degree.
  Bulk t({}, {}, two_links(100000), 600000);
  CHECK(t.delivered == 600000);
  const TcpSocket& A = t.p.a.sock(t.sa);
  INFO("reordering " << A.tp.reordering << " FACKReorder " << t.a(TcpExtMib::TCPFACKReorder) << " SACKReorder "
                     << t.a(TcpExtMib::TCPSACKReorder) << " TSReorder " << t.a(TcpExtMib::TCPTSReorder) << " FullUndo "
                     << t.a(TcpExtMib::TCPFullUndo) << " PartialUndo " << t.a(TcpExtMib::TCPPartialUndo));
  CHECK(t.a(TcpExtMib::TCPFullUndo) + t.a(TcpExtMib::TCPPartialUndo) + t.a(TcpExtMib::TCPDSACKUndo) > 0);
  CHECK(A.tp.reordering > 3);
  CHECK(A.tp.reordering <= 127);
  CHECK((A.tp.sack_ok & 2) == 0);  // tcp_update_reordering: tcp_disable_fack
  CHECK(t.a(TcpExtMib::TCPFACKReorder) + t.a(TcpExtMib::TCPSACKReorder) + t.a(TcpExtMib::TCPTSReorder) > 0);
}

TEST_CASE("tcp reordering: net.ipv4.tcp_reordering = 127 rides out the same interleaving without retransmitting",
          "[net][tcp][reordering]") {
  ParamValues v(tcp_sysctl_schema());
  v.set("net.ipv4.tcp_reordering", int64_t{127});
  const TcpParams p127 = apply_tcp_sysctls(TcpParams{}, v);
  REQUIRE(p127.tcp_reordering == 127);
  Bulk t(p127, {}, two_links(60000), 600000);
  CHECK(t.delivered == 600000);
  CHECK(t.p.a.sock(t.sa).tp.reordering == 127);
  CHECK(t.a(TcpMib::RetransSegs) == 0);
  CHECK(t.b(TcpExtMib::DelayedACKLost) == 0);
  CHECK(t.a(TcpExtMib::TCPSackRecovery) == 0);
  // The dupacks are still there: each SACK-carrying ACK is a slow-path TCPPureAcks.
  CHECK(t.a(TcpExtMib::TCPPureAcks) > 0);
}

TEST_CASE("tcp reordering: the route caches the learnt degree, the next connection starts from it with FACK off",
          "[net][tcp][reordering]") {
  Bulk t({}, {}, two_links(100000), 600000);
  const TcpSocket& A = t.p.a.sock(t.sa);
  const uint32_t learnt = A.tp.reordering;
  REQUIRE(learnt > 3);
  CHECK(t.p.a.dst_metrics(kIpB).reordering == 0);  // tcp_update_metrics runs at the close
  // Active close from a: FIN_WAIT -> TIME_WAIT runs tcp_update_metrics.
  t.p.apply(0, t.p.a.close(t.sa, t.p.now));
  t.p.run_until(t.p.now + 300 * kMs);  // b ACKs the FIN (delayed ACK, at most TCP_DELACK_MAX)
  t.p.apply(1, t.p.b.close(t.sb, t.p.now));
  t.p.run_until(t.p.now + 300 * kMs);
  CHECK(A.state() == TcpState::TimeWait);
  CHECK(t.p.a.dst_metrics(kIpB).reordering == learnt);
  // A second connection to the same peer: tcp_init_metrics takes dst->reordering, clears FACK.
  t.p.extra_delay = nullptr;
  auto [sa2, sb2] = t.p.connect(5003);
  const TcpSocket& A2 = t.p.a.sock(sa2);
  CHECK(A2.state() == TcpState::Established);
  CHECK(A2.tp.reordering == learnt);
  CHECK((A2.tp.sack_ok & 2) == 0);
  CHECK((A2.tp.sack_ok & 1) == 1);
  (void)sb2;
}

TEST_CASE("tcp reordering: a connection that kept tp->reordering at the sysctl leaves the route cache alone",
          "[net][tcp][reordering]") {
  Bulk t({}, {}, [](int) { return TimeNs(0); }, 100000);
  t.p.apply(0, t.p.a.close(t.sa, t.p.now));
  t.p.run_until(t.p.now + 300 * kMs);
  CHECK(t.p.a.sock(t.sa).state() == TcpState::FinWait2);
  t.p.apply(1, t.p.b.close(t.sb, t.p.now));
  t.p.run_until(t.p.now + 300 * kMs);
  CHECK(t.p.a.sock(t.sa).state() == TcpState::TimeWait);
  CHECK(t.p.a.dst_metrics(kIpB).reordering == 0);
  auto [sa2, sb2] = t.p.connect(5003);
  CHECK(t.p.a.sock(sa2).tp.reordering == 3);
  CHECK((t.p.a.sock(sa2).tp.sack_ok & 2) == 2);  // FACK stays on
  (void)sb2;
}

}  // namespace tcp_reordering_test
