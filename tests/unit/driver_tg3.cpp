// tg3 0.99 driver model against the real BCM5701 model: what tg3_open programs, send BDs written
// into NIC SRAM by PIO with the send mailbox, the ISR loop on SD_STATUS_UPDATED delivering to
// netif_rx with copybreak 256, the ethtool -C settings, and the adaptive RX band.
#include "driver_tg3_harness.h"
#include <catch2/catch.hpp>
#include <cstring>

// This file's own names, apart from the other files of a unity batch.
namespace driver_tg3_test {
using namespace tg3test;
using namespace nicsim::tg3drv;

namespace {
const std::array<uint8_t, 6> kTg3PeerMac = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55};

struct Tg3Sink {
  std::vector<sc_time> at;
  std::vector<uint32_t> len;
  std::vector<uint8_t> summed;
  std::vector<int> type;  ///< skb->pkt_type (PACKET_HOST 0: eth_type_trans matched dev_addr)
  explicit Tg3Sink(Kernel& k) {
    k.dev_add_pack(ETH_P_IP, [this, &k](SkbPtr skb, NetDevice*) -> Task<int> {
      at.push_back(now());
      type.push_back(int(skb->pkt_type));
      len.push_back(skb->len);
      summed.push_back(skb->ip_summed);
      co_await k.kfree_skb(std::move(skb));
      co_return NET_RX_SUCCESS;
    });
  }
};
}  // namespace

TEST_CASE("tg3-0.99 open: rings, coalescing defaults and the interrupt unmasked", "[tg3drv]") {
  Rig r;
  r.open();
  sc_core::sc_start(ms(50));
  REQUIRE(r.rc == 0);
  CHECK(r.nic->peek(tg3::HOSTCC_RXCOL_TICKS) == 72);   // DEFAULT_RXCOL_TICKS
  CHECK(r.nic->peek(tg3::HOSTCC_RXMAX_FRAMES) == 8);
  CHECK(r.nic->peek(tg3::HOSTCC_TXCOL_TICKS) == 300);
  CHECK(r.nic->peek(tg3::HOSTCC_TXMAX_FRAMES) == 75);
  CHECK(r.nic->peek(tg3::HOSTCC_RXCOAL_TICK_INT) == 25);
  CHECK(r.nic->peek(tg3::HOSTCC_RXCOAL_MAXF_INT) == 5);
  CHECK(r.nic->peek(tg3::HOSTCC_STAT_COAL_TICKS) == 1000000);
  CHECK((r.nic->peek(tg3::HOSTCC_MODE) & tg3::HOSTCC_MODE_ENABLE) != 0);
  CHECK(r.nic->peek(tg3::MAILBOX_RCV_STD_PROD_IDX + 4) == TG3_DEF_RX_RING_PENDING);
  CHECK((r.nic->peek(tg3::TG3PCI_MISC_HOST_CTRL) & tg3::MISC_HOST_CTRL_MASK_PCI_INT) == 0);
  CHECK(r.nic->sram32(tg3::NIC_SRAM_SEND_RCB + tg3::TG3_BDINFO_NIC_ADDR) == tg3::NIC_SRAM_TX_BUFFER_DESC);
  CHECK(r.t->rx_offset() == 0);  // a 5701 in PCI-X mode
  CHECK(r.dev->netif_carrier_ok());
  CHECK(r.dev->dev_addr == r.nic->mac_address());
  CHECK(r.nic->std_consumer() == 0);
}

