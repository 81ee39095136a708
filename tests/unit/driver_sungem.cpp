// sungem v0.95 / v0.96 driver models against the GMAC model (models/nic/gem) on a big-endian host:
// what each version writes at open (GREG_IMASK, the MAC event masks, RXDMA_BLANK, TXDMA_CFG,
// RXDMA_CFG, RXDMA_PTHRESH, ...), the descriptor bytes in memory, and traffic: which GREG_STAT
// bits each interrupt reads, the interrupts and PIO reads per interrupt, copybreak, CHECKSUM_HW.
// Link loss ("sungem link" cases): v0.96's 1.2 s gem_link_timer finds the PHY's loss, resets the
// chip in gem_reset_task and starts the DMA again only when it finds the link back; ETHTOOL_GLINK
// follows lstate; v0.95 never looks again once it has the link.
#include "core/events.h"
#include "models/ether/link_faults.h"
#include "drivers-sim/drivers/sungem/sungem.h"
#include "drivers-sim/kernel/byteorder.h"
#include "models/nic/gem/gem.h"
#include "tests/unit/driver_e1000_harness.h"
#include <catch2/catch.hpp>
#include <cstring>

// This file's own names, apart from the other files of a unity batch.
namespace driver_sungem_test {
using namespace nicsim;
using namespace nicsim::sungemdrv;

using drvtest::Peer;
using drvtest::TestHost;

namespace {
const std::array<uint8_t, 6> kSungemPeerMac = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55};
constexpr const char* kPfx = "g4.eth0.driver.";

/// One GMAC on a TestHost with a big-endian 800 MHz PowerPC kernel (cost profile linux-2.4-ppc7450),
/// probed by `driver`, cabled at 1000 Mb/s to a Peer; open() runs ifup.
struct Rig {
  TestHost hw{"g4"};
  std::unique_ptr<gem::Gmac> nic;
  std::vector<unsigned> vec;
  std::unique_ptr<Kernel> k;
  Peer peer;
  std::unique_ptr<EthLink> link;
  std::shared_ptr<NetDevice> dev;
  Gem* g = nullptr;
  int rc = -99;

  /// `set`: driver parameters over the DriverEntry's defaults (the RX_BLANK what-if).
  explicit Rig(const char* driver, const gem::GemParams& p = {},
               const std::vector<std::pair<std::string, ParamValue>>& set = {}) {
    nic = std::make_unique<gem::Gmac>("g4_eth0", p);
    vec = hw.attach("pci", *nic);
    KernelParams kp = drvtest::kernel_params("g4");
    kp.cpu_mhz = 800;
    kp.byte_order = ByteOrder::big;
    kp.cost_profile = "linux-2.4-ppc7450";
    k = std::make_unique<Kernel>(hw, kp);
    const DriverEntry* de = drvtest::driver(driver);
    REQUIRE(de);
    ParamValues pv(de->params);
    for (const auto& [name, v] : set) pv.set(name, v);
    auto devs = de->probe(*k, *nic, vec, drvtest::nic_config("g4", "eth0", "GMAC", de->name), pv);
    REQUIRE(devs.size() == 1);
    dev = devs[0];
    g = dynamic_cast<Gem*>(dev.get());
    REQUIRE(g);
    link = std::make_unique<EthLink>("link", 1000, 2.0, *nic, peer);
  }
  void open() {
    ifup_ = [this]() -> Task<void> { rc = co_await k->dev_open(*dev); };
    k->spawn_process("ifup", ifup_());
  }
  EthFrame to_nic(unsigned len, uint8_t seed = 1) const { return drvtest::make_frame(dev->dev_addr, kSungemPeerMac, len, seed); }
  uint64_t bar() const { return nic->bar(0); }
  uint64_t counter(const char* what) const { return sim().counters.get(std::string(kPfx) + what); }
  /// The values the driver read from register `off` at or after `from`.
  std::vector<uint32_t> reads(uint32_t off, sc_time from = SC_ZERO_TIME) const {
    std::vector<uint32_t> v;
    for (const auto& m : hw.mmio)
      if (!m.write && m.addr == bar() + off && m.t >= from) v.push_back(m.v);
    return v;
  }
  std::array<uint8_t, 16> desc(uint64_t addr) const {
    std::array<uint8_t, 16> b{};
    hw.mem_read(addr, b.data(), 16);
    return b;
  }

