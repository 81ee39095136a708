// sungem.c of the model, v0.95 (LH@2.4.16) and v0.96 (LH@2.4.17): probe, open/close, the chip and
// PHY bring-up, transmit, the interrupt handler, TX reap and RX with refill. See sungem.h for what
// differs between the versions, what is left out, and the sources.
#include "drivers-sim/drivers/gem_whatif/rx_blank.h"
#include "core/events.h"
#include "core/sim_context.h"
#include "drivers-sim/drivers/sungem/sungem.h"
#include "drivers-sim/driver_entry.h"
#include "drivers-sim/kernel/byteorder.h"
#include "drivers-sim/kernel/io.h"
#include "drivers-sim/kernel/rx_journey.h"
#include "models/bus/pci.h"
#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>
#include <systemc>

namespace nicsim::sungemdrv {

namespace {
constexpr int kEAGAIN = 11;
std::string counter(Kernel& k, const std::string& dev, const char* what) {
  return k.host() + "." + dev + ".driver." + what;
}
unsigned next_tx(unsigned n) { return (n + 1) & (TX_RING_SIZE - 1); }
unsigned next_rx(unsigned n) { return (n + 1) & (RX_RING_SIZE - 1); }
/// 12 * HZ / 10: the link timer's period (gem_link_timer, gem_init_hw, gem_begin_auto_negotiation).
uint64_t link_timer_jiffies(const Kernel& k) { return uint64_t(12 * k.params().hz / 10); }
// phy_BCM5400_link_table[8][3] (full duplex, 100, 1000) of LH@2.4.16 sungem.c.
constexpr int kBcm5400LinkTable[8][3] = {{0, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0},
                                         {0, 1, 0}, {1, 1, 0}, {1, 0, 1}, {1, 0, 1}};
// MIF bit-bang registers and MAC resets (gem_stop_phy, v0.96)
constexpr uint32_t MIF_BBCLK = 0x6200, MIF_BBDATA = 0x6204, MIF_BBOENAB = 0x6208, MAC_TXRST = 0x6000,
                   MAC_RXRST = 0x6004, MAC_TXRST_CMD = 0x1, MAC_RXRST_CMD = 0x1, MAC_XIFCFG_LBCK = 0x02;
// v0.96 link_modes[] (module parameter link_mode 0..6)
constexpr uint16_t kLinkModes[7] = {PHY_CTRL_ANENAB, 0, PHY_CTRL_SPD100, PHY_CTRL_SPD2, PHY_CTRL_FDPLX,
                                    PHY_CTRL_SPD100 | PHY_CTRL_FDPLX, PHY_CTRL_SPD2 | PHY_CTRL_FDPLX};
}  // namespace

Task<void> run_reset_task(Gem* g);

const char* cost_driver(Version v) { return v == Version::v0_95 ? kDriverName095 : kDriverName096; }

namespace {
/// v0.96's link_mode parameter (0 when absent: v0.95 has none) as gp->link_cntl.
uint16_t link_cntl_of(const ParamValues& params) {
  const int64_t link_mode = params.has("link_mode") ? params.i("link_mode") : 0;
  return link_mode >= 0 && link_mode <= 6 ? kLinkModes[link_mode] : PHY_CTRL_ANENAB;
}
}  // namespace

Gem::Gem(Kernel& k, std::string name, uint64_t bar, unsigned vector, DmaTags::Space dma_space, Version v,
         ParamValues params)
    : NetDevice(k, std::move(name)), bar_(bar), v_(v), costs_(k.driver_costs(cost_driver(v), path_names())),
      space_(dma_space), params_(std::move(params)), link_cntl_(link_cntl_of(params_)) {
  irq = vector;
  // sungem never touches __LINK_STATE_NOCARRIER, which init_etherdev leaves clear (dev->state 0).
  netif_carrier_on();
  auto& cs = sim().counters;
  c_intr_ = &cs.at(counter(k, this->name(), "intr"));
  c_abnormal_ = &cs.at(counter(k, this->name(), "abnormal"));
  c_txmac_ = &cs.at(counter(k, this->name(), "txmac_reads"));
  c_rxmac_ = &cs.at(counter(k, this->name(), "rxmac_reads"));
  c_mac_ = &cs.at(counter(k, this->name(), "mac_reads"));
  c_tx_reaps_ = &cs.at(counter(k, this->name(), "tx_reaps"));
  c_tx_cleaned_ = &cs.at(counter(k, this->name(), "tx_cleaned"));
  c_tx_busy_ = &cs.at(counter(k, this->name(), "tx_busy"));
  c_rx_ = &cs.at(counter(k, this->name(), "rx_frames"));
  c_copy_ = &cs.at(counter(k, this->name(), "rx_copybreak"));
  c_rx_dropped_ = &cs.at(counter(k, this->name(), "rx_dropped"));
  c_rx_kicks_ = &cs.at(counter(k, this->name(), "rx_kicks"));
  c_resets_ = &cs.at(counter(k, this->name(), "resets"));
  c_tx_reset_freed_ = &cs.at(counter(k, this->name(), "tx_ring_reset_freed"));
  link_timer_.function = [this]() { return gem_link_timer(); };
  pm_timer_.function = [this]() { return gem_pm_task(); };
}

Gem::~Gem() = default;

Task<void> run_reset_task(Gem* g) { co_await g->gem_reset_task(); }

Task<void> Gem::udelay(double us) {
  // udelay / mdelay: a calibrated busy loop on the running CPU.
  const CostEntry e{us * kernel().params().cpu_mhz, 0, false, "udelay: busy loop of the given length"};
  co_await kernel().cost(e);
}

void Gem::store_desc(uint64_t addr, uint64_t cpu_value) {
  store_native64(kernel(), addr, byte_order_ops(kernel()).cpu_to_le64(cpu_value));
}
uint64_t Gem::load_desc(uint64_t addr) const {
  return byte_order_ops(kernel()).le64_to_cpu(load_native64(kernel(), addr));
}

// ---------------------------------------------------------------------------------------------
// MIF (__phy_read / __phy_write)

Task<uint32_t> Gem::mif_frame(uint32_t cmd) {
  // Write the frame, then poll MIF_FRAME for the turnaround bit every 10 µs (limit 10000).
  co_await writel(cmd, reg(MIF_FRAME));
  int limit = 10000;
  while (limit--) {
    cmd = co_await readl(reg(MIF_FRAME));
    if (cmd & MIF_FRAME_TALSB) break;
    co_await udelay(10);
  }
  co_return limit ? cmd : 0xffffu;  // "if (!limit) cmd = 0xffff;"
}

Task<uint16_t> Gem::phy_read_at(unsigned r, unsigned phy_addr) {
  const uint32_t cmd = co_await mif_frame((1u << 30) | (2u << 28) | ((phy_addr << 23) & MIF_FRAME_PHYAD) |
                                          ((r << 18) & MIF_FRAME_REGAD) | MIF_FRAME_TAMSB);
  co_return uint16_t(cmd & MIF_FRAME_DATA);
}

Task<void> Gem::phy_write_at(unsigned r, uint16_t v, unsigned phy_addr) {
  (void)co_await mif_frame((1u << 30) | (1u << 28) | ((phy_addr << 23) & MIF_FRAME_PHYAD) |
                           ((r << 18) & MIF_FRAME_REGAD) | MIF_FRAME_TAMSB | (v & MIF_FRAME_DATA));
}

// ---------------------------------------------------------------------------------------------
// chip reset, power-up, invariants

Task<void> Gem::gem_stop() {
  co_await writel(0xffffffffu, reg(GREG_IMASK));  // "Make sure we won't get any more interrupts"
  co_await writel(GREG_SWRST_TXRST | GREG_SWRST_RXRST, reg(GREG_SWRST));
  int limit = 32;  // STOP_TRIES
  uint32_t val = 0;
  do {
    co_await udelay(20);
    val = co_await readl(reg(GREG_SWRST));
    if (limit-- <= 0) break;
  } while (val & (GREG_SWRST_TXRST | GREG_SWRST_RXRST));
}

Task<void> Gem::gem_apple_powerup() {
  // pmac_call_feature(PMAC_FTR_GMAC_ENABLE): the UniNorth clock bit, then udelay(20)
  // (LH@2.4.16 arch/ppc/kernel/feature.c feature_set_gmac_power); then udelay(100). The PCI
  // command / latency-timer / cache-line writes are configuration cycles (not modelled).
  co_await udelay(20);
  co_await udelay(100);
  if (v_ == Version::v0_96) {
    co_await udelay(1000);  // mdelay(1)
    uint32_t mif_cfg = co_await readl(reg(MIF_CFG));
    mif_cfg &= ~(MIF_CFG_PSELECT | MIF_CFG_POLL | MIF_CFG_BBMODE | MIF_CFG_MDI1);
    mif_cfg |= MIF_CFG_MDI0;
    co_await writel(mif_cfg, reg(MIF_CFG));
    co_await writel(PCS_DMODE_MGM, reg(PCS_DMODE));
    co_await writel(MAC_XIFCFG_OE, reg(MAC_XIFCFG));
    co_await udelay(1000);  // mdelay(1)
  }
}

Task<void> Gem::gem_init_pause_thresholds() {
  // "Setting the OFF threshold to the full RX fifo size effectively disables PAUSE generation"
  // for FIFOs of 2 KB or less.
  if (rx_fifo_sz_ <= 2 * 1024) {
    rx_pause_off_ = rx_pause_on_ = rx_fifo_sz_;
  } else {
    const int off = rx_fifo_sz_ - 5 * 1024;
    rx_pause_off_ = off;
    rx_pause_on_ = off - 1024;
  }
  if (v_ == Version::v0_95) {  // "XXX Why do I do this? -DaveM XXX" (dropped in v0.96)
    uint32_t cfg = co_await readl(reg(GREG_BIFCFG));
    cfg |= GREG_BIFCFG_B64DIS;
    co_await writel(cfg, reg(GREG_BIFCFG));
  }
  uint32_t cfg = GREG_CFG_IBURST;
  cfg |= (31u << 1) & GREG_CFG_TXDMALIM;
  cfg |= (31u << 6) & GREG_CFG_RXDMALIM;
  co_await writel(cfg, reg(GREG_CFG));
}

Task<void> Gem::gem_check_invariants() {
  // The Apple branch: phy_mii_mdio0, the FIFO sizes; v0.95 also selects MDIO0 and the MII
  // datapath here and computes the pause thresholds.
  if (v_ == Version::v0_95) {
    uint32_t mif_cfg = co_await readl(reg(MIF_CFG));
    mif_cfg &= ~MIF_CFG_PSELECT;
    co_await writel(mif_cfg, reg(MIF_CFG));
    co_await writel(PCS_DMODE_MGM, reg(PCS_DMODE));
    co_await writel(MAC_XIFCFG_OE, reg(MAC_XIFCFG));
  }
  tx_fifo_sz_ = int(co_await readl(reg(TXDMA_FSZ))) * 64;
  rx_fifo_sz_ = int(co_await readl(reg(RXDMA_FSZ))) * 64;
  if (v_ == Version::v0_95) co_await gem_init_pause_thresholds();
}

// ---------------------------------------------------------------------------------------------
// PHY

Task<void> Gem::gem_reset_one_mii_phy(unsigned addr) {
  uint16_t val = co_await phy_read_at(PHY_CTRL, addr);
  val &= uint16_t(~PHY_CTRL_ISO);
  val |= PHY_CTRL_RST;
  co_await phy_write_at(PHY_CTRL, val, addr);
  co_await udelay(100);
  int limit = 10000;
  while (limit--) {
    val = co_await phy_read_at(PHY_CTRL, addr);
    if ((val & PHY_CTRL_RST) == 0) break;
    co_await udelay(10);
  }
  if ((val & PHY_CTRL_ISO) && limit > 0) co_await phy_write_at(PHY_CTRL, uint16_t(val & ~PHY_CTRL_ISO), addr);
}

Task<void> Gem::gem_init_bcm5411_phy() {
  // "Apple black magic to setup some voltage stuffs", the reset, autonegotiation, 1000 FD.
  co_await phy_write(0x1c, 0x8c23);
  co_await phy_write(0x1c, 0x8ca3);
  co_await phy_write(0x1c, 0x8c23);
  co_await phy_write(PHY_CTRL, PHY_CTRL_RST);
  co_await phy_write(PHY_CTRL, PHY_CTRL_ANENAB | PHY_CTRL_FDPLX | PHY_CTRL_ANRES | PHY_CTRL_SPD2);
  uint16_t data = co_await phy_read(PHY_BCM5400_GB_CONTROL);
  data |= PHY_BCM5400_GB_CONTROL_FULLDUPLEXCAP;
  co_await phy_write(PHY_BCM5400_GB_CONTROL, data);
}

Task<void> Gem::gem_init_phy() {
  if (v_ == Version::v0_96) {  // "Revert MIF CFG setting done on stop_phy"
    uint32_t mifcfg = co_await readl(reg(MIF_CFG));
    mifcfg &= ~MIF_CFG_BBMODE;
    co_await writel(mifcfg, reg(MIF_CFG));
  }
  // pmac_call_feature(PMAC_FTR_GMAC_PHY_RESET): the KeyLargo GPIO low, mdelay(10), high,
  // mdelay(10) (LH@2.4.16 arch/ppc/kernel/feature.c feature_gmac_phy_reset).
  co_await udelay(20000);
  unsigned i = 0;
  for (; i < 32; ++i) {
    mii_phy_addr_ = i;
    if (co_await phy_read(PHY_CTRL) != 0xffff) break;
  }
  if (i == 32) co_return;  // "GMAC PHY not responding !"
  // phy_mii_mdio0: take the PHY out of isolation and reset it, identify it.
  co_await gem_reset_one_mii_phy(mii_phy_addr_);
  const uint32_t id0 = co_await phy_read(PHY_ID0), id1 = co_await phy_read(PHY_ID1);
  const uint32_t phy_id = (id0 << 16 | id1) & 0xfffffff0u;
  bcm54xx_ = phy_id == 0x206040 || phy_id == 0x206050 || phy_id == 0x206070;
  if (phy_id == 0x206070) co_await gem_init_bcm5411_phy();
  // BCM5400/5401 (0x206040/0x206050) have their own init sequences; the GMAC model's PHY is a
  // BCM5411 (PHYSID 0x0020:0x6071), so those are not modelled.
  // "Init advertisement and enable autonegotiation."
  uint16_t val = co_await phy_read(PHY_CTRL);
  val &= uint16_t(~PHY_CTRL_ANENAB);
  co_await phy_write(PHY_CTRL, val);
  co_await udelay(10);
  const uint16_t adv = co_await phy_read(PHY_ADV);
  co_await phy_write(PHY_ADV, adv | PHY_ADV_10HALF | PHY_ADV_10FULL | PHY_ADV_100HALF | PHY_ADV_100FULL);
  if (v_ == Version::v0_95) {  // v0.96 leaves this to gem_begin_auto_negotiation
    val = co_await phy_read(PHY_CTRL);
    val |= PHY_CTRL_ANENAB;
    co_await phy_write(PHY_CTRL, val);
    val |= PHY_CTRL_ANRES;
    co_await phy_write(PHY_CTRL, val);
  }
}

void Gem::add_link_timer() {
  kernel().mod_timer(link_timer_, kernel().jiffies() + link_timer_jiffies(kernel()));
}

Task<void> Gem::gem_begin_auto_negotiation() {
  // v0.96, ep == NULL: "start_aneg".
  if (!hw_running_) co_return;
  uint16_t ctl = co_await phy_read(PHY_CTRL);
  ctl &= uint16_t(~(PHY_CTRL_FDPLX | PHY_CTRL_SPD100 | PHY_CTRL_ANENAB));
  ctl |= uint16_t(link_cntl_);
  if (ctl & PHY_CTRL_ANENAB) {
    ctl |= PHY_CTRL_ANRES;
    lstate_ = LState::link_aneg;
  } else {
    lstate_ = LState::link_force_ok;
  }
  co_await phy_write(PHY_CTRL, ctl);
  timer_ticks_ = 0;
  add_link_timer();
}

Task<void> Gem::gem_set_link_modes() {
  int full_duplex = 0, speed = 10, pause = 0;
  bool read_aux = false;
  if (v_ == Version::v0_95) {
    read_aux = lstate_ == LState::aneg_wait;
    if (!read_aux) {
      const uint16_t val = co_await phy_read(PHY_CTRL);
      full_duplex = (val & PHY_CTRL_FDPLX) ? 1 : 0;
      if (val & PHY_CTRL_SPD100) speed = 100;
    }
  } else {
    const uint16_t val = co_await phy_read(PHY_CTRL);
    read_aux = (val & PHY_CTRL_ANENAB) != 0;  // gem_read_mii_link_mode
    if (!read_aux) {
      full_duplex = (val & PHY_CTRL_FDPLX) ? 1 : 0;
      if (val & PHY_CTRL_SPD100) speed = 100;
    }
  }
  if (read_aux) {
    if (bcm54xx_) {
      const uint16_t val = co_await phy_read(PHY_BCM5400_AUXSTATUS);
      const unsigned lm = (val & PHY_BCM5400_AUXSTATUS_LINKMODE_MASK) >> PHY_BCM5400_AUXSTATUS_LINKMODE_SHIFT;
      full_duplex = kBcm5400LinkTable[lm][0];
      speed = kBcm5400LinkTable[lm][2] ? 1000 : (kBcm5400LinkTable[lm][1] ? 100 : 10);
      const uint16_t lpa = co_await phy_read(PHY_LPA);
      if (lpa & PHY_LPA_PAUSE) pause = 1;
    } else {
      const uint16_t lpa = co_await phy_read(PHY_LPA);
      if (lpa & (PHY_LPA_10FULL | PHY_LPA_100FULL)) full_duplex = 1;
      if (lpa & (PHY_LPA_100FULL | PHY_LPA_100HALF)) speed = 100;
    }
  }
  uint32_t val = MAC_TXCFG_EIPG0 | MAC_TXCFG_NGU;
  if (full_duplex) val |= MAC_TXCFG_ICS | MAC_TXCFG_ICOLL;
  co_await writel(val, reg(MAC_TXCFG));
  val = MAC_XIFCFG_OE | MAC_XIFCFG_LLED;
  if (!full_duplex) val |= MAC_XIFCFG_DISE;  // phy_mii_mdio0
  else val |= MAC_XIFCFG_FLED;
  if (speed == 1000) val |= MAC_XIFCFG_GMII;
  co_await writel(val, reg(MAC_XIFCFG));
  if (speed == 1000 && !full_duplex) {
    val = co_await readl(reg(MAC_TXCFG));
    co_await writel(val | MAC_TXCFG_TCE, reg(MAC_TXCFG));
    val = co_await readl(reg(MAC_RXCFG));
    co_await writel(val | MAC_RXCFG_RCE, reg(MAC_RXCFG));
  } else {
    val = co_await readl(reg(MAC_TXCFG));
    co_await writel(val & ~MAC_TXCFG_TCE, reg(MAC_TXCFG));
    val = co_await readl(reg(MAC_RXCFG));
    co_await writel(val & ~MAC_RXCFG_RCE, reg(MAC_RXCFG));
  }
  co_await writel(full_duplex ? 64u : 512u, reg(MAC_STIME));
  val = co_await readl(reg(MAC_MCCFG));
  if (pause) val |= MAC_MCCFG_SPE | MAC_MCCFG_RPE;
  else val &= ~(MAC_MCCFG_SPE | MAC_MCCFG_RPE);
  co_await writel(val, reg(MAC_MCCFG));
  co_await gem_start_dma();
}

Task<void> Gem::gem_start_dma() {
  // "We are ready to rock, turn everything on."
  uint32_t val = co_await readl(reg(TXDMA_CFG));
  co_await writel(val | TXDMA_CFG_ENABLE, reg(TXDMA_CFG));
  val = co_await readl(reg(RXDMA_CFG));
  co_await writel(val | RXDMA_CFG_ENABLE, reg(RXDMA_CFG));
  val = co_await readl(reg(MAC_TXCFG));
  co_await writel(val | MAC_TXCFG_ENAB, reg(MAC_TXCFG));
  val = co_await readl(reg(MAC_RXCFG));
  co_await writel(val | MAC_RXCFG_ENAB, reg(MAC_RXCFG));
  if (v_ == Version::v0_96) {
    (void)co_await readl(reg(MAC_RXCFG));
    co_await udelay(100);
  }
  co_await writel(GREG_STAT_TXDONE, reg(GREG_IMASK));
  co_await writel(RX_RING_SIZE - 4, reg(RXDMA_KICK));
  ++*c_rx_kicks_;
  link_up_ = true;
}

Task<void> Gem::gem_link_timer() {
  co_await kernel().cost(costs_[Path::gem_link_timer]);
  if (v_ == Version::v0_95) {
    ++timer_ticks_;
    const uint16_t val = co_await phy_read(PHY_STAT);
    if (val & PHY_STAT_LSTAT) {
      co_await gem_set_link_modes();
      co_return;  // no restart
    }
    // timer_ticks < 10: restart; later gem_mdio_link_not_up tries forced modes (its PHY writes
    // are not modelled: the modelled link is up or uncabled) and restarts.
    add_link_timer();
    co_return;
  }
  // v0.96: re-armed for as long as the chip runs.
  if (!hw_running_) co_return;
  if (reset_task_pending_) {  // "If the link of task is still pending, we just reschedule the link timer"
    add_link_timer();
    co_return;
  }
  const uint16_t val = co_await phy_read(PHY_STAT);
  if (val & PHY_STAT_LSTAT) {
    if (lstate_ != LState::link_up) {
      lstate_ = LState::link_up;
      if (opened_) {
        co_await gem_set_link_modes();
        run_events().note(now(), kernel().host() + "." + name(), "link up",
                          fmt::format("sungem: {}: Link is up at 1000 Mbps, full-duplex.", name()));
      }
    }
  } else if (lstate_ == LState::link_up) {
    // "If the link was previously up, we restart the whole process": the reset task, then a new
    // autonegotiation (which re-arms the timer).
    lstate_ = LState::link_down;
    ++*c_resets_;
    run_events().note(now(), kernel().host() + "." + name(), "link down",
                      fmt::format("sungem: {}: Link down; reset task scheduled", name()));
    reset_task_pending_ = true;
    kernel().spawn_process("keventd " + name() + " reset_task", run_reset_task(this));
    co_await gem_begin_auto_negotiation();
    co_return;
  } else {
    ++timer_ticks_;  // > 10: gem_mdio_link_not_up's forced modes (not modelled)
  }
  add_link_timer();
}

Task<void> Gem::gem_reset_task() {
  // "The link went down, we reset the ring, but keep DMA stopped."
  if (hw_running_ && opened_) {
    netif_stop_queue();
    co_await writel(0xffffffffu, reg(GREG_IMASK));
    co_await gem_stop();
    unsigned freed = 0;
    for (auto& r : tx_skbs_)
      if (r.skb) {
        ++freed;
        if (r.skb->journey) sim().journeys.mark(r.skb->journey, now(), "dropped", kernel().host() + "." + name(),
                                                "gem_reset_task: TX ring freed");
      }
    *c_tx_reset_freed_ += freed;
    run_events().note(now(), kernel().host() + "." + name(), "TX ring reset",
                      fmt::format("sungem gem_reset_task: gem_stop + gem_init_rings free {} frames", freed));
    co_await gem_init_rings();
    co_await gem_init_hw(false);
    netif_wake_queue();
  }
  reset_task_pending_ = false;
}

Task<void> Gem::gem_pm_task() {
  // v0.96 gem_pm_timer -> schedule_task(gem_pm_task): shut down a closed chip (gem_shutdown ->
  // gem_stop_phy; run here in the timer's context).
  if (opened_ || !hw_running_) co_return;
  hw_running_ = false;
  kernel().del_timer(link_timer_);
  uint32_t mifcfg = co_await readl(reg(MIF_CFG));
  mifcfg &= ~MIF_CFG_POLL;
  co_await writel(mifcfg, reg(MIF_CFG));
  const uint16_t lpa = co_await phy_read(PHY_LPA);  // "a strange hack used by both MacOS 9 and X"
  co_await phy_write(PHY_LPA, lpa);
  co_await writel(0, reg(MAC_RXCFG));
  co_await writel(0, reg(MAC_TXCFG));
  co_await writel(0, reg(MAC_XIFCFG));
  co_await writel(0, reg(TXDMA_CFG));
  co_await writel(0, reg(RXDMA_CFG));
  co_await gem_stop();
  co_await writel(MAC_TXRST_CMD, reg(MAC_TXRST));
  co_await writel(MAC_RXRST_CMD, reg(MAC_RXRST));
  co_await writel(mifcfg | MIF_CFG_BBMODE, reg(MIF_CFG));
  co_await writel(0, reg(MIF_BBCLK));
  co_await writel(0, reg(MIF_BBDATA));
  co_await writel(0, reg(MIF_BBOENAB));
  co_await writel(MAC_XIFCFG_GMII | MAC_XIFCFG_LBCK, reg(MAC_XIFCFG));
  (void)co_await readl(reg(MAC_XIFCFG));
  link_up_ = false;
}

// ---------------------------------------------------------------------------------------------
// DMA and MAC programming

Task<void> Gem::gem_init_dma() {
  uint64_t desc_dma = gblock_dvma_;
  uint32_t val = TXDMA_CFG_RINGSZ_128 | (0x7ffu << 10) | TXDMA_CFG_PMODE;  // TXDMA_CFG_BASE | ...
  co_await writel(val, reg(TXDMA_CFG));
  co_await writel(uint32_t(desc_dma >> 32), reg(TXDMA_DBHI));
  co_await writel(uint32_t(desc_dma & 0xffffffffu), reg(TXDMA_DBLOW));
  desc_dma += TX_RING_SIZE * kDescBytes;  // INIT_BLOCK_TX_RING_SIZE = TX_RING_SIZE (128) in v0.96
  co_await writel(0, reg(TXDMA_KICK));
  val = RXDMA_CFG_RINGSZ_128 | (RX_OFFSET << 10) | ((14u / 2) << 13) | RXDMA_CFG_FTHRESH_512;
  co_await writel(val, reg(RXDMA_CFG));
  co_await writel(uint32_t(desc_dma >> 32), reg(RXDMA_DBHI));
  co_await writel(uint32_t(desc_dma & 0xffffffffu), reg(RXDMA_DBLOW));
  co_await writel(RX_RING_SIZE - 4, reg(RXDMA_KICK));
  ++*c_rx_kicks_;
  val = (uint32_t(rx_pause_off_ / 64) << 0) & RXDMA_PTHRESH_OFF;
  val |= (uint32_t(rx_pause_on_ / 64) << 12) & RXDMA_PTHRESH_ON;
  co_await writel(val, reg(RXDMA_PTHRESH));
  const bool m66 = (co_await readl(reg(GREG_BIFCFG))) & GREG_BIFCFG_M66EN;
  const uint32_t pkts = v_ == Version::v0_95 ? 6 : 5;
  const uint32_t units = v_ == Version::v0_95 ? (m66 ? 4 : 2) : (m66 ? 8 : 4);
  // (The rx_blank_pkts / rx_blank_time what-if replaces the constants where a scenario sets them.)
  co_await writel(gem_whatif::rx_blank_word(params_, pkts, units), reg(RXDMA_BLANK));
}

Task<void> Gem::gem_init_mac() {
  const auto& e = dev_addr;
  // MAC_SNDPAUSE 0x1bf0 only on Sun's GEM (PCI_DEVICE_ID_SUN_GEM), not on the Apple GMAC.
  co_await writel(0x00, reg(MAC_IPG0));
  co_await writel(0x08, reg(MAC_IPG1));
  co_await writel(0x04, reg(MAC_IPG2));
  co_await writel(0x40, reg(MAC_STIME));
  co_await writel(0x40, reg(MAC_MINFSZ));
  co_await writel(0x20000000u | (mtu + 18), reg(MAC_MAXFSZ));
  co_await writel(0x07, reg(MAC_PASIZE));
  co_await writel(0x04, reg(MAC_JAMSIZE));
  co_await writel(0x10, reg(MAC_ATTLIM));
  co_await writel(0x8808, reg(MAC_MCTYPE));
  co_await writel((e[5] | (e[4] << 8)) & 0x3ff, reg(MAC_RANDSEED));
  co_await writel(uint32_t(e[4] << 8) | e[5], reg(MAC_ADDR0));
  co_await writel(uint32_t(e[2] << 8) | e[3], reg(MAC_ADDR1));
  co_await writel(uint32_t(e[0] << 8) | e[1], reg(MAC_ADDR2));
  co_await writel(0, reg(MAC_ADDR3));
  co_await writel(0, reg(MAC_ADDR4));
  co_await writel(0, reg(MAC_ADDR5));
  co_await writel(0x0001, reg(MAC_ADDR6));
  co_await writel(0xc200, reg(MAC_ADDR7));
  co_await writel(0x0180, reg(MAC_ADDR8));
  co_await writel(0, reg(MAC_AFILT0));
  co_await writel(0, reg(MAC_AFILT1));
  co_await writel(0, reg(MAC_AFILT2));
  co_await writel(0, reg(MAC_AF21MSK));
  co_await writel(0, reg(MAC_AF0MSK));
  // Not IFF_ALLMULTI / IFF_PROMISC, no multicast list: the hash table of zeros.
  const uint32_t rxcfg = 0;
  for (uint32_t i = 0; i < 16; ++i) co_await writel(0, reg(MAC_HASH0 + 4 * i));
  for (uint32_t r : {MAC_NCOLL, MAC_FASUCC, MAC_ECOLL, MAC_LCOLL, MAC_DTIMER, MAC_PATMPS, MAC_RFCTR, MAC_LERR, MAC_AERR,
                     MAC_FCSERR, MAC_RXCVERR})
    co_await writel(0, reg(r));
  // "Clear RX/TX/MAC/XIF config, we will set these up and enable them once a link is established."
  co_await writel(0, reg(MAC_TXCFG));
  co_await writel(rxcfg, reg(MAC_RXCFG));
  co_await writel(0, reg(MAC_MCCFG));
  co_await writel(0, reg(MAC_XIFCFG));
  if (v_ == Version::v0_95) {
    // The interesting events written as if 1 = enable; on GEM 1 = masked (sungem.h).
    co_await writel(MAC_TXSTAT_URUN | MAC_TXSTAT_MPE | MAC_TXSTAT_NCE | MAC_TXSTAT_ECE | MAC_TXSTAT_LCE |
                        MAC_TXSTAT_FCE | MAC_TXSTAT_DTE | MAC_TXSTAT_PCE,
                    reg(MAC_TXMASK));
    co_await writel(MAC_RXSTAT_OFLW | MAC_RXSTAT_FCE | MAC_RXSTAT_ACE | MAC_RXSTAT_CCE | MAC_RXSTAT_LCE |
                        MAC_RXSTAT_VCE,
                    reg(MAC_RXMASK));
    co_await writel(0, reg(MAC_MCMASK));
  } else {
    // "we do not want to hear about normal rx/tx as the DMA engine tells us that"
    co_await writel(MAC_TXSTAT_XMIT, reg(MAC_TXMASK));
    co_await writel(MAC_RXSTAT_RCV, reg(MAC_RXMASK));
    co_await writel(0xffffffffu, reg(MAC_MCMASK));  // "Don't enable even the PAUSE interrupts for now"
  }
}

Task<void> Gem::gem_init_hw(bool restart_link) {
  if (v_ == Version::v0_95) {
    // "On Apple's gmac, I initialize the PHY only after setting up the chip." --BenH
    co_await gem_check_invariants();
    hw_running_ = true;
    co_await gem_init_phy();
    co_await gem_init_dma();
    co_await gem_init_mac();
    timer_ticks_ = 0;
    lstate_ = LState::aneg_wait;
    add_link_timer();
    co_return;
  }
  if (restart_link) co_await gem_init_phy();
  co_await gem_init_dma();
  co_await gem_init_mac();
  co_await gem_init_pause_thresholds();
  if (restart_link) {
    timer_ticks_ = 0;
    lstate_ = LState::link_down;
    co_await gem_begin_auto_negotiation();
  } else if (lstate_ == LState::link_up) {
    co_await gem_set_link_modes();
  }
}

// ---------------------------------------------------------------------------------------------
// rings

Task<SkbPtr> Gem::gem_alloc_skb(uint32_t size) {
  SkbPtr skb = co_await kernel().alloc_skb(size + 64);
  const uint32_t offset = uint32_t((64 - skb->data_phys() % 64) % 64);  // ALIGNED_RX_SKB_ADDR
  if (offset) skb->reserve(offset);
  co_return skb;
}

void Gem::gem_clean_rings() {
  for (unsigned i = 0; i < RX_RING_SIZE && i < rx_skbs_.size(); ++i) {
    if (rx_skbs_[i].skb) dma_tags().tag(space_, rx_skbs_[i].mapping + RX_OFFSET, 0);
    rx_skbs_[i] = RingInfo{};
    store_desc(rxd_addr(i), 0);
    store_desc(rxd_addr(i) + 8, 0);
  }
  for (auto& r : tx_skbs_) {
    if (r.mapping) dma_tags().tag(space_, r.mapping, 0);
    r = RingInfo{};
  }
}

Task<void> Gem::gem_init_rings() {
  Kernel& k = kernel();
  rx_new_ = tx_new_ = tx_old_ = 0;
  rx_skbs_.resize(RX_RING_SIZE);
  tx_skbs_.resize(TX_RING_SIZE);
  gem_clean_rings();
  const unsigned bufsz = rx_buf_alloc_size(mtu);
  for (unsigned i = 0; i < RX_RING_SIZE; ++i) {
    co_await k.cost(costs_[Path::gem_rx_refill]);
    SkbPtr skb = co_await gem_alloc_skb(bufsz);
    skb->dev = this;
    const uint64_t dma_addr = k.pci_map_single(*skb, DmaDir::FromDevice);  // skb->data before RX_OFFSET
    store_desc(rxd_addr(i) + 8, dma_addr);       // rxd->buffer = cpu_to_le64(dma_addr)
    store_desc(rxd_addr(i), rxdctrl_fresh(mtu));  // rxd->status_word = cpu_to_le64(RXDCTRL_FRESH(gp))
    skb->reserve(RX_OFFSET);
    rx_skbs_[i] = RingInfo{std::move(skb), dma_addr};
  }
  for (unsigned i = 0; i < TX_RING_SIZE; ++i) {
    store_desc(txd_addr(i), 0);
    store_desc(txd_addr(i) + 8, 0);
  }
}

// ---------------------------------------------------------------------------------------------
// probe

Task<void> Gem::probe_hw() {
  Kernel& k = kernel();
  if (v_ == Version::v0_96) {
    // "On Apple, we power the chip up now in order for check invariants to work, but also because
    // the firmware might not have properly shut down the PHY."
    co_await gem_apple_powerup();
    co_await gem_check_invariants();
    co_await gem_stop();
    hw_running_ = true;
    co_await gem_init_phy();
    co_await gem_begin_auto_negotiation();
  }
  // pci_alloc_consistent(sizeof(struct gem_init_block)): "at least PAGE_SIZE aligned".
  gblock_dvma_ = k.dma_alloc((TX_RING_SIZE + RX_RING_SIZE) * kDescBytes, 4096);
  {
    std::vector<uint8_t> z((TX_RING_SIZE + RX_RING_SIZE) * kDescBytes, 0);
    k.mem_write(gblock_dvma_, z.data(), z.size());
  }
  // gem_get_device_address: Open Firmware's "local-mac-address" (see the header: the address the
  // firmware leaves in MAC_ADDR0-2 stands for the property).
  const uint32_t a0 = co_await readl(reg(MAC_ADDR0)), a1 = co_await readl(reg(MAC_ADDR1)),
                 a2 = co_await readl(reg(MAC_ADDR2));
  dev_addr = {uint8_t(a2 >> 8), uint8_t(a2), uint8_t(a1 >> 8), uint8_t(a1), uint8_t(a0 >> 8), uint8_t(a0)};
  features = NETIF_F_SG | NETIF_F_HW_CSUM;  // "GEM can do it all..."
  if (v_ == Version::v0_96) k.mod_timer(pm_timer_, k.jiffies() + 10 * k.params().hz);
  probed_ = true;
  co_await k.wake_up(probe_wq_);
}

namespace {
Task<void> probe_port(Gem* g) { co_await g->probe_hw(); }
}  // namespace

std::vector<std::shared_ptr<NetDevice>> probe(Kernel& k, PciDevice& dev, const std::vector<unsigned>& vectors,
                                              const ProbeTarget& nic, const ParamValues& params, Version v) {
  const char* name = v == Version::v0_95 ? kDriverName095 : kDriverName096;
  if (dev.info().name != "GMAC")
    throw std::invalid_argument(std::string(name) + ": unsupported device '" + dev.info().name + "'");
  auto* obj = dynamic_cast<sc_core::sc_object*>(&dev);
  if (!obj) throw std::invalid_argument(std::string(name) + ": device is not a SystemC object");
  if (vectors.empty()) throw std::invalid_argument(std::string(name) + ": no interrupt vector");
  auto g = std::make_shared<Gem>(k, nic.ifname, dev.bar(0), vectors[0], DmaTags::space_of(obj->name()), v, params);
  k.register_netdev(*g);
  k.spawn_process("insmod sungem " + nic.ifname, probe_port(g.get()));
  return {g};
}

// ---------------------------------------------------------------------------------------------
// open / close

Task<int> Gem::open() {
  while (!probed_) co_await probe_wq_.wait();
  Kernel& k = kernel();
  if (v_ == Version::v0_95) {
    k.del_timer(link_timer_);
    co_await gem_apple_powerup();  // "First, we need to bring up the chip"
    co_await gem_stop();
    if (k.request_irq(irq, [this](unsigned) { return interrupt(); }, SA_SHIRQ, name()) != 0) co_return -kEAGAIN;
    irq_requested_ = true;
    co_await gem_init_rings();
    co_await gem_init_hw(true);
    co_return 0;
  }
  const bool hw_was_up = hw_running_;
  k.del_timer(pm_timer_);
  if (!hw_running_) {
    co_await gem_apple_powerup();
    co_await gem_check_invariants();
    co_await gem_stop();
    hw_running_ = true;
  }
  if (k.request_irq(irq, [this](unsigned) { return interrupt(); }, SA_SHIRQ, name()) != 0) {
    k.mod_timer(pm_timer_, k.jiffies() + 10 * k.params().hz);
    co_return -kEAGAIN;
  }
  irq_requested_ = true;
  co_await gem_init_rings();
  co_await gem_init_hw(!hw_was_up);
  opened_ = true;
  co_return 0;
}

Task<int> Gem::stop() {
  Kernel& k = kernel();
  if (v_ == Version::v0_95) {
    k.del_timer(link_timer_);
    co_await gem_stop();
    gem_clean_rings();
    hw_running_ = false;
  } else {
    opened_ = false;
    co_await writel(0xffffffffu, reg(GREG_IMASK));
    netif_stop_queue();
    co_await gem_stop();
    gem_clean_rings();
  }
  if (irq_requested_) k.free_irq(irq, name());
  irq_requested_ = false;
  if (v_ == Version::v0_96) k.mod_timer(pm_timer_, k.jiffies() + 10 * k.params().hz);
  link_up_ = false;
  co_return 0;
}

// ---------------------------------------------------------------------------------------------
// transmit

Task<int> Gem::hard_start_xmit(SkbPtr& skb) {
  Kernel& k = kernel();
  co_await k.cost(costs_[Path::gem_start_xmit]);
  uint64_t ctrl = 0;
  if (skb->ip_summed == CHECKSUM_HW) {
    const uint64_t csum_start_off = uint64_t(skb->h_off - skb->data_off);
    const uint64_t csum_stuff_off = uint64_t(skb->h_off + skb->csum - skb->data_off);
    ctrl = TXDCTRL_CENAB | (csum_start_off << 15) | (csum_stuff_off << 21);
  }
  const unsigned nr_frags = 0;  // linear skbs (see the header)
  if (tx_buffs_avail(tx_old_, tx_new_) <= nr_frags + 1) {
    netif_stop_queue();
    ++*c_tx_busy_;
    co_return 1;
  }
  const unsigned entry = tx_new_;
  const uint32_t len = skb->len;
  const uint64_t mapping = k.pci_map_single(*skb, DmaDir::ToDevice);
  const JourneyId j = skb->journey;
  dma_tags().tag(space_, mapping, j);
  ctrl |= TXDCTRL_SOF | TXDCTRL_EOF | len;
  if (v_ == Version::v0_96 && gem_intme(entry)) ctrl |= TXDCTRL_INTME;
  store_desc(txd_addr(entry) + 8, mapping);  // txd->buffer = cpu_to_le64(mapping)
  store_desc(txd_addr(entry), ctrl);         // txd->control_word = cpu_to_le64(ctrl)
  tx_skbs_[entry] = RingInfo{std::move(skb), mapping};
  tx_new_ = next_tx(entry);
  if (tx_buffs_avail(tx_old_, tx_new_) <= 0) netif_stop_queue();
  k.mark(j, "doorbell");
  co_await writel(tx_new_, reg(TXDMA_KICK));
  if (Cpu* cpu = Cpu::running_cpu_or_null(); cpu && cpu->running() && cpu->running()->journey == j) {
    cpu->running()->journey = 0;
    cpu->running()->stage.clear();
  }
  co_return 0;
}

Task<void> Gem::gem_tx(uint32_t status) {
  Kernel& k = kernel();
  ++*c_tx_reaps_;
  unsigned entry = tx_old_;
  const unsigned limit = (status & GREG_STAT_TXNR) >> GREG_STAT_TXNR_SHIFT;
  while (entry != limit) {
    RingInfo& ri = tx_skbs_[entry];
    if (!ri.skb) {  // not ours (cannot happen with the ring the driver filled)
      entry = next_tx(entry);
      continue;
    }
    co_await k.cost(costs_[Path::gem_tx]);
    stats.tx_bytes += ri.skb->len;
    // le64_to_cpu(txd->buffer), le64_to_cpu(txd->control_word) & TXDCTRL_BUFSZ: pci_unmap_page
    (void)load_desc(txd_addr(entry) + 8);
    (void)(load_desc(txd_addr(entry)) & TXDCTRL_BUFSZ);
    dma_tags().tag(space_, ri.mapping, 0);
    ++stats.tx_packets;
    ++*c_tx_cleaned_;
    k.dev_kfree_skb_irq(std::move(ri.skb));
    ri.mapping = 0;
    entry = next_tx(entry);
  }
  tx_old_ = entry;
  if (netif_queue_stopped() && tx_buffs_avail(tx_old_, tx_new_) > 0) netif_wake_queue();
}

// ---------------------------------------------------------------------------------------------
// receive

Task<void> Gem::gem_post_rxds(unsigned limit) {
  co_await kernel().cost(costs_[Path::gem_post_rxds]);
  unsigned cluster_start = rx_new_ & ~3u, curr = cluster_start, count = 0;
  int kick = -1;
  while (curr != limit) {
    curr = next_rx(curr);
    if (++count == 4) {
      for (;;) {
        store_desc(rxd_addr(cluster_start), rxdctrl_fresh(mtu));  // cpu_to_le64(RXDCTRL_FRESH(gp))
        cluster_start = next_rx(cluster_start);
        if (cluster_start == curr) break;
      }
      kick = int(curr);
      count = 0;
    }
  }
  if (kick >= 0) {
    co_await writel(uint32_t(kick), reg(RXDMA_KICK));
    ++*c_rx_kicks_;
  }
}

Task<void> Gem::gem_rx() {
  Kernel& k = kernel();
  const sc_time t_isr = now();
  const ByteOrderOps ops = byte_order_ops(k);
  const unsigned bufsz = rx_buf_alloc_size(mtu);
  unsigned entry = rx_new_;
  for (;;) {
    const uint64_t rxd = rxd_addr(entry);
    const sc_time t0 = now();
    const unsigned misses = co_await k.load_dma_lines(rxd, 8, 0, "RX descriptor");
    const uint64_t status = load_desc(rxd);  // cpu_to_le64(rxd->status_word)
    if (status & RXDCTRL_OWN) break;
    co_await k.cost(costs_[Path::gem_rx]);
    RingInfo& ri = rx_skbs_[entry];
    const JourneyId j = ri.mapping ? dma_tags().take(space_, ri.mapping + RX_OFFSET) : 0;
    mark_rx_journey(k, j, t_isr, misses ? t0 : SC_ZERO_TIME);
    const unsigned len = unsigned((status & RXDCTRL_BUFSZ) >> 16);
    if (len < ETH_ZLEN || (status & RXDCTRL_BAD) || !ri.skb) {
      ++stats.rx_errors;
      ++stats.rx_dropped;  // "We'll just return it to GEM."
      ++*c_rx_dropped_;
      entry = next_rx(entry);
      continue;
    }
    const uint64_t dma_addr = load_desc(rxd + 8);  // cpu_to_le64(rxd->buffer)
    SkbPtr skb;
    if (len > RX_COPY_THRESHOLD) {
      co_await k.cost(costs_[Path::gem_rx_refill]);
      SkbPtr new_skb = co_await gem_alloc_skb(bufsz);
      skb = std::move(ri.skb);
      // pci_unmap_page; the skb was skb_put to ETH_FRAME_LEN + RX_OFFSET at refill, skb_trim(len)
      // only shortens it: a frame longer than that (1514 + the FCS) keeps 1516 bytes.
      const uint32_t keep = std::min<uint32_t>(len, ETH_FRAME_LEN + RX_OFFSET);
      k.pci_unmap_single(*skb, keep, DmaDir::FromDevice);
      skb->put(keep);
      new_skb->dev = this;
      const uint64_t m = k.pci_map_single(*new_skb, DmaDir::FromDevice);
      store_desc(rxd + 8, m);  // rxd->buffer = cpu_to_le64(pci_map_page(...))
      new_skb->reserve(RX_OFFSET);
      ri = RingInfo{std::move(new_skb), m};
    } else {
      ++*c_copy_;
      skb = co_await k.dev_alloc_skb(len + 2);
      skb->dev = this;
      skb->reserve(2);
      co_await k.load_dma_lines(dma_addr + RX_OFFSET, len, j, "RX frame (copybreak)");
      co_await k.cost(costs_[Path::gem_rx_copy], len);
      k.mem_read(dma_addr + RX_OFFSET, skb->put(len), len);  // memcpy(copy_skb->data, skb->data, len)
    }
    co_await k.load_dma_lines(skb->data_phys(), ETH_HLEN, j);  // eth_type_trans reads the header
    skb->csum = ops.ntohs(uint16_t((status & RXDCTRL_TCPCSUM) ^ 0xffff));
    skb->ip_summed = CHECKSUM_HW;
    k.eth_type_trans(*skb, *this);
    skb->journey = j;
    ++stats.rx_packets;
    stats.rx_bytes += len;
    ++*c_rx_;
    (void)co_await k.netif_rx(std::move(skb));
    entry = next_rx(entry);
  }
  co_await gem_post_rxds(entry);
  rx_new_ = entry;
}

// ---------------------------------------------------------------------------------------------
// interrupt handler

Task<bool> Gem::gem_abnormal_irq(uint32_t status) {
  Kernel& k = kernel();
  co_await k.cost(costs_[Path::gem_abnormal_irq]);
  ++*c_abnormal_;
  bool reset = false;
  if (status & GREG_STAT_RXNOBUF) ++stats.rx_dropped;  // "Frame arrived, no free RX buffers available."
  if (status & GREG_STAT_RXTAGERR) {
    ++stats.rx_errors;
    reset = true;
  }
  if (!reset && (status & GREG_STAT_PCS)) (void)co_await readl(reg(PCS_ISTAT));  // no PCS_ISTAT_LSC: return 0
  if (!reset && (status & GREG_STAT_TXMAC)) {  // gem_txmac_interrupt
    ++*c_txmac_;
    const uint32_t s = co_await readl(reg(MAC_TXSTAT));
    if (!((s & MAC_TXSTAT_DTE) && !(s & ~MAC_TXSTAT_DTE))) {
      if (s & MAC_TXSTAT_URUN) ++stats.tx_errors;  // tx_fifo_errors
      if (s & MAC_TXSTAT_MPE) ++stats.tx_errors;
      if (s & MAC_TXSTAT_NCE) stats.collisions += 0x10000;
      if (s & MAC_TXSTAT_ECE) stats.collisions += 0x10000;
      if (s & MAC_TXSTAT_LCE) stats.collisions += 0x10000;
    }
  }
  if (!reset && (status & GREG_STAT_RXMAC)) {  // gem_rxmac_interrupt
    ++*c_rxmac_;
    const uint32_t s = co_await readl(reg(MAC_RXSTAT));
    if (s & MAC_RXSTAT_OFLW) {
      ++stats.rx_over_errors;
      ++stats.rx_fifo_errors;
    }
    if (s & MAC_RXSTAT_CCE) stats.rx_crc_errors += 0x10000;
  }
  if (!reset && (status & GREG_STAT_MAC)) {  // gem_mac_interrupt: pause_entered / pause_last_time_recvd
    ++*c_mac_;
    (void)co_await readl(reg(MAC_CSTAT));
  }
  if (!reset && (status & GREG_STAT_MIF)) (void)co_await readl(reg(MIF_STATUS));  // gem_handle_mif_event: empty
  if (!reset && (status & GREG_STAT_PCIERR)) {
    (void)co_await readl(reg(GREG_PCIESTAT));
    reset = true;  // "For all PCI errors, we should reset the chip."
  }
  if (reset) ++*c_resets_;  // do_reset (v0.95 in the ISR, v0.96 via reset_task): not modelled
  co_return reset;
}

Task<void> Gem::interrupt() {
  Kernel& k = kernel();
  co_await k.cost(costs_[Path::gem_interrupt]);
  ++*c_intr_;
  const uint32_t gem_status = co_await readl(reg(GREG_STAT));
  if (gem_status & GREG_STAT_ABNORMAL)
    if (co_await gem_abnormal_irq(gem_status)) co_return;
  if (gem_status & (GREG_STAT_TXALL | GREG_STAT_TXINTME)) co_await gem_tx(gem_status);
  if (gem_status & GREG_STAT_RXDONE) co_await gem_rx();
}

}  // namespace nicsim::sungemdrv