TEST_CASE("tg3-0.99 xmit: the BD goes into NIC SRAM by writel, the mailbox sends it, no BD is DMA'd", "[tg3drv]") {
  Rig r;
  bool sent = false;
  size_t n_xmit = 0;
  auto app = [&]() -> Task<void> {
    const int rc = co_await r.k->dev_open(*r.dev);
    if (rc != 0) co_return;
    EthFrame f = drvtest::make_frame(kTg3PeerMac, r.dev->dev_addr, 600, 3);
    SkbPtr s = co_await r.k->alloc_skb(700);
    std::memcpy(s->put(600), f.bytes.data(), 600);
    s->dev = r.dev.get();
    r.hw.mmio.clear();
    const int x = co_await r.dev->hard_start_xmit(s);
    sent = x == 0;
    n_xmit = r.hw.mmio.size();  // later accesses are the TX-completion interrupt's
  };
  std::function<Task<void>()> keep = app;
  r.k->spawn_process("app", keep());
  sc_core::sc_start(ms(60));
  REQUIRE(sent);
  REQUIRE(r.peer.rx.size() == 1);
  CHECK(r.peer.rx[0].f.bytes.size() == 600);
  const uint64_t bd = r.bar() + NIC_SRAM_WIN_BASE + NIC_SRAM_TX_BUFFER_DESC;
  std::vector<uint64_t> writes;
  for (size_t i = 0; i < n_xmit; ++i)
    if (r.hw.mmio[i].write) writes.push_back(r.hw.mmio[i].addr);
  REQUIRE(writes.size() == 5);  // four BD words, then the producer mailbox
  CHECK(writes[0] == bd);
  CHECK(writes[2] == bd + 8);
  CHECK(writes[4] == r.bar() + MAILBOX_SNDNIC_PROD_IDX_0 + TG3_64BIT_REG_LOW);
  CHECK(r.nic->sram32(NIC_SRAM_TX_BUFFER_DESC + 8) == (600u << TXD_LEN_SHIFT | TXD_FLAG_END));
  CHECK(r.nic->tx_consumer() == 1);
}

TEST_CASE("tg3-0.99 RX: the ISR loop delivers every frame, copying those of 256 B or less", "[tg3drv]") {
  Rig r;
  Tg3Sink sink(*r.k);
  r.open();
  const unsigned kBig = 12, kSmall = 6;
  for (unsigned i = 0; i < kBig + kSmall; ++i)
    drvtest::at_time(ms(50) + us(20) * i, [&r, i] {
      const unsigned len = i < kBig ? 1000 : 200;
      r.peer.end->transmit(r.to_nic(len, uint8_t(i)), now());
    });
  sc_core::sc_start(ms(60));
  REQUIRE(r.rc == 0);
  REQUIRE(sink.at.size() == kBig + kSmall);
  CHECK(sink.len.front() == 1000 - ETH_HLEN);
  CHECK(sink.len.back() == 200 - ETH_HLEN);
  auto& c = sim().counters;
  CHECK(c.get("alpha.eth0.driver.rx_copybreak") == kSmall);
  CHECK(c.get("alpha.eth0.driver.rx_frames") == kBig + kSmall);
  // Coalescing: RXMAX_FRAMES 8 and 72 µs ticks: fewer interrupts than frames.
  CHECK(c.get("alpha.eth0.driver.intr") < kBig + kSmall);
  CHECK(c.get("alpha.eth0.driver.intr") >= 2);
  CHECK(r.nic->peek(MAILBOX_RCVRET_CON_IDX_0 + TG3_64BIT_REG_LOW) == kBig + kSmall);
  CHECK(r.nic->peek(MAILBOX_RCV_STD_PROD_IDX + TG3_64BIT_REG_LOW) == TG3_DEF_RX_RING_PENDING + kBig + kSmall);
}

TEST_CASE("tg3-0.99 ethtool -C: rx-usecs 0 / rx-frames 1 interrupts on every frame", "[tg3drv]") {
  Rig r({{"rx-usecs", int64_t(0)}, {"rx-frames", int64_t(1)}, {"adaptive-rx", false}});
  Tg3Sink sink(*r.k);
  r.open();
  for (unsigned i = 0; i < 5; ++i)
    drvtest::at_time(ms(50) + us(100) * i, [&r, i] { r.peer.end->transmit(r.to_nic(300, uint8_t(i)), now()); });
  sc_core::sc_start(ms(55));
  REQUIRE(r.rc == 0);
  CHECK(r.nic->peek(HOSTCC_RXCOL_TICKS) == 0);
  CHECK(r.nic->peek(HOSTCC_RXMAX_FRAMES) == 1);
  REQUIRE(sink.at.size() == 5);
  CHECK(sim().counters.get("alpha.eth0.driver.intr") == 5);
  CHECK(sim().counters.get("alpha_eth0.hostcc.RXMAX_FRAMES") == 5);
}