 private:
  std::function<Task<void>()> ifup_;
};

struct SungemSink {
  std::vector<uint32_t> len, csum;
  std::vector<uint8_t> summed;
  explicit SungemSink(Kernel& k) {
    k.dev_add_pack(ETH_P_IP, [this, &k](SkbPtr skb, NetDevice*) -> Task<int> {
      len.push_back(skb->len);
      csum.push_back(skb->csum);
      summed.push_back(skb->ip_summed);
      co_await k.kfree_skb(std::move(skb));
      co_return NET_RX_SUCCESS;
    });
  }
};

uint64_t sungem_le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}
// The link timer fires 12 * HZ / 10 jiffies after open (v0.95) or probe (v0.96): DMA runs after it.
const sc_time kUp = ms(1400);
}  // namespace

TEST_CASE("sungem-0.95 open: the registers as v0.95 writes them, DMA started by the link timer", "[sungemdrv]") {
  Rig r(kDriverName095);
  r.open();
  sc_core::sc_start(ms(600));
  REQUIRE(r.rc == 0);
  // Before the link timer: gem_stop's mask is still in place, DMA off.
  CHECK(r.nic->peek(GREG_IMASK) == 0xffffffffu);
  CHECK((r.nic->peek(TXDMA_CFG) & TXDMA_CFG_ENABLE) == 0);
  CHECK_FALSE(r.g->link_up());
  sc_core::sc_start(kUp - ms(600));
  REQUIRE(r.g->link_up());
  CHECK(r.nic->peek(GREG_IMASK) == GREG_STAT_TXDONE);
  // The MAC masks written as if 1 = enable: only XMIT (bit 0) and RCV (bit 0) left unmasked.
  CHECK(r.nic->peek(MAC_TXMASK) == 0x1fe);
  CHECK(r.nic->peek(MAC_RXMASK) == 0x7e);
  CHECK(r.nic->peek(MAC_MCMASK) == 0);
  // M66EN as sungem tests it (0x04) reads 0 with the model's default "gmac" reading: 33 MHz units.
  CHECK((r.nic->peek(GREG_BIFCFG) & GREG_BIFCFG_M66EN) == 0);
  CHECK(r.nic->peek(RXDMA_BLANK) == (6u | 2u << 12));
  CHECK(r.nic->peek(TXDMA_CFG) == (TXDMA_CFG_RINGSZ_128 | 0x7ffu << 10 | TXDMA_CFG_PMODE | TXDMA_CFG_ENABLE));
  CHECK(r.nic->peek(RXDMA_CFG) ==
        (RXDMA_CFG_RINGSZ_128 | 2u << 10 | 7u << 13 | RXDMA_CFG_FTHRESH_512 | RXDMA_CFG_ENABLE));
  // Pause thresholds from the 20 KB RX FIFO: off 15 KB, on 14 KB, in 64-byte units.
  CHECK(r.nic->peek(RXDMA_PTHRESH) == (240u | 224u << 12));
  CHECK((r.nic->peek(GREG_BIFCFG) & GREG_BIFCFG_B64DIS) != 0);  // v0.95's "XXX Why do I do this?"
  CHECK(r.nic->peek(GREG_CFG) == (GREG_CFG_IBURST | 31u << 1 | 31u << 6));
  CHECK(r.nic->peek(MAC_MCCFG) == (MAC_MCCFG_SPE | MAC_MCCFG_RPE));  // the partner's LPA advertises pause
  CHECK(r.nic->peek(MAC_TXCFG) == (MAC_TXCFG_EIPG0 | MAC_TXCFG_NGU | MAC_TXCFG_ICS | MAC_TXCFG_ICOLL | MAC_TXCFG_ENAB));
  CHECK(r.nic->peek(MAC_XIFCFG) == (MAC_XIFCFG_OE | MAC_XIFCFG_LLED | MAC_XIFCFG_FLED | MAC_XIFCFG_GMII));
  CHECK(r.nic->peek(RXDMA_KICK) == RX_RING_SIZE - 4);
  CHECK(r.nic->peek(MAC_MAXFSZ) == (0x20000000u | 1518));
  CHECK(r.dev->features == (NETIF_F_SG | NETIF_F_HW_CSUM));
  CHECK(r.dev->dev_addr == r.nic->mac_address());
  CHECK(r.nic->rx_ring_entries() == 128);
  CHECK(r.nic->tx_ring_entries() == 128);
}

