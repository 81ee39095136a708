// e1000_hw.c of the model: MAC identification, reset and initialisation, link and flow-control set-up,
// PHY access through MDIC, statistics clear — as the 4.4.x driver does them (see e1000.h for the
// sources and the deviations), plus the pure helpers of e1000_hw.h.
#include "drivers-sim/kernel/cpu_time.h"
#include "drivers-sim/drivers/e1000/e1000.h"

namespace nicsim::e1000drv {

// ---------------------------------------------------------------------------------------------
// pure helpers

const char* mac_type_name(MacType t) {
  switch (t) {
    case e1000_82542_rev2_0: return "82542_rev2_0";
    case e1000_82542_rev2_1: return "82542_rev2_1";
    case e1000_82543: return "82543";
    case e1000_82544: return "82544";
    case e1000_82540: return "82540";
    case e1000_82545: return "82545";
    case e1000_82546: return "82546";
    default: return "undefined";
  }
}

MacType mac_type_of(uint16_t id) {
  switch (id) {
    case E1000_DEV_ID_82543GC_FIBER:
    case E1000_DEV_ID_82543GC_COPPER: return e1000_82543;
    case E1000_DEV_ID_82544EI_COPPER:
    case E1000_DEV_ID_82544EI_FIBER:
    case E1000_DEV_ID_82544GC_COPPER:
    case E1000_DEV_ID_82544GC_LOM: return e1000_82544;
    case E1000_DEV_ID_82540EM:
    case E1000_DEV_ID_82540EM_LOM:
    case E1000_DEV_ID_82540EP:
    case E1000_DEV_ID_82540EP_LOM: return e1000_82540;
    case E1000_DEV_ID_82545EM_COPPER:
    case E1000_DEV_ID_82545EM_FIBER: return e1000_82545;
    case E1000_DEV_ID_82546EB_COPPER:
    case E1000_DEV_ID_82546EB_FIBER: return e1000_82546;
    default: return e1000_undefined;
  }
}

uint16_t device_id_of(std::string_view part) {
  struct Row {
    std::string_view part;
    uint16_t id;
  };
  static constexpr Row rows[] = {
      {"82543GC", E1000_DEV_ID_82543GC_COPPER}, {"82544EI", E1000_DEV_ID_82544EI_COPPER},
      {"82544GC", E1000_DEV_ID_82544GC_COPPER}, {"82540EM", E1000_DEV_ID_82540EM},
      {"82540EP", E1000_DEV_ID_82540EP},        {"82545EM", E1000_DEV_ID_82545EM_COPPER},
      {"82546EB", E1000_DEV_ID_82546EB_COPPER},
  };
  for (const auto& r : rows)
    if (r.part == part) return r.id;
  return 0;
}

FcType resolve_flow_control(uint16_t adv, uint16_t lp, FcType requested) {
  const bool a_p = adv & NWAY_AR_PAUSE, a_a = adv & NWAY_AR_ASM_DIR;
  const bool l_p = lp & NWAY_LPAR_PAUSE, l_a = lp & NWAY_LPAR_ASM_DIR;
  if (a_p && l_p) return requested == e1000_fc_full ? e1000_fc_full : e1000_fc_rx_pause;
  if (!a_p && a_a && l_p && l_a) return e1000_fc_tx_pause;
  if (a_p && a_a && !l_p && l_a) return e1000_fc_rx_pause;
  // No symmetric agreement: the driver falls back to none when it asked for none or tx only,
  // else to rx_pause (e1000_config_fc_after_link_up).
  if (requested == e1000_fc_none || requested == e1000_fc_tx_pause) return e1000_fc_none;
  return e1000_fc_rx_pause;
}

namespace {
void put_le32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }  // hosts are little endian
void put_le64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }
}  // namespace

void encode_tx_desc(uint8_t* d, uint64_t buffer_addr, uint32_t lower, uint32_t upper) {
  put_le64(d, buffer_addr);
  put_le32(d + kTxdLowerOff, lower);
  put_le32(d + kTxdUpperOff, upper);
}

