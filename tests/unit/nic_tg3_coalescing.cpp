// The BCM5701 host coalescing engine (research/tg3-bonding-tcp-gmac-formats.md §1.1): the pure
// decision (coalescing.h) and the module applying it on the bench (nic_tg3_bench.h). Expected
// times come from the rules: tick timers reload on every status block update, max-BD counters are
// zeroed by every update, the during-interrupt set applies while Interrupt Mailbox 0 is non-zero
// and no INTA is raised then.
#include "tests/unit/nic_tg3_bench.h"

// This file's own names, apart from the other files of a unity batch.
namespace bench5701::nic_tg3_coalescing_test {

TEST_CASE("tg3 coalescing: a tick timer expires at reload + k periods, the first at or after the frame", "[tg3][hostcc]") {
  const sc_time T = us(1);
  CHECK(HostCoalescing::expiry(us(0), us(30), 100, T) == us(100));
  CHECK(HostCoalescing::expiry(us(0), us(100), 100, T) == us(100));
  CHECK(HostCoalescing::expiry(us(0), us(150), 100, T) == us(200));
  CHECK(HostCoalescing::expiry(us(50), us(60), 100, T) == us(150));
  HostCoalescing hc(T);
  CoalRegs r;
  r.rx_ticks = 100;
  hc.set_regs(r);
  CHECK_FALSE(hc.deadline());  // nothing pending: no expiry to report
  hc.on_update(us(50));
  CHECK(hc.rx_bds(us(60)) == UpdateCause::None);
  REQUIRE(hc.deadline());
  CHECK(hc.deadline()->first == us(150));
  CHECK(hc.deadline()->second == UpdateCause::RxTicks);
  hc.on_update(us(70));  // any update (e.g. a TX one) reloads the RX timer and zeroes its count
  CHECK_FALSE(hc.deadline());
  CHECK(hc.rx_bds(us(260)) == UpdateCause::None);
  CHECK(hc.deadline()->first == us(270));  // 70 + 2·100: free-running from the reload, not per packet
}

TEST_CASE("tg3 coalescing: HOSTCC_MODE_CLRTICK_RXBD starts the RX timer at the first RX BD after an update, "
          "later BDs do not reload it", "[tg3][hostcc]") {
  HostCoalescing hc(us(1));
  CoalRegs r;
  r.rx_ticks = 100;
  r.tx_ticks = 100;
  hc.set_regs(r);
  hc.set_clrtick(true, false);
  hc.on_update(us(0));
  hc.rx_bds(us(30));
  CHECK(hc.deadline()->first == us(130));  // idle since the update, counting from the first BD
  hc.rx_bds(us(90));
  CHECK(hc.deadline()->first == us(130));  // BCM5718 PG p.259: not reloaded by the second BD
  hc.on_update(us(130));
  hc.rx_bds(us(400));  // long after the update: a free-running timer would expire at 500
  CHECK(hc.deadline()->first == us(500));
  hc.on_update(us(500));
  hc.tx_bds(us(510));
  hc.tx_bds(us(560));
  CHECK(hc.deadline()->first == us(600));  // TX without CLRTICK: from the update
  CHECK(hc.deadline()->second == UpdateCause::TxTicks);
}

TEST_CASE("tg3 coalescing: max-BD counters trip at the threshold and every update zeroes both", "[tg3][hostcc]") {
  HostCoalescing hc;
  CoalRegs r;
  r.rx_max_frames = 3;
  r.tx_max_frames = 2;
  r.rx_max_frames_int = 1;
  hc.set_regs(r);
  CHECK(hc.rx_bds(us(1)) == UpdateCause::None);
  CHECK(hc.rx_bds(us(2)) == UpdateCause::None);
  CHECK(hc.tx_bds(us(3)) == UpdateCause::None);
  CHECK(hc.rx_bds(us(4)) == UpdateCause::RxMaxFrames);
  hc.on_update(us(4));
  CHECK(hc.rx_pending() == 0);
  CHECK(hc.tx_pending() == 0);  // the TX BD counted before is zeroed too
  CHECK(hc.tx_bds(us(5)) == UpdateCause::None);
  CHECK(hc.tx_bds(us(6), 2) == UpdateCause::TxMaxFrames);  // BDs, not frames
  hc.on_update(us(6));
  hc.set_during_int(true);  // Interrupt Mailbox 0 non-zero: RXCOAL_MAXF_INT = 1 applies
  CHECK(hc.rx_bds(us(7)) == UpdateCause::RxMaxFrames);
  CoalRegs off;
  hc.set_regs(off);  // all zero: every trigger disabled
  hc.on_update(us(8));
  CHECK(hc.rx_bds(us(9), 100) == UpdateCause::None);
  CHECK_FALSE(hc.deadline());
}

TEST_CASE("tg3 HOSTCC_RXCOL_TICKS: the timer reloads on each status update, not per frame", "[tg3][hostcc]") {
  Tg3Params p;
  Bench b(p);
  CoalRegs c;
  c.rx_ticks = 100;  // RXMAX_FRAMES 0: the tick timer alone
  run([&] {
    b.setup(c);
    b.post_rx(16);
    for (sc_time at : {us(10), us(150), us(205), us(250)}) {
      wait_until(at);
      if (b.irq.level) b.mbox(MAILBOX_INTERRUPT_0, 0);  // ack (any write clears the pending interrupt)
      b.peer.send(make_frame(b.nic->mac_address(), 100, 1), now());
      if (at == us(150)) CHECK(b.sb16(SB_IDX0_RX_PRODUCER) == 1);
    }
    wait_until(us(299));
    CHECK(b.sb16(SB_IDX0_RX_PRODUCER) == 2);  // frames 3 and 4 wait for the same expiry
    b.mbox(MAILBOX_INTERRUPT_0, 0);
    wait_until(us(400));
  }, us(500));
  const sc_time sb = txn_time(32);  // the 32-byte status block write (HOSTCC_MODE_32BYTE)
  auto a = b.irq.assertions();
  REQUIRE(a.size() == 3);
  CHECK(a[0] == us(100) + sb);  // reload at 0 (enable), first frame completes at ~11 µs
  CHECK(a[1] == us(200) + sb);  // reloaded by the update at 100 µs
  CHECK(a[2] == us(300) + sb);  // reloaded at 200 µs; frames at 205 and 250 µs share it
  CHECK(b.sb16(SB_IDX0_RX_PRODUCER) == 4);
  CHECK(sim().counters.get("nic.hostcc.RXCOL_TICKS") == 3);
  CHECK(sim().counters.get("nic.nic_irqs") == 3);
}

TEST_CASE("tg3 HOSTCC_RXMAX_FRAMES: zeroed by a TX-triggered update", "[tg3][hostcc]") {
  Bench b;
  CoalRegs c;
  c.rx_max_frames = 2;
  c.tx_max_frames = 1;
  run([&] {
    b.setup(c);
    b.post_rx(16);
    auto rx = [&](uint8_t s) {
      b.peer.send(make_frame(b.nic->mac_address(), 80, s), now());
      wait_until(now() + us(20));
    };
    rx(1);
    CHECK(b.sb16(SB_IDX0_RX_PRODUCER) == 0);  // one of two: no update yet
    b.put_tx(0, make_frame({0x00, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E}, 64, 3).bytes);
    b.mbox(MAILBOX_SNDNIC_PROD_IDX_0, 1);
    wait_until(now() + us(20));
    CHECK(b.sb16(SB_IDX0_TX_CONSUMER) == 1);
    CHECK(b.sb16(SB_IDX0_RX_PRODUCER) == 1);  // the TX update carries every index...
    rx(2);
    CHECK(b.sb16(SB_IDX0_RX_PRODUCER) == 1);  // ...and zeroed the RX count: one again, not two
    rx(3);
    CHECK(b.sb16(SB_IDX0_RX_PRODUCER) == 3);
  }, us(200));
  CHECK(sim().counters.get("nic.hostcc.RXMAX_FRAMES") == 1);
  CHECK(sim().counters.get("nic.hostcc.TXMAX_FRAMES") == 1);
}

TEST_CASE("tg3 Interrupt Mailbox 0 non-zero: the during-interrupt set applies and INTA stays low", "[tg3][hostcc]") {
  Bench b;
  CoalRegs c;
  c.rx_max_frames = 5;
  c.rx_max_frames_int = 1;  // RXCOAL_MAXF_INT
  run([&] {
    b.setup(c);
    b.post_rx(16);
    b.mbox(MAILBOX_INTERRUPT_0, 1);  // tg3_interrupt: "write mailbox 1" on entry
    b.peer.send(make_frame(b.nic->mac_address(), 80, 1), now());
    wait_until(now() + us(20));
    CHECK((b.sb32(SB_STATUS) & SD_STATUS_UPDATED) != 0);
    CHECK(b.sb16(SB_IDX0_RX_PRODUCER) == 1);  // updated at once (MAXF_INT 1)...
    CHECK_FALSE(b.irq.level);                 // ...without an interrupt
    b.clear_updated();
    b.mbox(MAILBOX_INTERRUPT_0, 0);
    b.peer.send(make_frame(b.nic->mac_address(), 80, 2), now());
    wait_until(now() + us(20));
    CHECK(b.sb16(SB_IDX0_RX_PRODUCER) == 1);  // the normal set again: one of five
    CHECK((b.sb32(SB_STATUS) & SD_STATUS_UPDATED) == 0);
  }, us(100));
  CHECK(b.irq.assertions().empty());
  CHECK(sim().counters.get("nic.nic_avoided_irqs") == 1);
  CHECK(sim().counters.get("nic.nic_irqs") == 0);
}

TEST_CASE("tg3 MISC_HOST_CTRL_MASK_PCI_INT masks INTA, GRC_LCLCTRL_SETINT forces it", "[tg3][irq]") {
  Bench b;
  CoalRegs c;
  c.rx_max_frames = 1;
  run([&] {
    b.setup(c);
    b.post_rx(4);
    b.w(TG3PCI_MISC_HOST_CTRL, MISC_HOST_CTRL_MASK_PCI_INT);
    b.peer.send(make_frame(b.nic->mac_address(), 80, 1), now());
    wait_until(now() + us(20));
    CHECK_FALSE(b.irq.level);
    CHECK((b.r(GRC_LOCAL_CTRL) & GRC_LCLCTRL_INT_ACTIVE) != 0);  // pending, masked
    b.w(TG3PCI_MISC_HOST_CTRL, 0);
    CHECK(b.irq.level);
    b.mbox(MAILBOX_INTERRUPT_0, 0);
    CHECK_FALSE(b.irq.level);
    b.w(GRC_LOCAL_CTRL, GRC_LCLCTRL_SETINT);
    CHECK(b.irq.level);
  }, us(100));
  CHECK(b.irq.assertions().size() == 2);
}

}  // namespace bench5701::nic_tg3_coalescing_test