TEST_CASE("sungem-0.96 open: flipped MAC masks, RX_BLANK 5/4, PTHRESH still 0 at the first open", "[sungemdrv]") {
  Rig r(kDriverName096);
  r.open();
  sc_core::sc_start(kUp);
  REQUIRE(r.rc == 0);
  REQUIRE(r.g->link_up());
  CHECK(r.nic->peek(GREG_IMASK) == GREG_STAT_TXDONE);
  CHECK(r.nic->peek(MAC_TXMASK) == MAC_TXSTAT_XMIT);
  CHECK(r.nic->peek(MAC_RXMASK) == MAC_RXSTAT_RCV);
  CHECK(r.nic->peek(MAC_MCMASK) == 0xffffffffu);
  CHECK(r.nic->peek(RXDMA_BLANK) == (5u | 4u << 12));
  CHECK(r.nic->peek(TXDMA_CFG) == (TXDMA_CFG_RINGSZ_128 | 0x7ffu << 10 | TXDMA_CFG_PMODE | TXDMA_CFG_ENABLE));
  CHECK(r.nic->peek(RXDMA_CFG) ==
        (RXDMA_CFG_RINGSZ_128 | 2u << 10 | 7u << 13 | RXDMA_CFG_FTHRESH_512 | RXDMA_CFG_ENABLE));
  // gem_init_dma writes rx_pause_off/on before gem_init_pause_thresholds computes them, and the
  // Apple gem_check_invariants of v0.96 no longer computes them: 0 at the first open.
  CHECK(r.nic->peek(RXDMA_PTHRESH) == 0);
  CHECK(r.g->rx_pause_off() == 15 * 1024);
  CHECK(r.g->rx_pause_on() == 14 * 1024);
  CHECK((r.nic->peek(GREG_BIFCFG) & GREG_BIFCFG_B64DIS) == 0);
  CHECK(r.nic->peek(GREG_CFG) == (GREG_CFG_IBURST | 31u << 1 | 31u << 6));
  CHECK(r.nic->peek(MAC_MCCFG) == (MAC_MCCFG_SPE | MAC_MCCFG_RPE));
  // The link timer keeps running: BMSR reads every 1.2 s.
  const size_t before = r.reads(MIF_FRAME).size();
  sc_core::sc_start(ms(2500));
  CHECK(r.reads(MIF_FRAME).size() > before);
}