void encode_tx_context_desc(uint8_t* d, uint8_t tucss, uint8_t tucso, uint32_t cmd_and_length) {
  std::memset(d, 0, kDescBytes);
  // lower_setup (IPCSS/IPCSO/IPCSE) left 0: no IP header checksum insertion.
  d[4] = tucss;  // upper_setup.tcp_fields.tucss
  d[5] = tucso;  // upper_setup.tcp_fields.tucso; tucse (bytes 6-7) = 0: to the end of the packet
  put_le32(d + 8, cmd_and_length);
  // tcp_seg_setup (bytes 12-15) = 0
}

void encode_rx_desc(uint8_t* d, uint64_t buffer_addr) {
  std::memset(d, 0, kDescBytes);
  put_le64(d, buffer_addr);
}

RxDescView decode_rx_desc(const uint8_t* d) {
  RxDescView r;
  std::memcpy(&r.buffer_addr, d, 8);
  std::memcpy(&r.length, d + 8, 2);
  std::memcpy(&r.csum, d + 10, 2);
  r.status = d[12];
  r.errors = d[13];
  std::memcpy(&r.special, d + 14, 2);
  return r;
}

uint32_t dynamic_itr_rate(uint32_t gotcl, uint32_t gorcl) {
  uint32_t goc = (gotcl + gorcl) / 10000;
  uint32_t dif = (gotcl > gorcl ? gotcl - gorcl : gorcl - gotcl) / 10000;
  return goc > 0 ? dif * 6000 / goc + 2000 : 8000;
}

// ---------------------------------------------------------------------------------------------
// register access helpers

namespace {
/// e1000_hw.c e1000_read_phy_reg / e1000_write_phy_reg: usec_delay(10) before each MDIC poll.
constexpr double kMdicPollDelayUs = 10.0;
inline CpuBurn udelay(double us_) {
  static const uint16_t tag = what_tag("udelay");  // the kernel's busy-wait (CPU profile row)
  return CpuBurn{us(us_), tag};
}
}  // namespace

Task<void> Adapter::flush() { (void)co_await rd(E1000_STATUS); }

Task<uint16_t> Adapter::read_phy(uint32_t reg) {
  co_await wr(E1000_MDIC, (reg << E1000_MDIC_REG_SHIFT) | (M88_PHY_ADDR << E1000_MDIC_PHY_SHIFT) | E1000_MDIC_OP_READ);
  uint32_t mdic = 0;
  for (int i = 0; i < 64; ++i) {  // e1000_read_phy_reg polls READY up to 64 times
    co_await udelay(kMdicPollDelayUs);
    mdic = co_await rd(E1000_MDIC);
    if (mdic & E1000_MDIC_READY) break;
  }
  co_return static_cast<uint16_t>(mdic & E1000_MDIC_DATA_MASK);
}

Task<void> Adapter::write_phy(uint32_t reg, uint16_t v) {
  co_await wr(E1000_MDIC,
              v | (reg << E1000_MDIC_REG_SHIFT) | (M88_PHY_ADDR << E1000_MDIC_PHY_SHIFT) | E1000_MDIC_OP_WRITE);
  for (int i = 0; i < 64; ++i) {
    co_await udelay(kMdicPollDelayUs);
    uint32_t mdic = co_await rd(E1000_MDIC);
    if (mdic & E1000_MDIC_READY) break;
  }
}

// ---------------------------------------------------------------------------------------------
// reset and initialisation (e1000_main.c e1000_reset, e1000_hw.c e1000_reset_hw / e1000_init_hw)

Task<void> Adapter::reset() {
  co_await wr(E1000_PBA, E1000_DEFAULT_PBA);  // rx_buffer_len <= 8192: the default split
  fc_ = original_fc_;
  co_await reset_hw();
  if (mac_ >= e1000_82544) co_await wr(E1000_WUC, 0);
  co_await init_hw();
}

Task<void> Adapter::reset_hw() {
  co_await wr(E1000_IMC, 0xffffffff);  // mask all interrupts
  co_await wr(E1000_RCTL, 0);          // receive and transmit units off
  co_await wr(E1000_TCTL, E1000_TCTL_PSP);
  co_await flush();
  // (msec_delay(10) for outstanding PCI transactions: not spent, see e1000.h)
  uint32_t ctrl = co_await rd(E1000_CTRL);
  co_await wr(E1000_CTRL, ctrl | E1000_CTRL_RST);  // global MAC reset (4.3.2+: through I/O space on >82543)
  if (mac_ < e1000_82540) {  // force an EEPROM reload
    uint32_t ext = co_await rd(E1000_CTRL_EXT);
    co_await wr(E1000_CTRL_EXT, ext | E1000_CTRL_EXT_EE_RST);
    co_await flush();
  }
  co_await wr(E1000_IMC, 0xffffffff);
  (void)co_await rd(E1000_ICR);  // clear pending causes
}

