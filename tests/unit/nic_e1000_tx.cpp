// 8254x transmit path on the register-level bench: TX moderation timers (TIDV/TADV), write-back,
// ring wrap, TX packet-buffer limit, MAC/PHY latency to the wire.
#include "nic_e1000_bench.h"

// This file's own names, apart from the other files of a unity batch.
namespace bench::nic_e1000_tx_test {

namespace {
constexpr uint64_t kTxRing0 = 0x20000, kTxBufs0 = 0x200000;
const double kTxTick = 1.024;
constexpr uint8_t kTxCmd = txcmd::EOP | txcmd::IFCS | txcmd::RS | txcmd::IDE;  // e1000 4.4.12 txd_cmd
/// When the write-back of a single 60-byte packet posted (TDT write) at `t` completes on an idle
/// bench bus: descriptor fetch (16 B), data read (60 B), descriptor write-back (16 B).
sc_time wb_done(const E1000Params& p, const sc_time& t, unsigned len = 60) {
  return t + txn_time(16) + dma_time(len, p.dma_read_burst_bytes) + txn_time(16);
}
std::vector<uint8_t> tx_frame_bytes(unsigned len, uint8_t seed) {
  return make_frame({0x00, 0x0A, 0x0B, 0x0C, 0x0D, 0x0F}, len, seed).bytes;
}
}  // namespace

TEST_CASE("TX: data reaches the wire after fetch, data DMA and the MAC+PHY latency, DD written back", "[e1000][tx]") {
  E1000Params p;
  Bench b("82546EB", p);
  run(
      [&] {
        b.setup_tx(0, kTxRing0, 8);
        b.put_tx(kTxRing0, 0, kTxBufs0, tx_frame_bytes(60, 1), kTxCmd);
        wait_until(us(10));
        b.w(0, TDT, 1);
        wait_until(us(30));
      },
      us(30));
  REQUIRE(b.peers[0]->rx.size() == 1);
  sc_time ready = us(10) + txn_time(16) + dma_time(60, p.dma_read_burst_bytes);
  sc_time start = ready + p.mac_tx_latency + p.phy_tx_latency;
  CHECK(b.peers[0]->rx[0].t == start + serialization_time(60, 1000) + propagation_delay(Bench::kCableM, 5.0));
  CHECK(b.peers[0]->rx[0].f.bytes == tx_frame_bytes(60, 1));
  CHECK((b.tx_desc(kTxRing0, 0).sta & txsta::DD));
  CHECK(b.nic->peek(0, TDH) == 1);
  CHECK(b.nic->peek(0, GPTC) == 1);
  CHECK(b.nic->peek(0, GOTCL) == 64);
}

TEST_CASE("TIDV counts from the RS+IDE write-back and restarts on the next one", "[e1000][tx]") {
  E1000Params p;
  Bench b("82544GC", p);
  run(
      [&] {
        b.setup_tx(0, kTxRing0, 8);
        b.w(0, TIDV, 10);
        b.w(0, IMS, icr::TXDW);
        b.put_tx(kTxRing0, 0, kTxBufs0, tx_frame_bytes(60, 1), kTxCmd);
        b.put_tx(kTxRing0, 1, kTxBufs0 + 2048, tx_frame_bytes(60, 2), kTxCmd);
        wait_until(us(10));
        b.w(0, TDT, 1);
        wait_until(us(15));
        b.w(0, TDT, 2);
        wait_until(us(60));
      },
      us(60));
  auto a = b.irq[0].assertions();
  REQUIRE(a.size() == 1);
  CHECK(a[0] == wb_done(p, us(15)) + us(10 * kTxTick));
}

TEST_CASE("TADV fires TADV x1.024 us after the first RS+IDE write-back and halts TIDV", "[e1000][tx]") {
  E1000Params p;
  Bench b("82546EB", p);
  run(
      [&] {
        b.setup_tx(0, kTxRing0, 8);
        b.w(0, TIDV, 10);
        b.w(0, TADV, 12);
        b.w(0, IMS, icr::TXDW);
        for (unsigned i = 0; i < 3; ++i) b.put_tx(kTxRing0, i, kTxBufs0 + 2048 * i, tx_frame_bytes(60, uint8_t(i)), kTxCmd);
        for (unsigned i = 0; i < 3; ++i) {
          wait_until(us(10 + 5 * i));
          b.w(0, TDT, i + 1);
        }
        wait_until(us(24));
        b.r(0, ICR);
        wait_until(us(80));
      },
      us(80));
  auto a = b.irq[0].assertions();
  REQUIRE(a.size() == 1);  // no second interrupt from the halted TIDV (would be 20.525 + 10.24 µs)
  CHECK(a[0] == wb_done(p, us(10)) + us(12 * kTxTick));
}

TEST_CASE("An RS descriptor without IDE interrupts at its write-back", "[e1000][tx]") {
  E1000Params p;
  Bench b("82540EM", p);
  run(
      [&] {
        b.setup_tx(0, kTxRing0, 8);
        b.w(0, TIDV, 64);
        b.w(0, TADV, 64);
        b.w(0, IMS, icr::TXDW);
        b.put_tx(kTxRing0, 0, kTxBufs0, tx_frame_bytes(60, 1), txcmd::EOP | txcmd::IFCS | txcmd::RS);
        wait_until(us(10));
        b.w(0, TDT, 1);
        wait_until(us(200));
      },
      us(200));
  auto a = b.irq[0].assertions();
  REQUIRE(a.size() == 1);
  CHECK(a[0] == wb_done(p, us(10)));
}

TEST_CASE("82544 RPS: the descriptor is written back only after the packet was sent", "[e1000][tx]") {
  E1000Params p;
  Bench b("82544GC", p);
  run(
      [&] {
        b.setup_tx(0, kTxRing0, 8);
        b.w(0, TIDV, 10);
        b.w(0, IMS, icr::TXDW);
        b.put_tx(kTxRing0, 0, kTxBufs0, tx_frame_bytes(60, 1), txcmd::EOP | txcmd::IFCS | txcmd::RPS | txcmd::IDE);
        wait_until(us(10));
        b.w(0, TDT, 1);
        wait_until(us(40));
      },
      us(40));
  REQUIRE(b.peers[0]->rx.size() == 1);
  sc_time last_bit_out = b.peers[0]->rx[0].t - propagation_delay(Bench::kCableM, 5.0);
  auto a = b.irq[0].assertions();
  REQUIRE(a.size() == 1);
  CHECK(a[0] == last_bit_out + txn_time(16) + us(10 * kTxTick));
}

TEST_CASE("TX ring wrap: 20 packets through an 8-descriptor ring arrive in order, TDH wraps", "[e1000][tx]") {
  E1000Params p;
  Bench b("82545EM", p);
  const unsigned n = 8;
  run(
      [&] {
        b.setup_tx(0, kTxRing0, n);
        unsigned tail = 0, clean = 0;
        for (unsigned k = 0; k < 20; ++k) {
          // "driver": reclaim written-back descriptors, keep one slot free (TDT != TDH when full).
          while (clean != tail && (b.tx_desc(kTxRing0, clean).sta & txsta::DD)) clean = (clean + 1) % n;
          while ((tail + 1) % n == clean) {
            wait(us(2));
            while (clean != tail && (b.tx_desc(kTxRing0, clean).sta & txsta::DD)) clean = (clean + 1) % n;
          }
          b.put_tx(kTxRing0, tail, kTxBufs0 + 2048 * tail, tx_frame_bytes(100, uint8_t(k)), kTxCmd);
          tail = (tail + 1) % n;
          b.w(0, TDT, tail);
        }
        wait(us(50));
      },
      us(200));
  REQUIRE(b.peers[0]->rx.size() == 20);
  for (unsigned k = 0; k < 20; ++k) CHECK(b.peers[0]->rx[k].f.bytes == tx_frame_bytes(100, uint8_t(k)));
  CHECK(b.nic->peek(0, TDH) == 20 % n);
  CHECK(b.nic->peek(0, GPTC) == 20);
}

TEST_CASE("TX packet buffer: a descriptor's data DMA waits until 16 KB has room for all of it", "[e1000][tx]") {
  E1000Params p;
  Bench b("82546EB", p);
  const unsigned n = 40, len = 1514;
  run(
      [&] {
        b.setup_tx(0, kTxRing0, 64);
        for (unsigned i = 0; i < n; ++i) b.put_tx(kTxRing0, i, kTxBufs0 + 2048 * i, tx_frame_bytes(len, uint8_t(i)), kTxCmd);
        b.w(0, TDT, n);
        wait(us(700));
      },
      us(700));
  REQUIRE(b.peers[0]->rx.size() == n);
  std::vector<sc_time> wire_end, dma_start;
  for (auto& r : b.peers[0]->rx) wire_end.push_back(r.t - propagation_delay(Bench::kCableM, 5.0));
  for (auto& t : b.host.log)
    if (t.what == "TX data" && (t.addr % 2048) == 0) dma_start.push_back(t.start);
  REQUIRE(dma_start.size() == n);
  const unsigned fit = (64 - 48) * 1024 / len;  // PBA: TXA = 64 − RXA(48) KB → 10 packets
  CHECK(fit == 10);
  bool waited = false;
  for (unsigned k = 0; k < n; ++k) {
    unsigned gone = 0;
    for (unsigned j = 0; j < k; ++j) gone += wire_end[j] <= dma_start[k];
    CHECK(k + 1 - gone <= fit);  // never more than 16 KB reserved
    for (unsigned j = 0; j < k; ++j) waited |= (dma_start[k] == wire_end[j] && k + 1 - gone == fit);
  }
  CHECK(waited);  // the DMA engine was held by the full buffer and released by a frame leaving
  // Back-to-back on the wire once the buffer is full: 1538 byte times apart.
  CHECK(b.peers[0]->rx[n - 1].t - b.peers[0]->rx[n - 2].t == frame_time(len, 1000));
}

namespace {
/// Post 2 packets at 10 µs and 2 more at 10.2 µs (while the first data read is on the bus); return
/// the bench bus log.
std::vector<HostMem::Txn> two_batches(uint32_t txdctl) {
  Bench b("82546EB");
  run(
      [&] {
        b.setup_tx(0, kTxRing0, 16);
        b.w(0, TXDCTL, txdctl);
        for (unsigned i = 0; i < 4; ++i) b.put_tx(kTxRing0, i, kTxBufs0 + 2048 * i, tx_frame_bytes(60, uint8_t(i)), kTxCmd);
        wait_until(us(10));
        b.w(0, TDT, 2);
        wait_until(us(10.2));
        b.w(0, TDT, 4);
        wait_until(us(40));
      },
      us(40));
  return b.host.log;
}
}  // namespace

TEST_CASE("TXDCTL PTHRESH/HTHRESH: prefetch while descriptors remain on chip", "[e1000][tx]") {
  E1000Params p;
  // GRAN=1: PTHRESH=4 descriptors, HTHRESH=1: with 1 descriptor cached and 2 new in host memory the
  // NIC fetches at once; the fetch queues behind the first data read (which ends at 10.405 µs).
  auto log = two_batches(dctl::GRAN | 4u | (1u << dctl::HTHRESH_SHIFT));
  std::vector<const HostMem::Txn*> fetch, wb;
  for (auto& t : log) {
    if (t.what == "TX desc fetch") fetch.push_back(&t);
    if (t.what == "TX desc write-back") wb.push_back(&t);
  }
  REQUIRE(fetch.size() == 2);
  REQUIRE(!wb.empty());
  sc_time data1_end = us(10) + txn_time(32) + dma_time(60, p.dma_read_burst_bytes);
  CHECK(fetch[1]->start == data1_end);
  CHECK(fetch[1]->len == 32);
  CHECK(fetch[1]->start < wb[0]->start);  // the prefetch went ahead of the first write-back
}

TEST_CASE("TXDCTL PTHRESH=0: no prefetch, the next fetch waits for the on-chip cache to empty", "[e1000][tx]") {
  auto log = two_batches(0);
  std::vector<const HostMem::Txn*> fetch, wb;
  for (auto& t : log) {
    if (t.what == "TX desc fetch") fetch.push_back(&t);
    if (t.what == "TX desc write-back") wb.push_back(&t);
  }
  REQUIRE(fetch.size() == 2);
  REQUIRE(!wb.empty());
  CHECK(fetch[1]->start > wb[0]->start);  // fetched only when the second descriptor left the cache
}

}  // namespace bench::nic_e1000_tx_test