TEST_CASE("sungem RX descriptors: cpu_to_le64 on big-endian PowerPC lands little-endian in memory", "[sungemdrv]") {
  Rig r(kDriverName095);
  r.open();
  sc_core::sc_start(ms(100));
  REQUIRE(r.rc == 0);
  const uint64_t fresh = rxdctrl_fresh(1500);
  CHECK(fresh == ((uint64_t(1610) << 16) | RXDCTRL_OWN));
  for (unsigned i : {0u, 1u, 127u}) {
    INFO(i);
    const auto d = r.desc(r.g->rxd_addr(i));
    CHECK(sungem_le64(d.data()) == fresh);
    CHECK(d[0] == 0x00);
    CHECK(d[2] == 0x4a);
    CHECK(d[3] == 0x86);  // OWN | 1610 >> 8 ... in the status word's third and fourth bytes
    const uint64_t buf = sungem_le64(d.data() + 8);
    CHECK(buf % 64 == 0);  // gem_alloc_skb: 64-byte aligned data
    CHECK(buf != 0);
  }
  CHECK(r.g->rxd_addr(0) == r.g->init_block() + 128 * 16);
  CHECK(r.g->init_block() % 4096 == 0);
}

TEST_CASE("sungem TX descriptor: SOF|EOF|len, CENAB with start and stuff offsets, INTME only in v0.96 at entry 0",
          "[sungemdrv]") {
  Rig r(kDriverName096);
  bool sent = false;
  auto app = [&]() -> Task<void> {
    if (co_await r.k->dev_open(*r.dev) != 0) co_return;
    WaitQueue wq;
    co_await r.k->schedule_timeout(wq, 150);  // past the link timer
    EthFrame f = drvtest::make_frame(kSungemPeerMac, r.dev->dev_addr, 600, 3);
    SkbPtr s = co_await r.k->alloc_skb(700);
    std::memcpy(s->put(600), f.bytes.data(), 600);
    s->dev = r.dev.get();
    s->ip_summed = CHECKSUM_HW;
    s->h_off = s->data_off + 14 + 20;
    s->csum = 16;
    sent = co_await r.dev->hard_start_xmit(s) == 0;
  };
  std::function<Task<void>()> keep = app;
  r.k->spawn_process("app", keep());
  sc_core::sc_start(ms(1700));
  REQUIRE(sent);
  REQUIRE(r.peer.rx.size() == 1);
  const auto d = r.desc(r.g->txd_addr(0));
  const uint64_t ctrl = sungem_le64(d.data());
  CHECK((ctrl & TXDCTRL_BUFSZ) == 600);
  CHECK((ctrl & TXDCTRL_SOF) != 0);
  CHECK((ctrl & TXDCTRL_EOF) != 0);
  CHECK((ctrl & TXDCTRL_CENAB) != 0);
  CHECK(((ctrl >> 15) & 0x3f) == 34);  // csum_start_off = h.raw - data
  CHECK(((ctrl >> 21) & 0xff) == 50);  // csum_stuff_off = h.raw + csum - data
  CHECK((ctrl & TXDCTRL_INTME) != 0);  // gem_intme(0)
  CHECK(d[4] == 0x01);                 // INTME is bit 32: the fifth byte of the little-endian word
  CHECK(sungem_le64(d.data() + 8) != 0);
  CHECK(r.nic->peek(TXDMA_KICK) == 1);
  // The completion: TXINTME with TXALL in the GREG_STAT the ISR read, no TXMAC (XMIT masked).
  bool intme = false, txmac = false;
  for (uint32_t s : r.reads(GREG_STAT)) {
    intme |= (s & GREG_STAT_TXINTME) != 0;
    txmac |= (s & GREG_STAT_TXMAC) != 0;
  }
  CHECK(intme);
  CHECK_FALSE(txmac);
  CHECK(r.counter("tx_cleaned") == 1);
  CHECK(r.counter("txmac_reads") == 0);
}

