// gmac v1.5k4 driver model against the real GMAC model on a big-endian (PowerPC) kernel: what
// gmac_open / gmac_mac_init / gmac_start_dma write (exact values, including gmac.h's two slips),
// descriptor bytes as they lie in memory (the native-stored TX_FL_INTERRUPT lands byte-reversed and
// never reaches INTME), TX_ALL as the only TX interrupt, RX_DONE by RX_BLANK's 5 packets or its time,
// copybreak at 256 bytes of descriptor length, ip_summed CHECKSUM_NONE, the RX kick values, the
// ring-full stop, close. Expected values are computed from LH@2.4.16:drivers/net/gmac.c / gmac.h.
// Link loss ("gmac link" cases): the MIF poll interrupt brings mii_interrupt, which turns the
// carrier off and on as 2.4.20's does; bonding cannot ask gmac (no do_ioctl).
#include "core/events.h"
#include "driver_gmac_harness.h"
#include "models/ether/link_faults.h"
#include "models/ether/pause.h"
#include <catch2/catch.hpp>
#include <cstring>

// This file's own names, apart from the other files of a unity batch.
namespace driver_gmac_test {
using namespace gmactest;
using namespace nicsim::gmacdrv;

namespace {
const std::array<uint8_t, 6> kGmacPeerMac = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55};

struct GmacSink {
  std::vector<sc_time> at;
  std::vector<uint32_t> len;
  std::vector<uint8_t> summed;
  std::vector<uint8_t> first_payload;  ///< byte 14 of the frame (make_frame's seed + 14)
  explicit GmacSink(Kernel& k) {
    k.dev_add_pack(ETH_P_IP, [this, &k](SkbPtr skb, NetDevice*) -> Task<int> {
      at.push_back(now());
      len.push_back(skb->len);
      summed.push_back(skb->ip_summed);
      first_payload.push_back(skb->len ? skb->data()[0] : 0);
      co_await k.kfree_skb(std::move(skb));
      co_return NET_RX_SUCCESS;
    });
  }
};

uint32_t le32(const uint8_t* p) { return p[0] | (p[1] << 8) | (p[2] << 16) | (uint32_t(p[3]) << 24); }
uint64_t le64(const uint8_t* p) { return uint64_t(le32(p)) | uint64_t(le32(p + 4)) << 32; }

/// gmac_mac_init's pause thresholds for a FIFO of 0x140 units: (1520 + 8) x 2 / 64 = 47 and x 3 / 64 = 71.
constexpr uint32_t kPth = (0x140u - 47u) | ((0x140u - 71u) << 12);
}  // namespace

