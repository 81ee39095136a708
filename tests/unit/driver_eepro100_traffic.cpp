// eepro100 driver model with the real 8255x model and a link peer: speedo_start_xmit (CmdSuspend on
// every TxCB, CmdIntr on every 16th, clear_suspend + CU Resume), speedo_interrupt (acknowledge
// status & 0xfc00, at most max_interrupt_work passes), speedo_rx (rx_copybreak).
#include "driver_eepro100_host.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace driver_eepro100_traffic_test {
using namespace drvtest;
using namespace nicsim::eepro100drv;

namespace {
/// A process that opens nothing (the host opens eth0) and sends `n` frames of `len` bytes at `at`.
Task<void> sender(SpeedoHost& h, unsigned n, unsigned len, sc_time at, std::vector<std::vector<uint8_t>>& sent) {
  WaitQueue wq;  // nobody wakes it: sleep until `at` (HZ ticks)
  while (now() < at) (void)co_await h.k.schedule_timeout(wq, 1);
  NetDevice& dev = *h.devs[0];
  for (unsigned i = 0; i < n; ++i) {
    EthFrame f = make_frame(kEepro100Peer, dev.dev_addr, len, uint8_t(i));
    sent.push_back(f.bytes);
    SkbPtr s = co_await h.k.alloc_skb(len + 16);
    std::memcpy(s->put(len), f.bytes.data(), len);
    s->dev = &dev;
    co_await h.k.dev_queue_xmit(std::move(s));
  }
}
}  // namespace

TEST_CASE("eepro100 transmit sets CmdSuspend on every TxCB and CmdIntr on every 16th, clears the previous suspend "
          "and issues CU Resume, and every frame reaches the wire in order",
          "[eepro100drv]") {
  SpeedoHost h;
  std::vector<std::vector<uint8_t>> sent;
  h.k.spawn_process("send", sender(h, 40, 200, ms(70), sent));
  sc_core::sc_start(ms(120));
  REQUIRE(h.open_rc == 0);
  Speedo& s = *h.sp;
  // Frames queued back to back: the CU is still sending the previous one when the next is chained.
  REQUIRE(h.peer.rx.size() == sent.size());
  for (size_t i = 0; i < sent.size(); ++i) CHECK(h.peer.rx[i].f.bytes == sent[i]);
  // TxFDs 3..42 hold the frames (0-2: IA Setup, Configure, multicast list).
  const unsigned first = 3, last = first + 40 - 1;
  for (unsigned e = first; e <= last; ++e) {
    INFO("TxFD " << e);
    const uint32_t cs = h.mem32(s.tx_ring_dma() + uint64_t(e) * kTxFDBytes);
    CHECK((cs & 0x00070000u) == CmdTx);
    CHECK((cs & CmdTxFlex) != 0);
    CHECK(((cs & CmdIntr) != 0) == (e % 16 == 0));
    // clear_suspend on every TxCB but the last one given to the CU.
    CHECK(((cs & CmdSuspend) != 0) == (e == last));
    CHECK((cs & StatusComplete) != 0);
    // One TBD inside the TxFD: tx_desc_addr -> tx_buf_addr0; count = tx_threshold.
    CHECK(h.mem32(s.tx_ring_dma() + uint64_t(e) * kTxFDBytes + 8) ==
          uint32_t(s.tx_ring_dma() + uint64_t(e) * kTxFDBytes + TX_DESCR_BUF_OFFSET));
    CHECK(h.mem32(s.tx_ring_dma() + uint64_t(e) * kTxFDBytes + 12) == kTxThresholdStart);
    CHECK(h.mem32(s.tx_ring_dma() + uint64_t(e) * kTxFDBytes + 20) == 200);
  }
  // One CU Resume (outb 0x20 to SCBCmd) per frame, after the 2 of set_rx_mode, each after a poll of
  // the command byte (wait_for_cmd_done).
  unsigned resumes = 0;
  for (size_t i = 0; i < h.hw.mmio.size(); ++i) {
    const auto& m = h.hw.mmio[i];
    if (m.write && m.addr == h.bar() + SCBCmd && m.len == 1 && m.v == CUResume) {
      ++resumes;
      REQUIRE(i > 0);
      CHECK((!h.hw.mmio[i - 1].write && h.hw.mmio[i - 1].addr == h.bar() + SCBCmd));
    }
  }
  CHECK(resumes == 42);
  CHECK(h.counter("tx_reaped") == 40);
  CHECK(s.dirty_tx() == s.cur_tx());
}

