// GMAC TX and RX DMA, RXDMA_BLANK and 802.3x on the bench (nic_gem_bench.h, no driver). Expected
// times from the bench bus rule (60 ns + 3.75 ns/B per transaction), the model's documented steps
// (4-descriptor fetches, one burst per buffer under the grant limit, the 8-byte RX status word)
// and the registers' rules (2048 PCI clocks per ITIME unit, pause_time x 512 bit times).
#include "tests/unit/nic_gem_bench.h"
#include "models/ether/pause.h"

// This file's own names, apart from the other files of a unity batch.
namespace benchgem::nic_gem_dma_test {

namespace {
const std::array<uint8_t, 6> kGemDmaPeerMac = {0x00, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E};
const sc_time kProp = propagation_delay(Bench::kCableM, 5.0);

struct TxRun {
  sc_time in_fifo, on_wire_end;
  std::vector<sc_time> irqs;
  size_t peer_frames = 0;
};
// One 1000-byte frame kicked at 1 µs with GREG_IMASK = ~TXALL and TXDMA_CFG extra bits `extra`.
TxRun tx_one(GemParams p, uint32_t extra) {
  Bench b(p);
  const EthFrame f = make_frame(kGemDmaPeerMac, 1000, 7);
  run([&] {
    b.setup(~GREG_STAT_TXALL, 1, extra);
    b.put_tx(0, f.bytes);
    wait_until(us(1));
    b.w(TXDMA_KICK, 1);
    wait_until(us(30));
  }, us(40));
  TxRun r;
  const bool b64 = p.gcfg_bit0_reading == Gcfg0Reading::bytes64;
  r.in_fifo = us(1) + txn_time(16) + dma_time(1000, b64 ? 64 : 1000);
  r.on_wire_end = r.in_fifo + p.mac_tx_latency + p.phy_tx_latency + serialization_time(1000, 1000);
  r.irqs = b.irq.assertions();
  r.peer_frames = b.peer.rx.size();
  if (!b.peer.rx.empty()) {
    CHECK(b.peer.rx[0].f.bytes == f.bytes);
    CHECK(b.peer.rx[0].t == r.on_wire_end + kProp);
  }
  CHECK(b.r(TXDMA_TXDONE) == 1u);
  return r;
}
}  // namespace

TEST_CASE("gem TX: descriptor fetch, one data burst, TX_ALL when the ring is done (PMODE clear, sungem reading)",
          "[gem][tx]") {
  TxRun r = tx_one({}, 0);
  REQUIRE(r.peer_frames == 1);
  REQUIRE(r.irqs.size() == 1);
  CHECK(r.irqs[0] == r.in_fifo);
}

namespace {
/// One 1000-byte frame kicked at 1 µs, GREG_STAT read (cleared) at `read_at`, GREG_STAT2 looked at
/// after the frame has left; returns the interrupt assertions and that last GREG_STAT2.
std::pair<std::vector<sc_time>, uint32_t> tx_all_read_once(uint32_t extra, sc_time read_at) {
  Bench b;
  const EthFrame f = make_frame(kGemDmaPeerMac, 1000, 7);
  uint32_t stat2 = 0;
  run([&] {
    b.setup(~GREG_STAT_TXALL, 1, extra);
    b.put_tx(0, f.bytes);
    wait_until(us(1));
    b.w(TXDMA_KICK, 1);
    wait_until(read_at);
    (void)b.r(GREG_STAT);
    wait_until(us(60));
    stat2 = b.r(GREG_STAT2);
  }, us(70));
  CHECK(b.peer.rx.size() == 1u);
  return {b.irq.assertions(), stat2};
}
}  // namespace

TEST_CASE("gem TX: TX_ALL is one event per drain: read off while the ring stays done it does not come back when the "
          "frame leaves the MAC", "[gem][tx]") {
  // Regression (gmac driver test): with PMODE clear TX_ALL latched at the ring's end and again when
  // the frame left the MAC (tx_check_all re-latched the still-true condition after GREG_STAT's
  // read), two interrupts for one frame. A level condition would interrupt without end on an idle
  // ring, which both drivers leave unmasked.
  auto [irqs, stat2] = tx_all_read_once(0, us(8));  // the frame is in the FIFO at ~5.1 us, on the wire until ~14 us
  REQUIRE(irqs.size() == 1u);
  CHECK((stat2 & GREG_STAT_TXALL) == 0u);
  CHECK(sim().counters.get("nic.tx_all") == 1u);
}

TEST_CASE("gem TX: TX_ALL with PMODE set is one event when the FIFO has drained, not repeated after its read",
          "[gem][tx]") {
  auto [irqs, stat2] = tx_all_read_once(TXDMA_CFG_PMODE, us(30));
  REQUIRE(irqs.size() == 1u);
  CHECK((stat2 & GREG_STAT_TXALL) == 0u);
  CHECK(sim().counters.get("nic.tx_all") == 1u);
}

TEST_CASE("gem TX: TXDMA_CFG_PMODE set: TX_ALL when the TX FIFO has drained (sungem reading)", "[gem][tx]") {
  TxRun r = tx_one({}, TXDMA_CFG_PMODE);
  REQUIRE(r.irqs.size() == 1);
  CHECK(r.irqs[0] == r.on_wire_end);
}

TEST_CASE("gem TX: gmac.h reading: PACED (bit 20, set by the 0x7ff threshold) = TX_ALL when the ring is done",
          "[gem][tx]") {
  GemParams p;
  p.tx_all_reading = TxAllReading::gmac;
  TxRun r = tx_one(p, 0);  // the bench writes FTHRESH 0x7ff as both drivers do: bit 20 is set
  REQUIRE(r.irqs.size() == 1);
  CHECK(r.irqs[0] == r.in_fifo);
}

TEST_CASE("gem TX: gmac.h's GREG_CFG bit 0 reading cuts the data into 64-byte bursts", "[gem][tx]") {
  GemParams p;
  p.gcfg_bit0_reading = Gcfg0Reading::bytes64;
  TxRun r = tx_one(p, 0);
  REQUIRE(r.irqs.size() == 1);
  CHECK(r.irqs[0] == r.in_fifo);
}

TEST_CASE("gem TX: four kicked descriptors are fetched in one 64-byte read, TXDONE per frame", "[gem][tx]") {
  Bench b;
  run([&] {
    b.setup(~GREG_STAT_TXDONE);
    for (unsigned i = 0; i < 4; ++i) b.put_tx(i, make_frame(kGemDmaPeerMac, 100, uint8_t(i)).bytes);
    b.w(TXDMA_KICK, 4);
    wait_until(us(20));
  }, us(30));
  unsigned fetches = 0;
  for (const auto& t : b.host.log)
    if (t.what == std::string("TX desc fetch")) {
      ++fetches;
      CHECK(t.len == 64u);
      CHECK(t.addr == kTxRing);
      CHECK(t.cmd == PciCommand::MemRead);
    }
  CHECK(fetches == 1u);
  CHECK(b.peer.rx.size() == 4u);
  CHECK(b.r(TXDMA_TXDONE) == 4u);
  CHECK(sim().counters.get("nic.tx_frames") == 4u);
}

TEST_CASE("gem RX: frame written at buffer + FBOFF, status word LE with length (+FCS), OWN clear, checksum from CSUMOFF",
          "[gem][rx]") {
  GemParams p;
  Bench b(p);
  const EthFrame f = make_frame(b.nic->mac_address(), 200, 3);
  run([&] {
    b.setup(~GREG_STAT_RXDONE, 1);  // IPKTS 1: RX_DONE per frame
    b.post_rx(8, 8);
    b.peer.send(f, us(5));
    wait_until(us(20));
  }, us(30));
  const sc_time done = rx_fifo_time(p, us(5), 200) + rx_dma_first(200);
  auto a = b.irq.assertions();
  REQUIRE(a.size() == 1);
  CHECK(a[0] == done);
  CHECK(b.nic->peek(RXDMA_DONE) == 1u);
  const uint64_t st = b.rx_status(0);
  CHECK((st & RXDCTRL_OWN) == 0u);
  CHECK(((st & RXDCTRL_BUFSZ) >> 16) == 204u);  // neither driver strips the FCS (MAC_RXCFG_SFCS)
  // sungem's (14 / 2) << 13 with half-word units: the sum starts at the IP header, ends before the FCS.
  CHECK((st & RXDCTRL_TCPCSUM) == uint16_t(~csum16_be(f.bytes.data() + 14, 186)));
  std::vector<uint8_t> got(200);
  b.host.read(kRxBufs + 2, got.data(), 200);
  CHECK(got == f.bytes);
}

TEST_CASE("gem RX: no descriptor (KICK == DONE): the frame waits in the FIFO, RXNOBUF once, a kick releases it",
          "[gem][rx]") {
  GemParams p;
  Bench b(p);
  run([&] {
    b.setup(~(GREG_STAT_RXNOBUF | GREG_STAT_RXDONE), 1);
    b.post_rx(8, 0);
    b.peer.send(make_frame(b.nic->mac_address(), 200, 3), us(5));
    wait_until(us(20));
    CHECK((b.r(GREG_STAT) & GREG_STAT_RXNOBUF) != 0u);
    CHECK(b.nic->rx_fifo_used() == 204u);
    b.w(RXDMA_KICK, 4);
    wait_until(us(40));
  }, us(50));
  auto a = b.irq.assertions();
  REQUIRE(a.size() == 2);
  CHECK(a[0] == rx_fifo_time(p, us(5), 200));  // RXNOBUF
  CHECK(a[1] == us(20) + rx_dma_first(200));   // RX_DONE after the kick
  CHECK(sim().counters.get("nic.rx_nobuf") == 1u);
}

TEST_CASE("gem RX: gmac's first kick of NRX on a ring of NRX leaves the whole ring usable", "[gem][rx]") {
  Bench b;
  run([&] {
    b.setup(~GREG_STAT_RXDONE, 1, 0, 64, 64);
    b.post_rx(64, 64);
    for (unsigned i = 0; i < 6; ++i) b.peer.send(make_frame(b.nic->mac_address(), 100, uint8_t(i)), us(5 + 3 * i));
    wait_until(us(60));
  }, us(70));
  CHECK(b.nic->peek(RXDMA_DONE) == 6u);
  CHECK(sim().counters.get("nic.rx_nobuf") == 0u);
}

TEST_CASE("gem RX: gmac's later kicks (last & ~3, behind RXDMA_DONE) leave the ring to the descriptor before KICK, "
          "across the wrap", "[gem][rx]") {
  // gmac v1.5k4 gmac_receive writes GM_RX_KICK = last & 0xfffffffc after each pass; gmac.h GM_RX_KICK:
  // "The last valid RX descriptor is the one right before the value of the register". After 5
  // frames gmac writes 4 (last = 4) while RXDMA_DONE is 5: descriptors 5..63 and 0..3 are valid.
  Bench b;
  run([&] {
    b.setup(~GREG_STAT_RXDONE, 1, 0, 64, 64);
    b.post_rx(64, 64);
    for (unsigned i = 0; i < 5; ++i) b.peer.send(make_frame(b.nic->mac_address(), 100, uint8_t(i)), us(5 + 3 * i));
    wait_until(us(40));
    CHECK(b.nic->peek(RXDMA_DONE) == 5u);
    b.w16(RXDMA_KICK, 4);
    for (unsigned i = 0; i < 70; ++i) b.peer.send(make_frame(b.nic->mac_address(), 100, uint8_t(i)), us(50 + 3 * i));
    wait_until(us(300));
    // 59 + 4 = 63 frames used 5..63 and 0..3; DONE stops at KICK (the ring has no valid descriptor left).
    CHECK(b.nic->peek(RXDMA_DONE) == 4u);
    CHECK(sim().counters.get("nic.rx_nobuf") == 1u);
    CHECK(b.nic->rx_fifo_used() == 7u * 104u);
    b.w16(RXDMA_KICK, 0);  // gmac after handling 5..63, 0..3: last = 3
    wait_until(us(340));
  }, us(350));
  CHECK(b.nic->peek(RXDMA_DONE) == 11u);
  CHECK(b.nic->rx_fifo_used() == 0u);
}

namespace {
/// Three frames at 5, 300 and 800 µs with RXDMA_BLANK = 5 packets | 8 units; GREG_STAT read after
/// each RX_DONE. Returns the RX_DONE assertion times and the three frames' completion times.
std::pair<std::vector<sc_time>, std::vector<sc_time>> blank_three(RxBlankFrom from) {
  GemParams p;
  p.rx_blank_time_from = from;
  Bench b(p);
  run([&] {
    b.setup(~GREG_STAT_RXDONE, 5u | (8u << RXDMA_BLANK_ITIME_SHIFT));
    b.post_rx(8, 8);
    b.peer.send(make_frame(b.nic->mac_address(), 200, 1), us(5));
    b.peer.send(make_frame(b.nic->mac_address(), 200, 2), us(300));
    b.peer.send(make_frame(b.nic->mac_address(), 200, 3), us(800));
    for (double t : {290.0, 560.0, 1200.0}) {
      wait_until(us(t));
      (void)b.r(GREG_STAT);
    }
  }, us(1300));
  std::vector<sc_time> done = {rx_fifo_time(p, us(5), 200) + rx_dma_first(200),
                               rx_fifo_time(p, us(300), 200) + rx_dma_next(200),
                               rx_fifo_time(p, us(800), 200) + rx_dma_next(200)};
  return {b.irq.assertions(), done};
}
}  // namespace

TEST_CASE("gem RX_BLANK: ITIME counts 2048 PCI clocks per unit from the previous RX_DONE, late frames raise it at once",
          "[gem][blank]") {
  auto [irqs, done] = blank_three(RxBlankFrom::previous_rx_done);
  ClockDomain clk("pci", GemParams{}.pci_mhz * 1e6, 0.0);
  const sc_time lim = rx_blank_time(clk, 8);
  CHECK(lim == clk.cycles(8 * 2048));  // 245.76 µs at 66.67 MHz
  REQUIRE(irqs.size() == 3);
  CHECK(irqs[0] == lim);             // frame 1 done at ~7 µs: waits for 0 + ITIME
  CHECK(irqs[1] == lim + lim);       // frame 2 done at ~302 µs < 491.5 µs
  CHECK(done[2] > lim + lim + lim);  // frame 3 completes after ITIME had run out ...
  CHECK(irqs[2] == done[2]);         // ... and raises RX_DONE at once
}

TEST_CASE("gem RX_BLANK: rx_blank_time_from = first_packet: ITIME counts from the frame's completion", "[gem][blank]") {
  auto [irqs, done] = blank_three(RxBlankFrom::first_packet);
  ClockDomain clk("pci", GemParams{}.pci_mhz * 1e6, 0.0);
  const sc_time lim = rx_blank_time(clk, 8);
  REQUIRE(irqs.size() == 3);
  for (int i = 0; i < 3; ++i) CHECK(irqs[i] == done[i] + lim);
}

TEST_CASE("gem RX_BLANK: IPKTS frames since the previous RX_DONE raise it at the last one's completion", "[gem][blank]") {
  GemParams p;
  Bench b(p);
  std::vector<sc_time> wire_end;
  run([&] {
    b.setup(~GREG_STAT_RXDONE, 5u | (8u << RXDMA_BLANK_ITIME_SHIFT));
    b.post_rx(8, 8);
    wait_until(us(300));  // well past one ITIME since reset: the first frame alone would raise it
    (void)b.r(GREG_STAT);
    b.w(RXDMA_BLANK, 5u | (255u << RXDMA_BLANK_ITIME_SHIFT));  // ITIME long: only IPKTS can end it
    sc_time at = us(301);
    for (unsigned i = 0; i < 5; ++i) wire_end.push_back(at = b.peer.send(make_frame(b.nic->mac_address(), 200, uint8_t(i)), at));
    wait_until(us(400));
  }, us(500));
  // Frames 0-3 share one descriptor fetch; the next group of four (frame 4's) was prefetched after
  // frame 0's write-back (8 posted, fetch pointer 4 != KICK 8), so frame 4 waits for no fetch.
  const sc_time fifo4 = wire_end[4] + kProp + p.phy_rx_latency + p.mac_rx_latency;
  auto a = b.irq.assertions();
  REQUIRE(a.size() == 1);
  CHECK(a[0] == fifo4 + rx_dma_next(200));
  CHECK(sim().counters.get("nic.rx_desc_fetches") == 2u);
  CHECK(sim().counters.get("nic.rx_done.IPKTS") == 1u);
}

TEST_CASE("gem PAUSE: MAC_MCCFG_RPE obeys a received XOFF, MAC_CSTAT reports it and clears on read", "[gem][pause]") {
  GemParams p;
  Bench b(p);
  constexpr uint16_t kQuanta = 100;
  uint32_t cstat = 0, cstat2 = 0;
  run([&] {
    b.setup(~GREG_STAT_MAC);
    b.w(MAC_MCMASK, 0);
    b.w(MAC_MCCFG, MAC_MCCFG_RPE);
    b.peer.send(make_pause_frame(kGemDmaPeerMac, kQuanta), us(5));
    b.put_tx(0, make_frame(kGemDmaPeerMac, 200, 9).bytes);
    wait_until(us(6));
    b.w(TXDMA_KICK, 1);
    wait_until(us(100));
    cstat = b.r(MAC_CSTAT);
    cstat2 = b.r(MAC_CSTAT);
  }, us(110));
  const sc_time pause_from = rx_fifo_time(p, us(5), 60);
  REQUIRE(b.peer.rx.size() == 1);
  CHECK(b.peer.rx[0].t == pause_from + ns(kQuanta * 512) + serialization_time(200, 1000) + kProp);
  CHECK((cstat & (MAC_CSTAT_PRCV | MAC_CSTAT_PS)) == (MAC_CSTAT_PRCV | MAC_CSTAT_PS));
  CHECK((cstat >> 16) == kQuanta);
  CHECK((cstat2 & 0x7u) == 0u);
  auto a = b.irq.assertions();
  REQUIRE(a.size() == 1);
  CHECK(a[0] == pause_from);
  CHECK(!b.irq.level);
}

TEST_CASE("gem PAUSE: MAC_MCCFG_SPE sends XOFF above RXDMA_PTHRESH OFF and XON below ON", "[gem][pause]") {
  Bench b;
  run([&] {
    b.setup(0xffffffff);
    b.w(RXDMA_PTHRESH, 2u | (1u << 12));  // XOFF above 128 B, XON below 64 B
    b.w(MAC_SNDPAUSE, 0x1bf0);            // sungem/gmac's pause_time
    b.w(MAC_MCCFG, MAC_MCCFG_SPE);
    b.post_rx(8, 0);                      // no descriptor: the frame stays in the FIFO
    b.peer.send(make_frame(b.nic->mac_address(), 200, 1), us(5));
    wait_until(us(20));
    b.w(RXDMA_KICK, 4);
    wait_until(us(40));
  }, us(50));
  REQUIRE(b.peer.rx.size() == 2);
  REQUIRE(is_pause_frame(b.peer.rx[0].f.bytes));
  CHECK(pause_time_quanta(b.peer.rx[0].f.bytes) == 0x1bf0);
  REQUIRE(is_pause_frame(b.peer.rx[1].f.bytes));
  CHECK(pause_time_quanta(b.peer.rx[1].f.bytes) == 0);
  CHECK(sim().counters.get("nic.tx_xoff_sent") == 1u);
  CHECK(sim().counters.get("nic.tx_xon_sent") == 1u);
}

TEST_CASE("gem stats: MAC_RFCTR counts received frames and is writable (the drivers zero it)", "[gem][stats]") {
  Bench b;
  run([&] {
    b.setup(0xffffffff, 1);
    b.post_rx(8, 8);
    b.w(MAC_RFCTR, 0);
    for (unsigned i = 0; i < 3; ++i) b.peer.send(make_frame(b.nic->mac_address(), 100, uint8_t(i)), us(5 + 3 * i));
    wait_until(us(40));
    CHECK(b.r(MAC_RFCTR) == 3u);
    CHECK((b.r(MAC_RXSTAT) & MAC_RXSTAT_RCV) != 0u);
    CHECK(b.r(MAC_RXSTAT) == 0u);  // read-to-clear
  }, us(50));
}

}  // namespace benchgem::nic_gem_dma_test