TEST_CASE("gmac open: gmac_mac_init and gmac_start_dma program the chip as v1.5k4 writes it (66 MHz bus)", "[gmacdrv]") {
  Rig r;
  r.open();
  sc_core::sc_start(ms(kOpenDoneMs));
  REQUIRE(r.rc == 0);
  INFO("gmac_open took " << to_us(r.opened_at) / 1000 << " ms");
  CHECK(r.opened_at > ms(2 * 80));  // two gmac_start_dma, 4 x mdelay(20) each
  // IRQ mask: 0xffffffff (gmac_powerup_and_reset) with TX_INT_ME, TX_ALL, RX_DONE, RX_TAG_ERR,
  // MAC_RX, MIF and BUS_ERROR cleared.
  CHECK(r.nic->peek(gem::GREG_IMASK) == 0xfff97facu);
  CHECK(kIrqUnmasked == 0x00068053u);
  // MAC masks: out_le16 of 0xffff ("Mask out all MAC interrupts") into the low half of each word.
  REQUIRE(r.at(0x6020, true, 2).size() == 1);
  CHECK(r.at(0x6020, true, 2)[0].v == 0xffffu);
  REQUIRE(r.at(0x6024, true, 2).size() == 1);
  CHECK(r.at(0x6024, true, 2)[0].v == 0xffffu);
  CHECK((r.nic->peek(gem::MAC_TXMASK) & 0xffffu) == 0xffffu);
  CHECK((r.nic->peek(gem::MAC_RXMASK) & 0xffffu) == 0xffffu);
  CHECK(r.nic->peek(gem::MAC_MCMASK) == 0xffffffffu);  // never written (GM_MAC_CTRLSTAT_MASK is 0x6024): reset value
  CHECK(r.nic->peek(gem::RXDMA_BLANK) == ((5u << 0) | (8u << 12)));  // M66EN set: 8 units
  CHECK(r.nic->peek(gem::TXDMA_CFG) == ((0x7ffu << 10) | GM_TX_RING_SZ_64 | GM_TX_CONF_DMA_EN));
  CHECK(r.nic->peek(gem::RXDMA_CFG) == ((2u << 10) | (0x22u << 13) | (1u << 24) | GM_RX_RING_SZ_64 | 1u));
  CHECK(r.nic->peek(gem::GREG_CFG) == (1u | (31u << 1) | (31u << 6)));
  CHECK(r.nic->peek(gem::RXDMA_KICK) == NRX);
  CHECK(r.nic->peek(gem::RXDMA_PTHRESH) == kPth);
  CHECK(r.nic->peek(gem::MAC_SNDPAUSE) == GM_MAC_SND_PAUSE_DEFAULT);
  // RCV_PAUSE_EN from gmac_mac_init, SND_PAUSE_EN from mii_interrupt (the partner advertises pause).
  CHECK(r.nic->peek(gem::MAC_MCCFG) == (GM_MAC_CTRL_CONF_RCV_PAUSE_EN | GM_MAC_CTRL_CONF_SND_PAUSE_EN));
  // XIF: MII out + full-duplex LED, echo disabled at half duplex then enabled again, GMII.
  CHECK(r.nic->peek(gem::MAC_XIFCFG) == (GM_MAC_XIF_CONF_TX_MII_OUT_EN | GM_MAC_XIF_CONF_FULL_DPLX_LED | GM_MAC_XIF_CONF_GMII_MODE));
  CHECK(r.nic->peek(gem::MAC_TXCFG) ==
        (GM_MAC_TX_CONF_ENABLE | GM_MAC_TX_CONF_IGNORE_CARRIER | GM_MAC_TX_CONF_IGNORE_COLL));
  CHECK(r.nic->peek(gem::MAC_RXCFG) == (GM_MAC_RX_CONF_ENABLE | GM_MAC_RX_CONF_HASH_ENABLE));
  CHECK(r.nic->peek(gem::TXDMA_DBLOW) == uint32_t(r.g->txring()));
  CHECK(r.nic->peek(gem::RXDMA_DBLOW) == uint32_t(r.g->rxring()));
  CHECK(r.g->txring() % 2048 == 0);  // a page: the 2 KB alignment TXDMA_DBLOW needs
  // The station address (Open Firmware's) back in MAC_ADDR0..2, the PHY found and set up.
  CHECK(r.dev->dev_addr == r.nic->mac_address());
  const auto& a = r.dev->dev_addr;
  CHECK(r.nic->peek(gem::MAC_ADDR0) == (uint32_t(a[4]) << 8 | a[5]));
  CHECK(r.nic->peek(gem::MAC_ADDR2) == (uint32_t(a[0]) << 8 | a[1]));
  CHECK(r.g->phy_type() == PHY_B5411);
  CHECK((r.g->phy_id() & MII_BCM54XX_MASK) == MII_BCM5411_ID);
  CHECK(r.g->gigabit());
  CHECK(r.g->full_duplex());
  CHECK(r.dev->features == 0u);
  // gmac_start_dma ran twice (mii_interrupt restarted it on the gigabit/duplex change): two RX kicks of NRX.
  CHECK(r.rx_kicks() == std::vector<uint32_t>{NRX, NRX});
}

TEST_CASE("gmac open on a 33 MHz bus: GM_BIF_CFG read 8-bit, M66EN clear, RX_BLANK 5 packets / 4 units", "[gmacdrv]") {
  Rig r(100.0 / 3.0);
  r.open();
  sc_core::sc_start(ms(kOpenDoneMs));
  REQUIRE(r.rc == 0);
  CHECK(r.nic->peek(gem::RXDMA_BLANK) == ((5u << 0) | (4u << 12)));
  const auto reads = r.at(0x1008, false, 1);  // in_8 of GM_BIF_CFG
  REQUIRE(reads.size() == 1);
  CHECK((reads[0].v & GM_BIF_CFG_M66EN) == 0u);
  // 4 units x 2048 clocks at 33.33 MHz = 8 units at 66.67 MHz: the same 245.76 us.
  CHECK(to_us(gem::rx_blank_time(r.nic->pci_clock(), 4)) == Approx(245.76).epsilon(1e-6));
}

