#include "models/nic/tg3/tg3.h"
#include "core/events.h"
#include "core/sim_context.h"
#include "models/device_entry.h"
#include "models/ether/link.h"
#include "models/ether/station_address.h"
#include "models/ether/pause.h"
#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <stdexcept>

namespace nicsim::tg3 {

// ============================================================================================
// Parameters
// ============================================================================================

ParamSchema Tg3Params::schema() {
  Tg3Params d;
  return concat_schemas({
      d.clock_schema("offset of the BCM5701's reference crystal; the host coalescing ticks run from it"),
      d.latency_schema("estimate: as the 8254x model"),
      {
        real_param("mi_frame_ns", to_ns(d.mi_frame), 0.0, 1e6, "ns", "one MI (MDIO) read or write frame",
                   "IEEE 802.3 §22.2.2.11 MDC ≤ 2.5 MHz, 64-bit management frame (estimate: BCM5701 divider unknown)"),
        int_param("dma_write_burst_bytes", d.dma_write_burst_bytes, 4, 4096, "bytes", "largest DMA write burst",
                  "estimate: as the 8254x model; tg3 leaves the DMA_RWCTRL write boundary disabled on x86"),
        int_param("cache_line_bytes", d.cache_line_bytes, 16, 256, "bytes", "PCI cache line size register",
                  "research/e7500-p64h2-pcix.md [S10]"),
        int_param("rx_buffer_bytes", d.rx_buffer_bytes, 4096, 98304, "bytes",
                  "receive frames the chip holds waiting for a std BD or the DMA engine",
                  "estimate: within the 96 KB mbuf pool (tg3.h NIC_SRAM_MBUF_POOL_SIZE 0x18000)"),
        int_param("tx_buffer_bytes", d.tx_buffer_bytes, 2048, 98304, "bytes",
                  "send data the chip reads ahead of the MAC", "estimate: within the 96 KB mbuf pool"),
        int_param("mmrbc_bytes", d.mmrbc_bytes, 512, 4096, "bytes",
                  "PCI-X Maximum Memory Read Byte Count as BIOS left it: the largest DMA read burst",
                  "PCI-X 1.0 §7.2 default 512; tg3 0.99/1.0 do not change it"),
        int_param("subsystem_vendor_id", d.subsystem_vendor_id, 0, 0xffff, "",
                  "PCI subsystem vendor ID from the board's NIC EEPROM (0x14e4 Broadcom; 0x1028 Dell)",
                  "PCI 2.2 §6.2.1; tg3 0.99 tg3_get_invariants tests PCI_VENDOR_ID_DELL to poll the link by timer"),
        string_param("mac_address", "", {}, "station address (empty: derived from the device name)"),
      },
  });
}

Tg3Params Tg3Params::from(const ParamValues& v) {
  Tg3Params p;
  p.read_timing(v);
  p.mi_frame = ns(v.r("mi_frame_ns"));
  p.dma_write_burst_bytes = unsigned(v.i("dma_write_burst_bytes"));
  p.cache_line_bytes = unsigned(v.i("cache_line_bytes"));
  p.rx_buffer_bytes = unsigned(v.i("rx_buffer_bytes"));
  p.tx_buffer_bytes = unsigned(v.i("tx_buffer_bytes"));
  p.mmrbc_bytes = uint32_t(v.i("mmrbc_bytes"));
  p.subsystem_vendor_id = uint32_t(v.i("subsystem_vendor_id"));
  p.mac_address = v.s("mac_address");
  return p;
}

PciDeviceInfo bcm5701_info(const Tg3Params& p) {
  PciDeviceInfo i;
  i.name = "BCM5701";
  i.width_bits = 64;      // bge(4)/research §1.3: PCI v2.2 and PCI-X v1.0, 64-bit
  i.pcix_capable = true;  // lspci: "PCI-X non-bridge device"
  i.max_mhz = 133;        // tg3 reports "(PCIX:133MHz:64-bit)" on the PE2650 (research §1.3)
  i.bar_size = kBar0Bytes;
  i.functions = 1;
  i.mmrbc_bytes = p.mmrbc_bytes;
  return i;
}

namespace {
// PHY (BCM5701 internal copper PHY, MII registers): auto-negotiated 1000 Mb/s full duplex.
void phy_reset(std::array<uint16_t, 32>& r) {
  r.fill(0);
  r[MII_BMCR] = 0x1140;     // AN enable, full duplex, speed 1000 (TG3_BMCR_SPEED1000)
  r[MII_BMSR] = 0x796D;     // 100/10 FD+HD able, extended status, AN complete, AN able, link, extended caps
  r[MII_PHYSID1] = 0x0020;  // } estimate: Broadcom OUI bits, model 0x11 (tg3.h PHY_ID_BCM5701 0x60008110)
  r[MII_PHYSID2] = 0x6110;  // }
  r[MII_ADVERTISE] = 0x0DE1;  // pause, asym pause, 100FD/HD, 10FD/HD, 802.3
  r[MII_LPA] = 0x45E1;        // the partner advertises the same, acknowledge
  r[MII_TG3_CTRL] = 0x0300;   // advertise 1000 full and half
  r[MII_STAT1000] = 0x3C00;   // partner 1000 full/half, local/remote receiver OK
  r[MII_TG3_AUX_STAT] = MII_TG3_AUX_STAT_1000FULL | 0x0004;  // MII_TG3_AUX_STAT_LPASS
  // estimate: the reset value of MII_TG3_IMASK is not in tg3.h; every source unmasked (tg3 writes it
  // in tg3_setup_copper_phy: ~MII_TG3_INT_LINKCHG on Dell boards, else ~0)
  r[MII_TG3_IMASK] = 0x0000;
}

// estimate: the buffer manager's mbuf watermarks after a reset. Their power-on values are not in
// tg3.h; tg3_reset_hw writes tg3's defaults (DEFAULT_MB_*) on every open, and the model starts from
// those, so a driver model that does not write them sees what the real driver leaves.
void bufmgr_defaults(std::vector<uint32_t>& regs) {
  regs[BUFMGR_MB_RDMA_LOW_WATER / 4] = DEFAULT_MB_RDMA_LOW_WATER;
  regs[BUFMGR_MB_MACRX_LOW_WATER / 4] = DEFAULT_MB_MACRX_LOW_WATER;
  regs[BUFMGR_MB_HIGH_WATER / 4] = DEFAULT_MB_HIGH_WATER;
}

bool is_tcp_or_udp_ipv4(const std::vector<uint8_t>& b) {
  if (b.size() < 34 || b[12] != 0x08 || b[13] != 0x00) return false;
  return b[23] == 6 || b[23] == 17;
}
}  // namespace

// ============================================================================================
// Module
// ============================================================================================

template <typename F>
void Tg3::spawn(const char* what, sc_core::sc_event* ev, F f) {
  sc_core::sc_spawn_options o;
  o.spawn_method();
  o.dont_initialize();
  o.set_sensitivity(ev);
  sc_core::sc_spawn(f, what, &o);
}

Tg3::Tg3(sc_core::sc_module_name name, const Tg3Params& p)
    : OnePortNic(name),
      pci_target_socket("pci_target"),
      dma_initiator_socket("dma_initiator"),
      irq("irq_out_0"),
      p_(p),
      info_(bcm5701_info(p)),
      clk_(std::string(this->name()) + ".clk", 66e6, p.clock_ppm),  // estimate: core clock (only the ppm matters here)
      tick_clk_(std::string(this->name()) + ".hostcc_tick", 1e6, p.clock_ppm),  // "ticks, in units of 1 µs each"
      space_(DmaTags::space_of(p.dma_space.empty() ? std::string(this->name()) : p.dma_space)),
      regs_(NIC_SRAM_WIN_BASE / 4, 0),
      sram_(kSramBytes, 0),
      hc_(tick_clk_.cycles(1)),
      std_bds_(512) {
  if (p_.dma_write_burst_bytes < 4 || p_.cache_line_bytes < 16)
    throw std::invalid_argument(std::string(this->name()) + ": dma_write_burst_bytes must be >= 4, cache line >= 16 B");
  mac_ = station_address(p_.mac_address, this->name(), {0x00, 0x10, 0x18});  // Broadcom OUI 00:10:18
  // The station address the boot code leaves in the MAC address registers and the SRAM mailbox
  // (tg3_get_device_address reads NIC_SRAM_MAC_ADDR_HIGH/LOW_MBOX 0xc14/0xc18, then MAC_ADDR_0).
  regs_[MAC_ADDR_0_HIGH / 4] = uint32_t(mac_[0]) << 8 | mac_[1];
  regs_[MAC_ADDR_0_LOW / 4] = uint32_t(mac_[2]) << 24 | uint32_t(mac_[3]) << 16 | uint32_t(mac_[4]) << 8 | mac_[5];
  st32(&sram_[0x0c14], (0x484b << 16) | regs_[MAC_ADDR_0_HIGH / 4]);  // "HK" signature in the upper half
  st32(&sram_[0x0c18], regs_[MAC_ADDR_0_LOW / 4]);
  regs_[TG3PCI_MISC_HOST_CTRL / 4] = CHIPREV_ID_5701_B5 << MISC_HOST_CTRL_CHIPREV_SHIFT;
  regs_[0] = uint32_t(TG3PCI_DEVICE_TIGON3_2) << 16 | TG3PCI_VENDOR_BROADCOM;
  regs_[PCI_SUBSYSTEM_VENDOR_ID / 4] = p_.subsystem_vendor_id & 0xFFFF;
  // The configuration header as the PCI core reads it at enumeration (pdev->subsystem_vendor):
  // published to software as a SystemC attribute, read before the run, in no simulated time.
  subsys_attr_.value = p_.subsystem_vendor_id & 0xFFFF;
  add_attribute(subsys_attr_);
  bufmgr_defaults(regs_);
  phy_reset(phy_);
  pci_target_socket.register_b_transport(this, &Tg3::b_transport);
  dma_ = std::make_unique<DmaEngine>(dma_initiator_socket, this->name(), "nicsim/tg3",
                                     [this](bool w, uint64_t a, size_t left) { return dma_burst(w, a, left); });
  spawn("hostcc", &hc_ev_, [this] { hc_tick(); });
  spawn("stats", &stats_ev_, [this] { stats_tick(); });
  spawn("mi", &mi_ev_, [this] { mi_done(); });
  build_mac(p_, [this](const EthFrame& f) { accept_frame(f); });
  rx_pipe_->set_bad_fcs([this](const EthFrame& f) { accept_bad_fcs(f); });
  phy_mon_ = std::make_unique<EthPhy>(this->name(), [this](bool up) { on_phy_change(up); });
  auto& c = sim().counters;
  const std::string n = this->name();
  c_rx_octets_ = &c.at(n + ".rx_octets");
  c_rx_ucast_ = &c.at(n + ".rx_ucast_packets");
  c_rx_mcast_ = &c.at(n + ".rx_mcast_packets");
  c_rx_bcast_ = &c.at(n + ".rx_bcast_packets");
  c_rx_xon_ = &c.at(n + ".rx_xon_pause_rcvd");
  c_rx_xoff_ = &c.at(n + ".rx_xoff_pause_rcvd");
  c_tx_octets_ = &c.at(n + ".tx_octets");
  c_tx_ucast_ = &c.at(n + ".tx_ucast_packets");
  c_tx_mcast_ = &c.at(n + ".tx_mcast_packets");
  c_tx_bcast_ = &c.at(n + ".tx_bcast_packets");
  c_rxbds_empty_ = &c.at(n + ".rxbds_empty");
  c_rx_discards_ = &c.at(n + ".rx_discards");
  c_status_update_ = &c.at(n + ".ring_status_update");
  c_nic_irqs_ = &c.at(n + ".nic_irqs");
  c_nic_avoided_ = &c.at(n + ".nic_avoided_irqs");
  c_interrupts_ = &c.at(n + ".interrupts");
  c_rx_filtered_ = &c.at(n + ".rx_filtered");
  c_rx_mac_disabled_ = &c.at(n + ".rx_mac_disabled");
  c_core_resets_ = &c.at(n + ".core_resets");
  c_core_resets_busy_ = &c.at(n + ".core_resets_busy");
  c_rx_mac_ctrl_ = &c.at(n + ".rx_mac_ctrl_rcvd");
  c_rx_xoff_entered_ = &c.at(n + ".rx_xoff_entered");
  c_tx_xon_sent_ = &c.at(n + ".tx_xon_sent");
  c_tx_xoff_sent_ = &c.at(n + ".tx_xoff_sent");
  c_rx_fcs_errors_ = &c.at(n + ".rx_fcs_errors");
  c_rx_dropped_link_down_ = &c.at(n + ".rx_dropped_link_down");
  for (UpdateCause uc : {UpdateCause::RxMaxFrames, UpdateCause::TxMaxFrames, UpdateCause::RxTicks,
                         UpdateCause::TxTicks, UpdateCause::Now})
    c.at(n + ".hostcc." + update_cause_name(uc));
}

Tg3::~Tg3() = default;

sc_core::sc_port<irq_if>& Tg3::irq_out(unsigned fn) {
  if (fn != 0) throw std::out_of_range("BCM5701 has one PCI function");
  return irq;
}
void Tg3::set_bar(unsigned fn, uint64_t base) {
  if (fn != 0) throw std::out_of_range("BCM5701 has one PCI function");
  bar_ = base;
}

// ---------------------------------------------------------------- DMA
DmaBurst Tg3::dma_burst(bool write, uint64_t a, size_t left) const {
  const uint32_t rw = regs_[TG3PCI_DMA_RW_CTRL / 4];
  const size_t to_4k = 4096 - (a & 4095);
  if (write) {
    size_t n = std::min({left, size_t(p_.dma_write_burst_bytes), to_4k});
    const unsigned code = (rw >> DMA_RWCTRL_PCI_WRITE_CMD_SHIFT) & 0xF;
    const unsigned cls = p_.cache_line_bytes;
    const bool lines = (a % cls) == 0 && (n % cls) == 0;
    return {n, (code == 0xF && lines) ? PciCommand::MemWriteInvalidate : PciCommand::MemWrite};
  }
  size_t n = std::min({left, size_t(info_.mmrbc_bytes), to_4k});
  const unsigned code = (rw >> DMA_RWCTRL_PCI_READ_CMD_SHIFT) & 0xF;
  PciCommand cmd = PciCommand::MemRead;
  if (code == 0xC || (rw & DMA_RWCTRL_USE_MEM_READ_MULT)) cmd = PciCommand::MemReadMultiple;
  else if (code == 0xE) cmd = PciCommand::MemReadLine;
  return {n, cmd};
}

std::unique_ptr<DmaRequest> Tg3::make_req(bool write, uint64_t addr, size_t n, const char* what, const char* stage,
                                          JourneyId j) const {
  auto r = dma_->request();  // a completed one reused: the engine keeps them, with their buffers
  r->write = write;
  r->addr = addr;
  r->buf.assign(n, 0);
  r->what = what;
  r->stage = stage;
  if (j) r->journeys.push_back(j);
  return r;
}

void Tg3::submit(std::unique_ptr<DmaRequest> r) {
  r->where = name();
  dma_->submit(std::move(r));
}

// ---------------------------------------------------------------- interrupts
void Tg3::set_pending(bool p) {
  pending_ = p;
  sync_irq();
}

void Tg3::sync_irq() {
  const bool l = pending_ && !(regs_[TG3PCI_MISC_HOST_CTRL / 4] & MISC_HOST_CTRL_MASK_PCI_INT);
  if (l == line_) return;
  if (!l && sim().trace.enabled()) sim().trace.span(std::string(name()) + " INTx", "INTx asserted", line_since_, now());
  if (l) {
    line_since_ = now();
    count(c_interrupts_);
  }
  line_ = l;
  if (irq.get_interface()) irq->set_irq_level(l);
}

// ---------------------------------------------------------------- register file
uint32_t Tg3::peek(uint32_t off) const {
  if (off >= NIC_SRAM_WIN_BASE) {
    const uint32_t a = regs_[TG3PCI_MEM_WIN_BASE_ADDR / 4] + (off - NIC_SRAM_WIN_BASE);
    return a + 4 <= kSramBytes ? ld32(&sram_[a]) : 0;
  }
  switch (off) {
    case MAILBOX_SNDNIC_PROD_IDX_0 + TG3_64BIT_REG_LOW: return tx_prod_;
    case MAILBOX_RCV_STD_PROD_IDX + TG3_64BIT_REG_LOW: return std_prod_;
    case MAILBOX_RCVRET_CON_IDX_0 + TG3_64BIT_REG_LOW: return ret_cons_;
    case MAC_MI_COM: return mi_com_;
    case MAC_STATUS:  // MI_INTERRUPT follows the PHY's interrupt output: ISTAT bits IMASK lets through
      return (regs_[off / 4] & ~MAC_STATUS_MI_INTERRUPT) |
             ((phy_istat_ & ~phy_[MII_TG3_IMASK]) ? MAC_STATUS_MI_INTERRUPT : 0);
    case GRC_LOCAL_CTRL: return (regs_[off / 4] & ~GRC_LCLCTRL_INT_ACTIVE) | (pending_ ? GRC_LCLCTRL_INT_ACTIVE : 0);
    case TG3PCI_PCISTATE:
      // PCI-X mode on a 64-bit bus (PCISTATE_CONV_PCI_MODE and _BUS_32BIT clear); estimate: the
      // model does not learn its segment's mode, so the bits say what the PE2650 lspci shows.
      return (regs_[off / 4] & ~(PCISTATE_CONV_PCI_MODE | PCISTATE_BUS_32BIT)) | PCISTATE_BUS_SPEED_HIGH;
    default: return regs_[off / 4];
  }
}

uint32_t Tg3::sram32(uint32_t addr) const { return addr + 4 <= kSramBytes ? ld32(&sram_[addr]) : 0; }

uint32_t Tg3::read_reg(uint32_t off) { return peek(off); }

CoalRegs Tg3::coal_regs() const {
  CoalRegs c;
  c.rx_ticks = regs_[HOSTCC_RXCOL_TICKS / 4];
  c.tx_ticks = regs_[HOSTCC_TXCOL_TICKS / 4];
  c.rx_max_frames = regs_[HOSTCC_RXMAX_FRAMES / 4];
  c.tx_max_frames = regs_[HOSTCC_TXMAX_FRAMES / 4];
  c.rx_ticks_int = regs_[HOSTCC_RXCOAL_TICK_INT / 4];
  c.tx_ticks_int = regs_[HOSTCC_TXCOAL_TICK_INT / 4];
  c.rx_max_frames_int = regs_[HOSTCC_RXCOAL_MAXF_INT / 4];
  c.tx_max_frames_int = regs_[HOSTCC_TXCOAL_MAXF_INT / 4];
  return c;
}

void Tg3::core_reset() {
  count(c_core_resets_);
  if (std_fetch_busy_ || rx_busy_ || tx_busy_ || update_busy_) count(c_core_resets_busy_);
  const uint32_t hi = regs_[MAC_ADDR_0_HIGH / 4], lo = regs_[MAC_ADDR_0_LOW / 4];
  const uint32_t id = regs_[0], rev = regs_[TG3PCI_MISC_HOST_CTRL / 4] & (0xFFFFu << MISC_HOST_CTRL_CHIPREV_SHIFT);
  std::fill(regs_.begin(), regs_.end(), 0u);
  regs_[0] = id;
  regs_[PCI_SUBSYSTEM_VENDOR_ID / 4] = p_.subsystem_vendor_id & 0xFFFF;
  regs_[TG3PCI_MISC_HOST_CTRL / 4] = rev;
  regs_[MAC_ADDR_0_HIGH / 4] = hi;
  regs_[MAC_ADDR_0_LOW / 4] = lo;
  bufmgr_defaults(regs_);
  hc_ = HostCoalescing(tick_clk_.cycles(1));
  update_again_ = false;
  again_cause_ = UpdateCause::None;
  rx_await_.clear();
  tx_prod_ = tx_cons_ = tx_read_ = 0;
  tx_inflight_bytes_ = 0;
  std_prod_ = std_fetched_ = std_cons_ = ret_prod_ = ret_cons_ = 0;
  rx_starved_ = false;
  for (auto& bd : std_bds_) bd.fill(0);
  rx_fifo_.clear();
  rx_fifo_used_ = 0;
  xoff_sent_ = false;
  mac_tx_->pause_until(SC_ZERO_TIME);  // the MAC's pause timer is cleared with it
  pending_ = false;
  sync_irq();
}

void Tg3::write_reg(uint32_t off, uint32_t v, const sc_time& delay) {
  if (off >= NIC_SRAM_WIN_BASE) {
    const uint32_t a = regs_[TG3PCI_MEM_WIN_BASE_ADDR / 4] + (off - NIC_SRAM_WIN_BASE);
    if (a + 4 <= kSramBytes) st32(&sram_[a], v);
    return;
  }
  switch (off) {
    case GRC_MISC_CFG:
      if (v & GRC_MISC_CFG_CORECLK_RESET) {
        core_reset();
        return;
      }
      break;
    case TG3PCI_MISC_HOST_CTRL: {
      const uint32_t keep = regs_[off / 4] & (0xFFFFu << MISC_HOST_CTRL_CHIPREV_SHIFT);  // read-only chip revision
      regs_[off / 4] = keep | (v & 0xFFFF & ~MISC_HOST_CTRL_CLEAR_INT);
      if (v & MISC_HOST_CTRL_CLEAR_INT) pending_ = false;
      sync_irq();
      return;
    }
    case MAILBOX_INTERRUPT_0 + TG3_64BIT_REG_LOW:
      regs_[off / 4] = v;
      hc_.set_during_int(v != 0);
      pending_ = false;  // any write clears the pending interrupt
      sync_irq();
      hc_event(hc_.check_max());  // the other register set may already be reached, and the timers change
      return;
    case MAILBOX_SNDNIC_PROD_IDX_0 + TG3_64BIT_REG_LOW:
      tx_prod_ = uint16_t(v % 512);
      tx_kick();
      return;
    case MAILBOX_RCV_STD_PROD_IDX + TG3_64BIT_REG_LOW:
      std_prod_ = uint16_t(v % 512);
      std_fetch();
      return;
    case MAILBOX_RCVRET_CON_IDX_0 + TG3_64BIT_REG_LOW:
      ret_cons_ = uint16_t(v);
      rx_process();  // a full return ring may have room again
      return;
    case GRC_LOCAL_CTRL:
      regs_[off / 4] = v & ~(GRC_LCLCTRL_SETINT | GRC_LCLCTRL_CLEARINT | GRC_LCLCTRL_INT_ACTIVE);
      if (v & GRC_LCLCTRL_CLEARINT) set_pending(false);
      if (v & GRC_LCLCTRL_SETINT) set_pending(true);
      return;
    case HOSTCC_MODE:
      regs_[off / 4] = v & ~(HOSTCC_MODE_NOW | HOSTCC_MODE_RESET);
      hc_.set_clrtick(v & HOSTCC_MODE_CLRTICK_RXBD, v & HOSTCC_MODE_CLRTICK_TXBD);
      if (v & HOSTCC_MODE_RESET) hc_.on_update(now() + delay);
      if ((v & HOSTCC_MODE_ENABLE) && (v & HOSTCC_MODE_NOW)) hc_event(UpdateCause::Now);
      else hc_rearm();
      return;
    case HOSTCC_RXCOL_TICKS: case HOSTCC_TXCOL_TICKS: case HOSTCC_RXMAX_FRAMES: case HOSTCC_TXMAX_FRAMES:
    case HOSTCC_RXCOAL_TICK_INT: case HOSTCC_TXCOAL_TICK_INT: case HOSTCC_RXCOAL_MAXF_INT: case HOSTCC_TXCOAL_MAXF_INT:
      regs_[off / 4] = v;
      hc_.set_regs(coal_regs());
      hc_event(hc_.check_max());
      return;
    case HOSTCC_STAT_COAL_TICKS:
      regs_[off / 4] = v;
      stats_ev_.cancel();
      if (v) stats_ev_.notify(delay + tick_clk_.cycles(v));
      return;
    case MAC_MI_COM:
      mi_com_ = (v & ~MI_COM_READ_FAILED) | MI_COM_BUSY;
      mi_ev_.cancel();
      mi_ev_.notify(delay + p_.mi_frame);
      return;
    case MAC_MODE:
      regs_[off / 4] = v & ~MAC_MODE_RESET;
      return;
    case MAC_STATUS:  // estimate: the change bits clear when written as 1 (tg3 writes the bits it clears)
      regs_[off / 4] &= ~(v & (MAC_STATUS_LNKSTATE_CHANGED | MAC_STATUS_SYNC_CHANGED | MAC_STATUS_CFG_CHANGED));
      return;
    case MAC_RX_MODE:
      regs_[off / 4] = v;
      rx_process();
      return;
    case MAC_TX_MODE:
      regs_[off / 4] = v;
      tx_kick();
      return;
    case 0x0000: case 0x0008: case PCI_SUBSYSTEM_VENDOR_ID: return;  // read-only IDs
    default:
      regs_[off / 4] = v;
      return;
  }
}

void Tg3::b_transport(tlm::tlm_generic_payload& trans, sc_time& delay) {
  const uint64_t a = trans.get_address();
  if (!bar_ || a < bar_ || a >= bar_ + kBar0Bytes || is_io_space(trans)) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  const uint32_t off = uint32_t(a - bar_);
  if (trans.get_data_length() != 4 || (off & 3) || trans.get_byte_enable_ptr()) {
    trans.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  if (trans.is_read()) {
    const uint32_t v = read_reg(off);
    std::memcpy(trans.get_data_ptr(), &v, 4);
  } else if (trans.is_write()) {
    uint32_t v;
    std::memcpy(&v, trans.get_data_ptr(), 4);
    write_reg(off, v, delay);
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

void Tg3::mi_done() {
  if (!(mi_com_ & MI_COM_BUSY)) return;
  const unsigned phy = (mi_com_ >> MI_COM_PHY_ADDR_SHIFT) & 0x1F, reg = (mi_com_ >> MI_COM_REG_ADDR_SHIFT) & 0x1F;
  if (mi_com_ & MI_COM_CMD_READ) {
    if (phy == PHY_ADDR) {
      uint16_t v = phy_[reg];
      if (!phy_link_up()) {  // no cable or no link: no auto-negotiation partner
        if (reg == MII_BMSR) v &= uint16_t(~(BMSR_LSTATUS | BMSR_ANEGCOMPLETE));
        if (reg == MII_LPA || reg == MII_STAT1000) v = 0;
        if (reg == MII_TG3_AUX_STAT) v = 0;  // no speed/duplex resolved, link pass clear
      }
      if (reg == MII_BMSR) {  // the link bit is latched low: a failure reads once, then the bit is live
        if (bmsr_link_latched_low_) v &= uint16_t(~BMSR_LSTATUS);
        bmsr_link_latched_low_ = false;
      }
      if (reg == MII_TG3_ISTAT) {  // clear on read
        v = phy_istat_;
        phy_istat_ = 0;
      }
      if (reg == MII_TG3_RXR_COUNTERS) {  // clear on read
        v = phy_crc_count_;
        phy_crc_count_ = 0;
      }
      mi_com_ = (mi_com_ & ~MI_COM_DATA_MASK) | v;
    }
    else mi_com_ |= MI_COM_READ_FAILED | MI_COM_DATA_MASK;  // nothing answers: the MDIO line floats high
  } else if ((mi_com_ & MI_COM_CMD_WRITE) && phy == PHY_ADDR) {
    const uint16_t v = uint16_t(mi_com_ & MI_COM_DATA_MASK);
    if (reg == MII_BMCR && (v & 0x8000)) phy_reset(phy_);  // BMCR_RESET self-clears; the link comes back as before
    else if (reg != MII_BMSR && reg != MII_PHYSID1 && reg != MII_PHYSID2 && reg != MII_LPA && reg != MII_TG3_AUX_STAT &&
             reg != MII_TG3_ISTAT && reg != MII_TG3_RXR_COUNTERS)
      phy_[reg] = v;
  }
  mi_com_ &= ~MI_COM_BUSY;
}

// ============================================================================================
// Host coalescing and the status block
// ============================================================================================

void Tg3::hc_event(UpdateCause c) {
  if (!(regs_[HOSTCC_MODE / 4] & HOSTCC_MODE_ENABLE)) return;
  if (c != UpdateCause::None) status_update(c);
  else hc_rearm();
}

void Tg3::hc_rearm() {
  hc_ev_.cancel();
  if (!(regs_[HOSTCC_MODE / 4] & HOSTCC_MODE_ENABLE)) return;
  if (auto d = hc_.deadline()) hc_ev_.notify(d->first > now() ? d->first - now() : SC_ZERO_TIME);
}

void Tg3::hc_tick() {
  auto d = hc_.deadline();
  if (!d) return;
  if (d->first > now()) {
    hc_ev_.notify(d->first - now());
    return;
  }
  status_update(d->second);
}

void Tg3::status_update(UpdateCause c) {
  if (update_busy_) {  // one status block DMA at a time: the next one follows it
    update_again_ = true;
    if (again_cause_ == UpdateCause::None) again_cause_ = c;
    return;
  }
  update_busy_ = true;
  hc_.on_update(now());  // counters zeroed, both tick timers reload
  hc_ev_.cancel();
  sim().counters.at(std::string(name()) + ".hostcc." + update_cause_name(c)) += 1;
  count(c_status_update_);
  const uint32_t mode = regs_[HOSTCC_MODE / 4];
  const size_t n = (mode & HOSTCC_MODE_32BYTE) ? 32 : (mode & HOSTCC_MODE_64BYTE) ? 64 : TG3_HW_STATUS_SIZE;
  const uint64_t addr = uint64_t(regs_[HOSTCC_STATUS_BLK_HOST_ADDR / 4]) << 32 | regs_[HOSTCC_STATUS_BLK_HOST_ADDR / 4 + 1];
  auto r = make_req(true, addr, n, "status block", rx_await_.empty() ? "" : "write-back");
  uint8_t* b = r->buf.data();
  st32(b + SB_STATUS, SD_STATUS_UPDATED | (link_chg_attn_ ? SD_STATUS_LINK_CHG : 0));
  link_chg_attn_ = false;
  st16(b + SB_RX_CONSUMER, std_cons_);
  st16(b + SB_IDX0_RX_PRODUCER, ret_prod_);
  st16(b + SB_IDX0_TX_CONSUMER, tx_cons_);
  auto waiting = std::make_shared<std::vector<JourneyId>>(std::move(rx_await_));
  rx_await_.clear();
  r->journeys = *waiting;
  r->done = [this, waiting](DmaRequest&) {
    if (regs_[(MAILBOX_INTERRUPT_0 + TG3_64BIT_REG_LOW) / 4] == 0) {
      count(c_nic_irqs_);
      for (JourneyId j : *waiting)
        if (j) sim().journeys.mark(j, now(), "interrupt", name(), "");
      set_pending(true);
    } else {
      count(c_nic_avoided_);  // the driver is in its handler: it finds the update by polling Updated
      for (JourneyId j : *waiting)
        if (j) sim().journeys.mark(j, now(), "interrupt", name(), "Interrupt Mailbox 0 non-zero: ISR polls");
    }
    update_busy_ = false;
    if (update_again_) {
      update_again_ = false;
      UpdateCause c2 = again_cause_;
      again_cause_ = UpdateCause::None;
      status_update(c2);
    } else {
      hc_event(hc_.check_max());
    }
  };
  submit(std::move(r));
}

void Tg3::stats_tick() {
  const uint32_t ticks = regs_[HOSTCC_STAT_COAL_TICKS / 4];
  if (!ticks) return;
  stats_ev_.notify(tick_clk_.cycles(ticks));
  const uint64_t addr = uint64_t(regs_[HOSTCC_STATS_BLK_HOST_ADDR / 4]) << 32 | regs_[HOSTCC_STATS_BLK_HOST_ADDR / 4 + 1];
  if (!addr || !(regs_[HOSTCC_MODE / 4] & HOSTCC_MODE_ENABLE)) return;
  auto r = make_req(true, addr, TG3_HW_STATS_SIZE, "statistics block", "");
  uint8_t* b = r->buf.data();
  const std::pair<unsigned, uint64_t*> fields[] = {
      {STATS_RX_OCTETS, c_rx_octets_},       {STATS_RX_UCAST_PACKETS, c_rx_ucast_},
      {STATS_RX_MCAST_PACKETS, c_rx_mcast_}, {STATS_RX_BCAST_PACKETS, c_rx_bcast_},
      {STATS_RX_FCS_ERRORS, c_rx_fcs_errors_},
      {STATS_RX_XON_PAUSE_RCVD, c_rx_xon_},  {STATS_RX_XOFF_PAUSE_RCVD, c_rx_xoff_},
      {STATS_RX_MAC_CTRL_RCVD, c_rx_mac_ctrl_}, {STATS_RX_XOFF_ENTERED, c_rx_xoff_entered_},
      {STATS_TX_OCTETS, c_tx_octets_},       {STATS_TX_XON_SENT, c_tx_xon_sent_},
      {STATS_TX_XOFF_SENT, c_tx_xoff_sent_}, {STATS_TX_UCAST_PACKETS, c_tx_ucast_},
      {STATS_TX_MCAST_PACKETS, c_tx_mcast_}, {STATS_TX_BCAST_PACKETS, c_tx_bcast_},
      {STATS_RXBDS_EMPTY, c_rxbds_empty_},   {STATS_RX_DISCARDS, c_rx_discards_},
      {STATS_RING_STATUS_UPDATE, c_status_update_}, {STATS_NIC_IRQS, c_nic_irqs_},
      {STATS_NIC_AVOIDED_IRQS, c_nic_avoided_}};
  for (const auto& f : fields) st_hilo(b + f.first, *f.second);
  submit(std::move(r));
}

// ============================================================================================
// Send
// ============================================================================================

void Tg3::tx_kick() {
  if (tx_busy_ || tx_read_ == tx_prod_) return;
  if (!(regs_[MAC_TX_MODE / 4] & TX_MODE_ENABLE)) return;
  if (tx_inflight_bytes_ >= p_.tx_buffer_bytes) return;  // resumes when the MAC has sent one
  tx_busy_ = true;
  // Gather one frame's BDs from NIC SRAM (the send BD ring the driver wrote by PIO).
  const uint32_t base = ld32(&sram_[NIC_SRAM_SEND_RCB + TG3_BDINFO_NIC_ADDR]);
  struct Bd { uint64_t addr; unsigned len; };
  auto bds = std::make_shared<std::vector<Bd>>();
  uint16_t i = tx_read_;
  bool end = false;
  while (i != tx_prod_ && !end) {
    const uint32_t a = base + uint32_t(i) * TXD_SIZE;
    if (a + TXD_SIZE > kSramBytes) break;
    const uint8_t* d = &sram_[a];
    const uint32_t len_flags = ld32(d + 8);
    bds->push_back({ld_hilo(d), len_flags >> TXD_LEN_SHIFT});
    end = len_flags & TXD_FLAG_END;
    i = uint16_t((i + 1) % 512);
  }
  if (!end) {  // the producer index stops inside a frame: wait for the rest
    tx_busy_ = false;
    return;
  }
  tx_read_ = i;
  const unsigned nbd = unsigned(bds->size());
  const JourneyId j = bds->empty() ? 0 : dma_tags().take(space_, bds->front().addr);
  if (j) sim().journeys.mark(j, now(), "descriptor fetch", name(), "");
  auto frame = std::make_shared<std::vector<uint8_t>>();
  auto left = std::make_shared<unsigned>(nbd);
  for (const Bd& bd : *bds) {
    auto r = make_req(false, bd.addr, bd.len, "TX data", "data DMA", j);
    r->done = [this, frame, left, nbd, j](DmaRequest& q) {
      frame->insert(frame->end(), q.buf.begin(), q.buf.end());
      if (--*left) return;
      // All the frame's data is in: the send BD consumer index moves (research §1.1).
      tx_cons_ = uint16_t((tx_cons_ + nbd) % 512);
      EthFrame f;
      f.bytes = std::move(*frame);
      f.journey = j;
      if (f.bytes.size() < 60) f.bytes.resize(60, 0);
      const size_t bytes = f.bytes.size();
      tx_inflight_bytes_ += bytes;
      if (j) sim().journeys.mark(j, now(), "MAC TX", name(), "");
      const bool bcast = std::all_of(f.bytes.begin(), f.bytes.begin() + 6, [](uint8_t x) { return x == 0xFF; });
      count(bcast ? c_tx_bcast_ : (f.bytes[0] & 1) ? c_tx_mcast_ : c_tx_ucast_);
      count(c_tx_octets_, bytes + kEthFcsBytes);
      mac_tx_->queue(std::move(f), [this, bytes] { tx_mac_done(bytes); });
      tx_busy_ = false;
      hc_event(hc_.tx_bds(now(), nbd));
      tx_kick();
    };
    submit(std::move(r));
  }
}

void Tg3::tx_mac_done(size_t bytes) {
  tx_inflight_bytes_ -= std::min(tx_inflight_bytes_, bytes);
  tx_kick();
}

// ============================================================================================
// Receive
// ============================================================================================

uint64_t Tg3::bdinfo_host(uint32_t reg) const {
  return uint64_t(regs_[(reg + TG3_BDINFO_HOST_ADDR) / 4]) << 32 | regs_[(reg + TG3_BDINFO_HOST_ADDR + 4) / 4];
}
uint64_t Tg3::ret_ring_host() const { return ld_hilo(&sram_[NIC_SRAM_RCV_RET_RCB + TG3_BDINFO_HOST_ADDR]); }
unsigned Tg3::ret_ring_size() const {
  const unsigned n = ld32(&sram_[NIC_SRAM_RCV_RET_RCB + TG3_BDINFO_MAXLEN_FLAGS]) >> BDINFO_FLAGS_MAXLEN_SHIFT;
  return n ? n : 1024;  // tg3 TG3_RX_RCB_RING_SIZE
}

void Tg3::std_fetch() {
  // The receive BD initiator copies newly posted std BDs from the host ring into NIC SRAM.
  if (std_fetch_busy_ || std_fetched_ == std_prod_) return;
  const uint64_t ring = bdinfo_host(RCVDBDI_STD_BD);
  if (!ring) return;
  std_fetch_busy_ = true;
  const uint16_t from = std_fetched_;
  const uint16_t to = std_prod_ > from ? std_prod_ : 512;  // up to the ring's end; the rest in the next pass
  const unsigned n = unsigned(to - from);
  auto r = make_req(false, ring + uint64_t(from) * RXD_SIZE, size_t(n) * RXD_SIZE, "RX std BD fetch", "");
  r->done = [this, from, n](DmaRequest& q) {
    for (unsigned k = 0; k < n; ++k) std::memcpy(std_bds_[from + k].data(), q.buf.data() + k * RXD_SIZE, RXD_SIZE);
    std_fetched_ = uint16_t((from + n) % 512);
    std_fetch_busy_ = false;
    rx_process();
    std_fetch();
  };
  submit(std::move(r));
}

void Tg3::attach_link(EthLinkEnd* end) {
  OnePortNic::attach_link(end);
  link_end_ = end;
  phy_mon_->set_initial(end != nullptr);
}

void Tg3::frame_received(const EthFrame& f) {
  if (!phy_link_up()) {  // the PHY has no link (still training after a replug): nothing reaches the MAC
    count(c_rx_dropped_link_down_);
    if (f.journey) sim().journeys.mark(f.journey, now(), "dropped", name(), "PHY link down");
    return;
  }
  rx_pipe_->arrived(f);
}

void Tg3::frame_received_bad_fcs(const EthFrame& f) {
  if (!phy_link_up()) {
    count(c_rx_dropped_link_down_);
    if (f.journey) sim().journeys.mark(f.journey, now(), "dropped", name(), "PHY link down");
    return;
  }
  rx_pipe_->arrived_bad_fcs(f);
}

void Tg3::accept_bad_fcs(const EthFrame& f) {
  count(c_rx_fcs_errors_);
  if ((phy_[MII_TG3_TEST1] & MII_TG3_TEST1_CRC_EN) && phy_crc_count_ < 0xFFFF) ++phy_crc_count_;
  if (f.journey) sim().journeys.mark(f.journey, now(), "dropped", name(), "bad FCS (rx_fcs_errors)");
}

void Tg3::line_signal(const LineSignal& ls) { phy_mon_->line(ls, link_end_ ? link_end_->speed_mbps() : 1000); }

void Tg3::on_phy_change(bool up) {
  run_events().note(now(), name(), up ? "PHY link up" : "PHY link down",
                    up ? "auto-negotiation and training done" : "link-fail timer expired");
  if (!up) bmsr_link_latched_low_ = true;
  phy_istat_ |= MII_TG3_INT_LINKCHG;
  regs_[MAC_STATUS / 4] |= MAC_STATUS_LNKSTATE_CHANGED;
  mac_tx_->hold(!up);
  if (regs_[MAC_EVENT / 4] & MAC_EVENT_LNKSTATE_CHANGED) {  // the link-change attention: a status update now
    link_chg_attn_ = true;
    hc_event(UpdateCause::Now);
  }
}

bool Tg3::address_match(const std::vector<uint8_t>& b) const {
  if (b.size() < 6) return false;
  if (regs_[MAC_RX_MODE / 4] & RX_MODE_PROMISC) return true;
  if (b[0] & 1) return true;  // broadcast and multicast (the hash filter is not modelled: all accepted)
  const uint32_t hi = regs_[MAC_ADDR_0_HIGH / 4], lo = regs_[MAC_ADDR_0_LOW / 4];
  const uint8_t a[6] = {uint8_t(hi >> 8), uint8_t(hi), uint8_t(lo >> 24), uint8_t(lo >> 16), uint8_t(lo >> 8), uint8_t(lo)};
  return std::equal(a, a + 6, b.begin());
}

void Tg3::accept_frame(const EthFrame& f) {
  const auto& b = f.bytes;
  if (is_mac_control_frame(b)) {  // 802.3 clause 31 MAC Control: consumed by the MAC
    pause_received(f);
    return;
  }
  if (!(regs_[MAC_RX_MODE / 4] & RX_MODE_ENABLE)) {
    count(c_rx_mac_disabled_);
    if (f.journey) sim().journeys.mark(f.journey, now(), "dropped", name(), "MAC_RX_MODE not enabled");
    return;
  }
  if (!address_match(b)) {
    count(c_rx_filtered_);
    if (f.journey) sim().journeys.mark(f.journey, now(), "dropped", name(), "address filter");
    return;
  }
  const size_t len = b.size() + kEthFcsBytes;
  if (rx_fifo_used_ + len > p_.rx_buffer_bytes) {
    count(c_rx_discards_);
    if (f.journey) sim().journeys.mark(f.journey, now(), "dropped", name(), "mbuf pool full (rx_discards)");
    return;
  }
  const bool bcast = std::all_of(b.begin(), b.begin() + 6, [](uint8_t x) { return x == 0xFF; });
  count(bcast ? c_rx_bcast_ : (b[0] & 1) ? c_rx_mcast_ : c_rx_ucast_);
  count(c_rx_octets_, len);
  std::vector<uint8_t> bytes = b;
  bytes.resize(len, 0);  // the FCS is written to host memory (tg3_rx: "omit crc"); its value is not computed
  rx_fifo_used_ += len;
  if (f.journey) sim().journeys.mark(f.journey, now(), "RX FIFO", name(), rx_busy_ ? "RX DMA busy" : "");
  rx_fifo_.push_back({std::move(bytes), f.journey});
  flow_control_check();
  rx_process();
}

// ---------------------------------------------------------------- 802.3x flow control
void Tg3::pause_received(const EthFrame& f) {
  if (!is_pause_frame(f.bytes)) {  // another MAC Control opcode, or not to the reserved address
    count(c_rx_mac_ctrl_);
    if (f.journey) sim().journeys.mark(f.journey, now(), "dropped", name(), "MAC Control frame (consumed)");
    return;
  }
  const uint16_t q = pause_time_quanta(f.bytes);
  count(q ? c_rx_xoff_ : c_rx_xon_);
  // RX_MODE_FLOW_CTRL_ENABLE (tg3_setup_flow_control's TG3_FLAG_RX_PAUSE): obey it. Otherwise it
  // is counted and consumed only.
  const bool obey = regs_[MAC_RX_MODE / 4] & RX_MODE_FLOW_CTRL_ENABLE;
  if (obey) {
    // estimate: rx_xoff_entered counts an XOFF that stops a running transmitter (not one that
    // extends a pause in force); Broadcom's definition is not in tg3.h.
    if (q && !mac_tx_->paused()) count(c_rx_xoff_entered_);
    mac_tx_->pause(q);
  }
  if (f.journey)
    sim().journeys.mark(f.journey, now(), "dropped", name(),
                        obey ? "802.3x PAUSE (consumed)" : "802.3x PAUSE (consumed, RX_MODE_FLOW_CTRL_ENABLE clear)");
}

void Tg3::flow_control_check() {
  // estimate: the MAC sends XOFF when the free mbufs of the RX pool fall below
  // BUFMGR_MB_MACRX_LOW_WATER and XON when they are back at BUFMGR_MB_HIGH_WATER; the BCM5701's rule
  // is not in the sources we have, only the registers and tg3's defaults (32 and 96 mbufs: with the
  // 64 KB pool, XOFF above 60 KB held and XON at 52 KB or less).
  if (!(regs_[MAC_TX_MODE / 4] & TX_MODE_FLOW_CTRL_ENABLE)) return;
  const size_t pool = p_.rx_buffer_bytes;
  const size_t free_mbufs = (pool - std::min(pool, rx_fifo_used_)) / kMbufBytes;
  const uint32_t low = regs_[BUFMGR_MB_MACRX_LOW_WATER / 4], high = regs_[BUFMGR_MB_HIGH_WATER / 4];
  if (!xoff_sent_ && free_mbufs < low) {
    send_pause(kXoffPauseQuanta);
    count(c_tx_xoff_sent_);
    xoff_sent_ = true;
  } else if (xoff_sent_ && free_mbufs >= high) {
    send_pause(0);
    count(c_tx_xon_sent_);
    xoff_sent_ = false;
  }
}

void Tg3::send_pause(uint16_t quanta) { mac_tx_->queue_control(make_pause_frame(mac_, quanta), {}); }

void Tg3::rx_process() {
  if (rx_busy_ || rx_fifo_.empty()) return;
  if (std_cons_ == std_fetched_) {  // no std BD fetched: the frame waits in the mbuf pool
    if (!rx_starved_) count(c_rxbds_empty_);
    rx_starved_ = true;
    if (rx_fifo_.front().j) sim().journeys.mark(rx_fifo_.front().j, now(), "RX FIFO", name(), "no std BD (rxbds_empty)");
    return;
  }
  const unsigned rsize = ret_ring_size();
  if ((ret_prod_ + 1) % rsize == ret_cons_ % rsize) return;  // return ring full: wait for the driver
  rx_starved_ = false;
  rx_busy_ = true;
  RxFrame fr = std::move(rx_fifo_.front());
  rx_fifo_.pop_front();
  const uint16_t idx = std_cons_;
  std_cons_ = uint16_t((std_cons_ + 1) % 512);
  const uint8_t* bd = std_bds_[idx].data();
  const uint64_t buf = ld_hilo(bd + RXD_ADDR_HI);
  const unsigned maxlen = ld32(bd + RXD_IDX_LEN) & RXD_LEN_MASK;
  const JourneyId j = fr.j;
  const size_t flen = fr.bytes.size();
  const bool fits = maxlen == 0 || flen <= maxlen;
  const size_t n = fits ? flen : maxlen;
  const bool csum = is_tcp_or_udp_ipv4(fr.bytes);
  auto d = make_req(true, buf, n, "RX data", "RX DMA", j);
  std::copy_n(fr.bytes.begin(), n, d->buf.begin());
  submit(std::move(d));
  const uint16_t slot = ret_prod_;
  auto w = make_req(true, ret_ring_host() + uint64_t(slot) * RXD_SIZE, RXD_SIZE, "RX return BD", "write-back", j);
  uint8_t* rb = w->buf.data();
  std::memcpy(rb, bd, RXD_SIZE);
  st32(rb + RXD_IDX_LEN, uint32_t(idx) << RXD_IDX_SHIFT | uint32_t(n));
  st32(rb + RXD_TYPE_FLAGS, RXD_FLAG_END | (fits ? 0 : RXD_FLAG_ERROR) | (csum ? RXD_FLAG_TCPUDP_CSUM | RXD_FLAG_IP_CSUM : 0) |
                                (csum && fr.bytes[23] == 6 ? RXD_FLAG_IS_TCP : 0));
  st32(rb + RXD_IP_TCP_CSUM, csum ? 0xffffu : 0u);
  st32(rb + RXD_ERR_VLAN, fits ? 0u : 0x01000000u);  // RXD_ERR_HUGE_FRAME
  st32(rb + RXD_OPAQUE, RXD_OPAQUE_RING_STD | idx);
  w->done = [this, rsize, flen, buf, j](DmaRequest&) {
    ret_prod_ = uint16_t((ret_prod_ + 1) % rsize);
    rx_fifo_used_ -= std::min(rx_fifo_used_, flen);
    flow_control_check();
    if (j) dma_tags().tag(space_, buf, j);
    rx_busy_ = false;
    const UpdateCause c = hc_.rx_bds(now(), 1);
    if (j) {
      rx_await_.push_back(j);
      if (c == UpdateCause::None && hc_.rx_ticks_now())
        sim().journeys.mark(j, now(), "moderation wait", name(),
                            hc_.during_int() ? "HOSTCC_RXCOAL_TICK_INT" : "HOSTCC_RXCOL_TICKS");
    }
    hc_event(c);
    rx_process();
  };
  submit(std::move(w));
}

std::optional<FrameTally> Tg3::tally() const {
  FrameTally t;
  // The tx_* counters count a frame when it enters the MAC queue; those the MAC still holds (no
  // link, or waiting for the wire at the end) are not on the link yet.
  t.sent = *c_tx_ucast_ + *c_tx_mcast_ + *c_tx_bcast_ + *c_tx_xon_sent_ + *c_tx_xoff_sent_ - mac_tx_->queued();
  const uint64_t stored = *c_rx_ucast_ + *c_rx_mcast_ + *c_rx_bcast_;
  t.accepted = stored - std::min<uint64_t>(stored, rx_fifo_.size() + (rx_busy_ ? 1 : 0));
  t.held = {{"in the MAC receive pipeline", rx_pipe_->held()},
            {"in the RX mbuf pool", rx_fifo_.size() + (rx_busy_ ? 1 : 0)}};
  t.consumed = {{"802.3x PAUSE (rx_xon/xoff_pause_rcvd)", *c_rx_xon_ + *c_rx_xoff_},
                {"other MAC Control (rx_mac_ctrl_rcvd)", *c_rx_mac_ctrl_}};
  t.dropped = {{"address filter (rx_filtered)", *c_rx_filtered_},
               {"receiver disabled (rx_mac_disabled)", *c_rx_mac_disabled_},
               {"mbuf pool full (rx_discards)", *c_rx_discards_}};
  if (*c_rx_fcs_errors_) t.dropped.push_back({"bad FCS (rx_fcs_errors)", *c_rx_fcs_errors_});
  if (*c_rx_dropped_link_down_) t.dropped.push_back({"PHY link down (rx_dropped_link_down)", *c_rx_dropped_link_down_});
  return t;
}

// ============================================================================================
// Registry
// ============================================================================================

namespace {
Registrar<DeviceEntry> reg{[] {
  DeviceEntry e;
  e.name = "BCM5701";
  e.summary = "Broadcom BCM5701 (Tigon3) 10/100/1000 PCI-X NIC: SRAM send BDs, host coalescing engine";
  e.params = Tg3Params::schema();
  e.info = bcm5701_info();
  e.ports = 1;
  e.check = [](const ParamValues& pv) {
    std::vector<ParamProblem> out = nic_param_problems(pv);
    const int64_t m = pv.i("mmrbc_bytes");
    if (m != 512 && m != 1024 && m != 2048 && m != 4096)
      out.push_back({"mmrbc_bytes", fmt::format("{} is not a PCI-X MMRBC (512, 1024, 2048 or 4096)", m)});
    return out;
  };
  e.create = [](const std::string& inst, const ParamValues& pv) -> std::unique_ptr<PciDevice> {
    Tg3Params p = Tg3Params::from(pv);
    p.draw_clock_offset(inst);
    return std::make_unique<Tg3>(inst.c_str(), p);
  };
  e.hardware_json = [](const PciDevice& dev) {
    auto* nic = dynamic_cast<const Tg3*>(&dev);
    return nic ? nlohmann::json{{"clock_ppm", nic->clock().ppm()}} : nlohmann::json::object();
  };
  return e;
}()};
}  // namespace

}  // namespace nicsim::tg3