Task<void> Adapter::init_hw() {
  co_await wr(E1000_VET, 0);  // VLAN filtering off, table cleared (e1000_clear_vfta)
  for (unsigned i = 0; i < E1000_VLAN_FILTER_TBL_SIZE; ++i) co_await wr(E1000_VFTA + 4 * i, 0);
  co_await init_rx_addrs();
  for (unsigned i = 0; i < E1000_NUM_MTA_REGISTERS; ++i) co_await wr(E1000_MTA + 4 * i, 0);
  co_await setup_link();
  co_await clear_hw_cntrs();
}

Task<void> Adapter::rar_set0() {
  const auto& m = dev_addr;
  co_await wr(E1000_RA, m[0] | (m[1] << 8) | (m[2] << 16) | (uint32_t(m[3]) << 24));
  co_await wr(E1000_RA + 4, m[4] | (m[5] << 8) | E1000_RAH_AV);
}

Task<void> Adapter::init_rx_addrs() {
  // RAR0 = the station address (e1000_rar_set), RAR1..15 cleared.
  co_await rar_set0();
  for (unsigned i = 1; i < E1000_RAR_ENTRIES; ++i) {
    co_await wr(E1000_RA + 8 * i, 0);
    co_await wr(E1000_RA + 8 * i + 4, 0);
  }
}

Task<void> Adapter::setup_link() {
  // e1000_fc_default means "read EEPROM word 0x0F"; taken as full (e1000.h deviations).
  if (fc_ == e1000_fc_default) fc_ = e1000_fc_full;
  original_fc_ = fc_;
  if (copper_) co_await setup_copper_link();
  co_await wr(E1000_FCAL, FLOW_CONTROL_ADDRESS_LOW);
  co_await wr(E1000_FCAH, FLOW_CONTROL_ADDRESS_HIGH);
  co_await wr(E1000_FCT, FLOW_CONTROL_TYPE);
  co_await wr(E1000_FCTTV, E1000_FC_PAUSE_TIME);
  if (!(fc_ & e1000_fc_tx_pause)) {
    co_await wr(E1000_FCRTL, 0);
    co_await wr(E1000_FCRTH, 0);
  } else {
    co_await wr(E1000_FCRTL, profile_->fcrtl | E1000_FCRTL_XONE);  // fc_send_xon = 1 (e1000_sw_init / e1000_reset)
    co_await wr(E1000_FCRTH, profile_->fcrth);
  }
}

Task<void> Adapter::setup_copper_link() {
  uint32_t ctrl = co_await rd(E1000_CTRL);
  ctrl |= E1000_CTRL_SLU;  // 82543+: the MAC takes speed/duplex from the PHY
  ctrl &= ~(E1000_CTRL_FRCSPD | E1000_CTRL_FRCDPX);
  co_await wr(E1000_CTRL, ctrl);
  // M88 PHY: MDI/MDI-X auto (mdix = AUTO_ALL_MODES), then autonegotiation advertisement.
  uint16_t spec = co_await read_phy(M88E1000_PHY_SPEC_CTRL);
  co_await write_phy(M88E1000_PHY_SPEC_CTRL, spec | 0x0060);
  uint16_t adv = 0;
  const unsigned an = opt_.autoneg;
  if (an & 0x01) adv |= NWAY_AR_10T_HD_CAPS;
  if (an & 0x02) adv |= NWAY_AR_10T_FD_CAPS;
  if (an & 0x04) adv |= NWAY_AR_100TX_HD_CAPS;
  if (an & 0x08) adv |= NWAY_AR_100TX_FD_CAPS;
  switch (fc_) {  // e1000_phy_setup_autoneg
    case e1000_fc_none: break;
    case e1000_fc_tx_pause: adv |= NWAY_AR_ASM_DIR; break;
    default: adv |= NWAY_AR_PAUSE | NWAY_AR_ASM_DIR; break;  // rx_pause can only be asked as both
  }
  co_await write_phy(PHY_AUTONEG_ADV, adv | 0x0001);  // selector: IEEE 802.3
  co_await write_phy(PHY_1000T_CTRL, (an & 0x20) ? CR_1000T_FD_CAPS : 0);
  uint16_t pc = co_await read_phy(PHY_CTRL);
  co_await write_phy(PHY_CTRL, pc | MII_CR_AUTO_NEG_EN | MII_CR_RESTART_AUTO_NEG);
  // Link check (the status register latches link-down: read twice).
  (void)co_await read_phy(PHY_STATUS);
  uint16_t st = co_await read_phy(PHY_STATUS);
  if (st & MII_SR_LINK_STATUS) {
    get_link_status_ = false;
    co_await config_collision_dist();
    co_await config_fc_after_link_up();
  }
}