TEST_CASE("gmac open: gmac.h's slips as written: CTRLSTAT mask out_8 at 0x6024, hash cleared at + i", "[gmacdrv]") {
  Rig r;
  r.open();
  sc_core::sc_start(ms(kOpenDoneMs));
  REQUIRE(r.rc == 0);
  const auto b = r.at(0x6024, true, 1);
  REQUIRE(b.size() == 1);
  CHECK(b[0].v == 0xffu);
  CHECK(r.at(0x6028, true, 1).empty());
  CHECK(r.at(0x6028, true, 2).empty());
  CHECK(r.at(0x6028, true, 4).empty());
  // GM_MAC_ADDR_FILTER_HASH0 + i, i < 27: words 0x60c0 .. 0x60d4 four times, 0x60d8 three times,
  // then gmac_set_multicast's + 4 i once each over 0x60c0 .. 0x60fc.
  CHECK(r.at(0x60c0, true, 2).size() == 4 + 1);
  CHECK(r.at(0x60d4, true, 2).size() == 4 + 1);
  CHECK(r.at(0x60d8, true, 2).size() == 3 + 1);
  CHECK(r.at(0x60dc, true, 2).size() == 1);
  CHECK(r.at(0x60fc, true, 2).size() == 1);
  // The kicks and TX completion are 16-bit registers; GM_IRQ_MASK 32-bit.
  CHECK(reg_width(GM_TX_KICK) == 2);
  CHECK(reg_width(GM_RX_KICK) == 2);
  CHECK(reg_width(GM_BIF_CFG) == 1);
}

TEST_CASE("gmac rings: RX descriptors as stored on a big-endian CPU (st_le32 size, buffer 32-byte aligned)", "[gmacdrv]") {
  Rig r;
  r.open();
  sc_core::sc_start(ms(kOpenDoneMs));
  REQUIRE(r.rc == 0);
  for (unsigned i : {0u, 1u, 63u}) {
    const auto d = r.desc(r.g->rxring() + 16u * i);
    // RX_SZ_OWN | (RX_BUF_ALLOC_SIZE - RX_OFFSET) << 16 = 0x860A0000, stored little-endian.
    CHECK(d[0] == 0x00);
    CHECK(d[1] == 0x00);
    CHECK(d[2] == 0x0A);
    CHECK(d[3] == 0x86);
    CHECK(le32(d.data() + 4) == 0u);  // flags: gmac_init_rings' memset
    CHECK(le32(d.data() + 8) == uint32_t(r.g->rx_buffer(i)));
    CHECK(le32(d.data() + 12) == 0u);
    CHECK(r.g->rx_buffer(i) % GMAC_BUFFER_ALIGN == 0);
    // The chip's reading: BUFSZ 1546, OWN set.
    const uint64_t st = le64(d.data());
    CHECK(((st & gem::RXDCTRL_BUFSZ) >> gem::RXDCTRL_BUFSZ_SHIFT) == RX_BUF_ALLOC_SIZE - RX_OFFSET);
    CHECK((st & gem::RXDCTRL_OWN) != 0u);
  }
}