TEST_CASE("sungem-0.95 TX: no INTME, every frame's XMIT raises TXMAC and a MAC_TXSTAT read", "[sungemdrv]") {
  Rig r(kDriverName095);
  constexpr unsigned kN = 8;
  unsigned sent = 0;
  auto app = [&]() -> Task<void> {
    if (co_await r.k->dev_open(*r.dev) != 0) co_return;
    WaitQueue wq;
    co_await r.k->schedule_timeout(wq, 150);
    for (unsigned i = 0; i < kN; ++i) {
      EthFrame f = drvtest::make_frame(kSungemPeerMac, r.dev->dev_addr, 1000, uint8_t(i));
      SkbPtr s = co_await r.k->alloc_skb(1100);
      std::memcpy(s->put(1000), f.bytes.data(), 1000);
      s->dev = r.dev.get();
      if (co_await r.dev->hard_start_xmit(s) == 0) ++sent;
      co_await r.k->schedule_timeout(wq, 1);  // one frame per tick
    }
  };
  std::function<Task<void>()> keep = app;
  r.k->spawn_process("app", keep());
  sc_core::sc_start(ms(1700));
  REQUIRE(sent == kN);
  REQUIRE(r.peer.rx.size() == kN);
  for (unsigned i = 0; i < kN; ++i) CHECK((sungem_le64(r.desc(r.g->txd_addr(i)).data()) & TXDCTRL_INTME) == 0);
  // Each frame: XMIT -> TXMAC (unmasked), the TX FIFO drained -> TXALL (PMODE): one interrupt that
  // reads GREG_STAT and MAC_TXSTAT and reaps.
  CHECK(r.counter("intr") >= kN);
  CHECK(r.counter("txmac_reads") == kN);
  CHECK(r.reads(MAC_TXSTAT).size() == kN);
  CHECK(r.counter("tx_cleaned") == kN);
  bool intme = false;
  for (uint32_t s : r.reads(GREG_STAT)) intme |= (s & GREG_STAT_TXINTME) != 0;
  CHECK_FALSE(intme);
}

namespace {
struct RxRun {
  uint64_t intr, rxmac_reads, stat_reads, stat_with_rxmac, stat_with_rxdone, delivered, copybreak;
};
RxRun rx_burst(const char* drv, unsigned n, unsigned len, sc_time gap,
               const std::vector<std::pair<std::string, ParamValue>>& set = {}) {
  Rig r(drv, {}, set);
  SungemSink sink(*r.k);
  r.open();
  for (unsigned i = 0; i < n; ++i)
    drvtest::at_time(kUp + gap * i, [&r, len, i] { r.peer.end->transmit(r.to_nic(len, uint8_t(i)), now()); });
  sc_core::sc_start(kUp + gap * n + ms(5));
  REQUIRE(r.rc == 0);
  RxRun o{};
  o.intr = r.counter("intr");
  o.rxmac_reads = r.reads(MAC_RXSTAT, kUp).size();
  for (uint32_t s : r.reads(GREG_STAT, kUp)) {
    ++o.stat_reads;
    o.stat_with_rxmac += (s & GREG_STAT_RXMAC) != 0;
    o.stat_with_rxdone += (s & GREG_STAT_RXDONE) != 0;
  }
  o.delivered = sink.len.size();
  o.copybreak = r.counter("rx_copybreak");
  REQUIRE(o.delivered == n);
  for (uint32_t l : sink.len) CHECK(l == std::min(len + 4, ETH_FRAME_LEN + RX_OFFSET) - 14);  // the FCS is kept
  for (uint8_t s : sink.summed) CHECK(s == CHECKSUM_HW);
  return o;
}
}  // namespace

TEST_CASE("sungem-0.95 RX: RCV unmasked, an interrupt and a MAC_RXSTAT read per frame", "[sungemdrv]") {
  constexpr unsigned kN = 30;
  const RxRun o = rx_burst(kDriverName095, kN, 1000, us(20));
  // RXMAC on every frame as it enters the RX FIFO, ahead of its DMA and RX_DONE: one interrupt
  // per frame that reads GREG_STAT and, in gem_abnormal_irq -> gem_rxmac_interrupt, MAC_RXSTAT.
  CHECK(o.rxmac_reads == kN);
  CHECK(o.stat_with_rxmac == kN);
  CHECK(o.stat_reads == o.intr);  // one GREG_STAT read per interrupt
  // RX_DONE every 6 frames or 2 x 2048 PCI clocks (61.4 µs at 66.67 MHz) after the previous one:
  // those that land after the RXMAC interrupt's GREG_STAT read interrupt again.
  CHECK(o.stat_with_rxdone >= kN / 6);
  CHECK(o.stat_with_rxdone < kN);
  CHECK(o.intr >= kN);
  CHECK(o.intr <= kN + o.stat_with_rxdone);
  CHECK(o.copybreak == 0);
}