Task<void> Adapter::config_fc_after_link_up() {
  uint16_t adv = co_await read_phy(PHY_AUTONEG_ADV);
  uint16_t lp = co_await read_phy(PHY_LP_ABILITY);
  uint32_t status = co_await rd(E1000_STATUS);
  fc_ = (status & E1000_STATUS_FD) ? resolve_flow_control(adv, lp, original_fc_) : e1000_fc_none;
  // e1000_force_mac_fc
  uint32_t ctrl = co_await rd(E1000_CTRL);
  ctrl &= ~(E1000_CTRL_RFCE | E1000_CTRL_TFCE);
  if (fc_ & e1000_fc_rx_pause) ctrl |= E1000_CTRL_RFCE;
  if (fc_ & e1000_fc_tx_pause) ctrl |= E1000_CTRL_TFCE;
  co_await wr(E1000_CTRL, ctrl);
}

Task<void> Adapter::config_collision_dist() {
  uint32_t tctl = co_await rd(E1000_TCTL);
  tctl &= ~E1000_TCTL_COLD;
  tctl |= E1000_COLLISION_DISTANCE << E1000_COLD_SHIFT;
  co_await wr(E1000_TCTL, tctl);
  co_await flush();
}

Task<void> Adapter::clear_hw_cntrs() {
  static constexpr uint32_t regs[] = {
      E1000_CRCERRS, E1000_SYMERRS, E1000_MPC,     E1000_SCC,     E1000_ECOL,    E1000_MCC,     E1000_LATECOL,
      E1000_COLC,    E1000_DC,      E1000_SEC,     E1000_RLEC,    E1000_XONRXC,  E1000_XONTXC,  E1000_XOFFRXC,
      E1000_XOFFTXC, E1000_FCRUC,   E1000_PRC64,   E1000_PRC127,  E1000_PRC255,  E1000_PRC511,  E1000_PRC1023,
      E1000_PRC1522, E1000_GPRC,    E1000_BPRC,    E1000_MPRC,    E1000_GPTC,    E1000_GORCL,   E1000_GORCH,
      E1000_GOTCL,   E1000_GOTCH,   E1000_RNBC,    E1000_RUC,     E1000_RFC,     E1000_ROC,     E1000_RJC,
      E1000_TORL,    E1000_TORH,    E1000_TOTL,    E1000_TOTH,    E1000_TPR,     E1000_TPT,     E1000_PTC64,
      E1000_PTC127,  E1000_PTC255,  E1000_PTC511,  E1000_PTC1023, E1000_PTC1522, E1000_MPTC,    E1000_BPTC};
  for (uint32_t r : regs) (void)co_await rd(r);
  if (mac_ >= e1000_82543) {
    static constexpr uint32_t more[] = {E1000_ALGNERRC, E1000_RXERRC, E1000_TNCRS, E1000_CEXTERR, E1000_TSCTC,
                                        E1000_TSCTFC};
    for (uint32_t r : more) (void)co_await rd(r);
  }
}

Task<void> Adapter::check_for_link() {
  if (!copper_ || !get_link_status_) co_return;
  (void)co_await read_phy(PHY_STATUS);
  uint16_t st = co_await read_phy(PHY_STATUS);
  if (!(st & MII_SR_LINK_STATUS)) co_return;
  get_link_status_ = false;
  co_await config_collision_dist();  // mac_type >= 82544
  co_await config_fc_after_link_up();
}

}  // namespace nicsim::e1000drv