TEST_CASE("gmac xmit: TX_FL_INTERRUPT stored natively lands in byte 7 (control bit 56): no TX_INT_ME, TX_ALL reaps",
          "[gmacdrv]") {
  Rig r;
  bool sent = false;
  uint64_t skb_bus = 0;
  auto app = [&]() -> Task<void> {
    const int rc = co_await r.k->dev_open(*r.dev);
    if (rc != 0) co_return;
    EthFrame f = drvtest::make_frame(kGmacPeerMac, r.dev->dev_addr, 600, 3);
    SkbPtr s = co_await r.k->alloc_skb(700);
    std::memcpy(s->put(600), f.bytes.data(), 600);
    s->dev = r.dev.get();
    skb_bus = s->data_phys();
    const int x = co_await r.dev->hard_start_xmit(s);
    sent = x == 0;
  };
  std::function<Task<void>()> keep = app;
  r.k->spawn_process("app", keep());
  sc_core::sc_start(ms(kOpenDoneMs));
  REQUIRE(sent);
  REQUIRE(r.peer.rx.size() == 1);
  CHECK(r.peer.rx[0].f.bytes.size() == 600);
  const auto d = r.desc(r.g->txring());
  // size: st_le32(TX_SZ_SOP | TX_SZ_EOP | 600) = 0xC0000258 -> 58 02 00 C0
  CHECK(std::vector<uint8_t>(d.begin(), d.begin() + 4) == std::vector<uint8_t>{0x58, 0x02, 0x00, 0xC0});
  // flags: the plain big-endian store of TX_FL_INTERRUPT -> 00 00 00 01
  CHECK(std::vector<uint8_t>(d.begin() + 4, d.begin() + 8) == std::vector<uint8_t>{0x00, 0x00, 0x00, 0x01});
  CHECK(le32(d.data() + 8) == uint32_t(skb_bus));
  CHECK(le32(d.data() + 12) == 0u);
  const uint64_t ctrl = le64(d.data());
  CHECK((ctrl & gem::TXDCTRL_INTME) == 0u);
  CHECK((ctrl >> 56) == 1u);
  CHECK((ctrl & gem::TXDCTRL_SOF) != 0u);
  CHECK((ctrl & gem::TXDCTRL_EOF) != 0u);
  auto& c = sim().counters;
  CHECK(c.get("alpha_eth0.tx_intme") == 0u);
  CHECK(c.get("alpha_eth0.tx_all") == 1u);
  CHECK(c.get("alpha.eth0.driver.intr") == 1u);
  CHECK(c.get("alpha.eth0.driver.tx_cleaned") == 1u);
  CHECK(c.get("alpha.eth0.driver.tx_comp_reads") == 1u);  // gone = 1 after freeing entry 0: the loop ends
  CHECK(c.get("alpha.eth0.driver.tx_cleanup_at_comp") == 0u);
  CHECK(r.g->tx_gone() == 1u);
  CHECK(r.g->next_tx() == 1u);
  CHECK(r.nic->peek(gem::TXDMA_KICK) == 1u);
  CHECK(r.dev->stats.tx_packets == 1u);
  CHECK(r.dev->stats.tx_bytes == 600u);
}

TEST_CASE("gmac RX: 20 frames 20 us apart: RX_DONE at once for the first, then per 5 packets, the last 4 by the time",
          "[gmacdrv]") {
  Rig r;
  GmacSink sink(*r.k);
  r.open();
  const unsigned n = 20;
  for (unsigned i = 0; i < n; ++i)
    drvtest::at_time(ms(kOpenDoneMs) + us(20) * i, [&r, i] { r.peer.end->transmit(r.to_nic(1000, uint8_t(i)), now()); });
  sc_core::sc_start(ms(kOpenDoneMs + 5));
  REQUIRE(r.rc == 0);
  REQUIRE(sink.at.size() == n);
  auto& c = sim().counters;
  // RX_BLANK 5 packets | 8 units (245.76 us), both since the previous RX_DONE: frame 0 comes long
  // after the last one (none), so it raises RX_DONE at once; frames 1-5, 6-10, 11-15 by the packet
  // count (5 frames take 100 us); 16-19 when 8 units have passed since frame 15's.
  CHECK(c.get("alpha_eth0.rx_done.IPKTS") == 3u);
  CHECK(c.get("alpha_eth0.rx_done.ITIME") == 2u);
  CHECK(c.get("alpha.eth0.driver.intr") == 5u);
  CHECK(c.get("alpha.eth0.driver.status_reads") == 5u);  // one GM_IRQ_STATUS read per interrupt
  CHECK(c.get("alpha.eth0.driver.rx_frames") == n);
  CHECK(c.get("alpha.eth0.driver.rx_copybreak") == 0u);
  for (auto s : sink.summed) CHECK(s == CHECKSUM_NONE);
  // The frame (with its FCS: skb_trim to the descriptor length) less the Ethernet header.
  CHECK(sink.len.front() == 1000u + 4u - ETH_HLEN);
  for (unsigned i = 0; i < n; ++i) CHECK(sink.first_payload[i] == uint8_t(i + 14));
  // Kicks: NRX twice at open, then last & ~3 after each gmac_receive: lasts 0, 5, 10, 15, 19.
  CHECK(r.rx_kicks() == std::vector<uint32_t>{64, 64, 0, 4, 8, 12, 16});
  CHECK(r.g->next_rx() == n);
  CHECK(r.dev->stats.rx_packets == n);
}

