// BCM5701 link state as tg3 reads it, on the bench (nic_tg3_bench.h, no driver): the shared PHY
// link monitor's timers (models/ether/phy.h) behind MAC_STATUS_LNKSTATE_CHANGED,
// MAC_STATUS_MI_INTERRUPT, MII_TG3_ISTAT and the latched-low BMSR_LSTATUS; the MAC holding TX
// without link; the link-change attention (MAC_EVENT_LNKSTATE_CHANGED -> SD_STATUS_LINK_CHG); frames
// with a bad FCS dropped into rx_fcs_errors and the PHY's CRC counter. Expected times come from the
// PHY timers (phy_timers) and the bench bus rule, not from a run.
#include "models/ether/link_faults.h"
#include "tests/unit/nic_tg3_bench.h"

// This file's own names, apart from the other files of a unity batch.
namespace bench5701::nic_tg3_link_test {

namespace {
/// An MI read frame of PHY register `reg` (call from the script): MAC_MI_COM, one MI frame, data.
uint16_t mi_read(Bench& b, const Tg3Params& p, unsigned reg) {
  b.w(MAC_MI_COM, MI_COM_CMD_READ | MI_COM_START | (PHY_ADDR << MI_COM_PHY_ADDR_SHIFT) | (reg << MI_COM_REG_ADDR_SHIFT));
  wait_until(now() + p.mi_frame + ns(1));
  return uint16_t(b.r(MAC_MI_COM) & MI_COM_DATA_MASK);
}
void mi_write(Bench& b, const Tg3Params& p, unsigned reg, uint16_t v) {
  b.w(MAC_MI_COM, MI_COM_CMD_WRITE | MI_COM_START | (PHY_ADDR << MI_COM_PHY_ADDR_SHIFT) | (reg << MI_COM_REG_ADDR_SHIFT) | v);
  wait_until(now() + p.mi_frame + ns(1));
}
/// When the NIC's PHY (side a of the bench link) declares link down after a pull.
sc_time link_fail(const LinkFaults& f) {
  return phy_timers(1000).link_fail(f.master(0));
}
}  // namespace

TEST_CASE("tg3 link: the PHY declares a pull after its link-fail timer in MAC_STATUS and ISTAT and a latched-low BMSR",
          "[tg3][link]") {
  Tg3Params p;
  Bench b(p);
  LinkFaults f(*b.link);
  const sc_time pull = ms(1), down = pull + link_fail(f), plug = down + ms(10);
  const sc_time up = plug + phy_timers(1000).link_up;
  f.schedule_cable(pull, false);
  f.schedule_cable(plug, true);
  uint32_t st_before = 0, st_after = 0, st_after_istat = 0, st_after_clear = 0;
  uint16_t bmsr_before = 0, istat = 0, istat_again = 0, aux_down = 0, bmsr_first = 0, bmsr_second = 0;
  run([&] {
    wait_until(down - us(50));
    st_before = b.r(MAC_STATUS);
    bmsr_before = mi_read(b, p, MII_BMSR);  // the timer runs: the link still reads up
    wait_until(down + us(1));
    st_after = b.r(MAC_STATUS);
    aux_down = mi_read(b, p, MII_TG3_AUX_STAT);
    istat = mi_read(b, p, MII_TG3_ISTAT);
    istat_again = mi_read(b, p, MII_TG3_ISTAT);
    st_after_istat = b.r(MAC_STATUS);
    b.w(MAC_STATUS, MAC_STATUS_LNKSTATE_CHANGED);
    st_after_clear = b.r(MAC_STATUS);
    wait_until(up + us(1));
    bmsr_first = mi_read(b, p, MII_BMSR);   // latched low since the failure
    bmsr_second = mi_read(b, p, MII_BMSR);  // live
  }, up + ms(1));
  CHECK((st_before & (MAC_STATUS_LNKSTATE_CHANGED | MAC_STATUS_MI_INTERRUPT)) == 0);
  CHECK((bmsr_before & BMSR_LSTATUS) != 0);
  CHECK((st_after & MAC_STATUS_LNKSTATE_CHANGED) != 0);
  CHECK((st_after & MAC_STATUS_MI_INTERRUPT) != 0);  // IMASK as reset: LINKCHG not masked
  CHECK(aux_down == 0);                               // no speed resolved without link
  CHECK((istat & MII_TG3_INT_LINKCHG) != 0);
  CHECK(istat_again == 0);                            // clear on read
  CHECK((st_after_istat & MAC_STATUS_MI_INTERRUPT) == 0);
  CHECK((st_after_istat & MAC_STATUS_LNKSTATE_CHANGED) != 0);
  CHECK((st_after_clear & MAC_STATUS_LNKSTATE_CHANGED) == 0);  // written as 1: cleared
  CHECK((bmsr_first & BMSR_LSTATUS) == 0);
  CHECK((bmsr_second & BMSR_LSTATUS) != 0);
  CHECK(b.nic->phy_link_up());
}

TEST_CASE("tg3 link: MII_TG3_IMASK masking LINKCHG keeps MAC_STATUS_MI_INTERRUPT clear", "[tg3][link]") {
  Tg3Params p;
  Bench b(p);
  LinkFaults f(*b.link);
  const sc_time down = ms(1) + link_fail(f);
  f.schedule_cable(ms(1), false);
  uint32_t st = 0;
  uint16_t istat = 0;
  run([&] {
    mi_write(b, p, MII_TG3_IMASK, 0xffff);  // what tg3 writes on a board it does not poll by MI interrupt
    wait_until(down + us(1));
    st = b.r(MAC_STATUS);
    istat = mi_read(b, p, MII_TG3_ISTAT);
  }, down + ms(1));
  CHECK((st & MAC_STATUS_MI_INTERRUPT) == 0);
  CHECK((st & MAC_STATUS_LNKSTATE_CHANGED) != 0);
  CHECK((istat & MII_TG3_INT_LINKCHG) != 0);  // the PHY still records the change
}

TEST_CASE("tg3 link: without link the MAC starts no frame and the held frame leaves when the link is back",
          "[tg3][link]") {
  Tg3Params p;
  Bench b(p);
  LinkFaults f(*b.link);
  const sc_time down = ms(1) + link_fail(f), plug = down + ms(5);
  const sc_time up = plug + phy_timers(1000).link_up;
  f.schedule_cable(ms(1), false);
  f.schedule_cable(plug, true);
  CoalRegs c;
  c.tx_max_frames = 1;
  const EthFrame fr = make_frame({0x00, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E}, 500, 3);
  size_t seen_before_up = 99;
  run([&] {
    b.setup(c);
    wait_until(down + us(10));
    b.put_tx(0, fr.bytes);
    b.mbox(MAILBOX_SNDNIC_PROD_IDX_0, 1);
    wait_until(up - us(1));
    seen_before_up = b.peer.rx.size();
  }, up + ms(1));
  CHECK(seen_before_up == 0);
  REQUIRE(b.peer.rx.size() == 1);
  CHECK(b.peer.rx[0].f.bytes == fr.bytes);
  // It starts the moment the PHY has link again (the data was read long before).
  CHECK(b.peer.rx[0].t == up + serialization_time(500, 1000) + propagation_delay(Bench::kCableM, 5.0));
  CHECK(LinkFaults::lost(*b.link, 0) == 0);
  // Its send BD was consumed when its data was in: the ring does not hold it, the MAC does.
  CHECK(b.nic->tx_consumer() == 1);
}

TEST_CASE("tg3 link: MAC_EVENT_LNKSTATE_CHANGED makes a link change a status update with SD_STATUS_LINK_CHG",
          "[tg3][link]") {
  Tg3Params p;
  Bench b(p);
  LinkFaults f(*b.link);
  const sc_time down = ms(1) + link_fail(f);
  f.schedule_cable(ms(1), false);
  CoalRegs c;  // no coalescing trigger: only the link change updates the status block
  run([&] {
    b.setup(c);
    b.w(MAC_EVENT, MAC_EVENT_LNKSTATE_CHANGED);
    wait_until(down + us(10));
  }, down + ms(1));
  const auto a = b.irq.assertions();
  REQUIRE(a.size() == 1);
  CHECK(a[0] == down + txn_time(32));  // the 32-byte status block DMA, then INTA
  CHECK((b.sb32(SB_STATUS) & SD_STATUS_LINK_CHG) != 0);
  CHECK((b.sb32(SB_STATUS) & SD_STATUS_UPDATED) != 0);
}

TEST_CASE("tg3 link: without MAC_EVENT_LNKSTATE_CHANGED a link change raises no interrupt", "[tg3][link]") {
  Tg3Params p;
  Bench b(p);
  LinkFaults f(*b.link);
  const sc_time down = ms(1) + link_fail(f);
  f.schedule_cable(ms(1), false);
  CoalRegs c;
  run([&] {
    b.setup(c);
    wait_until(down + us(10));
  }, down + ms(1));
  CHECK(b.irq.assertions().empty());
  CHECK((b.r(MAC_STATUS) & MAC_STATUS_LNKSTATE_CHANGED) != 0);  // the polled bit (tg3_timer's)
}

TEST_CASE("tg3 FCS: bad frames are dropped into rx_fcs_errors and the statistics block and the PHY's CRC counter",
          "[tg3][link]") {
  Tg3Params p;
  Bench b(p);
  LinkFaults f(*b.link);
  f.add_error_window(1, SC_ZERO_TIME, ms(1), 1.0);  // every frame toward the NIC (b -> a) is bad
  CoalRegs c;
  c.rx_max_frames = 1;
  uint16_t crc_first = 0, crc_second = 0;
  run([&] {
    b.setup(c);
    b.post_rx(4);
    b.w(HOSTCC_STAT_COAL_TICKS, 200);
    mi_write(b, p, MII_TG3_TEST1, MII_TG3_TEST1_CRC_EN);  // tg3's calc_crc_errors sets it before reading
    for (int i = 0; i < 3; ++i) b.peer.send(make_frame(b.nic->mac_address(), 200, uint8_t(i)), now());
    wait_until(us(150));
    crc_first = mi_read(b, p, MII_TG3_RXR_COUNTERS);
    crc_second = mi_read(b, p, MII_TG3_RXR_COUNTERS);
    wait_until(us(260));
  }, us(270));
  CHECK(sim().counters.get("nic.rx_fcs_errors") == 3);
  CHECK(sim().counters.get("nic.rx_ucast_packets") == 0);
  CHECK(b.nic->rx_return_producer() == 0);
  uint8_t s[8];
  b.host.read(kStats + STATS_RX_FCS_ERRORS, s, 8);
  CHECK(ld_hilo(s) == 3);
  CHECK(crc_first == 3);
  CHECK(crc_second == 0);  // clear on read (tg3 accumulates phy_crc_errors)
  const auto t = b.nic->tally();
  REQUIRE(t);
  uint64_t bad = 0;
  for (const auto& [why, n] : t->dropped)
    if (why == "bad FCS (rx_fcs_errors)") bad = n;
  CHECK(bad == 3);
}

}  // namespace bench5701::nic_tg3_link_test