TEST_CASE("tg3-0.99 adaptive RX: a packet rate above pkt-rate-high selects the HIGH band", "[tg3drv]") {
  Rig r({{"pkt-rate-low", int64_t(100)}, {"pkt-rate-high", int64_t(300)}, {"stats-block-usecs", int64_t(100000)}});
  Tg3Sink sink(*r.k);
  r.open();
  for (unsigned i = 0; i < 1300; ++i)  // 1000 frames/s from 50 ms to 1.35 s
    drvtest::at_time(ms(50) + ms(1) * i, [&r, i] { r.peer.end->transmit(r.to_nic(100, uint8_t(i)), now()); });
  sc_core::sc_start(ms(1400));
  REQUIRE(r.rc == 0);
  CHECK(r.t->rx_band() == 2);
  CHECK(r.nic->peek(HOSTCC_RXCOL_TICKS) == 150);   // HIGH_RXCOL_TICKS
  CHECK(r.nic->peek(HOSTCC_RXMAX_FRAMES) == 18);   // HIGH_RXMAX_FRAMES
  CHECK(sim().counters.get("alpha.eth0.driver.coal_band_changes") >= 1);
  CHECK(sink.at.size() >= 1299);
}

TEST_CASE("tg3-1.0 NAPI: every frame updates the status block, the ISR masks and schedules, tg3_poll delivers",
          "[tg3drv]") {
  Rig r({}, kDriverName10, true);
  Tg3Sink sink(*r.k);
  r.open();
  const unsigned n = 20;
  for (unsigned i = 0; i < n; ++i)  // 10 frames 100 us apart, then 10 back to back
    drvtest::at_time(ms(50) + (i < 10 ? us(100) * i : us(1000) + us(2) * i), [&r, i] {
      r.peer.end->transmit(r.to_nic(i % 2 ? 1000 : 100, uint8_t(i)), now());
    });
  sc_core::sc_start(ms(60));
  REQUIRE(r.rc == 0);
  CHECK(r.dev->weight == 64);
  CHECK(r.nic->peek(HOSTCC_RXCOL_TICKS) == 0);
  CHECK(r.nic->peek(HOSTCC_RXMAX_FRAMES) == 1);
  CHECK(r.nic->peek(HOSTCC_RXCOAL_MAXF_INT) == 1);
  CHECK(r.nic->peek(HOSTCC_TXCOL_TICKS) == 150);
  CHECK(r.nic->peek(HOSTCC_TXMAX_FRAMES) == 5);
  CHECK((r.nic->peek(tg3::HOSTCC_MODE) & HOSTCC_MODE_CLRTICK_RXBD) == 0);
  REQUIRE(sink.at.size() == n);
  auto& c = sim().counters;
  CHECK(c.get("alpha_eth0.hostcc.RXMAX_FRAMES") == c.get("alpha_eth0.ring_status_update"));
  // Spaced frames: one interrupt each; the back-to-back ones are polled while INTA is masked.
  CHECK(c.get("alpha.eth0.driver.intr") >= 10);
  CHECK(c.get("alpha.eth0.driver.intr") < n);
  CHECK((r.nic->peek(TG3PCI_MISC_HOST_CTRL) & MISC_HOST_CTRL_MASK_PCI_INT) == 0);  // re-enabled after the poll
}

TEST_CASE("tg3-1.0 on a kernel profile without NAPI: the probe refuses, naming the host and profile", "[tg3drv]") {
  bool threw = false;
  try {
    Rig r({}, kDriverName10, false);
  } catch (const std::invalid_argument& e) {
    threw = true;
    CHECK(std::string(e.what()).find("has no NAPI") != std::string::npos);
    CHECK(std::string(e.what()).find("alpha") != std::string::npos);
  }
  CHECK(threw);
}

TEST_CASE("tg3 uncabled: the PHY reads no link, tg3_open leaves the carrier off and ETHTOOL_GLINK says link down",
          "[tg3drv]") {
  // Breaker finding: the BCM5701's PHY reported link on an uncabled port, so bonding's miimon (which
  // asks ETHTOOL_GLINK, the carrier tg3_open set from BMSR) kept an uncabled active-backup slave in use.
  Rig r({}, kDriverName, false, false);
  r.open();
  sc_core::sc_start(ms(20));
  REQUIRE(r.rc == 0);
  CHECK_FALSE(r.dev->netif_carrier_ok());
  CHECK(r.dev->mii_link_status() == 0);
}