TEST_CASE("gmac RX: copybreak at RX_COPY_THRESHOLD 256 of the descriptor length, which counts the FCS", "[gmacdrv]") {
  Rig r;
  GmacSink sink(*r.k);
  r.open();
  // 252 + 4 = 256: copied into a small skb; 253 + 4 = 257: the ring skb goes up, a new one replaces it.
  const std::vector<unsigned> lens = {252, 253, 100, 1514, 252};
  for (unsigned i = 0; i < lens.size(); ++i)
    drvtest::at_time(ms(kOpenDoneMs) + us(50) * i, [&r, i, &lens] { r.peer.end->transmit(r.to_nic(lens[i], uint8_t(i)), now()); });
  sc_core::sc_start(ms(kOpenDoneMs + 5));
  REQUIRE(sink.at.size() == lens.size());
  CHECK(sim().counters.get("alpha.eth0.driver.rx_copybreak") == 3u);  // 252, 100, 252
  CHECK(sink.len[0] == 252u + 4u - ETH_HLEN);
  CHECK(sink.len[1] == 253u + 4u - ETH_HLEN);
  CHECK(sink.len[2] == 100u + 4u - ETH_HLEN);
  // 1514 + 4 = 1518 exceeds the 1516 bytes skb_put gave the ring skb: skb_trim cannot lengthen it.
  CHECK(sink.len[3] == ETH_FRAME_LEN + RX_OFFSET - ETH_HLEN);
  for (auto s : sink.summed) CHECK(s == CHECKSUM_NONE);
  for (unsigned i = 0; i < lens.size(); ++i) CHECK(sink.first_payload[i] == uint8_t(i + 14));
}

TEST_CASE("gmac RX: frames 1 ms apart each raise RX_DONE at once (the 8-unit time since the previous RX_DONE has run out)",
          "[gmacdrv]") {
  Rig r;
  GmacSink sink(*r.k);
  r.open();
  for (unsigned i = 0; i < 3; ++i)
    drvtest::at_time(ms(kOpenDoneMs) + ms(1) * i, [&r, i] { r.peer.end->transmit(r.to_nic(500, uint8_t(i)), now()); });
  sc_core::sc_start(ms(kOpenDoneMs + 4));
  REQUIRE(sink.at.size() == 3);
  auto& c = sim().counters;
  CHECK(c.get("alpha_eth0.rx_done.ITIME") == 3u);
  CHECK(c.get("alpha.eth0.driver.intr") == 3u);
  // Each gmac_receive handled one descriptor: last 0, 1, 2 -> kicks 0, 0, 0.
  CHECK(r.rx_kicks() == std::vector<uint32_t>{64, 64, 0, 0, 0});
}

TEST_CASE("gmac RX: 300 frames wrap the 64-entry ring, the kicks stay a multiple of 4 behind and none is lost",
          "[gmacdrv]") {
  // The RX rule (chip uses descriptors from RXDMA_DONE while it differs from KICK) against what gmac
  // writes: NRX first, then last & ~3 after every gmac_receive.
  Rig r;
  GmacSink sink(*r.k);
  r.open();
  const unsigned n = 300;
  for (unsigned i = 0; i < n; ++i)  // back to back at line rate (1518-byte frames: 12.3 us each on the wire)
    drvtest::at_time(ms(kOpenDoneMs) + us(12.5) * i, [&r, i] { r.peer.end->transmit(r.to_nic(1514, uint8_t(i)), now()); });
  sc_core::sc_start(ms(kOpenDoneMs + 20));
  REQUIRE(sink.at.size() == n);
  for (unsigned i = 0; i < n; ++i) CHECK(sink.first_payload[i] == uint8_t(i + 14));
  const auto kicks = r.rx_kicks();
  REQUIRE(kicks.size() > 2);
  for (size_t i = 2; i < kicks.size(); ++i) {
    CHECK(kicks[i] % 4 == 0);
    CHECK(kicks[i] < NRX);
  }
  CHECK(sim().counters.get("alpha_eth0.rx_overflow") == 0u);
  CHECK(r.g->next_rx() == n % NRX);
}