TEST_CASE("eepro100 ISR acknowledges status and 0xfc00 and stops at the first zero status", "[eepro100drv]") {
  SpeedoHost h;
  std::vector<EthFrame> frames;
  at_time(ms(70), [&] {
    for (unsigned i = 0; i < 8; ++i) {
      frames.push_back(make_frame(h.sp->dev_addr, kEepro100Peer, 100, uint8_t(i)));
      h.peer.end->transmit(frames.back(), now());
    }
  });
  sc_core::sc_start(ms(90));
  REQUIRE(h.got.size() == 8);
  // Every status read is followed by the write of its value & 0xfc00 to SCBStatus.
  unsigned reads = 0, zero_reads = 0;
  for (size_t i = 0; i + 1 < h.hw.mmio.size(); ++i) {
    const auto& m = h.hw.mmio[i];
    if (m.write || m.addr != h.bar() + SCBStatus || m.len != 2) continue;
    ++reads;
    const auto& n = h.hw.mmio[i + 1];
    CHECK(n.write);
    CHECK(n.addr == h.bar() + SCBStatus);
    CHECK(n.v == (m.v & 0xfc00u));
    if ((m.v & 0xfc00u) == 0) ++zero_reads;
  }
  CHECK(reads == h.counter("status_reads"));
  // Each call leaves on a zero status (max_interrupt_work 20 is never reached here).
  CHECK(zero_reads == h.counter("intr"));
  CHECK(h.counter("isr_loop_limit") == 0);
}

TEST_CASE("eepro100 ISR leaves after max_interrupt_work passes with outw 0xfc00", "[eepro100drv]") {
  SpeedoHost h({{"max_interrupt_work", 0}});
  at_time(ms(70), [&] {
    for (unsigned i = 0; i < 4; ++i) h.peer.end->transmit(make_frame(h.sp->dev_addr, kEepro100Peer, 100, 1), now());
  });
  sc_core::sc_start(ms(90));
  REQUIRE(h.got.size() == 4);
  // --boguscnt < 0 after the first pass: one status read per call, then outw(0xfc00) clears all.
  const auto& r = h.sp->isr_reads();
  CHECK(r[1] == h.counter("intr"));
  CHECK(r[2] == 0);
  CHECK(h.counter("isr_loop_limit") == h.counter("intr"));
  unsigned clears = 0;
  for (const auto& m : h.hw.mmio)
    if (m.write && m.addr == h.bar() + SCBStatus && m.v == 0xfc00u) ++clears;
  CHECK(clears >= h.counter("intr"));
}

TEST_CASE("eepro100 receive copies frames below rx_copybreak into a new skb and reuses the RxFD and passes larger "
          "frames up in the ring skb",
          "[eepro100drv]") {
  SpeedoHost h;
  std::vector<EthFrame> frames;
  at_time(ms(70), [&] {
    frames.push_back(make_frame(h.sp->dev_addr, kEepro100Peer, 199, 5));  // pkt_len 199 < 200: copied
    frames.push_back(make_frame(h.sp->dev_addr, kEepro100Peer, 200, 6));  // 200: passed up
    frames.push_back(make_frame(h.sp->dev_addr, kEepro100Peer, 1000, 7)); // passed up
    for (const auto& f : frames) h.peer.end->transmit(f, now());
  });
  uint64_t rxfd0 = 0, rxfd1 = 0;
  at_time(ms(69), [&] {
    rxfd0 = h.sp->rx_ring_dma(0);
    rxfd1 = h.sp->rx_ring_dma(1);
  });
  sc_core::sc_start(ms(90));
  REQUIRE(h.got.size() == 3);
  for (size_t i = 0; i < 3; ++i)
    CHECK(h.got[i].bytes == std::vector<uint8_t>(frames[i].bytes.begin() + ETH_HLEN, frames[i].bytes.end()));
  CHECK(h.counter("rx_copied") == 1);
  CHECK(h.counter("rx_passed_up") == 2);
  // The copied frame's RxFD is the same buffer again; the passed-up one got a new skb.
  CHECK(h.sp->rx_ring_dma(0) == rxfd0);
  CHECK(h.sp->rx_ring_dma(1) != rxfd1);
  CHECK(h.sp->rx_ring_dma(1) != 0);
  // All refilled: the ring is full again and ends EL|S at the newest RxFD.
  CHECK(h.sp->dirty_rx() == h.sp->cur_rx());
  CHECK(h.sp->cur_rx() == 3);
}

TEST_CASE("eepro100 rx_copybreak 1518 copies every frame", "[eepro100drv]") {
  SpeedoHost h({{"rx_copybreak", 1518}});
  at_time(ms(70), [&] {
    h.peer.end->transmit(make_frame(h.sp->dev_addr, kEepro100Peer, 1000, 7), now());
    h.peer.end->transmit(make_frame(h.sp->dev_addr, kEepro100Peer, 1514, 8), now());
  });
  sc_core::sc_start(ms(90));
  REQUIRE(h.got.size() == 2);
  CHECK(h.counter("rx_copied") == 2);
  CHECK(h.counter("rx_passed_up") == 0);
}

}  // namespace driver_eepro100_traffic_test
