// e100 driver model against the real 8255x model: TX command words (S on every TCB, I on every
// TX_FRAME_CNT-th), the ISR's ack and service, RX into netif_rx, and the CPU-Saver's bundling
// decision as the driver's parameters set it (e100 2.1.6-k1 e100_prepare_xmit_buff, e100intr).
#include "driver_e100_harness.h"
#include <catch2/catch.hpp>
#include <cstring>

// This file's own names, apart from the other files of a unity batch.
namespace driver_e100_traffic_test {
using namespace e100test;
using namespace nicsim::e100drv;

namespace {
const std::array<uint8_t, 6> kE100TrafficPeerMac = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55};

/// Receives every IPv4 frame the driver hands to netif_rx, with the time it reached the stack.
struct Sink {
  std::vector<sc_time> at;
  explicit Sink(Kernel& k) {
    k.dev_add_pack(ETH_P_IP, [this, &k](SkbPtr skb, NetDevice*) -> Task<int> {
      at.push_back(now());
      co_await k.kfree_skb(std::move(skb));
      co_return NET_RX_SUCCESS;
    });
  }
};

uint16_t tcb_cmd(Rig& r, unsigned i) {
  uint8_t c[2];
  r.hw.mem_read(r.a->tcb_phys(i) + 2, c, 2);
  return uint16_t(c[0] | (c[1] << 8));
}
}  // namespace

TEST_CASE("e100 TX: a burst of 8 frames sets S on every TCB as queued, I on the 8th, and clears S on the previous",
          "[e100drv]") {
  Rig r("82559");
  std::vector<uint16_t> cmd_when_queued;
  auto app = [&]() -> Task<void> {
    const int rc = co_await r.k->dev_open(*r.dev);
    if (rc != 0) co_return;
    for (unsigned i = 0; i < 8; ++i) {
      EthFrame f = drvtest::make_frame(kE100TrafficPeerMac, r.dev->dev_addr, 200, uint8_t(i));
      SkbPtr s = co_await r.k->alloc_skb(256);
      std::memcpy(s->put(200), f.bytes.data(), 200);
      s->dev = r.dev.get();
      const int x = co_await r.dev->hard_start_xmit(s);
      if (x != 0) co_return;
      cmd_when_queued.push_back(tcb_cmd(r, 1 + i));  // tail starts at TCB 1
    }
  };
  std::function<Task<void>()> keep = app;
  r.k->spawn_process("app", keep());
  sc_core::sc_start(ms(80));

  REQUIRE(cmd_when_queued.size() == 8);
  for (unsigned i = 0; i < 8; ++i) {
    INFO("TCB " << 1 + i);
    CHECK((cmd_when_queued[i] & CB_S_BIT));  // S when queued (cleared later by the next frame)
    CHECK(bool(cmd_when_queued[i] & CB_I_BIT) == (i == 7));
    CHECK((cmd_when_queued[i] & 0x7) == CB_TRANSMIT);
  }
  // Only the last queued TCB keeps S: each xmit cleared its predecessor's.
  for (unsigned i = 1; i < 8; ++i) CHECK_FALSE((tcb_cmd(r, i) & CB_S_BIT));
  CHECK((tcb_cmd(r, 8) & CB_S_BIT));
  // Every frame reaches the wire, in order: the CU samples S at each TCB's completion, so the S a
  // later xmit cleared while the TCB was on the wire does not suspend it (a regression test: the
  // model once decided S at fetch time and only the first frame of the burst left).
  REQUIRE(r.peer.rx.size() == 8);
  for (unsigned i = 0; i < 8; ++i) CHECK(r.peer.rx[i].f.bytes.size() == 200);
}

TEST_CASE("e100 TX: frames sent one at a time each raise CNA, whose ISR pass resets tx_count, so no TCB gets I",
          "[e100drv]") {
  Rig r("82559");
  std::vector<uint16_t> cmd_when_queued;
  auto app = [&]() -> Task<void> {
    const int rc = co_await r.k->dev_open(*r.dev);
    if (rc != 0) co_return;
    for (unsigned i = 0; i < 10; ++i) {
      EthFrame f = drvtest::make_frame(kE100TrafficPeerMac, r.dev->dev_addr, 200, uint8_t(i));
      SkbPtr s = co_await r.k->alloc_skb(256);
      std::memcpy(s->put(200), f.bytes.data(), 200);
      s->dev = r.dev.get();
      const int x = co_await r.dev->hard_start_xmit(s);
      if (x != 0) co_return;
      cmd_when_queued.push_back(tcb_cmd(r, 1 + i));
      WaitQueue wq;
      (void)co_await r.k->schedule_timeout(wq, 1);  // one jiffy: the frame is long gone and cleaned
    }
  };
  std::function<Task<void>()> keep = app;
  r.k->spawn_process("app", keep());
  sc_core::sc_start(ms(250));
  REQUIRE(cmd_when_queued.size() == 10);
  for (unsigned i = 0; i < 10; ++i) {
    CHECK((cmd_when_queued[i] & CB_S_BIT));
    CHECK_FALSE((cmd_when_queued[i] & CB_I_BIT));
  }
  CHECK(r.peer.rx.size() == 10);
  CHECK(sim().counters.get("alpha.eth0.driver.tx_cleaned") == 10);
  CHECK(r.a->tx_count() == 0);
  CHECK_FALSE(r.nic->irq_level());
}