TEST_CASE("tg3 cabled: the PHY reads link, tg3_open turns the carrier on and ETHTOOL_GLINK says link up", "[tg3drv]") {
  Rig r;
  r.open();
  sc_core::sc_start(ms(20));
  REQUIRE(r.rc == 0);
  CHECK(r.dev->netif_carrier_ok());
  CHECK(r.dev->mii_link_status() == 1);
}

TEST_CASE("tg3-0.99 reopen: after stop, a new station address and open, frames land in the new ring", "[tg3drv]") {
  // Regression (seed-004 bonded runs stalled): ifenslave's SIOCSIFHWADDR round trip (stop,
  // set_mac_address, open) left the chip with its copy of the old ring's BDs, so frames after the
  // reopen filled freed buffers and the stack saw zeroed headers (PACKET_OTHERHOST). tg3_halt's
  // core-clock reset (GRC_MISC_CFG_CORECLK_RESET) in stop gives the reopen a clean chip.
  Rig r;
  Tg3Sink sink(*r.k);
  r.open();
  const std::array<uint8_t, 6> kNew = {0x00, 0x10, 0x18, 0xaa, 0xbb, 0xcc};
  int rc2 = -99;
  std::function<Task<void>()> cycle = [&]() -> Task<void> {
    (void)co_await r.dev->stop();
    r.dev->up = false;
    const int m = co_await r.dev->set_mac_address(kNew);
    rc2 = m != 0 ? m : co_await r.k->dev_open(*r.dev);
  };
  for (unsigned i = 0; i < 4; ++i)
    drvtest::at_time(ms(50) + us(20) * i, [&r, i] { r.peer.end->transmit(r.to_nic(1000, uint8_t(i)), now()); });
  drvtest::at_time(ms(55), [&] { r.k->spawn_process("ifenslave", cycle()); });
  for (unsigned i = 0; i < 4; ++i)
    drvtest::at_time(ms(70) + us(20) * i, [&r, i] { r.peer.end->transmit(r.to_nic(1000, uint8_t(10 + i)), now()); });
  sc_core::sc_start(ms(80));
  REQUIRE(r.rc == 0);
  REQUIRE(rc2 == 0);
  CHECK(r.dev->dev_addr == kNew);
  CHECK(sim().counters.get("alpha_eth0.core_resets") == 1);
  CHECK(sim().counters.get("alpha_eth0.core_resets_busy") == 0);
  REQUIRE(sink.at.size() == 8);
  for (int t : sink.type) CHECK(t == PACKET_HOST);
}

TEST_CASE("tg3 tg3_setup_flow_control: the 802.3 pause resolution of tg3 1.0", "[tg3drv][flow]") {
  using namespace tg3drv;
  const uint32_t both = TG3_FLAG_RX_PAUSE | TG3_FLAG_TX_PAUSE;
  CHECK(resolve_flow_control(ADVERTISE_PAUSE_CAP, LPA_PAUSE_CAP) == both);
  CHECK(resolve_flow_control(ADVERTISE_PAUSE_CAP, LPA_PAUSE_ASYM) == 0);
  CHECK(resolve_flow_control(ADVERTISE_PAUSE_CAP | ADVERTISE_PAUSE_ASYM, LPA_PAUSE_CAP) == both);
  CHECK(resolve_flow_control(ADVERTISE_PAUSE_CAP | ADVERTISE_PAUSE_ASYM, LPA_PAUSE_ASYM) == TG3_FLAG_RX_PAUSE);
  CHECK(resolve_flow_control(ADVERTISE_PAUSE_ASYM, LPA_PAUSE_CAP | LPA_PAUSE_ASYM) == TG3_FLAG_TX_PAUSE);
  CHECK(resolve_flow_control(ADVERTISE_PAUSE_ASYM, LPA_PAUSE_CAP) == 0);
  CHECK(resolve_flow_control(0, LPA_PAUSE_CAP | LPA_PAUSE_ASYM) == 0);
}

}  // namespace driver_tg3_test
