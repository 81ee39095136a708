// GMAC register file and interrupt gating on the bench (nic_gem_bench.h, no driver): GREG_STAT's
// read-to-clear bits 0-6 and its non-clearing alias GREG_STAT2, GREG_IACK, GREG_IMASK (1 = masked),
// the MAC status registers (read-to-clear) and their masks (1 = masked) feeding TXMAC/RXMAC, the
// 8/16-bit accesses gmac's GM_OUT/GM_IN make, the M66EN readings, and the descriptor byte order.
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

}  // namespace benchgem::nic_gem_regs_test