TEST_CASE("e100 ISR on an 82559 without microcode: each frame raises FR, the ISR acks it and hands it to netif_rx",
          "[e100drv]") {
  Rig r("82559", {{"ucode", 0}});
  Sink sink(*r.k);
  r.open();
  const sc_time t0 = ms(60);
  for (unsigned i = 0; i < 5; ++i)
    drvtest::at_time(t0 + us(500) * i, [&r, i] { r.peer.end->transmit(r.to_nic(200, uint8_t(i)), now()); });
  sc_core::sc_start(ms(70));
  REQUIRE(r.rc == 0);
  REQUIRE(sink.at.size() == 5);
  for (unsigned i = 0; i < 5; ++i) {
    // 200-byte frame + preamble/SFD/FCS at 100 Mb/s ~ 17 us, then RX DMA, interrupt, ISR: well under 100 us.
    CHECK(sink.at[i] - (t0 + us(500) * i) < us(100));
  }
  CHECK_FALSE(r.nic->irq_level());  // acknowledged
  CHECK((r.nic->stat(i8255x::RcvGoodFrames)) == 5);
  CHECK(r.a->active_rfds() == 64);  // refilled
}

TEST_CASE("e100 CPU-Saver on an 82559 defaults: a 130-byte frame waits the dead-man timer, a 114-byte one does not",
          "[e100drv]") {
  Rig r("82559");
  Sink sink(*r.k);
  r.open();
  const sc_time t_big = ms(60), t_small = ms(70);
  drvtest::at_time(t_big, [&r] { r.peer.end->transmit(r.to_nic(130), now()); });
  drvtest::at_time(t_small, [&r] { r.peer.end->transmit(r.to_nic(114), now()); });
  sc_core::sc_start(ms(80));
  REQUIRE(sink.at.size() == 2);
  const sc_time timer = r.nic->cpusaver()->delay();  // 0x600 ticks
  CHECK(timer > us(1000));
  CHECK(timer < us(1050));
  CHECK(sink.at[0] - t_big > timer);               // bundled: waits the timer (>= 128 B)
  CHECK(sink.at[0] - t_big < timer + us(100));
  CHECK(sink.at[1] - t_small < us(100));           // < 128 B: at once
}

TEST_CASE("e100 CPU-Saver with BundleSmallFr=1: a 114-byte frame waits the timer too", "[e100drv]") {
  {
    Rig r("82559", {{"BundleSmallFr", 1}});
    Sink sink(*r.k);
    r.open();
    drvtest::at_time(ms(60), [&r] { r.peer.end->transmit(r.to_nic(114), now()); });
    sc_core::sc_start(ms(70));
    REQUIRE(sink.at.size() == 1);
    CHECK(sink.at[0] - ms(60) > r.nic->cpusaver()->delay());
  }
}

TEST_CASE("e100 CPU-Saver with BundleMax=1: a 130-byte frame interrupts at once", "[e100drv]") {
  Rig r("82559", {{"BundleMax", 1}});
  Sink sink(*r.k);
  r.open();
  drvtest::at_time(ms(60), [&r] { r.peer.end->transmit(r.to_nic(130), now()); });
  sc_core::sc_start(ms(70));
  REQUIRE(sink.at.size() == 1);
  CHECK(sink.at[0] - ms(60) < us(100));
}

TEST_CASE("e100 CPU-Saver with IntDelay=0x300: a 130-byte frame waits about half as long", "[e100drv]") {
  Rig r("82559", {{"IntDelay", 0x300}});
  Sink sink(*r.k);
  r.open();
  drvtest::at_time(ms(60), [&r] { r.peer.end->transmit(r.to_nic(130), now()); });
  sc_core::sc_start(ms(70));
  REQUIRE(sink.at.size() == 1);
  const sc_time w = sink.at[0] - ms(60);
  CHECK(w > us(0x300 / 1.5));
  CHECK(w < us(0x300 / 1.5 + 100));
}

}  // namespace driver_e100_traffic_test
