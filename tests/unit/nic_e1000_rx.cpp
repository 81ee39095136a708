// 8254x receive path on the register-level bench: RX moderation timers with assertion times computed
// from the SDM rule plus the bench's DMA arithmetic, ring handling, overrun accounting.
#include "nic_e1000_bench.h"

// This file's own names, apart from the other files of a unity batch.
namespace bench::nic_e1000_rx_test {

namespace {
constexpr uint64_t kRxRing0 = 0x10000, kRxBufs0 = 0x100000;
const double kRxTick = 1.024;  // µs per timer count
/// When a 60-byte frame sent by the peer at `start` has its last data byte in host memory
/// (descriptors already prefetched, bus idle): packet buffer entry + one 64-byte write burst.
sc_time stored_at(const E1000Params& p, const sc_time& start, unsigned len = 60) {
  return rx_fifo_time(p, start, len) + dma_time(len + 4, p.dma_write_burst_bytes);
}
}  // namespace

TEST_CASE("RDTR=20, three packets 10 us apart: one interrupt 20x1.024 us after the third is stored", "[e1000][rx]") {
  E1000Params p;
  Bench b("82546EB", p);
  auto mac = b.nic->mac_address(0);
  JourneyId j3 = 0;
  run(
      [&] {
        b.setup_rx(0, kRxRing0, 8, kRxBufs0, 7);
        b.w(0, RDTR, 20);
        b.w(0, IMS, icr::RXT0);
        j3 = sim().journeys.begin("test frame 3", us(30), "peer send", "peer0");
        for (int i = 0; i < 3; ++i) b.peers[0]->send(make_frame(mac, 60, uint8_t(i), i == 2 ? j3 : 0), us(10 + 10 * i));
        wait_until(us(80));
      },
      us(100));
  sc_time expect = stored_at(p, us(30)) + us(20 * kRxTick);
  auto a = b.irq[0].assertions();
  REQUIRE(a.size() == 1);
  CHECK(a[0] == expect);
  // Descriptors 0..2 written back with DD|EOP, length 64 (FCS kept), RDH visible at 3.
  for (unsigned i = 0; i < 3; ++i) {
    RxDesc d = b.rx_desc(kRxRing0, i);
    CHECK(d.status == (rxsta::DD | rxsta::EOP));
    CHECK(d.length == 64);
  }
  CHECK(b.nic->peek(0, RDH) == 3);
  CHECK(b.nic->peek(0, GPRC) == 3);
  CHECK(b.nic->peek(0, GORCL) == 3 * 64);
  // The third frame's journey: wait attributed to RDTR, then the interrupt at the assertion.
  CHECK(dma_tags().peek(b.nic->dma_space(), kRxBufs0 + 2 * 2048) == j3);
  sim().journeys.finish(j3, us(90));
  const auto& jr = sim().journeys.finished().back();
  bool rdtr = false, irq = false;
  for (auto& m : jr.marks) {
    if (m.stage == "moderation wait" && m.cause == "RDTR") rdtr = true;
    if (m.stage == "interrupt") {
      irq = true;
      CHECK(m.t == expect);
    }
  }
  CHECK(rdtr);
  CHECK(irq);
}

namespace {
/// An 82544GC with RDTR 20 (RADV 5, ITR 1000 and TADV 5 written too, which the part does not have)
/// and three 60-byte frames 10 µs apart from 10 µs. `absent`: what RADV, ITR and TADV read back.
std::vector<sc_time> rdtr_82544_three_frames(const E1000Params& p, uint32_t absent[3]) {
  Bench b("82544GC", p);
  auto mac = b.nic->mac_address(0);
  run(
      [&] {
        b.setup_rx(0, kRxRing0, 8, kRxBufs0, 7);
        b.w(0, RDTR, 20);
        b.w(0, RADV, 5);
        b.w(0, ITR, 1000);
        b.w(0, TADV, 5);
        absent[0] = b.r(0, RADV);
        absent[1] = b.r(0, ITR);
        absent[2] = b.r(0, TADV);
        b.w(0, IMS, icr::RXT0);
        for (int i = 0; i < 3; ++i) b.peers[0]->send(make_frame(mac, 60, uint8_t(i)), us(10 + 10 * i));
        wait_until(us(80));
      },
      us(100));
  return b.irq[0].assertions();
}
}  // namespace

TEST_CASE("82544GC: RDTR counts from the first packet (absolute) and RADV/ITR/TADV read 0", "[e1000][rx]") {
  E1000Params p;
  uint32_t absent[3] = {1, 1, 1};
  auto a = rdtr_82544_three_frames(p, absent);
  CHECK(absent[0] == 0);
  CHECK(absent[1] == 0);
  CHECK(absent[2] == 0);
  REQUIRE(a.size() == 1);
  CHECK(a[0] == stored_at(p, us(10)) + us(20 * kRxTick));  // SDM §3.2.8: from the first packet
}

TEST_CASE("82544GC with the rdtr_per_packet what-if: RDTR counts from the last packet, as on the 82540+", "[e1000][rx]") {
  E1000Params p;
  p.rdtr_per_packet = true;
  uint32_t absent[3] = {1, 1, 1};
  auto a = rdtr_82544_three_frames(p, absent);
  REQUIRE(a.size() == 1);
  CHECK(a[0] == stored_at(p, us(30)) + us(20 * kRxTick));  // restarted by the third packet
}

TEST_CASE("RADV fires RADV x1.024 us after the first packet under steady traffic, then RDTR stays halted", "[e1000][rx]") {
  E1000Params p;
  Bench b("82540EM", p);
  auto mac = b.nic->mac_address(0);
  uint32_t icr1 = 0;
  run(
      [&] {
        b.setup_rx(0, kRxRing0, 16, kRxBufs0, 15);
        b.w(0, RDTR, 20);
        b.w(0, RADV, 25);
        b.w(0, IMS, icr::RXT0);
        for (int i = 0; i < 5; ++i) b.peers[0]->send(make_frame(mac, 60, uint8_t(i)), us(10 + 10 * i));
        wait_until(us(38));
        icr1 = b.r(0, ICR);
        wait_until(us(150));
        b.r(0, ICR);
      },
      us(200));
  CHECK(icr1 == icr::RXT0);
  auto a = b.irq[0].assertions();
  REQUIRE(a.size() == 2);
  // RADV started by packet 1, not restarted by packets 2 and 3 (RDTR kept restarting, never expired).
  CHECK(a[0] == stored_at(p, us(10)) + us(25 * kRxTick));
  // Packet 4 (the first after the interrupt) starts RADV again; packet 5 restarts only RDTR.
  CHECK(a[1] == stored_at(p, us(40)) + us(25 * kRxTick));
}

TEST_CASE("RDTR=0 gives an immediate interrupt per packet and disables RADV (seed 000 82546EB setting)", "[e1000][rx]") {
  E1000Params p;
  Bench b("82546EB", p);
  auto mac = b.nic->mac_address(0);
  run(
      [&] {
        b.setup_rx(0, kRxRing0, 8, kRxBufs0, 7);
        b.w(0, RDTR, 0);
        b.w(0, RADV, 128);
        b.w(0, IMS, icr::RXT0);
        b.peers[0]->send(make_frame(mac, 60), us(10));
        wait_until(us(20));
        b.r(0, ICR);
        wait_until(us(300));
      },
      us(300));
  auto a = b.irq[0].assertions();
  REQUIRE(a.size() == 1);  // no RADV interrupt 131 µs later (unlike gem5)
  // Data stored, then the descriptor written back (16 B), then RXT0.
  CHECK(a[0] == stored_at(p, us(10)) + txn_time(16));
}

TEST_CASE("FPD write flushes descriptors held by WTHRESH and raises RXT0 at once", "[e1000][rx]") {
  E1000Params p;
  Bench b("82545EM", p);
  auto mac = b.nic->mac_address(0);
  uint8_t dd_before = 0xFF;
  run(
      [&] {
        b.setup_rx(0, kRxRing0, 8, kRxBufs0, 7);
        b.w(0, RXDCTL, dctl::GRAN | (4u << dctl::WTHRESH_SHIFT));  // write back 4 at a time
        b.w(0, RDTR, 100);
        b.w(0, IMS, icr::RXT0);
        b.peers[0]->send(make_frame(mac, 60), us(10));
        wait_until(us(20));
        dd_before = b.rx_desc(kRxRing0, 0).status;
        b.w(0, RDTR, 100 | rdtr::FPD);
        wait_until(us(40));
      },
      us(40));
  CHECK(dd_before == 0);  // held on chip by WTHRESH
  auto a = b.irq[0].assertions();
  REQUIRE(a.size() == 1);
  CHECK(a[0] == us(20) + txn_time(16));  // FPD on the write: write-back, then RXT0
  CHECK(b.rx_desc(kRxRing0, 0).status == (rxsta::DD | rxsta::EOP));
  CHECK(b.nic->peek(0, RDTR) == 100);  // FPD self-clears
}

namespace {
/// 82544GC, WTHRESH=0, 64-byte cache line (4 descriptors per line), RDTR 50: one frame at 10 µs (the
/// timer counts from it), then three more at 100..120 µs, after the first interrupt: the fourth
/// completes line 0. `dd_mid`: descriptor 0's status 20 µs after its frame (the timer still running);
/// `dd_line`: descriptor 3's at 130 µs.
struct PackingRun {
  uint8_t dd_mid = 0xFF, dd_line = 0xFF;
  std::vector<sc_time> asserts;
};
PackingRun packing_run(bool packing) {
  PackingRun out;
  E1000Params p;
  p.cache_line_bytes = 64;
  p.rx_desc_line_packing = packing;
  Bench b("82544GC", p);
  auto mac = b.nic->mac_address(0);
  run(
      [&] {
        b.setup_rx(0, kRxRing0, 8, kRxBufs0, 7);
        b.w(0, RDTR, 50);
        b.w(0, IMS, icr::RXT0);
        b.peers[0]->send(make_frame(mac, 60, 0), us(10));
        wait_until(us(30));
        out.dd_mid = b.rx_desc(kRxRing0, 0).status;
        wait_until(us(90));
        b.r(0, ICR);  // acknowledge the first RXT0
        for (int i = 1; i < 4; ++i) b.peers[0]->send(make_frame(mac, 60, uint8_t(i)), us(100 + 10 * (i - 1)));
        wait_until(us(130));
        out.dd_line = b.rx_desc(kRxRing0, 3).status;
        wait_until(us(200));
      },
      us(200));
  out.asserts = b.irq[0].assertions();
  return out;
}
}  // namespace

TEST_CASE("82544GC, WTHRESH=0 (default): each RX descriptor is written back as soon as it is used", "[e1000][rx]") {
  const PackingRun r = packing_run(false);
  CHECK(r.dd_mid == (rxsta::DD | rxsta::EOP));  // written back at once: a TXDW-driven ISR would see it
  CHECK(r.dd_line == (rxsta::DD | rxsta::EOP));
  REQUIRE(r.asserts.size() >= 1);
  CHECK(r.asserts[0] == stored_at(E1000Params{}, us(10)) + us(50 * kRxTick));  // nothing left to flush
}

TEST_CASE("82544GC, WTHRESH=0 with the rx_desc_line_packing what-if: a lone descriptor waits for RDTR, "
          "a completed cache line goes at once", "[e1000][rx]") {
  const PackingRun r = packing_run(true);
  CHECK(r.dd_mid == 0);  // partial line held on chip until the timer
  CHECK(r.dd_line == (rxsta::DD | rxsta::EOP));  // the fourth descriptor completed the line
  REQUIRE(r.asserts.size() >= 1);
  CHECK(r.asserts[0] == stored_at(E1000Params{}, us(10)) + us(50 * kRxTick) + txn_time(16));  // flush, then RXT0
}

TEST_CASE("RX ring wrap with RDT handling: DD/EOP on each used descriptor, RDH wraps", "[e1000][rx]") {
  E1000Params p;
  Bench b("82546EB", p);
  auto mac = b.nic->mac_address(0);
  const unsigned n = 8;
  std::vector<std::pair<unsigned, unsigned>> seen;  // (descriptor index, payload seed)
  run(
      [&] {
        b.setup_rx(0, kRxRing0, n, kRxBufs0, n - 1);  // 7 usable: RDT may never equal RDH when full
        unsigned next = 0, tail = n - 1;
        for (int round = 0; round < 4; ++round) {
          for (int k = 0; k < 5; ++k)
            b.peers[0]->send(make_frame(mac, 200, uint8_t(round * 5 + k)), now() + us(1));
          wait(us(20));
          // "driver": consume every DD descriptor, give it back by advancing RDT.
          for (;;) {
            RxDesc d = b.rx_desc(kRxRing0, next);
            if (!(d.status & rxsta::DD)) break;
            CHECK((d.status & rxsta::EOP));
            CHECK(d.length == 204);
            uint8_t data[20];
            b.host.read(d.addr, data, 20);
            seen.push_back({next, uint8_t(data[14] - 14)});
            d.status = 0;
            uint8_t raw[16];
            encode_rx_desc(raw, d);
            b.host.write(kRxRing0 + 16 * next, raw, 16);
            next = (next + 1) % n;
            tail = (tail + 1) % n;
          }
          b.w(0, RDT, tail);
        }
        wait(us(20));
      },
      us(200));
  REQUIRE(seen.size() == 20);
  for (unsigned i = 0; i < seen.size(); ++i) {
    CHECK(seen[i].first == i % n);
    CHECK(seen[i].second == i);
  }
  CHECK(b.nic->peek(0, RDH) == 20 % n);
  CHECK(b.nic->peek(0, MPC) == 0);
}

TEST_CASE("Ring empty: frames wait in the 48 KB packet buffer, overflow is RXO + MPC, none lost", "[e1000][rx]") {
  E1000Params p;
  Bench b("82544GC", p);
  auto mac = b.nic->mac_address(0);
  const unsigned sent = 40, len = 1514;
  uint32_t icr_v = 0, mpc = 0, rnbc = 0, gprc = 0, tpr = 0;
  run(
      [&] {
        b.setup_rx(0, kRxRing0, 64, kRxBufs0, 0);  // no descriptors for the NIC
        b.w(0, IMS, icr::RXO | icr::RXT0);
        for (unsigned i = 0; i < sent; ++i) b.peers[0]->send(make_frame(mac, len, uint8_t(i)), us(1));
        wait_until(frame_time(len, 1000) * double(sent) + us(5));  // all 40 have arrived (492 µs)
        icr_v = b.r(0, ICR);
        mpc = b.r(0, MPC);
        rnbc = b.r(0, RNBC);
        gprc = b.r(0, GPRC);
        tpr = b.r(0, TPR);
        b.w(0, RDT, 63);  // now give it descriptors
        wait_until(us(800));
      },
      us(800));
  // 48 KB = 49152 B holds floor(49152 / 1518) = 32 frames (FCS kept); the rest overrun.
  const unsigned fit = 49152 / (len + 4);
  CHECK(fit == 32);
  CHECK((icr_v & icr::RXO));
  CHECK(mpc == sent - fit);
  CHECK(gprc == fit);
  CHECK(tpr == sent);
  CHECK(rnbc == sent);  // all arrived while the ring was empty
  // Every stored frame is delivered after RDT moves, in order; none was silently lost.
  unsigned delivered = 0;
  for (unsigned i = 0; i < 63; ++i) {
    RxDesc d = b.rx_desc(kRxRing0, i);
    if (!(d.status & rxsta::DD)) break;
    uint8_t first;
    b.host.read(d.addr + 14, &first, 1);
    CHECK(uint8_t(first - 14) == i);
    CHECK(d.length == len + 4);
    ++delivered;
  }
  CHECK(delivered == fit);
  CHECK(delivered + mpc == sent);
  CHECK(sim().counters.get("nic.rx_dropped_overrun") == sent - fit);
  // The port's frame tally (the run's accounting) says the same: accepted + dropped = arrived.
  auto tl = b.nic->eth_port(0)->tally();
  REQUIRE(tl);
  CHECK(tl->accepted == fit);
  uint64_t dropped = 0;
  for (auto& [why, n] : tl->dropped) {
    dropped += n;
    if (why == "RX FIFO overrun (MPC)") CHECK(n == sent - fit);
  }
  CHECK(tl->accepted + dropped == sent);
}

TEST_CASE("RX frame bytes in host memory match the wire, FCS is the 802.3 CRC-32", "[e1000][rx]") {
  E1000Params p;
  Bench b("82540EM", p);
  auto mac = b.nic->mac_address(0);
  EthFrame f = make_frame(mac, 100, 7);
  run(
      [&] {
        b.setup_rx(0, kRxRing0, 8, kRxBufs0, 7);
        b.peers[0]->send(f, us(1));
        wait_until(us(10));
      },
      us(10));
  RxDesc d = b.rx_desc(kRxRing0, 0);
  REQUIRE(d.length == 104);
  std::vector<uint8_t> got(104);
  b.host.read(kRxBufs0, got.data(), 104);
  CHECK(std::equal(f.bytes.begin(), f.bytes.end(), got.begin()));
  // CRC-32 residue check: the CRC over data+FCS of a good frame is 0x2144DF1C (802.3 §3.2.9).
  uint32_t c = 0xFFFFFFFFu;
  for (uint8_t x : got) {
    c ^= x;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
  }
  CHECK((c ^ 0xFFFFFFFFu) == 0x2144DF1Cu);
}

TEST_CASE("Frames not addressed to the station are filtered, broadcast needs BAM", "[e1000][rx]") {
  E1000Params p;
  Bench b("82546EB", p);
  run(
      [&] {
        b.setup_rx(0, kRxRing0, 8, kRxBufs0, 7);
        b.peers[0]->send(make_frame({0x00, 0x11, 0x22, 0x33, 0x44, 0x55}, 60), us(1));
        b.peers[0]->send(make_frame({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, 60), us(2));
        wait_until(us(10));
      },
      us(10));
  CHECK(b.nic->peek(0, GPRC) == 1);
  CHECK(b.nic->peek(0, BPRC) == 1);
  CHECK(sim().counters.get("nic.port0.rx_filtered") == 1);
  auto tl = b.nic->eth_port(0)->tally();
  REQUIRE(tl);
  CHECK(tl->accepted == 1);
  for (auto& [why, n] : tl->dropped) CHECK(n == (why == "address filter (rx_filtered)" ? 1u : 0u));
  // A zero drop counter is registered all the same: result.json lists every counter.
  CHECK(sim().counters.all().count("nic.port0.MPC") == 1);
  CHECK(sim().counters.all().count("nic.port0.RNBC") == 1);
}

}  // namespace bench::nic_e1000_rx_test