TEST_CASE("sungem-0.96 RX: RCV masked, RX_DONE every 5 frames, no MAC_RXSTAT reads", "[sungemdrv]") {
  constexpr unsigned kN = 30;
  const RxRun o = rx_burst(kDriverName096, kN, 1000, us(20));
  // The first frame after a long gap raises RX_DONE at once (the time limit has run out), then one
  // per five frames (5 x 20 µs < 4 x 2048 clocks = 122.9 µs), the last four by the time limit.
  CHECK(o.intr == 1 + (kN - 1) / 5 + 1);
  CHECK(o.rxmac_reads == 0);
  CHECK(o.stat_with_rxmac == 0);
  CHECK(o.stat_reads == o.intr);
  CHECK(o.stat_with_rxdone == o.intr);
}

TEST_CASE("sungem RX copybreak: frames of 256 B or less are copied, the ring buffer stays", "[sungemdrv]") {
  Rig r(kDriverName096);
  SungemSink sink(*r.k);
  r.open();
  sc_core::sc_start(kUp);
  const uint64_t buf0 = sungem_le64(r.desc(r.g->rxd_addr(0)).data() + 8), buf1 = sungem_le64(r.desc(r.g->rxd_addr(1)).data() + 8);
  drvtest::at_time(kUp + us(10), [&r] { r.peer.end->transmit(r.to_nic(200, 1), now()); });
  drvtest::at_time(kUp + us(30), [&r] { r.peer.end->transmit(r.to_nic(800, 2), now()); });
  sc_core::sc_start(ms(2));
  REQUIRE(sink.len.size() == 2);
  CHECK(r.counter("rx_copybreak") == 1);
  CHECK(sungem_le64(r.desc(r.g->rxd_addr(0)).data() + 8) == buf0);  // copied: the buffer is reused
  CHECK(sungem_le64(r.desc(r.g->rxd_addr(1)).data() + 8) != buf1);  // handed up: a new buffer in the slot
  CHECK(sink.len[0] == 200 + 4 - 14);
  CHECK(sink.len[1] == 800 + 4 - 14);
}

TEST_CASE("sungem RX CHECKSUM_HW: skb->csum is the chip's sum from the checksum start (after the MAC header)",
          "[sungemdrv]") {
  Rig r(kDriverName095);
  SungemSink sink(*r.k);
  r.open();
  EthFrame f;  // built at send time: dev_addr comes from the probe process
  drvtest::at_time(kUp, [&r, &f] {
    f = r.to_nic(700, 9);
    r.peer.end->transmit(f, now());
  });
  sc_core::sc_start(kUp + ms(2));
  REQUIRE(sink.csum.size() == 1);
  CHECK(sink.summed[0] == CHECKSUM_HW);
  // The model's TCPCSUM is the complement of the sum; gem_rx's ^ 0xffff and ntohs (nothing on a
  // big-endian CPU) give the sum of bytes 14.. of the frame (RXDMA_CFG_CSUMOFF 7 half-words).
  CHECK(sink.csum[0] == gem::csum16_be(f.bytes.data() + 14, f.bytes.size() - 14));
}

