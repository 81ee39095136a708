// 8254x interrupt delivery on the bench: ITR throttling measured on the INTx pin, level semantics,
// the dual-port 82546EB.
#include "nic_e1000_bench.h"

// This file's own names, apart from the other files of a unity batch.
namespace bench::nic_e1000_irq_test {

TEST_CASE("ITR on the pin: causes merged, interval from the last assertion, ICR clear-on-read", "[e1000][irq]") {
  Bench b("82546EB");
  uint32_t icr2 = 0;
  run(
      [&] {
        b.w(0, IMS, icr::RXT0 | icr::TXDW);
        b.w(0, ITR, 100);  // 25.6 µs
        wait_until(us(10));
        b.w(0, ICS, icr::RXT0);
        wait_until(us(11));
        CHECK(b.r(0, ICR) == icr::RXT0);
        CHECK(b.r(0, ICR) == 0);  // cleared by the first read
        wait_until(us(15));
        b.w(0, ICS, icr::TXDW);
        wait_until(us(20));
        b.w(0, ICS, icr::RXT0);
        wait_until(us(36));
        icr2 = b.r(0, ICR);
        wait_until(us(70));
        b.w(0, ICS, icr::RXT0);
        wait_until(us(80));
      },
      us(80));
  auto a = b.irq[0].assertions();
  REQUIRE(a.size() == 3);
  CHECK(a[0] == us(10));
  CHECK(a[1] == us(10) + ns(100 * 256));  // from the previous assertion, not from the 15 µs cause
  CHECK(a[2] == us(70));
  CHECK(icr2 == (icr::RXT0 | icr::TXDW));
}

TEST_CASE("ITR=0 no throttling, and INTx stays asserted while an unmasked cause is pending", "[e1000][irq]") {
  Bench b("82540EM");
  run(
      [&] {
        b.w(0, IMS, icr::RXT0);
        wait_until(us(10));
        b.w(0, ICS, icr::RXT0);
        wait_until(us(11));
        b.r(0, ICR);
        wait_until(us(12));
        b.w(0, ICS, icr::RXT0);  // no ICR read: the line stays up
        wait_until(us(20));
        b.w(0, IMC, icr::RXT0);  // masked: line drops, cause stays in ICR
        wait_until(us(30));
        b.w(0, IMS, icr::RXT0);  // unmasked again: line rises
        wait_until(us(40));
      },
      us(40));
  auto& log = b.irq[0].log;
  REQUIRE(log.size() == 5);
  CHECK((log[0].t == us(10) && log[0].level));
  CHECK((log[1].t == us(11) && !log[1].level));
  CHECK((log[2].t == us(12) && log[2].level));
  CHECK((log[3].t == us(20) && !log[3].level));
  CHECK((log[4].t == us(30) && log[4].level));
}

TEST_CASE("82544GC ignores ITR writes: no throttling, ITR reads 0", "[e1000][irq]") {
  Bench b("82544GC");
  uint32_t itr = 1;
  run(
      [&] {
        b.w(0, IMS, icr::RXT0);
        b.w(0, ITR, 488);  // what e1000 4.4.12 writes on 82540+ (research note §2)
        itr = b.r(0, ITR);
        wait_until(us(10));
        b.w(0, ICS, icr::RXT0);
        wait_until(us(11));
        b.r(0, ICR);
        wait_until(us(12));
        b.w(0, ICS, icr::RXT0);
        wait_until(us(20));
      },
      us(20));
  CHECK(itr == 0);
  auto a = b.irq[0].assertions();
  REQUIRE(a.size() == 2);
  CHECK(a[1] == us(12));
}

TEST_CASE("82546EB: two independent functions sharing one bus interface", "[e1000][irq]") {
  E1000Params p;
  Bench b("82546EB", p);
  REQUIRE(b.nic->info().functions == 2);
  REQUIRE(b.nic->eth_ports() == 2);
  constexpr uint64_t kRing0 = 0x10000, kRing1 = 0x18000, kBuf0 = 0x100000, kBuf1 = 0x200000;
  uint32_t st0 = 0, st1 = 0, rdtr0 = 1, rdtr1 = 0;
  JourneyId j1 = 0;
  run(
      [&] {
        b.setup_rx(0, kRing0, 8, kBuf0, 7);
        b.setup_rx(1, kRing1, 8, kBuf1, 7);
        b.w(0, RDTR, 0);
        b.w(1, RDTR, 10);
        b.w(0, IMS, icr::RXT0);
        b.w(1, IMS, icr::RXT0);
        st0 = b.r(0, STATUS);
        st1 = b.r(1, STATUS);
        rdtr0 = b.r(0, RDTR);
        rdtr1 = b.r(1, RDTR);
        j1 = sim().journeys.begin("port1 frame", us(10), "peer send", "peer1");
        b.peers[0]->send(make_frame(b.nic->mac_address(0), 1514, 0), us(10));
        b.peers[1]->send(make_frame(b.nic->mac_address(1), 1514, 1, j1), us(10) + ns(100));
        wait_until(us(60));
      },
      us(60));
  CHECK(rdtr0 == 0);
  CHECK(rdtr1 == 10);
  CHECK(((st0 & status::FUNC_MASK) >> status::FUNC_SHIFT) == 0);
  CHECK(((st1 & status::FUNC_MASK) >> status::FUNC_SHIFT) == 1);
  CHECK(b.nic->mac_address(0)[5] == (b.nic->mac_address(1)[5] ^ 1));
  // One bus master: port 1's data waits for port 0's, port 0's write-back waits for port 1's data.
  sc_time t0 = rx_fifo_time(p, us(10), 1514);
  sc_time d = dma_time(1518, p.dma_write_burst_bytes);
  auto a0 = b.irq[0].assertions(), a1 = b.irq[1].assertions();
  REQUIRE(a0.size() == 1);
  REQUIRE(a1.size() == 1);
  CHECK(a0[0] == t0 + 2 * d + txn_time(16));       // RDTR=0: at its write-back
  CHECK(a1[0] == t0 + 2 * d + us(10 * 1.024));     // RDTR=10 from its own packet
  CHECK(b.nic->peek(0, GPRC) == 1);
  CHECK(b.nic->peek(1, GPRC) == 1);
  sim().journeys.finish(j1, us(60));
  bool busy = false;
  for (auto& m : sim().journeys.finished().back().marks) busy |= m.cause == "bus interface busy";
  CHECK(busy);
}

TEST_CASE("ITR=488 with RDTR=0 (e1000 4.4.12 on 82540+): the second packet waits for ITR, journey says so", "[e1000][irq]") {
  E1000Params p;
  Bench b("82546EB", p);
  constexpr uint64_t kRing = 0x10000, kBufs = 0x100000;
  JourneyId j2 = 0;
  run(
      [&] {
        b.setup_rx(0, kRing, 8, kBufs, 7);
        b.w(0, RDTR, 0);
        b.w(0, RADV, 128);
        b.w(0, ITR, 488);  // 1e9 / (8000 × 256): research note §2
        b.w(0, IMS, icr::RXT0);
        b.peers[0]->send(make_frame(b.nic->mac_address(0), 60, 1), us(10));
        wait_until(us(20));
        b.r(0, ICR);  // the ISR
        j2 = sim().journeys.begin("second packet", us(50), "peer send", "peer0");
        b.peers[0]->send(make_frame(b.nic->mac_address(0), 60, 2, j2), us(50));
        wait_until(us(200));
      },
      us(200));
  auto a = b.irq[0].assertions();
  REQUIRE(a.size() == 2);
  sc_time first = rx_fifo_time(p, us(10), 60) + dma_time(64, p.dma_write_burst_bytes) + txn_time(16);
  CHECK(a[0] == first);
  CHECK(a[1] == first + ns(488 * 256));  // held by ITR, not by RADV
  sim().journeys.finish(j2, us(200));
  sc_time itr_from = SC_ZERO_TIME, irq_at = SC_ZERO_TIME;
  for (auto& m : sim().journeys.finished().back().marks) {
    if (m.stage == "moderation wait" && m.cause == "ITR") itr_from = m.t;
    if (m.stage == "interrupt") irq_at = m.t;
  }
  CHECK(itr_from == rx_fifo_time(p, us(50), 60) + dma_time(64, p.dma_write_burst_bytes) + txn_time(16));
  CHECK(irq_at == a[1]);
}

}  // namespace bench::nic_e1000_irq_test