TEST_CASE("gmac xmit: with the TX MAC paused the 64 slots fill, netif_stop_queue, the next xmit is refused (busy)",
          "[gmacdrv]") {
  Rig r;
  unsigned accepted = 0, busy = 0;
  bool stopped_after = false;
  auto app = [&]() -> Task<void> {
    const int rc = co_await r.k->dev_open(*r.dev);
    if (rc != 0) co_return;
    // The partner's XOFF (pause_time 0xffff quanta = 33.5 ms at 1 Gb/s): GM_MAC_CTRL_CONF_RCV_PAUSE_EN obeys it.
    r.peer.end->transmit(make_pause_frame(kGmacPeerMac, 0xffff), now());
    co_await CpuBurn{us(50)};
    for (unsigned i = 0; i < 100; ++i) {
      EthFrame f = drvtest::make_frame(kGmacPeerMac, r.dev->dev_addr, 1514, uint8_t(i));
      SkbPtr s = co_await r.k->alloc_skb(1600);
      std::memcpy(s->put(1514), f.bytes.data(), 1514);
      s->dev = r.dev.get();
      const int x = co_await r.dev->hard_start_xmit(s);
      if (x == 0) {
        ++accepted;
      } else {
        ++busy;
        break;
      }
    }
    stopped_after = r.dev->netif_queue_stopped();
  };
  std::function<Task<void>()> keep = app;
  r.k->spawn_process("app", keep());
  sc_core::sc_start(ms(kOpenDoneMs + 60));
  auto& c = sim().counters;
  INFO("accepted " << accepted << ", TX FIFO " << r.nic->params().tx_fifo_bytes << " bytes");
  CHECK(busy == 1u);
  CHECK(stopped_after);
  CHECK(accepted >= NTX);
  CHECK(accepted < 100u);
  CHECK(c.get("alpha.eth0.driver.tx_busy") == 1u);
  CHECK(c.get("alpha.eth0.driver.tx_queue_stops") >= 2u);  // the stop after the 64th slot, then the refusal
  // After the pause every accepted frame goes out and gmac_tx_cleanup wakes the queue.
  CHECK(r.peer.rx.size() == accepted);
  CHECK(c.get("alpha.eth0.driver.tx_cleaned") == accepted);
  CHECK_FALSE(r.dev->netif_queue_stopped());
  CHECK(c.get("alpha_eth0.tx_intme") == 0u);
}

TEST_CASE("gmac close: gmac_stop_dma masks every source and disables the DMA and MACs, the rings' skbs are freed",
          "[gmacdrv]") {
  Rig r;
  int rc2 = -99;
  auto app = [&]() -> Task<void> {
    const int orc = co_await r.k->dev_open(*r.dev);
    if (orc) co_return;
    rc2 = co_await r.dev->stop();
  };
  std::function<Task<void>()> keep = app;
  r.k->spawn_process("app", keep());
  sc_core::sc_start(ms(kOpenDoneMs + 200));
  REQUIRE(rc2 == 0);
  CHECK(r.nic->peek(gem::GREG_IMASK) == 0xffffffffu);
  CHECK((r.nic->peek(gem::TXDMA_CFG) & GM_TX_CONF_DMA_EN) == 0u);
  CHECK((r.nic->peek(gem::RXDMA_CFG) & GM_RX_CONF_DMA_EN) == 0u);
  CHECK((r.nic->peek(gem::MAC_TXCFG) & GM_MAC_TX_CONF_ENABLE) == 0u);
  CHECK((r.nic->peek(gem::MAC_RXCFG) & GM_MAC_RX_CONF_ENABLE) == 0u);
  CHECK(r.nic->peek(gem::MIF_MASK) == 0xffffu);  // mii_poll_stop
}

TEST_CASE("gmac stats: gmac_stats folds the CRC and collision counters in and zeroes them", "[gmacdrv]") {
  Rig r;
  bool done = false;
  auto app = [&]() -> Task<void> {
    const int orc = co_await r.k->dev_open(*r.dev);
    if (orc) co_return;
    co_await r.g->get_stats();
    done = true;
  };
  std::function<Task<void>()> keep = app;
  r.k->spawn_process("app", keep());
  sc_core::sc_start(ms(kOpenDoneMs));
  REQUIRE(done);
  CHECK(r.at(0x6124, false, 2).size() == 1);  // GM_MAC_RX_CRC_ERR_CTR read
  CHECK(r.at(0x6108, false, 2).size() == 2);  // GM_MAC_EXCS_COLLISION_CTR read twice, as gmac_stats does
  CHECK(r.dev->stats.rx_crc_errors == 0u);
  CHECK(r.dev->stats.collisions == 0u);
}

