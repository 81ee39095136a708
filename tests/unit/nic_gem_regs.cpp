// GMAC register file and interrupt gating on the bench (nic_gem_bench.h, no driver): GREG_STAT's
// read-to-clear bits 0-6 and its non-clearing alias GREG_STAT2, GREG_IACK, GREG_IMASK (1 = masked),
// the MAC status registers (read-to-clear) and their masks (1 = masked) feeding TXMAC/RXMAC, the
// 8/16-bit accesses gmac's GM_OUT/GM_IN make, the M66EN readings, and the descriptor byte order.
// Link state ("gem link" cases): the shared PHY link monitor's timers (models/ether/phy.h) behind
// what MIF frames read of BMSR (latched low), the MIF poll interrupt (MIF_CFG_POLL, MIF_STATUS,
// MIF_MASK -> GREG_STAT_MIF), the MAC holding TX without link and a TX reset dropping what it
// holds, frames with a bad FCS counted in MAC_FCSERR. Expected times come from phy_timers and the
// MIF frame time, not from a run.
#include "models/ether/link_faults.h"
#include "tests/unit/nic_gem_bench.h"

// This file's own names, apart from the other files of a unity batch.
namespace benchgem::nic_gem_regs_test {

namespace {
const std::array<uint8_t, 6> kGemRegsPeerMac = {0x00, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E};
}

TEST_CASE("gem regs: reset values and FIFO sizes", "[gem][regs]") {
  Bench b;
  run([&] {
    CHECK(b.r(GREG_IMASK) == 0xffffffffu);      // gmac.h "d: 0xFFFFFFFF"
    CHECK(b.r(RXDMA_FSZ) == 0x140u);            // gmac.h: "The value read is 0x140"
    CHECK(b.r(TXDMA_FSZ) == GemParams{}.tx_fifo_bytes / 64);
    CHECK(b.r(GREG_STAT) == 0u);
    CHECK(!b.nic->irq_level());
  }, us(1));
}

namespace {
void check_m66en(BifcfgReading reading, double mhz) {
  GemParams p;
  p.bifcfg_reading = reading;
  p.pci_mhz = mhz;
  Bench b(p);
  uint32_t v8 = 0, v32 = 0;
  run([&] {
    b.w8(GREG_BIFCFG, 0xff);  // M66EN is read-only: a write leaves it as the bus says
    v8 = b.r8(GREG_BIFCFG);   // gmac: GM_IN(GM_BIF_CFG) is in_8
    v32 = b.r(GREG_BIFCFG);   // sungem: readl
  }, us(1));
  const uint32_t bit = reading == BifcfgReading::gmac ? 0x08u : 0x04u;
  const uint32_t other = reading == BifcfgReading::gmac ? 0x04u : 0x08u;
  const uint32_t want = mhz > 34 ? bit : 0u;
  CHECK((v8 & bit) == want);
  CHECK((v32 & bit) == want);
  CHECK((v32 & other) == other);  // the other reading's bit is an ordinary read/write bit here
}
}  // namespace

TEST_CASE("gem regs: M66EN at 66 MHz is bit 3 in gmac.h's reading", "[gem][regs]") { check_m66en(BifcfgReading::gmac, 66.6667); }
TEST_CASE("gem regs: M66EN at 33 MHz is clear in gmac.h's reading", "[gem][regs]") { check_m66en(BifcfgReading::gmac, 33.3333); }
TEST_CASE("gem regs: M66EN at 66 MHz is bit 2 in sungem.h's reading", "[gem][regs]") { check_m66en(BifcfgReading::sungem, 66.6667); }
TEST_CASE("gem regs: M66EN at 33 MHz is clear in sungem.h's reading", "[gem][regs]") { check_m66en(BifcfgReading::sungem, 33.3333); }

TEST_CASE("gem regs: 16- and 8-bit writes reach the low lanes of the register word", "[gem][regs]") {
  Bench b;
  run([&] {
    b.w(MAC_TXMASK, 0xffffffff);
    b.w16(MAC_TXMASK, 0x1234);  // gmac: GM_OUT(GM_MAC_TX_MASK, ...) is out_le16
    CHECK(b.r(MAC_TXMASK) == 0xffff1234u);
    CHECK(b.r16(MAC_TXMASK) == 0x1234u);
    b.w8(MAC_MCCFG, 0x02);  // out_8(GM_MAC_CTRL_CONFIG, RCV_PAUSE_EN)
    CHECK(b.r(MAC_MCCFG) == 0x02u);
  }, us(1));
}

TEST_CASE("gem irq: GREG_STAT clears bits 0-6 on read, GREG_STAT2 does not, GREG_IACK clears what it is given",
          "[gem][irq]") {
  Bench b;
  uint32_t s2 = 0, s1 = 0, s_after = 0, s_iack = 0;
  run([&] {
    b.setup(~GREG_STAT_TXALL);
    b.put_tx(0, make_frame(kGemRegsPeerMac, 200, 1).bytes, true);
    b.w(TXDMA_KICK, 1);
    wait_until(us(20));
    CHECK(b.irq.level);
    s2 = b.r(GREG_STAT2);
    CHECK(b.irq.level);  // the alias leaves the events latched
    s1 = b.r(GREG_STAT);
    s_after = b.r(GREG_STAT);
    // A second frame: GREG_IACK clears only the bits written as 1.
    b.put_tx(1, make_frame(kGemRegsPeerMac, 200, 2).bytes, true);
    b.w(TXDMA_KICK, 2);
    wait_until(us(40));
    b.w(GREG_IACK, GREG_STAT_TXINTME);
    s_iack = b.r(GREG_STAT2);
  }, us(50));
  const uint32_t ev = GREG_STAT_TXINTME | GREG_STAT_TXALL | GREG_STAT_TXDONE;
  CHECK((s2 & kStatLatched) == ev);
  CHECK((s1 & kStatLatched) == ev);
  CHECK((s1 & GREG_STAT_TXNR) >> GREG_STAT_TXNR_SHIFT == 1u);  // TXNR mirrors TXDMA_TXDONE
  CHECK((s_after & kStatLatched) == 0u);
  CHECK((s_after & GREG_STAT_TXNR) >> GREG_STAT_TXNR_SHIFT == 1u);  // not an event: still there
  CHECK((s_iack & kStatLatched) == (GREG_STAT_TXALL | GREG_STAT_TXDONE));
  // The line followed TX_ALL only (IMASK = ~TXALL): up at the first frame, down at the GREG_STAT
  // read, up at the second.
  CHECK(b.irq.assertions().size() == 2);
}

namespace {
// sungem v0.95 leaves MAC_TXSTAT_XMIT unmasked (its TXMASK write names the other bits); gmac
// masks everything (0xffff).
void check_txmac(bool xmit_unmasked) {
  Bench b;
  uint32_t st = 0, st_again = 0, txstat = 0, st_after = 0;
  bool level_before = false;
  run([&] {
    b.setup(~GREG_STAT_TXMAC);
    if (xmit_unmasked) b.w(MAC_TXMASK, 0x1fe);
    b.put_tx(0, make_frame(kGemRegsPeerMac, 200, 1).bytes);
    b.w(TXDMA_KICK, 1);
    wait_until(us(20));
    level_before = b.irq.level;
    st = b.r(GREG_STAT);
    st_again = b.r(GREG_STAT);  // TXMAC is not one of bits 0-6: a read of GREG_STAT leaves it
    txstat = b.r(MAC_TXSTAT);
    st_after = b.r(GREG_STAT2);
  }, us(30));
  CHECK(txstat == MAC_TXSTAT_XMIT);  // the event latches whatever the mask
  if (xmit_unmasked) {
    CHECK(level_before);
    CHECK((st & GREG_STAT_TXMAC) != 0u);
    CHECK((st_again & GREG_STAT_TXMAC) != 0u);
  } else {
    CHECK(!level_before);
    CHECK((st & GREG_STAT_TXMAC) == 0u);
  }
  CHECK((st_after & GREG_STAT_TXMAC) == 0u);
  CHECK(!b.irq.level);
}
}  // namespace

TEST_CASE("gem irq: MAC_TXSTAT_XMIT unmasked in MAC_TXMASK raises TXMAC until MAC_TXSTAT is read", "[gem][irq]") {
  check_txmac(true);
}
TEST_CASE("gem irq: MAC_TXSTAT_XMIT masked in MAC_TXMASK latches without TXMAC", "[gem][irq]") { check_txmac(false); }

namespace {
// gmac_start_xmit: dp->flags = TX_FL_INTERRUPT (a plain store on PowerPC: bytes 00 00 00 01 at
// offset 4); st_le32 for size and lo_addr. The chip reads the control word little-endian.
void check_intme_store(bool native_be) {
  Bench b;
  uint32_t st = 0;
  run([&] {
    b.setup(~GREG_STAT_TXINTME);
    const EthFrame f = make_frame(kGemRegsPeerMac, 200, 1);
    b.host.write(kTxBufs, f.bytes.data(), f.bytes.size());
    const uint32_t size = 0x80000000u | 0x40000000u | uint32_t(f.bytes.size());  // TX_SZ_SOP | TX_SZ_EOP | len
    uint8_t d[16] = {};
    for (int i = 0; i < 4; ++i) d[i] = uint8_t(size >> (8 * i));                  // st_le32(&dp->size)
    if (native_be) d[7] = 0x01;                                                    // dp->flags = 1 (big-endian)
    else d[4] = 0x01;                                                              // st_le32(&dp->flags, 1)
    for (int i = 0; i < 4; ++i) d[8 + i] = uint8_t(uint32_t(kTxBufs) >> (8 * i));  // st_le32(&dp->lo_addr)
    b.host.write(kTxRing, d, 16);
    b.w(TXDMA_KICK, 1);
    wait_until(us(20));
    st = b.r(GREG_STAT);
  }, us(30));
  CHECK(b.peer.rx.size() == 1);  // the frame goes out either way
  CHECK(((st & GREG_STAT_TXINTME) != 0) == !native_be);
  CHECK(b.irq.assertions().size() == (native_be ? 0u : 1u));
}
}  // namespace

TEST_CASE("gem descriptors: a big-endian native store of INTME lands in bit 56: no TX_INTME (gmac v1.5k4's dp->flags)",
          "[gem][byteorder]") {
  check_intme_store(true);
}
TEST_CASE("gem descriptors: INTME stored little-endian (st_le32) raises TX_INTME", "[gem][byteorder]") {
  check_intme_store(false);
}

TEST_CASE("gem csum16_be: the ones-complement sum of big-endian words, odd byte high", "[gem][rules]") {
  const uint8_t a[] = {0x45, 0x00, 0x00, 0x1c, 0xff};
  CHECK(csum16_be(a, 4) == 0x451c);
  CHECK(csum16_be(a, 5) == uint16_t(0x451c + 0xff00 + 1));  // carry folded
  const uint8_t z[] = {0xff, 0xff, 0xff, 0xff};
  CHECK(csum16_be(z, 4) == 0xffff);
}


namespace {
/// A MIF frame-mode read of PHY register `reg` (call from the script), as sungem's __phy_read.
uint16_t mif_read(Bench& b, const GemParams& p, unsigned reg) {
  b.w(MIF_FRAME, (1u << 30) | (2u << 28) | ((p.phy_addr << 23) & MIF_FRAME_PHYAD) | ((reg << 18) & MIF_FRAME_REGAD) |
                     MIF_FRAME_TAMSB);
  wait_until(now() + p.mif_frame + ns(1));
  const uint32_t v = b.r(MIF_FRAME);
  REQUIRE((v & MIF_FRAME_TALSB) != 0);
  return uint16_t(v & MIF_FRAME_DATA);
}
/// When the GMAC's PHY (side a of the bench link) declares link down after a pull.
sc_time gem_link_fail(const LinkFaults& f) {
  return phy_timers(1000).link_fail(f.master(0));
}
constexpr uint16_t kBmsrLstatus = 0x0004, kBmsrAnegComplete = 0x0020;
}  // namespace

TEST_CASE("gem link: BMSR read by MIF frames follows the PHY's link-fail timer and is latched low after a pull",
          "[gem][link]") {
  GemParams p;
  Bench b(p);
  LinkFaults f(*b.link);
  const sc_time pull = ms(1), down = pull + gem_link_fail(f), plug = down + ms(10);
  const sc_time up = plug + phy_timers(1000).link_up;
  f.schedule_cable(pull, false);
  f.schedule_cable(plug, true);
  uint16_t before = 0, during = 0, during_again = 0, lpa_down = 0, aux_down = 0, training = 0;
  bool phy_down = true;
  run([&] {
    wait_until(down - ms(1));
    before = mif_read(b, p, 0x01);  // the link-fail timer runs: still up
    wait_until(down + us(1));
    phy_down = !b.nic->phy_link_up();
    during = mif_read(b, p, 0x01);
    during_again = mif_read(b, p, 0x01);
    lpa_down = mif_read(b, p, 0x05);
    aux_down = mif_read(b, p, 0x19);
    wait_until(up - ms(1));
    training = mif_read(b, p, 0x01);  // signal back, auto-negotiation and training not done
  }, up + ms(1));
  CHECK((before & (kBmsrLstatus | kBmsrAnegComplete)) == (kBmsrLstatus | kBmsrAnegComplete));
  CHECK(phy_down);
  CHECK((during & (kBmsrLstatus | kBmsrAnegComplete)) == 0);
  CHECK((during_again & (kBmsrLstatus | kBmsrAnegComplete)) == 0);
  CHECK(lpa_down == 0);
  CHECK(aux_down == 0);
  CHECK((training & kBmsrLstatus) == 0);
  CHECK(b.nic->phy_link_up());
}

TEST_CASE("gem link: a failure nobody read in time still reads once as link down after the link is back (latched low)",
          "[gem][link]") {
  GemParams p;
  Bench b(p);
  LinkFaults f(*b.link);
  const sc_time pull = ms(1), down = pull + gem_link_fail(f), plug = down + ms(10);
  const sc_time up = plug + phy_timers(1000).link_up;
  f.schedule_cable(pull, false);
  f.schedule_cable(plug, true);
  uint16_t first = 0, second = 0;
  run([&] {
    wait_until(up + us(1));          // no BMSR read since the failure (sungem reads it once per 1.2 s)
    first = mif_read(b, p, 0x01);   // latched low since the failure: read once
    second = mif_read(b, p, 0x01);  // live
  }, up + ms(1));
  CHECK((first & kBmsrLstatus) == 0);
  CHECK((first & kBmsrAnegComplete) != 0);  // only the link bit latches
  CHECK((second & kBmsrLstatus) != 0);
}

TEST_CASE("gem link: the MIF poll raises GREG_STAT_MIF at the next poll after the PHY declares the loss", "[gem][link]") {
  GemParams p;
  Bench b(p);
  LinkFaults f(*b.link);
  const sc_time pull = ms(1), down = pull + gem_link_fail(f);
  f.schedule_cable(pull, false);
  const sc_time poll_on = us(100) + us(3);  // after the three register writes below (bench MMIO costs no time)
  uint32_t mif_before = 0, stat_before = 0, mif_after = 0, mif_again = 0, stat_after_read = 0;
  bool line_before = true, line_after = false, line_after_stop = true;
  run([&] {
    wait_until(us(100));
    b.w(GREG_IMASK, ~GREG_STAT_MIF);
    b.w(MIF_MASK, 0xffc0);  // gmac's mii_poll_start: the low six BMSR bits unmasked
    wait_until(poll_on);
    b.w16(MIF_CFG, MIF_CFG_MDI0 | (p.phy_addr << MIF_CFG_PPADDR_SHIFT) | (1u << MIF_CFG_PRADDR_SHIFT) | MIF_CFG_POLL);
    wait_until(down - us(1));
    line_before = b.nic->irq_level();
    mif_before = b.r(MIF_STATUS);
    stat_before = b.r(GREG_STAT2);
    wait_until(down + p.mif_frame + ns(1));  // the poll instant at or after the change
    line_after = b.nic->irq_level();
    mif_after = b.r(MIF_STATUS);  // read-clear
    mif_again = b.r(MIF_STATUS);
    stat_after_read = b.r(GREG_STAT2);
    b.w16(MIF_CFG, MIF_CFG_MDI0);  // polling off (mii_poll_stop)
    line_after_stop = b.nic->irq_level();
  }, down + ms(1));
  CHECK_FALSE(line_before);
  CHECK((stat_before & GREG_STAT_MIF) == 0);
  CHECK((mif_before & MIF_STATUS_STAT) == 0);  // the first poll set the image without change bits
  CHECK(((mif_before >> 16) & kBmsrLstatus) != 0);
  CHECK(line_after);
  CHECK(((mif_after >> 16) & kBmsrLstatus) == 0);                          // the live image
  CHECK((mif_after & MIF_STATUS_STAT) == (kBmsrLstatus | kBmsrAnegComplete));  // what changed
  CHECK((mif_again & MIF_STATUS_STAT) == 0);
  CHECK((stat_after_read & GREG_STAT_MIF) == 0);
  CHECK_FALSE(line_after_stop);
  // The interrupt came at the poll instant: a whole number of MIF frames after polling began.
  const auto a = b.irq.assertions();
  REQUIRE(a.size() == 1);
  const double k = (a[0] - poll_on).to_seconds() / p.mif_frame.to_seconds();
  CHECK(std::abs(k - std::round(k)) < 1e-6);
  CHECK(a[0] >= down);
  CHECK(a[0] < down + p.mif_frame);
}

TEST_CASE("gem link: without link the MAC holds its frame and it leaves when the link is back", "[gem][link]") {
  GemParams p;
  Bench b(p);
  LinkFaults f(*b.link);
  const sc_time down = ms(1) + gem_link_fail(f), plug = down + ms(5);
  const sc_time up = plug + phy_timers(1000).link_up;
  f.schedule_cable(ms(1), false);
  f.schedule_cable(plug, true);
  const EthFrame fr = make_frame({0x00, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E}, 500, 3);
  size_t seen_before_up = 99;
  uint32_t txdone = 0;
  run([&] {
    b.setup(0xffffffffu);
    wait_until(down + us(10));
    b.put_tx(0, fr.bytes);
    b.w(TXDMA_KICK, 1);
    wait_until(up - us(1));
    seen_before_up = b.peer.rx.size();
    txdone = b.r(TXDMA_TXDONE);
  }, up + ms(1));
  CHECK(seen_before_up == 0);
  CHECK(txdone == 1);  // the descriptor is done: the frame waits in the TX FIFO, not the ring
  REQUIRE(b.peer.rx.size() == 1);
  CHECK(b.peer.rx[0].f.bytes == fr.bytes);
  CHECK(b.peer.rx[0].t == up + serialization_time(500, 1000) + propagation_delay(Bench::kCableM, 5.0));
  CHECK(LinkFaults::lost(*b.link, 0) == 0);
}

TEST_CASE("gem link: a TX reset drops the frame the MAC holds without link and counts it", "[gem][link]") {
  GemParams p;
  Bench b(p);
  LinkFaults f(*b.link);
  const sc_time down = ms(1) + gem_link_fail(f);
  f.schedule_cable(ms(1), false);
  run([&] {
    b.setup(0xffffffffu);
    wait_until(down + us(10));
    b.put_tx(0, make_frame({0x00, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E}, 500, 3).bytes);
    b.w(TXDMA_KICK, 1);
    wait_until(down + us(50));
    b.w(GREG_SWRST, GREG_SWRST_TXRST | GREG_SWRST_RXRST);  // sungem's gem_stop
  }, down + ms(1));
  CHECK(sim().counters.get("nic.tx_frames") == 1);
  CHECK(sim().counters.get("nic.tx_dropped_reset") == 1);
  CHECK(b.nic->tx_fifo_used() == 0);
  const auto t = b.nic->tally();
  REQUIRE(t);
  CHECK(t->sent == 0);
}

TEST_CASE("gem link: frames arriving while the PHY trains are dropped as link down", "[gem][link]") {
  GemParams p;
  Bench b(p);
  LinkFaults f(*b.link);
  const sc_time down = ms(1) + gem_link_fail(f), plug = down + ms(1);
  f.schedule_cable(ms(1), false);
  f.schedule_cable(plug, true);
  run([&] {
    b.setup(0xffffffffu);
    b.post_rx(4, 4);
    wait_until(plug + ms(1));  // the line is live, the PHY still trains
    b.peer.send(make_frame(b.nic->mac_address(), 200, 1), now());
    wait_until(plug + ms(2));
  }, plug + ms(3));
  CHECK(sim().counters.get("nic.rx_dropped_link_down") == 1);
  CHECK(sim().counters.get("nic.rx_frames") == 0);
}

TEST_CASE("gem FCS: bad frames are dropped and counted in MAC_FCSERR and filtered ones are not", "[gem][link]") {
  GemParams p;
  Bench b(p);
  LinkFaults f(*b.link);
  f.add_error_window(1, SC_ZERO_TIME, ms(1), 1.0);  // every frame toward the GMAC (b -> a) is bad
  uint32_t fcserr = 0, rxstat = 0;
  run([&] {
    b.setup(0xffffffffu);
    b.post_rx(4, 4);
    for (int i = 0; i < 3; ++i) b.peer.send(make_frame(b.nic->mac_address(), 200, uint8_t(i)), now());
    b.peer.send(make_frame(kGemRegsPeerMac, 200, 9), now());  // not for the GMAC: filtered
    wait_until(us(100));
    fcserr = b.r(MAC_FCSERR);
    rxstat = b.r(MAC_RXSTAT);
  }, us(110));
  CHECK(fcserr == 3);
  CHECK((rxstat & MAC_RXSTAT_RCV) == 0);
  CHECK(sim().counters.get("nic.rx_fcs_errors") == 3);
  CHECK(sim().counters.get("nic.rx_filtered") == 1);
  CHECK(sim().counters.get("nic.rx_frames") == 0);
  const auto t = b.nic->tally();
  REQUIRE(t);
  uint64_t bad = 0;
  for (const auto& [why, n] : t->dropped)
    if (why == "bad FCS (MAC_FCSERR)") bad = n;
  CHECK(bad == 3);
}

}  // namespace benchgem::nic_gem_regs_test