// gem_post_rxds gives back whole clusters of four and writes RXDMA_KICK = the end of the last one,
// which is RXDMA_DONE itself whenever gem_rx has consumed everything up to a cluster boundary (here
// after the 4th of frames spaced so that each gets its own RX_DONE). The real chip keeps receiving
// (sungem ran on every PowerMac; Linux 2.6's gem_post_rxds is the same code): it has the next
// cluster cached, prefetched before the kick (models/nic/gem rx_run: the next cluster is fetched
// while the fetch pointer is not at KICK). A model that fetched only on demand and compared
// RXDMA_DONE with KICK raised RXNOBUF here and never fetched again (the bug this test is for).
TEST_CASE("sungem RX: a kick equal to RXDMA_DONE at a cluster boundary keeps the ring running",
          "[sungemdrv][gem-model]") {
  Rig r(kDriverName096);
  SungemSink sink(*r.k);
  r.open();
  for (unsigned i = 0; i < 6; ++i)
    drvtest::at_time(kUp + us(300) * i, [&r, i] { r.peer.end->transmit(r.to_nic(400, uint8_t(i)), now()); });
  sc_core::sc_start(kUp + ms(3));
  // After the 4th frame: RXDMA_KICK = 4 written while RXDMA_DONE = 4.
  const auto kicks = r.hw.writes(r.bar() + RXDMA_KICK, kUp);
  REQUIRE_FALSE(kicks.empty());
  CHECK(kicks.front() == 4);
  CHECK(sink.len.size() == 6);
  CHECK(sim().counters.get("g4_eth0.rx_nobuf") == 0);
}

TEST_CASE("sungem-0.95 RX_BLANK what-if: rx_blank_pkts and rx_blank_time replace gem_init_dma's constants",
          "[sungemdrv]") {
  Rig r(kDriverName095, {}, {{"rx_blank_pkts", int64_t{12}}, {"rx_blank_time", int64_t{40}}});
  r.open();
  sc_core::sc_start(kUp);
  REQUIRE(r.rc == 0);
  CHECK(r.nic->peek(RXDMA_BLANK) == (12u | 40u << 12));
}

TEST_CASE("sungem-0.96 RX_BLANK what-if: rx_blank_time -1 keeps the driver's M66EN choice", "[sungemdrv]") {
  Rig r(kDriverName096, {}, {{"rx_blank_pkts", int64_t{1}}, {"rx_blank_time", int64_t{-1}}});
  r.open();
  sc_core::sc_start(kUp);
  REQUIRE(r.rc == 0);
  CHECK(r.nic->peek(RXDMA_BLANK) == (1u | 4u << 12));  // 4 units: v0.96 on this M66EN-low reading
}

TEST_CASE("sungem RX_BLANK what-if schema: defaults as each version writes, ranges as the register's fields",
          "[sungemdrv]") {
  for (const char* drv : {kDriverName095, kDriverName096}) {
    const DriverEntry* de = drvtest::driver(drv);
    REQUIRE(de);
    const ParamValues pv(de->params);
    CHECK(pv.i("rx_blank_pkts") == (std::string(drv) == kDriverName095 ? 6 : 5));
    CHECK(pv.i("rx_blank_time") == -1);
    for (const auto& spec : de->params) {
      if (spec.name == "rx_blank_pkts") CHECK(*spec.max == 511);
      if (spec.name == "rx_blank_time") CHECK(*spec.max == 255);
    }
  }
}

TEST_CASE("sungem-0.96 RX_BLANK what-if: rx_blank_pkts 2 takes an RX_DONE per two frames", "[sungemdrv]") {
  constexpr unsigned kN = 30;
  const RxRun o = rx_burst(kDriverName096, kN, 1000, us(20), {{"rx_blank_pkts", int64_t{2}}});
  // As the 5-frame case above: the first at once, then one per two frames (2 x 20 µs is well
  // inside the 122.9 µs time limit), the odd last one by the time limit.
  CHECK(o.intr == 1 + (kN - 1) / 2 + 1);
  CHECK(o.stat_with_rxdone == o.intr);
}


namespace {
/// Times (s) of the events `what` noted for `where`.
std::vector<double> sungem_event_times(const std::string& what, const std::string& where) {
  std::vector<double> v;
  for (const auto& e : run_events().events())
    if (e.what == what && e.where == where) v.push_back(to_s(e.at));
  return v;
}
}  // namespace