TEST_CASE("gmac probe: the entry binds the GMAC device and takes its interrupt", "[gmacdrv]") {
  TestHost hw{"beta"};
  gem::GemParams p;
  auto nic = std::make_unique<gem::Gmac>("beta_eth0", p);
  auto vec = hw.attach("pci", *nic);
  Kernel k(hw, g4_kernel_params("beta"));
  const DriverEntry* de = drvtest::driver(kDriverName);
  REQUIRE(de);
  CHECK(de->devices == std::vector<std::string>{"GMAC"});
  ParamValues pv(de->params);
  auto devs = de->probe(k, *nic, vec, drvtest::nic_config("beta", "eth0", "GMAC", de->name), pv);
  CHECK(devs.size() == 1);
  CHECK(devs[0]->irq == vec[0]);
}

TEST_CASE("gmac RX_BLANK what-if: rx_blank_pkts 10 and rx_blank_time 255 in GM_RX_BLANK", "[gmacdrv]") {
  Rig r(200.0 / 3.0, true, {{"rx_blank_pkts", int64_t{10}}, {"rx_blank_time", int64_t{255}}});
  GmacSink sink(*r.k);
  r.open();
  const unsigned n = 21;
  for (unsigned i = 0; i < n; ++i)
    drvtest::at_time(ms(kOpenDoneMs) + us(20) * i, [&r, i] { r.peer.end->transmit(r.to_nic(1000, uint8_t(i)), now()); });
  sc_core::sc_start(ms(kOpenDoneMs + 5));
  REQUIRE(r.rc == 0);
  CHECK(r.nic->peek(gem::RXDMA_BLANK) == (10u | 255u << 12));
  REQUIRE(sink.at.size() == n);
  // 255 units = 7.83 ms: frame 0 comes after no RX_DONE at all (by the time), frames 1-10 and
  // 11-20 by the packet count, 200 µs apart, far inside the time limit.
  auto& c = sim().counters;
  CHECK(c.get("alpha_eth0.rx_done.ITIME") == 1u);
  CHECK(c.get("alpha_eth0.rx_done.IPKTS") == 2u);
  CHECK(c.get("alpha.eth0.driver.intr") == 3u);
}


TEST_CASE("gmac link: the MIF poll interrupt runs mii_interrupt, which turns the carrier off when the PHY declares "
          "a pull and on when the link is back",
          "[gmac][link]") {
  run_events().clear();
  Rig r;
  LinkFaults f(*r.link);
  const PhyTimers pt = phy_timers(1000);
  const sc_time pull = ms(20), down = pull + pt.link_fail(f.master(0));
  const sc_time plug = down + ms(10), up = plug + pt.link_up;
  f.schedule_cable(pull, false);
  f.schedule_cable(plug, true);
  r.open();
  sc_core::sc_start(down - us(1));
  REQUIRE(r.rc == 0);
  CHECK(r.dev->netif_carrier_ok());
  CHECK(r.g->phy_link_seen());
  sc_core::sc_start(down + ms(1) - now());
  CHECK_FALSE(r.dev->netif_carrier_ok());
  CHECK_FALSE(r.g->phy_link_seen());
  CHECK(r.dev->mii_link_status() == -95);  // no do_ioctl: 2.4.20 bonding spoofs the link up
  std::vector<double> off, on;
  for (const auto& e : run_events().events()) {
    if (e.what == "carrier off" && e.where == "alpha.eth0") off.push_back(to_s(e.at));
    if (e.what == "carrier on" && e.where == "alpha.eth0") on.push_back(to_s(e.at));
  }
  REQUIRE(off.size() == 1);
  // The next MIF poll after the PHY's change (one MIF frame at most), then the handler: gmac_interrupt,
  // mii_interrupt's poll stop and start (udelay(GM_MIF_POLL_DELAY) = 200 µs each) and its MIF reads
  // (MII_SR, MII_ANLPA, the BCM5411's AUXSTATUS: a MIF frame each), with 200 µs for the CPU work.
  const sc_time handler = us(2 * 200) + gem::GemParams{}.mif_frame * 4.0 + us(200);
  CHECK(off[0] > to_s(down));
  CHECK(off[0] < to_s(down + gem::GemParams{}.mif_frame + handler));
  sc_core::sc_start(up + ms(1) - now());
  CHECK(r.dev->netif_carrier_ok());
  CHECK(r.g->phy_link_seen());
  on.clear();
  for (const auto& e : run_events().events())
    if (e.what == "carrier on" && e.where == "alpha.eth0") on.push_back(to_s(e.at));
  REQUIRE(on.size() == 1);
  CHECK(on[0] > to_s(up));
  CHECK(on[0] < to_s(up + gem::GemParams{}.mif_frame + handler));
}

}  // namespace driver_gmac_test
