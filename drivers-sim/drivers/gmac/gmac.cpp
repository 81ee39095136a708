// gmac.c v1.5k4 of the model: probe, open/close, the PHY (MIF frames), gmac_mac_init, the rings,
// transmit, the interrupt handler, TX cleanup, receive and the DriverEntry. See gmac.h for what is
// modelled and the sources (LH@2.4.16:drivers/net/gmac.c, gmac.h).
#include "drivers-sim/drivers/gmac/gmac.h"
#include "core/events.h"
#include "drivers-sim/drivers/gem_whatif/rx_blank.h"
#include "drivers-sim/driver_traits.h"
#include "drivers-sim/kernel/skb_truesize.h"
#include "core/sim_context.h"
#include "drivers-sim/kernel/byteorder.h"
#include "drivers-sim/kernel/io.h"
#include "drivers-sim/kernel/irqflags.h"
#include "drivers-sim/kernel/rx_journey.h"
#include "models/bus/pci.h"
#include <stdexcept>
#include <systemc>

namespace nicsim::gmacdrv {

namespace {
constexpr int kEIO = 5;
std::string counter(Kernel& k, const std::string& dev, const char* what) {
  return k.host() + "." + dev + ".driver." + what;
}
}  // namespace

Gmac::Gmac(Kernel& k, std::string name, uint64_t bar, unsigned vector, DmaTags::Space dma_space,
           ParamValues params)
    : NetDevice(k, std::move(name)), bar_(bar), params_(std::move(params)), costs_(k.driver_costs(kCostDriver, path_names())), space_(dma_space) {
  irq = vector;
  features = 0;  // gmac_probe1 sets no dev->features: no SG, no checksum offload
  auto& cs = sim().counters;
  c_intr_ = &cs.at(counter(k, this->name(), "intr"));
  c_status_reads_ = &cs.at(counter(k, this->name(), "status_reads"));
  c_rx_ = &cs.at(counter(k, this->name(), "rx_frames"));
  c_copy_ = &cs.at(counter(k, this->name(), "rx_copybreak"));
  c_rx_kicks_ = &cs.at(counter(k, this->name(), "rx_kicks"));
  c_tx_cleaned_ = &cs.at(counter(k, this->name(), "tx_cleaned"));
  c_tx_comp_reads_ = &cs.at(counter(k, this->name(), "tx_comp_reads"));
  c_tx_at_comp_ = &cs.at(counter(k, this->name(), "tx_cleanup_at_comp"));
  c_tx_busy_ = &cs.at(counter(k, this->name(), "tx_busy"));
  c_tx_stops_ = &cs.at(counter(k, this->name(), "tx_queue_stops"));
  // gmac_probe1: dummy_buf (kmalloc DUMMY_BUF_LEN) and one page each for the TX and RX rings.
  dummy_buf_ = k.dma_alloc(DUMMY_BUF_LEN, 32);
  tx_desc_page_ = k.dma_alloc(kPageBytes, kPageBytes);
  rx_desc_page_ = k.dma_alloc(kPageBytes, kPageBytes);
  txring_ = tx_desc_page_;
  rxring_ = rx_desc_page_;
}

// The kernel may already be gone at teardown: touch nothing of it here.
Gmac::~Gmac() = default;

uint64_t Gmac::rx_buffer(unsigned i) const { return rx_data_.at(i % NRX); }

// ---------------------------------------------------------------------------------------------
// GM_OUT / GM_IN / GM_BIS / GM_BIC (gmac.h): the register's size class picks the accessor.

Task<void> Gmac::gm_out(uint32_t reg, uint32_t v) {
  const uint64_t a = bar_ + reg_offset(reg);
  switch (reg_width(reg)) {
    case 4: co_await out_le32(a, v); break;
    case 2: co_await out_le16(a, uint16_t(v)); break;
    default: co_await out_8(a, uint8_t(v)); break;
  }
}

Task<uint32_t> Gmac::gm_in(uint32_t reg) {
  const uint64_t a = bar_ + reg_offset(reg);
  switch (reg_width(reg)) {
    case 4: co_return co_await in_le32(a);
    case 2: co_return co_await in_le16(a);
    default: co_return co_await in_8(a);
  }
}

// Every awaited value is taken into a local first (a co_await in a while condition trapped with
// GCC 12's coroutines here).
Task<void> Gmac::gm_bis(uint32_t reg, uint32_t v) {
  const uint32_t old = co_await gm_in(reg);
  co_await gm_out(reg, old | v);
}
Task<void> Gmac::gm_bic(uint32_t reg, uint32_t v) {
  const uint32_t old = co_await gm_in(reg);
  co_await gm_out(reg, old & ~v);
}

Task<void> Gmac::udelay(double n) {
  // udelay / mdelay: a calibrated busy loop on the running CPU.
  co_await CpuBurn{us(n)};
}

// ---------------------------------------------------------------------------------------------
// MII through the MIF frame register (mii_read / mii_write and the PHY set-up)

Task<int> Gmac::mii_read(int phy, int r) {
  co_await gm_out(GM_MIF_FRAME_CTL_DATA, (0x01u << GM_MIF_FRAME_START_SHIFT) | (0x02u << GM_MIF_FRAME_OPCODE_SHIFT) |
                                             GM_MIF_FRAME_TURNAROUND_HI | (uint32_t(phy) << GM_MIF_FRAME_PHY_ADDR_SHIFT) |
                                             (uint32_t(r) << GM_MIF_FRAME_REG_ADDR_SHIFT));
  for (int timeout = 1000; timeout > 0; --timeout) {
    co_await udelay(20);
    const uint32_t f = co_await gm_in(GM_MIF_FRAME_CTL_DATA);
    if (f & GM_MIF_FRAME_TURNAROUND_LO) {
      const uint32_t d = co_await gm_in(GM_MIF_FRAME_CTL_DATA);
      co_return int(d & GM_MIF_FRAME_DATA_MASK);
    }
  }
  co_return -1;
}

Task<int> Gmac::mii_write(int phy, int r, int v) {
  co_await gm_out(GM_MIF_FRAME_CTL_DATA, (0x01u << GM_MIF_FRAME_START_SHIFT) | (0x01u << GM_MIF_FRAME_OPCODE_SHIFT) |
                                             GM_MIF_FRAME_TURNAROUND_HI | (uint32_t(phy) << GM_MIF_FRAME_PHY_ADDR_SHIFT) |
                                             (uint32_t(r) << GM_MIF_FRAME_REG_ADDR_SHIFT) |
                                             (uint32_t(v) & GM_MIF_FRAME_DATA_MASK));
  for (int timeout = 1000; timeout > 0; --timeout) {
    co_await udelay(20);
    const uint32_t f = co_await gm_in(GM_MIF_FRAME_CTL_DATA);
    if (f & GM_MIF_FRAME_TURNAROUND_LO) co_return 0;
  }
  co_return -1;
}

Task<void> Gmac::mii_poll_start() {
  uint32_t tmp = co_await gm_in(GM_MIF_CFG);
  tmp &= ~(GM_MIF_CFGPR_MASK | GM_MIF_CFGPD_MASK);
  tmp |= (uint32_t(phy_addr_) & 0x1f) << GM_MIF_CFGPD_SHIFT;
  tmp |= uint32_t(MII_SR) << GM_MIF_CFGPR_SHIFT;
  tmp |= GM_MIF_CFGPE;
  co_await gm_out(GM_MIF_CFG, tmp);
  co_await udelay(GM_MIF_POLL_DELAY);
  co_await gm_out(GM_MIF_IRQ_MASK, 0xffc0);
}

Task<void> Gmac::mii_poll_stop() {
  co_await gm_out(GM_MIF_IRQ_MASK, 0xffff);
  co_await gm_bic(GM_MIF_CFG, GM_MIF_CFGPE);
  co_await udelay(GM_MIF_POLL_DELAY);
}

namespace {
// phy_BCM5400_link_table: {full duplex, 100, 1000} by the AUXSTATUS link mode.
constexpr int kLinkTable[8][3] = {{0, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 1, 0}, {1, 1, 0}, {1, 0, 1}, {1, 0, 1}};
}  // namespace

Task<void> Gmac::mii_interrupt() {
  co_await mii_poll_stop();
  co_await mii_poll_start();
  const int phy_status = co_await mii_read(phy_addr_, MII_SR);
  if (!((phy_status ^ phy_status_) & (MII_SR_ASSC | MII_SR_LKS))) co_return;
  int full_duplex = 0, gigabit = 0;
  phy_status_ = phy_status;
  const int lpar_ability = co_await mii_read(phy_addr_, MII_ANLPA);
  if (lpar_ability & MII_ANLPA_PAUS) co_await gm_bis(GM_MAC_CTRL_CONFIG, GM_MAC_CTRL_CONF_SND_PAUSE_EN);
  else co_await gm_bic(GM_MAC_CTRL_CONFIG, GM_MAC_CTRL_CONF_SND_PAUSE_EN);
  if ((phy_status & MII_SR_LKS) && (phy_status & MII_SR_ASSC)) {
    bool restart = false;
    switch (phy_type_) {
      case PHY_B5201:
      case PHY_B5221: {
        const int aux = co_await mii_read(phy_addr_, MII_BCM5201_AUXCTLSTATUS);
        full_duplex = (aux & MII_BCM5201_AUXCTLSTATUS_DUPLEX) != 0;
        carrier_change(true);
        break;
      }
      case PHY_B5400:
      case PHY_B5401:
      case PHY_B5411: {
        const int aux = co_await mii_read(phy_addr_, MII_BCM5400_AUXSTATUS);
        const int link = (aux & MII_BCM5400_AUXSTATUS_LINKMODE_MASK) >> MII_BCM5400_AUXSTATUS_LINKMODE_SHIFT;
        full_duplex = kLinkTable[link & 7][0];
        gigabit = kLinkTable[link & 7][2];
        carrier_change(true);
        break;
      }
      case PHY_LXT971: {
        const int aux = co_await mii_read(phy_addr_, MII_LXT971_STATUS2);
        full_duplex = (aux & MII_LXT971_STATUS2_FULLDUPLEX) != 0;
        carrier_change(true);
        break;
      }
      default:
        full_duplex = (lpar_ability & MII_ANLPA_FDAM) != 0;
        break;
    }
    if (bool(gigabit) != gigabit_) {
      gigabit_ = gigabit;
      co_await gmac_set_gigabit_mode(gigabit_);
      restart = true;
    }
    if (bool(full_duplex) != full_duplex_) {
      full_duplex_ = full_duplex;
      co_await gmac_set_duplex_mode(full_duplex_);
      restart = true;
    }
    if (restart) co_await gmac_start_dma();
  } else if (!(phy_status & MII_SR_LKS)) {
    carrier_change(false);
  }
}

void Gmac::carrier_change(bool on) {
  // 2.4.20's mii_interrupt calls netif_carrier_on for each known PHY's link-up and
  // netif_carrier_off on link loss (LH@2.4.20 drivers/net/gmac.c; 2.4.16's has neither).
  if (on == netif_carrier_ok()) return;
  if (on) netif_carrier_on();
  else netif_carrier_off();
  run_events().note(now(), kernel().host() + "." + name(), on ? "carrier on" : "carrier off",
                    on ? "gmac mii_interrupt: link up" : "gmac mii_interrupt: Link down !");
}

Task<int> Gmac::mii_do_reset_phy(int phy_addr) {
  int mii_control = co_await mii_read(phy_addr, MII_CR);
  co_await mii_write(phy_addr, MII_CR, mii_control | MII_CR_RST);
  co_await mdelay(10);
  for (int timeout = 100; timeout > 0; --timeout) {
    mii_control = co_await mii_read(phy_addr, MII_CR);
    if (mii_control == -1) co_return 1;  // "PHY died after reset !"
    if ((mii_control & MII_CR_RST) == 0) break;
    co_await mdelay(10);
  }
  if (mii_control & MII_CR_RST) co_return 1;  // "PHY reset timeout !"
  co_await mii_write(phy_addr, MII_CR, mii_control & ~MII_CR_ISOL);
  co_return 0;
}

Task<void> Gmac::mii_init_BCM5400() {
  int data = co_await mii_read(phy_addr_, MII_BCM5400_AUXCONTROL);
  co_await mii_write(phy_addr_, MII_BCM5400_AUXCONTROL, data | MII_BCM5400_AUXCONTROL_PWR10BASET);
  data = co_await mii_read(phy_addr_, MII_BCM5400_GB_CONTROL);
  co_await mii_write(phy_addr_, MII_BCM5400_GB_CONTROL, data | MII_BCM5400_GB_CONTROL_FULLDUPLEXCAP);
  co_await mdelay(10);
  (void)co_await mii_do_reset_phy(0x1f);
  data = co_await mii_read(0x1f, MII_BCM5201_MULTIPHY);
  co_await mii_write(0x1f, MII_BCM5201_MULTIPHY, data | MII_BCM5201_MULTIPHY_SERIALMODE);
  data = co_await mii_read(phy_addr_, MII_BCM5400_AUXCONTROL);
  co_await mii_write(phy_addr_, MII_BCM5400_AUXCONTROL, data & ~MII_BCM5400_AUXCONTROL_PWR10BASET);
}

Task<void> Gmac::mii_init_BCM5401() {
  const int id1 = co_await mii_read(phy_addr_, MII_ID1);
  const int rev = id1 & 0x000f;
  if (rev == 0 || rev == 3) {  // "tap power management" sequence of some revisions
    static constexpr int kSeq[][2] = {{0x18, 0x0c20}, {0x17, 0x0012}, {0x15, 0x1804}, {0x17, 0x0013},
                                      {0x15, 0x1204}, {0x17, 0x8006}, {0x15, 0x0132}, {0x17, 0x8006},
                                      {0x15, 0x0232}, {0x17, 0x201f}, {0x15, 0x0a20}};
    for (const auto& w : kSeq) co_await mii_write(phy_addr_, w[0], w[1]);
  }
  const int data = co_await mii_read(phy_addr_, MII_BCM5400_GB_CONTROL);
  co_await mii_write(phy_addr_, MII_BCM5400_GB_CONTROL, data | MII_BCM5400_GB_CONTROL_FULLDUPLEXCAP);
  co_await mdelay(10);
  (void)co_await mii_do_reset_phy(0x1f);
  const int m = co_await mii_read(0x1f, MII_BCM5201_MULTIPHY);
  co_await mii_write(0x1f, MII_BCM5201_MULTIPHY, m | MII_BCM5201_MULTIPHY_SERIALMODE);
}

Task<void> Gmac::mii_init_BCM5411() {
  // "some more Apple black magic": three writes of register 0x1c, a reset, autoneg start.
  co_await mii_write(phy_addr_, 0x1c, 0x8c23);
  co_await mii_write(phy_addr_, 0x1c, 0x8ca3);
  co_await mii_write(phy_addr_, 0x1c, 0x8c23);
  co_await mii_write(phy_addr_, MII_CR, MII_CR_RST);
  co_await mii_write(phy_addr_, MII_CR, MII_CR_ASSE | MII_CR_FDM | MII_CR_RAN | MII_CR_SPEEDSEL2);
  const int data = co_await mii_read(phy_addr_, MII_BCM5400_GB_CONTROL);
  co_await mii_write(phy_addr_, MII_BCM5400_GB_CONTROL, data | MII_BCM5400_GB_CONTROL_FULLDUPLEXCAP);
}

Task<bool> Gmac::mii_lookup_and_reset() {
  phy_addr_ = -1;
  phy_type_ = PHY_UNKNOWN;
  // feature_gmac_phy_reset: the KeyLargo GPIO low, mdelay(10), high, mdelay(10) (GPIO not modelled).
  co_await mdelay(10);
  co_await mdelay(10);
  int i = 0;
  for (; i <= 31; ++i) {
    const int mii_control = co_await mii_read(i, MII_CR);
    const int mii_status = co_await mii_read(i, MII_SR);
    if (mii_control != -1 && mii_status != -1 && (mii_control != 0xffff || mii_status != 0xffff)) break;
  }
  phy_addr_ = i;
  if (phy_addr_ > 31) co_return false;
  const int reset_failed = co_await mii_do_reset_phy(phy_addr_);
  if (reset_failed) {
    phy_addr_ = -1;
    co_return false;
  }
  const int id0 = co_await mii_read(phy_addr_, MII_ID0);
  const int id1 = co_await mii_read(phy_addr_, MII_ID1);
  phy_id_ = (uint32_t(id0) << 16) | uint32_t(id1);
  const uint32_t m = phy_id_ & MII_BCM54XX_MASK;
  if (m == MII_BCM5400_ID) {
    phy_type_ = PHY_B5400;
    co_await mii_init_BCM5400();
  } else if (m == MII_BCM5401_ID) {
    phy_type_ = PHY_B5401;
    co_await mii_init_BCM5401();
  } else if (m == MII_BCM5411_ID) {
    phy_type_ = PHY_B5411;
    co_await mii_init_BCM5411();
  } else if (m == MII_BCM5201_ID) {
    phy_type_ = PHY_B5201;
  } else if (m == MII_BCM5221_ID) {
    phy_type_ = PHY_B5221;
  } else if (m == MII_LXT971_ID) {
    phy_type_ = PHY_LXT971;
  }
  co_return true;
}

Task<void> Gmac::mii_setup_phy() {
  int data = co_await mii_read(phy_addr_, MII_CR);
  co_await mii_write(phy_addr_, MII_CR, data & ~MII_CR_ASSE);
  data = co_await mii_read(phy_addr_, MII_ANA);
  co_await mii_write(phy_addr_, MII_ANA, data | MII_ANA_TXAM | MII_ANA_FDAM | MII_ANA_10M);
  data = co_await mii_read(phy_addr_, MII_CR);
  data |= MII_CR_ASSE;
  co_await mii_write(phy_addr_, MII_CR, data);
  data |= MII_CR_RAN;
  co_await mii_write(phy_addr_, MII_CR, data);
}

// ---------------------------------------------------------------------------------------------
// power, reset, MAC set-up

Task<void> Gmac::gmac_set_power(bool up) {
  // feature_set_gmac_power: UNI_N_CLOCK_CNTL_GMAC set or cleared, then udelay(20); on power-up the
  // PCI command (memory, master, MWI), latency timer 16 and cache line size 8 writes. Neither the
  // UniNorth clock gate nor config space is modelled: only the delay is.
  (void)up;
  co_await udelay(20);
}

Task<int> Gmac::gmac_powerup_and_reset() {
  co_await gmac_set_power(true);
  co_await gm_out(GM_RESET, GM_RESET_TX | GM_RESET_RX);
  for (int timeout = 100; timeout > 0; --timeout) {
    co_await mdelay(10);
    const uint32_t rst = co_await gm_in(GM_RESET);
    if ((rst & (GM_RESET_TX | GM_RESET_RX)) == 0) {
      co_await gm_out(GM_IRQ_MASK, 0xffffffff);  // "Mask out all chips interrupts"
      co_await gm_out(GM_MAC_TX_RESET, GM_MAC_TX_RESET_NOW);
      co_await gm_out(GM_MAC_RX_RESET, GM_MAC_RX_RESET_NOW);
      co_return 0;
    }
  }
  co_await gmac_set_power(false);  // "reset failed!"
  phy_type_ = 0;
  co_return -1;
}

Task<void> Gmac::gmac_set_duplex_mode(bool full_duplex) {
  co_await gm_bic(GM_MAC_TX_CONFIG, GM_MAC_TX_CONF_ENABLE);  // "Stop Tx MAC"
  for (;;) {
    const uint32_t cfg = co_await gm_in(GM_MAC_TX_CONFIG);
    if (!(cfg & GM_MAC_TX_CONF_ENABLE)) break;
  }
  if (full_duplex) {
    co_await gm_bis(GM_MAC_TX_CONFIG, GM_MAC_TX_CONF_IGNORE_CARRIER | GM_MAC_TX_CONF_IGNORE_COLL);
    co_await gm_bic(GM_MAC_XIF_CONFIG, GM_MAC_XIF_CONF_DISABLE_ECHO);
  } else {
    co_await gm_bic(GM_MAC_TX_CONFIG, GM_MAC_TX_CONF_IGNORE_CARRIER | GM_MAC_TX_CONF_IGNORE_COLL);
    co_await gm_bis(GM_MAC_XIF_CONFIG, GM_MAC_XIF_CONF_DISABLE_ECHO);
  }
}

Task<void> Gmac::gmac_set_gigabit_mode(bool gigabit) {
  co_await gm_bic(GM_MAC_TX_CONFIG, GM_MAC_TX_CONF_ENABLE);
  for (;;) {
    const uint32_t cfg = co_await gm_in(GM_MAC_TX_CONFIG);
    if (!(cfg & GM_MAC_TX_CONF_ENABLE)) break;
  }
  if (gigabit) co_await gm_bis(GM_MAC_XIF_CONFIG, GM_MAC_XIF_CONF_GMII_MODE);
  else co_await gm_bic(GM_MAC_XIF_CONFIG, GM_MAC_XIF_CONF_GMII_MODE);
}

Task<void> Gmac::gmac_mac_init() {
  const auto& a = dev_addr;
  co_await gm_out(GM_MAC_RANDOM_SEED, a[5] | (uint32_t(a[4]) << 8));
  co_await gm_out(GM_PCS_DATAPATH_MODE, GM_PCS_DATAPATH_MII);
  co_await gm_out(GM_MAC_XIF_CONFIG, GM_MAC_XIF_CONF_TX_MII_OUT_EN | GM_MAC_XIF_CONF_FULL_DPLX_LED);
  // "Mask out all MAC interrupts" (the third write lands on the RX mask's low byte: gmac.h).
  co_await gm_out(GM_MAC_TX_MASK, 0xffff);
  co_await gm_out(GM_MAC_RX_MASK, 0xffff);
  co_await gm_out(GM_MAC_CTRLSTAT_MASK, 0xff);
  co_await gm_out(GM_MAC_SND_PAUSE, GM_MAC_SND_PAUSE_DEFAULT);
  co_await gm_out(GM_MAC_CTRL_CONFIG, GM_MAC_CTRL_CONF_RCV_PAUSE_EN);
  co_await gm_out(GM_GCONF, GM_GCONF_BURST_SZ | (31u << GM_GCONF_TXDMA_LIMIT_SHIFT) | (31u << GM_GCONF_RXDMA_LIMIT_SHIFT));
  co_await gm_out(GM_TX_CONF, (GM_TX_CONF_FIFO_THR_DEFAULT << GM_TX_CONF_FIFO_THR_SHIFT) | NTX_CONF);
  // 0x22 = 34: "(ethernet header len) + sizeof(struct iphdr)".
  co_await gm_out(GM_RX_CONF, (RX_OFFSET << GM_RX_CONF_FBYTE_OFF_SHIFT) | (0x22u << GM_RX_CONF_CHK_START_SHIFT) |
                                  (GM_RX_CONF_DMA_THR_DEFAULT << GM_RX_CONF_DMA_THR_SHIFT) | NRX_CONF);
  co_await gm_out(GM_MAC_INTR_PKT_GAP0, GM_MAC_INTR_PKT_GAP0_DEFAULT);
  co_await gm_out(GM_MAC_INTR_PKT_GAP1, GM_MAC_INTR_PKT_GAP1_DEFAULT);
  co_await gm_out(GM_MAC_INTR_PKT_GAP2, GM_MAC_INTR_PKT_GAP2_DEFAULT);
  co_await gm_out(GM_MAC_MIN_FRAME_SIZE, GM_MAC_MIN_FRAME_SIZE_DEFAULT);
  co_await gm_out(GM_MAC_MAX_FRAME_SIZE, GM_MAC_MAX_FRAME_SIZE_DEFAULT);
  co_await gm_out(GM_MAC_PREAMBLE_LEN, GM_MAC_PREAMBLE_LEN_DEFAULT);
  co_await gm_out(GM_MAC_JAM_SIZE, GM_MAC_JAM_SIZE_DEFAULT);
  co_await gm_out(GM_MAC_ATTEMPT_LIMIT, GM_MAC_ATTEMPT_LIMIT_DEFAULT);
  co_await gm_out(GM_MAC_SLOT_TIME, GM_MAC_SLOT_TIME_DEFAULT);
  co_await gm_out(GM_MAC_CONTROL_TYPE, GM_MAC_CONTROL_TYPE_DEFAULT);
  co_await gm_out(GM_MAC_ADDR_NORMAL0, (uint32_t(a[4]) << 8) + a[5]);
  co_await gm_out(GM_MAC_ADDR_NORMAL1, (uint32_t(a[2]) << 8) + a[3]);
  co_await gm_out(GM_MAC_ADDR_NORMAL2, (uint32_t(a[0]) << 8) + a[1]);
  co_await gm_out(GM_MAC_ADDR_ALT0, 0);
  co_await gm_out(GM_MAC_ADDR_ALT1, 0);
  co_await gm_out(GM_MAC_ADDR_ALT2, 0);
  co_await gm_out(GM_MAC_ADDR_CTRL0, 0x0001);
  co_await gm_out(GM_MAC_ADDR_CTRL1, 0xc200);
  co_await gm_out(GM_MAC_ADDR_CTRL2, 0x0180);
  co_await gm_out(GM_MAC_ADDR_FILTER0, 0);
  co_await gm_out(GM_MAC_ADDR_FILTER1, 0);
  co_await gm_out(GM_MAC_ADDR_FILTER2, 0);
  co_await gm_out(GM_MAC_ADDR_FILTER_MASK1_2, 0);
  co_await gm_out(GM_MAC_ADDR_FILTER_MASK0, 0);
  for (uint32_t i = 0; i < 27; ++i) co_await gm_out(GM_MAC_ADDR_FILTER_HASH0 + i, 0);  // as written: + i, not + 4 i
  for (uint32_t r : {GM_MAC_COLLISION_CTR, GM_MAC_FIRST_COLLISION_CTR, GM_MAC_EXCS_COLLISION_CTR,
                     GM_MAC_LATE_COLLISION_CTR, GM_MAC_DEFER_TIMER_COUNTER, GM_MAC_PEAK_ATTEMPTS, GM_MAC_RX_FRAME_CTR,
                     GM_MAC_RX_LEN_ERR_CTR, GM_MAC_RX_ALIGN_ERR_CTR, GM_MAC_RX_CRC_ERR_CTR,
                     GM_MAC_RX_CODE_VIOLATION_CTR})
    co_await gm_out(r, 0);
  co_await gm_out(GM_MAC_TX_CONFIG, 0);  // "default to half duplex"
  co_await gm_out(GM_MAC_RX_CONFIG, 0);
  co_await gmac_set_duplex_mode(full_duplex_);
  // Pause thresholds from the RX FIFO size, in 64-byte units: two and three maximal frames below it.
  const uint32_t fifo_size = co_await gm_in(GM_RX_FIFO_SIZE);
  co_await gm_out(GM_RX_PTH,
                  ((fifo_size - ((GM_MAC_MAX_FRAME_SIZE_ALIGN + 8) * 2 / GM_RX_PTH_UNITS)) << GM_RX_PTH_OFF_SHIFT) |
                      ((fifo_size - ((GM_MAC_MAX_FRAME_SIZE_ALIGN + 8) * 3 / GM_RX_PTH_UNITS)) << GM_RX_PTH_ON_SHIFT));
  // Interrupt blanking: 5 packets, and 8 time units on a 66 MHz bus or 4 on a 33 MHz one.
  // (The rx_blank_pkts / rx_blank_time what-if replaces the constants where a scenario sets them.)
  const uint32_t bif = co_await gm_in(GM_BIF_CFG);
  const uint32_t units = (bif & GM_BIF_CFG_M66EN) ? 8u : 4u;
  co_await gm_out(GM_RX_BLANK, gem_whatif::rx_blank_word(params_, 5u, units));
}

// ---------------------------------------------------------------------------------------------
// rings

Task<SkbPtr> Gmac::gmac_alloc_skb(unsigned length) {
  // gmac.h gmac_alloc_skb: alloc_skb(length + GMAC_BUFFER_ALIGN), data moved to a 32-byte boundary.
  Kernel& k = kernel();
  co_await k.cost(costs_[Path::gmac_alloc_skb]);
  SkbPtr skb = co_await k.alloc_skb(length + GMAC_BUFFER_ALIGN);
  const uint64_t d = skb->data_phys();
  const uint32_t offset = uint32_t(((d + GMAC_BUFFER_ALIGN - 1) & ~uint64_t(GMAC_BUFFER_ALIGN - 1)) - d);
  if (offset) skb->reserve(offset);
  co_return skb;
}

void Gmac::rx_skb_setup(Skb& skb) {
  skb.dev = this;
  skb.put(ETH_FRAME_LEN + RX_OFFSET);
  // skb_reserve(skb, RX_OFFSET) on the filled skb: 2.4's skb_reserve moves data and tail, len stays.
  if (skb.tailroom() < RX_OFFSET) throw std::logic_error("gmac: no room for skb_reserve(RX_OFFSET)");
  skb.data_off += RX_OFFSET;
}

void Gmac::set_rx_desc(unsigned i, uint64_t data) {
  // dp->hi_addr = 0 (gmac_receive; gmac_init_rings' memset), st_le32 lo_addr, mb(), st_le32 size.
  Kernel& k = kernel();
  const uint64_t dp = rxring_ + uint64_t(i) * kDescBytes;
  store_native32(k, dp + DESC_HI_ADDR, 0);
  st_le32(k, dp + DESC_LO_ADDR, uint32_t(data));
  st_le32(k, dp + DESC_SIZE, RX_SZ_OWN | ((RX_BUF_ALLOC_SIZE - RX_OFFSET) << RX_SZ_SHIFT));
  rx_data_[i] = data;
}

Task<void> Gmac::gmac_init_rings() {
  Kernel& k = kernel();
  std::vector<uint8_t> zero(size_t(NRX) * kDescBytes, 0);
  k.mem_write(rxring_, zero.data(), zero.size());  // memset(ring, 0, NRX * sizeof(struct gmac_dma_desc))
  for (unsigned i = 0; i < NRX; ++i) {
    uint64_t data = dummy_buf_;
    SkbPtr skb = co_await gmac_alloc_skb(RX_BUF_ALLOC_SIZE);
    if (skb) {
      rx_skb_setup(*skb);
      data = skb->data_phys() - RX_OFFSET;
    }
    rx_buff_[i] = std::move(skb);
    set_rx_desc(i, data);
  }
  std::vector<uint8_t> tz(size_t(NTX) * kDescBytes, 0);
  k.mem_write(txring_, tz.data(), tz.size());
  next_rx_ = next_tx_ = tx_gone_ = 0;
  co_await gm_out(GM_RX_DESC_HI, 0);
  co_await gm_out(GM_RX_DESC_LO, uint32_t(rxring_));
  co_await gm_out(GM_TX_DESC_HI, 0);
  co_await gm_out(GM_TX_DESC_LO, uint32_t(txring_));
}

Task<void> Gmac::gmac_start_dma() {
  co_await gm_bis(GM_TX_CONF, GM_TX_CONF_DMA_EN);
  co_await mdelay(20);
  co_await gm_bis(GM_RX_CONF, GM_RX_CONF_DMA_EN);
  co_await mdelay(20);
  co_await gm_bis(GM_MAC_RX_CONFIG, GM_MAC_RX_CONF_ENABLE);
  co_await mdelay(20);
  co_await gm_bis(GM_MAC_TX_CONFIG, GM_MAC_TX_CONF_ENABLE);
  co_await mdelay(20);
  co_await gm_out(GM_RX_KICK, NRX);  // "Kick the receiver and enable interrupts"
  co_await gm_bic(GM_IRQ_MASK, kIrqUnmasked);
}

Task<void> Gmac::gmac_stop_dma() {
  co_await gm_out(GM_IRQ_MASK, 0xffffffff);
  co_await gm_bic(GM_TX_CONF, GM_TX_CONF_DMA_EN);
  co_await mdelay(20);
  co_await gm_bic(GM_RX_CONF, GM_RX_CONF_DMA_EN);
  co_await mdelay(20);
  co_await gm_bic(GM_MAC_RX_CONFIG, GM_MAC_RX_CONF_ENABLE);
  co_await mdelay(20);
  co_await gm_bic(GM_MAC_TX_CONFIG, GM_MAC_TX_CONF_ENABLE);
  co_await mdelay(20);
}

Task<void> Gmac::gmac_set_multicast() {
  // No IFF_PROMISC, no IFF_ALLMULTI, mc_count 0: an all-zero hash table with hashing enabled.
  if (sleeping_) co_return;
  netif_stop_queue();
  for (uint32_t i = 0; i < 16; ++i) co_await gm_out(GM_MAC_ADDR_FILTER_HASH0 + i * 4, 0);
  co_await gm_bis(GM_MAC_RX_CONFIG, GM_MAC_RX_CONF_HASH_ENABLE);
  co_await gm_bic(GM_MAC_RX_CONFIG, GM_MAC_RX_CONF_RX_ALL);       // promisc = 0
  co_await gm_bis(GM_MAC_RX_CONFIG, GM_MAC_RX_CONF_HASH_ENABLE);  // multicast_hash = 1
  co_await gm_bic(GM_MAC_RX_CONFIG, GM_MAC_RX_CONF_RX_ALL_MULTI); // multicast_all = 0
  netif_wake_queue();
}

// ---------------------------------------------------------------------------------------------
// probe, open, close

Task<void> Gmac::probe_hw() {
  // get_property(gmac, "local-mac-address"): Open Firmware's station address, the one it left in
  // MAC_ADDR0..2 (the stand-in reads those; gmac itself does no register access here).
  const uint32_t a0 = co_await in_le16(bar_ + reg_offset(GM_MAC_ADDR_NORMAL0));
  const uint32_t a1 = co_await in_le16(bar_ + reg_offset(GM_MAC_ADDR_NORMAL1));
  const uint32_t a2 = co_await in_le16(bar_ + reg_offset(GM_MAC_ADDR_NORMAL2));
  dev_addr = {uint8_t(a2 >> 8), uint8_t(a2), uint8_t(a1 >> 8), uint8_t(a1), uint8_t(a0 >> 8), uint8_t(a0)};
  // init_etherdev leaves __LINK_STATE_NOCARRIER clear (carrier on); only mii_interrupt changes it
  // (2.4.20's, on a link change: carrier_change).
  netif_carrier_on();
  probed_ = true;
  co_await kernel().wake_up(probe_wq_);
}

Task<int> Gmac::open() {
  while (!probed_) co_await probe_wq_.wait();
  Kernel& k = kernel();
  const int up_rc = co_await gmac_powerup_and_reset();
  if (up_rc) co_return -kEIO;
  if (k.request_irq(irq, [this](unsigned) { return gmac_interrupt(); }, 0, name()) != 0) co_return -16;
  irq_requested_ = true;
  full_duplex_ = false;
  phy_status_ = 0;
  (void)co_await mii_lookup_and_reset();  // "WARNING ! Can't find PHY" when false
  co_await mii_setup_phy();
  co_await gmac_init_rings();
  co_await gmac_mac_init();
  co_await gmac_set_multicast();
  co_await mii_interrupt();  // "do this before enabling interrutps"
  co_await gmac_start_dma();
  opened_ = true;
  co_return 0;
}

Task<int> Gmac::stop() {
  Kernel& k = kernel();
  opened_ = false;
  co_await gmac_stop_dma();
  co_await mii_poll_stop();
  if (irq_requested_) k.free_irq(irq, name());
  irq_requested_ = false;
  co_await gmac_set_power(false);
  phy_type_ = 0;
  for (unsigned i = 0; i < NRX; ++i)
    if (rx_buff_[i]) {
      dma_tags().tag(space_, rx_buff_[i]->data_phys(), 0);
      co_await k.kfree_skb(std::move(rx_buff_[i]));
    }
  for (unsigned i = 0; i < NTX; ++i)
    if (tx_buff_[i]) {
      dma_tags().tag(space_, tx_data_[i], 0);
      co_await k.kfree_skb(std::move(tx_buff_[i]));
    }
  co_return 0;
}

// ---------------------------------------------------------------------------------------------
// transmit

Task<int> Gmac::hard_start_xmit(SkbPtr& skb) {
  Kernel& k = kernel();
  if (sleeping_) co_return 1;
  const bool was = local_irq_save();  // spin_lock_irqsave(&gm->lock)
  co_await k.cost(costs_[Path::gmac_xmit_start]);
  const unsigned i = next_tx_;
  if (tx_buff_[i]) {  // "Buffer is full, can't send this packet at the moment"
    netif_stop_queue();
    ++*c_tx_busy_;
    ++*c_tx_stops_;
    local_irq_restore(was);
    co_return 1;
  }
  next_tx_ = (i + 1) & (NTX - 1);
  const uint32_t len = skb->len;
  const uint64_t data = k.pci_map_single(*skb, DmaDir::ToDevice);  // virt_to_bus(skb->data)
  const JourneyId j = skb->journey;
  dma_tags().tag(space_, data, j);
  tx_data_[i] = data;
  tx_buff_[i] = std::move(skb);
  const uint64_t dp = txring_ + uint64_t(i) * kDescBytes;
  store_native32(k, dp + DESC_FLAGS, TX_FL_INTERRUPT);  // "FIXME: Interrupt on all packet for now"
  store_native32(k, dp + DESC_HI_ADDR, 0);
  st_le32(k, dp + DESC_LO_ADDR, uint32_t(data));
  st_le32(k, dp + DESC_SIZE, TX_SZ_SOP | TX_SZ_EOP | len);  // between two mb()
  k.mark(j, "doorbell");
  co_await gm_out(GM_TX_KICK, next_tx_);
  if (tx_buff_[next_tx_]) {
    netif_stop_queue();
    ++*c_tx_stops_;
  }
  local_irq_restore(was);
  if (Cpu* c = Cpu::running_cpu_or_null(); c && c->running() && c->running()->journey == j) {
    c->running()->journey = 0;
    c->running()->stage.clear();
  }
  co_return 0;
}

Task<void> Gmac::gmac_tx_cleanup(bool force_cleanup) {
  Kernel& k = kernel();
  unsigned i = tx_gone_;
  bool first = true;
  unsigned gone = 0;
  do {
    gone = co_await gm_in(GM_TX_COMP);
    ++*c_tx_comp_reads_;
    if (!tx_buff_[i]) break;
    if (first && i == gone % NTX && !force_cleanup) ++*c_tx_at_comp_;  // the do-while frees it anyway
    first = false;
    co_await k.cost(costs_[Path::gmac_tx_cleanup]);
    if (force_cleanup) {
      ++stats.tx_errors;
    } else {
      ++stats.tx_packets;
      stats.tx_bytes += tx_buff_[i]->len;
    }
    dma_tags().tag(space_, tx_data_[i], 0);
    tx_data_[i] = 0;
    ++*c_tx_cleaned_;
    k.dev_kfree_skb_irq(std::move(tx_buff_[i]));
    if (++i >= NTX) i = 0;
  } while (force_cleanup || i != gone);
  tx_gone_ = i;
  if (!force_cleanup && netif_queue_stopped() && !tx_buff_[next_tx_]) netif_wake_queue();
}

// ---------------------------------------------------------------------------------------------
// receive

Task<void> Gmac::gmac_receive() {
  Kernel& k = kernel();
  const sc_time t_pass = now();
  unsigned i = next_rx_;
  int last = -1;
  for (;;) {
    const uint64_t dp = rxring_ + uint64_t(i) * kDescBytes;
    const sc_time t0 = now();
    const unsigned misses = co_await k.load_dma_lines(dp, kDescBytes, 0, "RX descriptor");
    if (ld_le32(k, dp + DESC_SIZE) & RX_SZ_OWN) break;  // "Buffer not yet filled"
    co_await k.cost(costs_[Path::gmac_receive]);
    const unsigned len = (ld_le32(k, dp + DESC_SIZE) >> 16) & 0x7fff;
    const uint32_t flags = ld_le32(k, dp + DESC_FLAGS);
    SkbPtr skb = std::move(rx_buff_[i]);
    const uint64_t buf = rx_data_[i];
    bool drop = false;
    SkbPtr new_skb;
    const uint16_t csum = uint16_t(ld_le32(k, dp + DESC_SIZE) & RX_SZ_CKSUM_MASK);
    const JourneyId j = buf ? dma_tags().take(space_, buf + RX_OFFSET) : 0;
    mark_rx_journey(k, j, t_pass, misses ? t0 : SC_ZERO_TIME);
    if (len < ETH_ZLEN || (flags & RX_FL_CRC_ERROR) || !skb) {
      ++stats.rx_errors;
      if (flags & RX_FL_CRC_ERROR) ++stats.rx_crc_errors;  // rx_length_errors: no such NetDeviceStats field
      if (!skb) {
        ++stats.rx_dropped;
        skb = co_await gmac_alloc_skb(RX_BUF_ALLOC_SIZE);
        if (skb) rx_skb_setup(*skb);
      }
      drop = true;
    } else if (len > RX_COPY_THRESHOLD) {
      // "Large packet, alloc a new skb for the ring"
      new_skb = co_await gmac_alloc_skb(RX_BUF_ALLOC_SIZE);
      rx_skb_setup(*new_skb);
      skb->trim(len);
      k.pci_unmap_single(*skb, skb->len, DmaDir::FromDevice);  // the bytes the chip wrote
    } else {
      // "Small packet, copy it to a new small skb"
      ++*c_copy_;
      SkbPtr copy_skb = co_await k.dev_alloc_skb(len + RX_OFFSET);
      copy_skb->dev = this;
      copy_skb->reserve(RX_OFFSET);
      co_await k.load_dma_lines(skb->data_phys(), len, j, "RX frame (copybreak)");
      co_await k.cost(costs_[Path::gmac_receive_copy], len);
      k.mem_read(skb->data_phys(), copy_skb->put(len), len);
      new_skb = std::move(skb);
      skb = std::move(copy_skb);
    }
    if (drop) {
      new_skb = std::move(skb);
      skb.reset();
    }
    // "Put back ring entry"
    const uint64_t data = new_skb ? new_skb->data_phys() - RX_OFFSET : dummy_buf_;
    set_rx_desc(i, data);
    rx_buff_[i] = std::move(new_skb);
    if (skb) {
      // The hardware checksum decides ip_summed, then the next line overwrites it: CHECKSUM_NONE.
      skb->ip_summed = !(csum ^ 0xffff) ? CHECKSUM_UNNECESSARY : CHECKSUM_NONE;
      skb->ip_summed = CHECKSUM_NONE;
      co_await k.load_dma_lines(skb->data_phys(), ETH_HLEN, j);  // eth_type_trans reads the header
      k.eth_type_trans(*skb, *this);
      stats.rx_bytes += skb->len;
      skb->journey = j;
      ++*c_rx_;
      (void)co_await k.netif_rx(std::move(skb));
      ++stats.rx_packets;
    }
    last = int(i);
    if (++i >= NRX) i = 0;
  }
  next_rx_ = i;
  if (last >= 0) {
    ++*c_rx_kicks_;
    co_await gm_out(GM_RX_KICK, uint32_t(last) & 0xfffffffc);
  }
}

// ---------------------------------------------------------------------------------------------
// interrupt handler (hard IRQ; RX delivered with netif_rx)

Task<void> Gmac::gmac_interrupt() {
  Kernel& k = kernel();
  co_await k.cost(costs_[Path::gmac_interrupt]);
  ++*c_intr_;
  const uint32_t status = co_await gm_in(GM_IRQ_STATUS);
  ++*c_status_reads_;
  if (status & (GM_IRQ_BUS_ERROR | GM_IRQ_MIF)) co_await gm_out(GM_IRQ_ACK, status & (GM_IRQ_BUS_ERROR | GM_IRQ_MIF));
  if (status & GM_IRQ_MIF) co_await mii_interrupt();
  if (status & GM_IRQ_RX_DONE) co_await gmac_receive();
  if (status & (GM_IRQ_TX_INT_ME | GM_IRQ_TX_ALL)) co_await gmac_tx_cleanup(false);
}

// ---------------------------------------------------------------------------------------------
// statistics

Task<void> Gmac::get_stats() {
  if (!opened_ || sleeping_) co_return;
  co_await kernel().cost(costs_[Path::gmac_stats]);
  const uint32_t crc = co_await gm_in(GM_MAC_RX_CRC_ERR_CTR);
  stats.rx_crc_errors += crc;
  co_await gm_out(GM_MAC_RX_CRC_ERR_CTR, 0);
  // rx_frame_errors, rx_length_errors and tx_aborted_errors: read as gmac reads them; NetDeviceStats
  // has no such fields.
  (void)co_await gm_in(GM_MAC_RX_ALIGN_ERR_CTR);
  co_await gm_out(GM_MAC_RX_ALIGN_ERR_CTR, 0);
  (void)co_await gm_in(GM_MAC_RX_LEN_ERR_CTR);
  co_await gm_out(GM_MAC_RX_LEN_ERR_CTR, 0);
  (void)co_await gm_in(GM_MAC_EXCS_COLLISION_CTR);
  const uint32_t excs = co_await gm_in(GM_MAC_EXCS_COLLISION_CTR);
  const uint32_t late = co_await gm_in(GM_MAC_LATE_COLLISION_CTR);
  stats.collisions += excs + late;
  co_await gm_out(GM_MAC_EXCS_COLLISION_CTR, 0);
  co_await gm_out(GM_MAC_LATE_COLLISION_CTR, 0);
}

// ---------------------------------------------------------------------------------------------
// probe and the DriverEntry

namespace {
Task<void> probe_port(Gmac* g) { co_await g->probe_hw(); }
}  // namespace

std::vector<std::shared_ptr<NetDevice>> probe(Kernel& k, PciDevice& dev, const std::vector<unsigned>& vectors,
                                              const ProbeTarget& nic, const ParamValues& params) {
  if (dev.info().name != "GMAC")
    throw std::invalid_argument(std::string(kDriverName) + ": unsupported device '" + dev.info().name +
                                "' (gmac binds the UniNorth GMAC, OF compatible \"gmac\", 106b:0021)");
  auto* obj = dynamic_cast<sc_core::sc_object*>(&dev);
  if (!obj) throw std::invalid_argument(std::string(kDriverName) + ": device is not a SystemC object");
  if (vectors.empty()) throw std::invalid_argument(std::string(kDriverName) + ": no interrupt");
  auto g = std::make_shared<Gmac>(k, nic.ifname, dev.bar(0), vectors[0], DmaTags::space_of(obj->name()), params);
  k.register_netdev(*g);
  k.spawn_process("insmod gmac " + nic.ifname, probe_port(g.get()));
  return {g};
}

namespace {
DriverEntry entry() {
  DriverEntry e;
  e.name = kDriverName;
  e.summary =
      "PowerMac GMAC driver gmac v1.5k4 (Mackerras/Herrenschmidt, Linux 2.4.10-2.4.24): rings 64/64, RX_BLANK 5 "
      "packets / 8 or 4 units, TX_FL_INTERRUPT stored natively (not INTME), one status read per interrupt, "
      "copybreak 256, ip_summed CHECKSUM_NONE";
  e.params = gem_whatif::rx_blank_params(5, "gmac.c v1.5k4 gmac_mac_init (GM_RX_BLANK)",
                                         "8 units on a 66 MHz bus (GM_BIF_CFG_M66EN), 4 on 33 MHz");
  e.devices = {"GMAC"};
  e.probe = [](Kernel& k, PciDevice& dev, const std::vector<unsigned>& vectors, const ProbeTarget& nic,
               const ParamValues& params) { return probe(k, dev, vectors, nic, params); };
  return e;
}
Registrar<DriverEntry> reg{entry()};
// gmac_alloc_skb: alloc_skb(RX_BUF_ALLOC_SIZE + GMAC_BUFFER_ALIGN) per receive buffer.
Registrar<DriverTraits> traits{DriverTraits{
    kDriverName, kCostDriver, [](const ParamValues&) { return alloc_skb_truesize(RX_BUF_ALLOC_SIZE + GMAC_BUFFER_ALIGN); }}};
}  // namespace

}  // namespace nicsim::gmacdrv