TEST_CASE("sungem link: v0.96's 1.2 s link timer finds a pull after the PHY declares it and resets the chip and "
          "restarts its DMA only when the link is back",
          "[sungem][link]") {
  run_events().clear();
  Rig r(kDriverName096);
  LinkFaults f(*r.link);
  const PhyTimers pt = phy_timers(1000);
  const sc_time pull = ms(1500), down = pull + pt.link_fail(f.master(0));
  const sc_time plug = ms(2600), up = plug + pt.link_up;
  f.schedule_cable(pull, false);
  f.schedule_cable(plug, true);
  r.open();
  sc_core::sc_start(pull);
  REQUIRE(r.rc == 0);
  REQUIRE(r.g->link_up());  // the timer's first run found the link and started the DMA
  CHECK(r.dev->mii_link_status() == 1);
  sc_core::sc_start(down + sec(1.2) + ms(50) - now());
  const auto lost = sungem_event_times("link down", "g4.eth0");
  REQUIRE(lost.size() == 1);
  CHECK(lost[0] > to_s(down));
  CHECK(lost[0] <= to_s(down) + 1.2 + 1e-3);  // the timer's period plus its own run
  CHECK(r.dev->mii_link_status() == 0);      // ETHTOOL_GLINK: lstate is no longer link_up
  CHECK(r.dev->netif_carrier_ok());          // sungem never touches the carrier
  CHECK_FALSE(r.g->reset_task_pending());    // gem_reset_task has run ...
  CHECK(sungem_event_times("TX ring reset", "g4.eth0").size() == 1);
  CHECK_FALSE(r.dev->netif_queue_stopped());  // ... and woken the queue
  CHECK(r.counter("resets") == 1);
  // It left the DMA and the MACs off (gem_init_hw(gp, 0) with lstate link_down).
  CHECK((r.nic->peek(gem::TXDMA_CFG) & gem::TXDMA_CFG_ENABLE) == 0);
  CHECK((r.nic->peek(gem::MAC_RXCFG) & gem::MAC_RXCFG_ENAB) == 0);
  sc_core::sc_start(up + sec(1.2) + ms(50) - now());
  std::vector<double> back;  // the link-up after the replug (the first came at ifup)
  for (double t : sungem_event_times("link up", "g4.eth0"))
    if (t > to_s(pull)) back.push_back(t);
  REQUIRE(back.size() == 1);
  CHECK(back[0] > to_s(up));
  CHECK(back[0] <= to_s(up) + 1.2 + 1e-3);
  CHECK(r.dev->mii_link_status() == 1);
  CHECK((r.nic->peek(gem::TXDMA_CFG) & gem::TXDMA_CFG_ENABLE) != 0);
  CHECK((r.nic->peek(gem::MAC_RXCFG) & gem::MAC_RXCFG_ENAB) != 0);
  // The two timer runs that found the changes are a whole number of 12 * HZ / 10 periods apart.
  const double periods = (back[0] - lost[0]) / 1.2;
  CHECK(periods == Approx(std::round(periods)).margin(2e-3));
}

TEST_CASE("sungem link: v0.95 stops its link timer once it has the link and never sees it go", "[sungem][link]") {
  run_events().clear();
  Rig r(kDriverName095);
  LinkFaults f(*r.link);
  f.schedule_cable(ms(1500), false);
  r.open();
  sc_core::sc_start(sec(4.0));
  REQUIRE(r.rc == 0);
  CHECK(sungem_event_times("link down", "g4.eth0").empty());
  CHECK(r.g->link_up());
  CHECK(r.dev->mii_link_status() == -95);  // gem_ioctl returns -EINVAL: bonding spoofs the link up
  CHECK_FALSE(r.nic->phy_link_up());
}

}  // namespace driver_sungem_test
