#include "models/nic/gem/gem.h"
#include "core/sim_context.h"
#include "models/bus/pci_timing.h"
#include "models/device_entry.h"
#include "models/ether/link.h"
#include "core/events.h"
#include "models/ether/station_address.h"
#include "models/ether/pause.h"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <stdexcept>

namespace nicsim::gem {

// ============================================================================================
// Parameters
// ============================================================================================

ParamSchema GemParams::schema() {
  GemParams d;
  return concat_schemas({
      d.clock_schema("offset of the PCI clock the blanking timer counts",
                     "DESIGN.md 'Clocks drift' (the bus clock's own offset; the clock itself is the segment's)"),
      {
        string_param("bifcfg_reading", "gmac", {"gmac", "sungem"},
                     "where GREG_BIFCFG's read-only M66EN bit is: gmac = 0x08 (gmac.h GM_BIF_CFG_M66EN, NetBSD "
                     "gemreg.h GEM_PCI_BIF_CNF_M66EN), sungem = 0x04 (sungem.h GREG_BIFCFG_M66EN)",
                     "gmac.h v1.5k4 / sungem.h 1.8 disagree; default: the two sources that agree"),
        string_param("gcfg_bit0_reading", "infinite", {"infinite", "64B"},
                     "GREG_CFG bit 0 set: infinite DMA bursts (bounded by TXDMALIM/RXDMALIM x 64 B) or 64-byte bursts",
                     "sungem.h GREG_CFG_IBURST and NetBSD GEM_CONFIG_BURST_INF say infinite; gmac.h GM_GCONF_BURST_SZ "
                     "'1: 64 bytes/burst'"),
        string_param("tx_all_reading", "sungem", {"sungem", "gmac"},
                     "TX_ALL pacing: sungem = TXDMA_CFG_PMODE (bit 21) set raises TX_ALL when the TX FIFO has drained, "
                     "clear when the ring is done; gmac = GM_TX_CONF_PACED_MODE (bit 20) set raises it when the ring "
                     "is done, clear when the FIFO has drained",
                     "sungem.h 'TXALL irq means TX FIFO empty' (NetBSD names bit 21 too); gmac.h's bit lies inside "
                     "the FIFO threshold field both drivers fill with 0x7ff"),
        int_param("rx_csum_start_unit_bytes", d.rx_csum_start_unit_bytes, 1, 2, "bytes",
                  "unit of RXDMA_CFG_CSUMOFF: 2 (sungem writes (14 / 2) << 13 and hands the sum up as CHECKSUM_HW) or 1 "
                  "(gmac writes 0x22 = 34 as a byte offset; NetBSD 'cksum start offset bytes')",
                  "sungem.c v0.95 gem_init_dma; gmac.c v1.5k4 gmac_init_registers"),
        string_param("rx_blank_time_from", "previous_rx_done", {"previous_rx_done", "first_packet"},
                     "RXDMA_BLANK ITIME counted from the previous RX_DONE (a frame completing after it ran out raises "
                     "RX_DONE at once) or from the first frame after it",
                     "sungem.h/gmac.h: 'since the previous RX_DONE'; research seeds §1.4 gap"),
        int_param("rx_fifo_bytes", d.rx_fifo_bytes, 2048, 65536, "bytes", "RX FIFO (RXDMA_FSZ x 64)",
                  "gmac.h GM_RX_FIFO_SIZE: 'The value read is 0x140, indicating a 20kbyte RX FIFO'"),
        int_param("tx_fifo_bytes", d.tx_fifo_bytes, 2048, 65536, "bytes", "TX FIFO (TXDMA_FSZ x 64)",
                  "estimate: no source gives the GMAC's TX FIFO size"),
      },
      d.latency_schema("estimate: as the 8254x model"),
      {
        real_param("mif_frame_ns", to_ns(d.mif_frame), 0.0, 1e6, "ns", "one MIF (MDIO) frame",
                   "IEEE 802.3 §22.2.2.11 MDC <= 2.5 MHz, 64-bit frame (estimate: the GMAC's MDC divider is unknown)"),
        int_param("phy_addr", d.phy_addr, 0, 31, "", "MII address the built-in PHY answers on MDIO0",
                  "estimate: gmac.h GM_EXTERNAL_PHYAD 0 / GM_INTERNAL_PHYAD 1; gmac and sungem scan for it"),
        int_param("cache_line_bytes", d.cache_line_bytes, 16, 256, "bytes", "PCI cache line size register",
                  "MPC7450 RM §3.1: 32-byte cache blocks (Linux/PPC sets the PCI CLS to the L1 line)"),
        string_param("mac_address", "", {}, "station address (empty: Apple OUI 00:03:93 + hash of the device name)"),
      },
  });
}

GemParams GemParams::from(const ParamValues& v) {
  GemParams p;
  p.read_timing(v);
  p.bifcfg_reading = v.s("bifcfg_reading") == "sungem" ? BifcfgReading::sungem : BifcfgReading::gmac;
  p.gcfg_bit0_reading = v.s("gcfg_bit0_reading") == "64B" ? Gcfg0Reading::bytes64 : Gcfg0Reading::infinite;
  p.tx_all_reading = v.s("tx_all_reading") == "gmac" ? TxAllReading::gmac : TxAllReading::sungem;
  p.rx_csum_start_unit_bytes = unsigned(v.i("rx_csum_start_unit_bytes"));
  p.rx_blank_time_from =
      v.s("rx_blank_time_from") == "first_packet" ? RxBlankFrom::first_packet : RxBlankFrom::previous_rx_done;
  p.rx_fifo_bytes = unsigned(v.i("rx_fifo_bytes"));
  p.tx_fifo_bytes = unsigned(v.i("tx_fifo_bytes"));
  p.mif_frame = ns(v.r("mif_frame_ns"));
  p.phy_addr = unsigned(v.i("phy_addr"));
  p.cache_line_bytes = unsigned(v.i("cache_line_bytes"));
  p.mac_address = v.s("mac_address");
  return p;
}

PciDeviceInfo gmac_info() {
  PciDeviceInfo i;
  i.name = "GMAC";
  i.width_bits = 64;      // sungem.h GREG_BIFCFG_B64DIS / gmac.h GM_BIF_CFG_HOST_64: a 64-bit PCI interface
  i.pcix_capable = false; // GEM is a PCI 2.1/2.2 device (sungem.h: BIF, M66EN; no PCI-X registers)
  i.max_mhz = 66;         // M66EN: 66 MHz capable
  i.bar_size = kBar0Bytes;
  i.functions = 1;
  return i;
}

uint16_t csum16_be(const uint8_t* b, size_t n) {
  uint32_t s = 0;
  size_t i = 0;
  for (; i + 1 < n; i += 2) s += uint32_t(b[i]) << 8 | b[i + 1];
  if (i < n) s += uint32_t(b[i]) << 8;
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return uint16_t(s);
}

namespace {
inline constexpr uint32_t kRegBytes = 0xA000;  // global .. PCS (0x905C): the register file the model keeps

uint64_t ld_le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}
void st_le64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (8 * i));
}

// PHY: a Broadcom BCM5411-like gigabit PHY (gmac.h MII_BCM5411_*), auto-negotiated 1000 Mb/s full duplex.
void phy_reset(std::array<uint16_t, 32>& r) {
  r.fill(0);
  r[0x00] = 0x1140;  // BMCR: AN enable, full duplex, speed 1000 (MII_CR_SPEEDSEL2)
  r[0x01] = 0x796D;  // BMSR: 100/10 FD+HD, extended status, AN complete, AN able, link, extended caps
  r[0x02] = 0x0020;  // PHYSID1: (MII_BCM5411_OUI 0x000818 << 10) >> 16
  r[0x03] = 0x6071;  // PHYSID2: OUI low bits, MII_BCM5411_MODEL 0x07, MII_BCM5411_REV 0x01
  r[0x04] = 0x05E1;  // ADVERTISE: pause (MII_ANLPA_PAUS 0x0400), 100/10 FD/HD, CSMA
  r[0x05] = 0x45E1;  // LPA: the partner advertises the same, acknowledge
  r[0x09] = 0x0300;  // 1000BASE-T control: advertise 1000 full (MII_BCM5400_GB_CONTROL_FULLDUPLEXCAP) and half
  r[0x0A] = 0x3C00;  // 1000BASE-T status: partner 1000 full/half, local/remote receiver OK
  r[0x19] = 0x0700 | 0x0004;  // MII_BCM5400_AUXSTATUS: LINKMODE 7 (1000BASE-T FD), link pass
}
}  // namespace

// ============================================================================================
// Module
// ============================================================================================

Gmac::Gmac(sc_core::sc_module_name name, const GemParams& p)
    : OnePortNic(name),
      pci_target_socket("pci_target"),
      dma_initiator_socket("dma_initiator"),
      irq("irq_out_0"),
      p_(p),
      info_(gmac_info()),
      pci_clk_(std::string(this->name()) + ".pci_clk", p.pci_mhz * 1e6, p.clock_ppm),
      space_(DmaTags::space_of(p.dma_space.empty() ? std::string(this->name()) : p.dma_space)),
      regs_(kRegBytes / 4, 0) {
  if (p_.rx_csum_start_unit_bytes != 1 && p_.rx_csum_start_unit_bytes != 2)
    throw std::invalid_argument(std::string(this->name()) + ": rx_csum_start_unit_bytes must be 1 or 2");
  if (p_.rx_fifo_bytes < 2048 || p_.tx_fifo_bytes < 2048)
    throw std::invalid_argument(std::string(this->name()) + ": FIFOs must hold a full frame (>= 2048 bytes)");
  mac_ = station_address(p_.mac_address, this->name(), {0x00, 0x03, 0x93});  // Apple OUI 00:03:93
  power_on();
  phy_reset(phy_);
  pci_target_socket.register_b_transport(this, &Gmac::b_transport);
  dma_ = std::make_unique<DmaEngine>(dma_initiator_socket, this->name(), "nicsim/gem",
                                     [this](bool w, uint64_t a, size_t left) { return dma_burst(w, a, left); });
  {
    sc_core::sc_spawn_options o;
    o.spawn_method();
    o.dont_initialize();
    o.set_sensitivity(&blank_ev_);
    sc_core::sc_spawn([this] { rx_blank_fire(); }, "rx_blank", &o);
  }
  {
    sc_core::sc_spawn_options o;
    o.spawn_method();
    o.dont_initialize();
    o.set_sensitivity(&mif_ev_);
    sc_core::sc_spawn([this] { mif_done(); }, "mif", &o);
  }
  {
    sc_core::sc_spawn_options o;
    o.spawn_method();
    o.dont_initialize();
    o.set_sensitivity(&mif_poll_ev_);
    sc_core::sc_spawn([this] { mif_poll_fire(); }, "mif_poll", &o);
  }
  build_mac(p_, [this](const EthFrame& f) { accept_frame(f); });
  rx_pipe_->set_bad_fcs([this](const EthFrame& f) { accept_bad_fcs(f); });
  phy_mon_ = std::make_unique<EthPhy>(this->name(), [this](bool up) { on_phy_change(up); });
  auto& c = sim().counters;
  const std::string n = this->name();
  c_tx_frames_ = &c.at(n + ".tx_frames");
  c_tx_octets_ = &c.at(n + ".tx_octets");
  c_rx_frames_ = &c.at(n + ".rx_frames");
  c_rx_octets_ = &c.at(n + ".rx_octets");
  c_rx_overflow_ = &c.at(n + ".rx_overflow");
  c_rx_filtered_ = &c.at(n + ".rx_filtered");
  c_rx_mac_disabled_ = &c.at(n + ".rx_mac_disabled");
  c_rx_nobuf_ = &c.at(n + ".rx_nobuf");
  c_rx_pause_rcvd_ = &c.at(n + ".rx_pause_rcvd");
  c_rx_mac_ctrl_ = &c.at(n + ".rx_mac_ctrl_rcvd");
  c_tx_xoff_sent_ = &c.at(n + ".tx_xoff_sent");
  c_tx_xon_sent_ = &c.at(n + ".tx_xon_sent");
  c_tx_pause_sent_ = &c.at(n + ".tx_pause_sent");
  c_interrupts_ = &c.at(n + ".interrupts");
  c_rx_done_pkts_ = &c.at(n + ".rx_done.IPKTS");
  c_rx_done_time_ = &c.at(n + ".rx_done.ITIME");
  c_tx_all_ = &c.at(n + ".tx_all");
  c_tx_intme_ = &c.at(n + ".tx_intme");
  c_tx_desc_fetches_ = &c.at(n + ".tx_desc_fetches");
  c_rx_desc_fetches_ = &c.at(n + ".rx_desc_fetches");
  c_rx_fcs_errors_ = &c.at(n + ".rx_fcs_errors");
  c_rx_dropped_link_down_ = &c.at(n + ".rx_dropped_link_down");
  c_tx_dropped_reset_ = &c.at(n + ".tx_dropped_reset");
  c_rx_dropped_reset_ = &c.at(n + ".rx_dropped_reset");
}

Gmac::~Gmac() = default;

sc_core::sc_port<irq_if>& Gmac::irq_out(unsigned fn) {
  if (fn != 0) throw std::out_of_range("GMAC has one PCI function");
  return irq;
}
void Gmac::bus_mode(bool, unsigned mhz) {
  // pci_timing.h pci_clock_ns: 33 -> 30 ns (33.33 MHz), 66 -> 15 ns (66.67 MHz).
  p_.pci_mhz = 1000.0 / pci_clock_ns(mhz);
  pci_clk_ = ClockDomain(pci_clk_.name(), p_.pci_mhz * 1e6, p_.clock_ppm);
}

void Gmac::set_bar(unsigned fn, uint64_t base) {
  if (fn != 0) throw std::out_of_range("GMAC has one PCI function");
  bar_ = base;
}

void Gmac::power_on() {
  std::fill(regs_.begin(), regs_.end(), 0u);
  regw(GREG_IMASK) = 0xffffffff;  // gmac.h GM_IRQ_MASK "d: 0xFFFFFFFF"
  regw(GREG_PCIEMASK) = 0xffffffff;
  regw(GREG_CFG) = 0x00000042;    // gmac.h GM_GCONF "d: 0x00000042"
  regw(TXDMA_CFG) = 0x00118010;   // gmac.h GM_TX_CONF "d: 0x118010"
  regw(RXDMA_CFG) = 0x01000010;   // gmac.h GM_RX_CONF "d: 0x1000010"
  regw(RXDMA_PTHRESH) = 0x000000f8;  // gmac.h GM_RX_PTH "d: 0x000000f8"
  // estimate: the MAC event masks come up masked (no source gives their reset value; both drivers write them)
  regw(MAC_TXMASK) = 0xffffffff;
  regw(MAC_RXMASK) = 0xffffffff;
  regw(MAC_MCMASK) = 0xffffffff;
  regw(MAC_MCTYPE) = kMacControlType;
  regw(MAC_ADDR0) = uint32_t(mac_[4]) << 8 | mac_[5];  // the station address Open Firmware leaves
  regw(MAC_ADDR1) = uint32_t(mac_[2]) << 8 | mac_[3];
  regw(MAC_ADDR2) = uint32_t(mac_[0]) << 8 | mac_[1];
  regw(MIF_CFG) = MIF_CFG_MDI0;
  stat_latched_ = txstat_ = rxstat_ = cstat_ = 0;
  tx_kick_ = tx_done_ = tx_fetch_ = 0;
  tx_all_armed_ = false;
  rx_kick_ = rx_done_ = 0;
}

void Gmac::reset_tx() {  // GREG_SWRST_TXRST: the TX DMA and TX MAC back to reset
  tx_kick_ = tx_done_ = tx_fetch_ = 0;
  tx_all_armed_ = false;
  txd_.clear();
  stat_latched_ &= ~(GREG_STAT_TXINTME | GREG_STAT_TXALL | GREG_STAT_TXDONE);
  txstat_ = 0;
  regw(TXDMA_KICK) = 0;
  regw(TXDMA_CFG) = 0x00118010;
  regw(MAC_TXCFG) = 0;
  // Frames in the TX FIFO the MAC has not started (held without link, or waiting for the wire)
  // are gone with the reset: counted sent by tx_frames, never on the link.
  count(c_tx_dropped_reset_, mac_tx_->queued());
  tx_fifo_used_ = 0;
  tx_fifo_frames_ = 0;
  mac_tx_->clear_queued();
  sync_irq();
}

void Gmac::reset_rx() {  // GREG_SWRST_RXRST
  rx_kick_ = rx_done_ = rx_fetch_next_ = 0;
  rxd_.clear();
  rx_nobuf_ = false;
  count(c_rx_dropped_reset_, rx_fifo_.size());  // frames in the RX FIFO not yet written to memory
  for (auto& fr : rx_fifo_)
    if (fr.j) sim().journeys.mark(fr.j, now(), "dropped", name(), "RX reset (GREG_SWRST_RXRST)");
  rx_fifo_.clear();
  rx_fifo_used_ = 0;
  xoff_sent_ = false;
  rx_pkts_since_ = 0;
  blank_ev_.cancel();
  blank_armed_ = false;
  stat_latched_ &= ~(GREG_STAT_RXDONE | GREG_STAT_RXNOBUF | GREG_STAT_RXTAGERR);
  rxstat_ = 0;
  regw(RXDMA_KICK) = 0;
  regw(RXDMA_CFG) = 0x01000010;
  regw(MAC_RXCFG) = 0;
  sync_irq();
}

// ---------------------------------------------------------------- DMA
DmaBurst Gmac::dma_burst(bool write, uint64_t, size_t left) const {
  const uint32_t cfg = reg(GREG_CFG);
  const bool bit0 = cfg & GREG_CFG_IBURST;
  const bool infinite = (p_.gcfg_bit0_reading == Gcfg0Reading::infinite) ? bit0 : !bit0;
  size_t n = left;
  if (!infinite) {
    n = std::min<size_t>(left, 64);
  } else {
    // The DMA grant limit in 64-byte transfers (gmac.h GM_GCONF_TXDMA/RXDMA_LIMIT "No of 64 bytes
    // transfers"; 0: unbounded): TX reads under TXDMALIM, RX writes under RXDMALIM.
    const unsigned lim = write ? (cfg & GREG_CFG_RXDMALIM) >> 6 : (cfg & GREG_CFG_TXDMALIM) >> 1;
    if (lim) n = std::min<size_t>(left, size_t(lim) * 64);
  }
  if (write) return {n, PciCommand::MemWrite};
  // NetBSD gemreg.h GEM_CONFIG_RONPAULBIT (0x800, Apple only): "after infinite burst use memory
  // read multiple for PCI commands"; without it, Memory Read.
  return {n, (cfg & 0x800) ? PciCommand::MemReadMultiple : PciCommand::MemRead};
}

std::unique_ptr<DmaRequest> Gmac::make_req(bool write, uint64_t addr, size_t n, const char* what, const char* stage,
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

void Gmac::submit(std::unique_ptr<DmaRequest> r) {
  r->where = name();
  dma_->submit(std::move(r));
}

// ---------------------------------------------------------------- interrupts
uint32_t Gmac::status() const {
  uint32_t v = stat_latched_;
  if (txstat_ & ~reg(MAC_TXMASK) & 0x1ff) v |= GREG_STAT_TXMAC;
  if (rxstat_ & ~reg(MAC_RXMASK) & 0x7f) v |= GREG_STAT_RXMAC;
  if (cstat_ & ~reg(MAC_MCMASK) & 0x7) v |= GREG_STAT_MAC;
  if (mif_changed_ & ~reg(MIF_MASK) & MIF_STATUS_STAT) v |= GREG_STAT_MIF;
  v |= (uint32_t(tx_done_) << GREG_STAT_TXNR_SHIFT) & GREG_STAT_TXNR;
  return v;
}

void Gmac::latch(uint32_t bits) {
  stat_latched_ |= bits & kStatLatched;
  sync_irq();
  if (bits & GREG_STAT_RXDONE) {  // the frames that waited for this RX_DONE
    const bool masked = reg(GREG_IMASK) & GREG_STAT_RXDONE;
    for (JourneyId j : rx_await_)
      if (j) sim().journeys.mark(j, now(), "interrupt", name(), masked ? "RX_DONE masked in GREG_IMASK" : "");
    rx_await_.clear();
  }
}

void Gmac::sync_irq() {
  const bool l = (status() & ~reg(GREG_IMASK) & kStatSources) != 0;
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
uint32_t Gmac::peek(uint32_t off) const {
  switch (off) {
    case GREG_STAT: case GREG_STAT2: return status();
    case GREG_IACK: return 0;
    case GREG_BIFCFG: {
      const uint32_t m66 = p_.bifcfg_reading == BifcfgReading::gmac ? GM_BIF_CFG_M66EN : GREG_BIFCFG_M66EN;
      return (reg(off) & ~m66) | (p_.pci_mhz > 33.34 ? m66 : 0);
    }
    case GREG_SWRST: return 0;  // the resets complete at once (the drivers poll for the bits to clear)
    case TXDMA_KICK: return tx_kick_;
    case TXDMA_TXDONE: return tx_done_;
    case TXDMA_PCNT: return tx_fifo_frames_;
    case TXDMA_FSZ: return p_.tx_fifo_bytes / 64;
    case RXDMA_KICK: return rx_kick_;
    case RXDMA_DONE: return rx_done_;
    case RXDMA_PCNT: return uint32_t(rx_fifo_.size());
    case RXDMA_FSZ: return p_.rx_fifo_bytes / 64;
    case MAC_TXSTAT: return txstat_;
    case MAC_RXSTAT: return rxstat_;
    case MAC_CSTAT: return cstat_;
    case MAC_TXRST: case MAC_RXRST: return 0;  // self-clearing
    case MIF_FRAME: return mif_frame_;
    case MIF_STATUS: return uint32_t(mif_image_) << 16 | mif_changed_;
    case PCS_MIISTAT: case PCS_ISTAT: return 0;
    default: return reg(off);
  }
}

uint32_t Gmac::read_reg(uint32_t off) {
  const uint32_t v = peek(off);
  switch (off) {
    case GREG_STAT:  // reading clears bits 0-6 (sungem.h, gmac.h "R-C")
      stat_latched_ = 0;
      sync_irq();
      break;
    case MAC_TXSTAT: txstat_ = 0; sync_irq(); break;
    case MAC_RXSTAT: rxstat_ = 0; sync_irq(); break;
    case MAC_CSTAT: cstat_ &= ~uint32_t(MAC_CSTAT_PRCV | MAC_CSTAT_PS | MAC_CSTAT_NPS); sync_irq(); break;
    case MIF_STATUS: mif_changed_ = 0; sync_irq(); break;  // "The poll status field is auto-clearing on read"
    default: break;
  }
  return v;
}

void Gmac::write_reg(uint32_t off, uint32_t v, const sc_time& delay) {
  switch (off) {
    case GREG_STAT: case GREG_STAT2: case GREG_SEBSTATE: case TXDMA_TXDONE: case RXDMA_DONE: case TXDMA_FSZ:
    case RXDMA_FSZ: case TXDMA_PCNT: case RXDMA_PCNT: case MAC_TXSTAT: case MAC_RXSTAT: case MAC_CSTAT:
      return;  // read-only (the chip updates them)
    case GREG_IMASK: case MAC_TXMASK: case MAC_RXMASK: case MAC_MCMASK: case MIF_MASK:
      regw(off) = v;
      sync_irq();
      return;
    case GREG_IACK:  // 1s clear those of bits 0-6; 0s and higher bits have no effect (sungem.h)
      stat_latched_ &= ~(v & kStatLatched);
      sync_irq();
      return;
    case GREG_BIFCFG: {
      const uint32_t m66 = p_.bifcfg_reading == BifcfgReading::gmac ? GM_BIF_CFG_M66EN : GREG_BIFCFG_M66EN;
      regw(off) = v & ~m66;  // M66EN is read-only (gmac.h)
      return;
    }
    case GREG_SWRST:
      if (v & GREG_SWRST_TXRST) reset_tx();
      if (v & GREG_SWRST_RXRST) reset_rx();
      return;
    case TXDMA_KICK:
      tx_kick_ = v & ((1u << kTxdmaKickBits) - 1);
      regw(off) = tx_kick_;
      tx_run();
      return;
    case TXDMA_CFG:
      regw(off) = v;
      tx_run();
      return;
    case RXDMA_KICK:
      rx_kick_ = v & ((1u << kTxdmaKickBits) - 1);
      regw(off) = rx_kick_;
      rx_run();
      return;
    case RXDMA_CFG:
      regw(off) = v;
      rx_run();
      return;
    case RXDMA_BLANK:
      regw(off) = v;
      return;
    case MAC_TXCFG:
      regw(off) = v;
      tx_run();
      return;
    case MAC_RXCFG:
      regw(off) = v;
      rx_run();
      return;
    case MAC_TXRST:
      if (v & 1) { txstat_ = 0; mac_tx_->clear_queued(); }
      return;
    case MAC_RXRST:
      if (v & 1) { rxstat_ = 0; }
      return;
    case MAC_SNDPAUSE:
      regw(off) = v & MAC_SNDPAUSE_TS;
      if (v & MAC_SNDPAUSE_SP) send_pause(uint16_t(v & MAC_SNDPAUSE_TS));
      return;
    case MIF_CFG: {
      const uint32_t old = reg(off);
      regw(off) = v;
      mif_poll_write(old, v);
      return;
    }
    case MIF_FRAME:
      mif_frame_ = v & ~uint32_t(MIF_FRAME_TALSB);
      mif_ev_.cancel();
      mif_ev_.notify(delay + p_.mif_frame);
      return;
    default:
      if (off < kRegBytes) regw(off) = v;
      return;
  }
}

void Gmac::b_transport(tlm::tlm_generic_payload& trans, sc_time& delay) {
  const uint64_t a = trans.get_address();
  if (!bar_ || a < bar_ || a >= bar_ + kBar0Bytes || is_io_space(trans)) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  const uint32_t off = uint32_t(a - bar_);
  const unsigned len = trans.get_data_length();
  // 32-, 16- and 8-bit accesses within one little-endian register word (gmac's GM_OUT / GM_IN use
  // out_le32 / out_le16 / out_8 by the register's REG_SZ_* class).
  if ((len != 1 && len != 2 && len != 4) || (off % len) || trans.get_byte_enable_ptr()) {
    trans.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  const uint32_t word = off & ~3u, shift = 8 * (off & 3);
  const uint32_t lane = len == 4 ? 0xffffffffu : ((1u << (8 * len)) - 1) << shift;
  uint8_t* d = trans.get_data_ptr();
  if (word >= kRegBytes) {  // the rest of the BAR (expansion ROM image): reads 0, writes ignored
    if (trans.is_read()) std::memset(d, 0, len);
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  if (trans.is_read()) {
    const uint32_t v = read_reg(word) >> shift;
    for (unsigned i = 0; i < len; ++i) d[i] = uint8_t(v >> (8 * i));
  } else if (trans.is_write()) {
    uint32_t v = 0;
    for (unsigned i = 0; i < len; ++i) v |= uint32_t(d[i]) << (8 * i);
    const uint32_t merged = len == 4 ? v : ((peek(word) & ~lane) | ((v << shift) & lane));
    write_reg(word, off == GREG_IACK && len != 4 ? (v << shift) & lane : merged, delay);
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

void Gmac::mif_done() {
  // Frame mode: ST 01, OP 10 read / 01 write, PHYAD, REGAD, TA, DATA; TALSB set when done (both
  // drivers poll it: gmac __phy_read, sungem phy_read).
  const unsigned op = (mif_frame_ & MIF_FRAME_OP) >> 28;
  const unsigned phy = (mif_frame_ & MIF_FRAME_PHYAD) >> 23, r = (mif_frame_ & MIF_FRAME_REGAD) >> 18;
  if (op == 2) {  // read
    uint16_t v = 0xffff;  // nothing answers: MDIO floats high
    if (phy == p_.phy_addr) v = phy_read(r, true);
    mif_frame_ = (mif_frame_ & ~uint32_t(MIF_FRAME_DATA)) | v;
  } else if (op == 1 && phy == p_.phy_addr) {
    const uint16_t v = uint16_t(mif_frame_ & MIF_FRAME_DATA);
    if (r == 0x00 && (v & 0x8000)) phy_reset(phy_);  // BMCR reset self-clears, the link comes back
    else if (r != 0x01 && r != 0x02 && r != 0x03 && r != 0x05 && r != 0x0A && r != 0x19) phy_[r] = v;
  }
  mif_frame_ |= MIF_FRAME_TALSB;
}

uint16_t Gmac::phy_read(unsigned r, bool consume) {
  uint16_t v = phy_[r & 31];
  if (!phy_link_up()) {  // no cable or no link: no auto-negotiation partner
    if (r == 0x01) v &= uint16_t(~(0x0004 | 0x0020));  // BMSR: no link, AN not complete
    if (r == 0x05 || r == 0x0A || r == 0x19) v = 0;     // LPA, 1000BASE-T status, AUXSTATUS
  }
  if (r == 0x01) {  // the link bit is latched low: a failure reads once, then the bit is live
    if (bmsr_link_latched_low_) v &= uint16_t(~0x0004);
    if (consume) bmsr_link_latched_low_ = false;
  }
  return v;
}

void Gmac::mif_poll_write(uint32_t old_cfg, uint32_t cfg) {
  const bool was = old_cfg & MIF_CFG_POLL, is = cfg & MIF_CFG_POLL;
  if (is && !was) {  // polling starts: the first poll sets the image (estimate: no change bits)
    mif_poll_since_ = now();
    const unsigned pr = (cfg & MIF_CFG_PRADDR) >> MIF_CFG_PRADDR_SHIFT;
    const unsigned pd = (cfg & MIF_CFG_PPADDR) >> MIF_CFG_PPADDR_SHIFT;
    mif_image_ = pd == p_.phy_addr ? phy_read(pr, true) : 0xffff;
  } else if (was && !is) {
    // estimate: turning polling off clears the change bits. gmac acknowledges a MIF interrupt only
    // with mii_poll_stop / mii_poll_start (and GM_IRQ_ACK, which sungem.h says acts on bits 0-6):
    // it never reads MIF_STATUS, so without this its interrupt would never go away.
    mif_changed_ = 0;
    mif_poll_ev_.cancel();
    sync_irq();
  }
}

void Gmac::mif_poll_schedule() {
  // The next poll instant of the schedule that started when polling was turned on.
  const uint32_t cfg = reg(MIF_CFG);
  if (!(cfg & MIF_CFG_POLL) || p_.mif_frame <= SC_ZERO_TIME) return;
  const double period = p_.mif_frame.to_seconds(), since = (now() - mif_poll_since_).to_seconds();
  const double k = std::ceil(since / period);
  const sc_time at = mif_poll_since_ + p_.mif_frame * k;
  mif_poll_ev_.cancel();
  mif_poll_ev_.notify(at > now() ? at - now() : SC_ZERO_TIME);
}

void Gmac::mif_poll_fire() {
  const uint32_t cfg = reg(MIF_CFG);
  if (!(cfg & MIF_CFG_POLL)) return;
  const unsigned pr = (cfg & MIF_CFG_PRADDR) >> MIF_CFG_PRADDR_SHIFT;
  const unsigned pd = (cfg & MIF_CFG_PPADDR) >> MIF_CFG_PPADDR_SHIFT;
  const uint16_t v = pd == p_.phy_addr ? phy_read(pr, true) : 0xffff;
  mif_changed_ |= uint16_t(v ^ mif_image_);
  mif_image_ = v;
  sync_irq();
}

// ---------------------------------------------------------------- link
void Gmac::attach_link(EthLinkEnd* end) {
  OnePortNic::attach_link(end);
  link_end_ = end;
  phy_mon_->set_initial(end != nullptr);
}

void Gmac::line_signal(const LineSignal& ls) { phy_mon_->line(ls, link_end_ ? link_end_->speed_mbps() : 1000); }

void Gmac::on_phy_change(bool up) {
  run_events().note(now(), name(), up ? "PHY link up" : "PHY link down",
                    up ? "auto-negotiation and training done" : "link-fail timer expired");
  if (!up) bmsr_link_latched_low_ = true;
  mac_tx_->hold(!up);
  mif_poll_schedule();  // the polled BMSR changes: seen at the next poll
}

// ============================================================================================
// TX
// ============================================================================================

bool Gmac::tx_paced_bit() const {
  return reg(TXDMA_CFG) & (p_.tx_all_reading == TxAllReading::sungem ? TXDMA_CFG_PMODE : GM_TX_CONF_PACED_MODE);
}
bool Gmac::tx_all_on_fifo_empty() const {
  // sungem.h: PMODE set = "TXALL irq means TX FIFO empty"; gmac.h: PACED 1 = after the last
  // descriptor, 0 = when the TX FIFO is empty.
  return p_.tx_all_reading == TxAllReading::sungem ? tx_paced_bit() : !tx_paced_bit();
}

void Gmac::tx_run() {
  if (!(reg(TXDMA_CFG) & TXDMA_CFG_ENABLE)) return;
  const unsigned n = tx_ring_entries();
  // A complete frame among the fetched descriptors?
  size_t eof_at = txd_.size();
  for (size_t i = 0; i < txd_.size(); ++i)
    if (txd_[i].ctrl & TXDCTRL_EOF) { eof_at = i; break; }
  if (eof_at == txd_.size()) {
    // Fetch the next descriptors: up to the next group of 4 (a 64-byte line; sungem.h "GEM
    // internally caches 4 aligned TX descriptors at a time"), not past KICK or the ring's end.
    if (tx_fetch_busy_ || tx_fetch_ == tx_kick_ % std::max(n, 1u)) return;
    unsigned cnt = 4 - (tx_fetch_ % 4);
    const unsigned avail = (tx_kick_ % n + n - tx_fetch_) % n;
    cnt = std::min({cnt, avail, n - tx_fetch_});
    tx_fetch_busy_ = true;
    count(c_tx_desc_fetches_);
    const unsigned from = tx_fetch_;
    auto r = make_req(false, tx_ring() + uint64_t(from) * kDescBytes, size_t(cnt) * kDescBytes, "TX desc fetch", "");
    r->done = [this, from, cnt, n](DmaRequest& q) {
      for (unsigned k = 0; k < cnt; ++k)
        txd_.push_back({(from + k) % n, ld_le64(q.buf.data() + k * kDescBytes), ld_le64(q.buf.data() + k * kDescBytes + 8)});
      tx_fetch_ = (from + cnt) % n;
      tx_fetch_busy_ = false;
      tx_run();
    };
    submit(std::move(r));
    return;
  }
  if (tx_data_busy_ || !(reg(MAC_TXCFG) & MAC_TXCFG_ENAB)) return;
  // The frame: descriptors 0..eof_at (SOF on the first is what the drivers write; a frame without
  // it is sent the same way).
  size_t len = 0;
  for (size_t i = 0; i <= eof_at; ++i) len += size_t(txd_[i].ctrl & TXDCTRL_BUFSZ);
  if (tx_fifo_used_ + len > p_.tx_fifo_bytes && tx_fifo_used_ > 0) return;  // resumes when the MAC has sent one
  tx_data_busy_ = true;
  std::vector<TxDesc> frame(txd_.begin(), txd_.begin() + long(eof_at) + 1);
  txd_.erase(txd_.begin(), txd_.begin() + long(eof_at) + 1);
  bool intme = false;
  for (auto& d : frame) intme |= (d.ctrl & TXDCTRL_INTME) != 0;
  const unsigned last_plus_one = (frame.back().idx + 1) % n;
  const JourneyId j = dma_tags().take(space_, frame.front().buf);
  if (j) sim().journeys.mark(j, now(), "descriptor fetch", name(), "");
  auto bytes = std::make_shared<std::vector<uint8_t>>();
  auto left = std::make_shared<size_t>(frame.size());
  for (auto& d : frame) {
    auto r = make_req(false, d.buf, size_t(d.ctrl & TXDCTRL_BUFSZ), "TX data", "data DMA", j);
    r->done = [this, bytes, left, last_plus_one, intme, j](DmaRequest& q) {
      bytes->insert(bytes->end(), q.buf.begin(), q.buf.end());
      if (--*left) return;
      tx_frame_in_fifo(last_plus_one, intme, std::move(*bytes), j);
    };
    submit(std::move(r));
  }
}

void Gmac::tx_frame_in_fifo(unsigned last_plus_one, bool intme, std::vector<uint8_t> bytes, JourneyId j) {
  // The frame is in the TX FIFO: TXDMA_TXDONE moves past it, TX_DONE ("moved from host to TX
  // fifo", gmac.h) and TX_INTME ("Frame with INT_ME bit set in fifo") latch.
  tx_done_ = last_plus_one;
  tx_data_busy_ = false;
  uint32_t ev = GREG_STAT_TXDONE;
  if (intme) {
    ev |= GREG_STAT_TXINTME;
    count(c_tx_intme_);
  }
  EthFrame f;
  f.bytes = std::move(bytes);
  f.journey = j;
  if (f.bytes.size() < 60) f.bytes.resize(60, 0);
  const size_t n = f.bytes.size();
  tx_fifo_used_ += n;
  ++tx_fifo_frames_;
  tx_all_armed_ = true;
  count(c_tx_frames_);
  count(c_tx_octets_, n + kEthFcsBytes);
  if (j) sim().journeys.mark(j, now(), "MAC TX", name(), "");
  mac_tx_->queue(std::move(f), [this, n] { tx_mac_done(n); });
  latch(ev);
  tx_check_all();
  tx_run();
}

void Gmac::tx_mac_done(size_t bytes) {
  tx_fifo_used_ -= std::min(tx_fifo_used_, bytes);
  if (tx_fifo_frames_) --tx_fifo_frames_;
  txstat_ |= MAC_TXSTAT_XMIT;  // "Frame Transmitted"
  sync_irq();
  tx_check_all();
  tx_run();
}

void Gmac::tx_check_all() {
  // TX_ALL: every descriptor up to KICK has been moved (ring done), and with the FIFO-empty
  // meaning also every frame has left the FIFO. An event, once per drain (sungem.h "All TX frames
  // transferred", a read-to-clear bit 0-6): after GREG_STAT's read it comes back only when more
  // frames have been moved and the ring (FIFO) drains again, not while the ring stays done (both
  // drivers leave TX_ALL unmasked with an idle ring; a condition that re-latched would interrupt
  // without end).
  if (!tx_all_armed_) return;
  const unsigned n = tx_ring_entries();
  const bool ring_done = tx_done_ == tx_kick_ % n && txd_.empty() && !tx_data_busy_;
  if (!ring_done) return;
  if (tx_all_on_fifo_empty() && tx_fifo_frames_ > 0) return;
  tx_all_armed_ = false;
  if (stat_latched_ & GREG_STAT_TXALL) return;  // still latched: the drains merge
  count(c_tx_all_);
  latch(GREG_STAT_TXALL);
}

// ============================================================================================
// RX
// ============================================================================================

void Gmac::frame_received(const EthFrame& f) {
  if (!phy_link_up()) {  // the PHY has no link (still training after a replug): nothing reaches the MAC
    count(c_rx_dropped_link_down_);
    if (f.journey) sim().journeys.mark(f.journey, now(), "dropped", name(), "PHY link down");
    return;
  }
  rx_pipe_->arrived(f);
}

void Gmac::frame_received_bad_fcs(const EthFrame& f) {
  if (!phy_link_up()) {
    count(c_rx_dropped_link_down_);
    if (f.journey) sim().journeys.mark(f.journey, now(), "dropped", name(), "PHY link down");
    return;
  }
  rx_pipe_->arrived_bad_fcs(f);
}

void Gmac::accept_bad_fcs(const EthFrame& f) {
  // A MAC Control frame with a bad FCS is not acted on either; it is counted like any other.
  if (!(reg(MAC_RXCFG) & MAC_RXCFG_ENAB)) {
    count(c_rx_mac_disabled_);
    if (f.journey) sim().journeys.mark(f.journey, now(), "dropped", name(), "MAC_RXCFG_ENAB clear");
    return;
  }
  if (!address_match(f.bytes)) {
    count(c_rx_filtered_);
    if (f.journey) sim().journeys.mark(f.journey, now(), "dropped", name(), "address filter");
    return;
  }
  count(c_rx_fcs_errors_);
  uint32_t& c = regw(MAC_FCSERR);
  c = (c + 1) & 0xffff;
  if (c == 0) {
    rxstat_ |= MAC_RXSTAT_CCE;  // "CRC Error Cntr Expire": the 16-bit counter wrapped
    sync_irq();
  }
  if (f.journey) sim().journeys.mark(f.journey, now(), "dropped", name(), "bad FCS (MAC_FCSERR)");
}

bool Gmac::address_match(const std::vector<uint8_t>& b) const {
  if (b.size() < 6) return false;
  const uint32_t cfg = reg(MAC_RXCFG);
  if (cfg & MAC_RXCFG_PROM) return true;
  if (std::all_of(b.begin(), b.begin() + 6, [](uint8_t x) { return x == 0xFF; })) return true;
  if (b[0] & 1) return (cfg & (MAC_RXCFG_HFE | MAC_RXCFG_PGRP)) != 0;  // hash table not modelled: all pass
  const uint32_t a2 = reg(MAC_ADDR2), a1 = reg(MAC_ADDR1), a0 = reg(MAC_ADDR0);
  const uint8_t a[6] = {uint8_t(a2 >> 8), uint8_t(a2), uint8_t(a1 >> 8), uint8_t(a1), uint8_t(a0 >> 8), uint8_t(a0)};
  return std::equal(a, a + 6, b.begin());
}

void Gmac::count_rx_frame_ctr() {
  uint32_t& c = regw(MAC_RFCTR);
  c = (c + 1) & 0xffff;
  if (c == 0) rxstat_ |= MAC_RXSTAT_FCE;  // "Frame Cntr Expire": the 16-bit counter wrapped
}

void Gmac::accept_frame(const EthFrame& f) {
  const auto& b = f.bytes;
  if (is_mac_control_frame(b)) {
    pause_received(f);
    return;
  }
  if (!(reg(MAC_RXCFG) & MAC_RXCFG_ENAB)) {
    count(c_rx_mac_disabled_);
    if (f.journey) sim().journeys.mark(f.journey, now(), "dropped", name(), "MAC_RXCFG_ENAB clear");
    return;
  }
  if (!address_match(b)) {
    count(c_rx_filtered_);
    if (f.journey) sim().journeys.mark(f.journey, now(), "dropped", name(), "address filter");
    return;
  }
  // On the wire the frame is padded to 60 bytes and carries its FCS; the MAC keeps both unless
  // MAC_RXCFG_SPAD / MAC_RXCFG_SFCS (neither driver sets them). The FCS value is not computed.
  std::vector<uint8_t> bytes = b;
  const uint32_t cfg = reg(MAC_RXCFG);
  if (!(cfg & MAC_RXCFG_SPAD) && bytes.size() < 60) bytes.resize(60, 0);
  if (!(cfg & MAC_RXCFG_SFCS)) bytes.resize(bytes.size() + kEthFcsBytes, 0);
  const size_t len = bytes.size();
  if (rx_fifo_used_ + len > p_.rx_fifo_bytes) {
    count(c_rx_overflow_);
    rxstat_ |= MAC_RXSTAT_OFLW;  // "Receive Overflow"
    sync_irq();
    if (f.journey) sim().journeys.mark(f.journey, now(), "dropped", name(), "RX FIFO full (MAC_RXSTAT_OFLW)");
    return;
  }
  count(c_rx_frames_);
  count(c_rx_octets_, len);
  count_rx_frame_ctr();
  rxstat_ |= MAC_RXSTAT_RCV;  // "Frame Received"
  rx_fifo_used_ += len;
  if (f.journey) sim().journeys.mark(f.journey, now(), "RX FIFO", name(), rx_busy_ ? "RX DMA busy" : "");
  rx_fifo_.push_back({std::move(bytes), f.journey});
  sync_irq();
  flow_control_check();
  rx_run();
}

void Gmac::rx_fetch(unsigned from) {
  const unsigned n = rx_ring_entries();
  const unsigned cnt = std::min(4 - (from % 4), n - from);
  rx_fetch_busy_ = true;
  rx_fetch_next_ = (from + cnt) % n;
  count(c_rx_desc_fetches_);
  auto r = make_req(false, rx_ring() + uint64_t(from) * kDescBytes, size_t(cnt) * kDescBytes, "RX desc fetch", "");
  r->done = [this, from, cnt](DmaRequest& q) {
    for (unsigned k = 0; k < cnt; ++k)
      rxd_.push_back({from + k, ld_le64(q.buf.data() + k * kDescBytes), ld_le64(q.buf.data() + k * kDescBytes + 8)});
    rx_fetch_busy_ = false;
    rx_run();
  };
  submit(std::move(r));
}

void Gmac::rx_run() {
  if (rx_busy_ || rx_fifo_.empty() || !(reg(RXDMA_CFG) & RXDMA_CFG_ENABLE)) return;
  const unsigned n = rx_ring_entries();
  // Descriptors from RXDMA_DONE while it differs from KICK (13-bit values; RXDMA_DONE wraps at
  // the ring size, so a KICK equal to the ring size, gmac's first kick of NRX, leaves it all usable).
  const bool cached = !rxd_.empty() && rxd_.front().idx == rx_done_;
  if (!cached && rx_done_ == rx_kick_) {
    if (!rx_nobuf_) {
      count(c_rx_nobuf_);
      rx_nobuf_ = true;
      latch(GREG_STAT_RXNOBUF);
    }
    if (rx_fifo_.front().j) sim().journeys.mark(rx_fifo_.front().j, now(), "RX FIFO", name(), "no RX descriptor (RXNOBUF)");
    return;
  }
  rx_nobuf_ = false;
  if (!cached) {
    rxd_.clear();
    if (rx_fetch_busy_) return;
    rx_fetch(rx_done_);
    return;
  }
  rx_busy_ = true;
  const RxDesc d = rxd_.front();
  rxd_.pop_front();
  RxFrame fr = std::move(rx_fifo_.front());
  rx_fifo_.pop_front();
  const JourneyId j = fr.j;
  const uint32_t cfg = reg(RXDMA_CFG);
  const unsigned fboff = (cfg & RXDMA_CFG_FBOFF) >> RXDMA_CFG_FBOFF_SHIFT;
  const unsigned cstart = ((cfg & RXDMA_CFG_CSUMOFF) >> RXDMA_CFG_CSUMOFF_SHIFT) * p_.rx_csum_start_unit_bytes;
  const size_t flen = fr.bytes.size();
  const unsigned bufsz = unsigned((d.status & RXDCTRL_BUFSZ) >> RXDCTRL_BUFSZ_SHIFT);
  const size_t n_data = bufsz ? std::min(flen, size_t(bufsz)) : flen;  // the buffer size the driver posted bounds the write
  const size_t csum_end = flen - ((reg(MAC_RXCFG) & MAC_RXCFG_SFCS) ? 0 : kEthFcsBytes);
  const uint16_t sum = cstart < csum_end ? csum16_be(fr.bytes.data() + cstart, csum_end - cstart) : 0;
  auto w = make_req(true, d.buf + fboff, n_data, "RX data", "RX DMA", j);
  std::copy_n(fr.bytes.begin(), n_data, w->buf.begin());
  submit(std::move(w));
  // The status word (8 bytes at the descriptor): OWN clear, length, checksum; `buffer` untouched.
  auto s = make_req(true, rx_ring() + uint64_t(d.idx) * kDescBytes, 8, "RX desc write-back", "write-back", j);
  const uint64_t st = (uint64_t(uint16_t(~sum)) & RXDCTRL_TCPCSUM) |
                      ((uint64_t(flen) << RXDCTRL_BUFSZ_SHIFT) & RXDCTRL_BUFSZ) |
                      (n_data < flen ? RXDCTRL_BAD : 0);
  st_le64(s->buf.data(), st);
  const uint64_t buf = d.buf + fboff;
  s->done = [this, n, flen, buf, j](DmaRequest&) {
    // RXDMA_DONE moves after the frame is in memory and before RX_DONE (sungem.h).
    rx_done_ = (rx_done_ + 1) % n;
    rx_fifo_used_ -= std::min(rx_fifo_used_, flen);
    flow_control_check();
    if (j) dma_tags().tag(space_, buf, j);
    rx_busy_ = false;
    rx_frame_done(j);
    rx_prefetch();
    rx_run();
  };
  submit(std::move(s));
}

void Gmac::rx_prefetch() {
  // The next cluster of four is fetched while the fetch pointer (the descriptor after the
  // last one fetched) is not at KICK, so the chip has it cached before the driver's next kick. It is issued when a frame's status
  // write-back is done (after its data), so a frame's own DMA is not queued behind it (estimate:
  // the order of the two on the bus is not documented).
  // sungem.h: "When it can, GEM internally caches 4 aligned ... descriptors at a time" and "there
  // will be at least 4 unused descriptor entries in the middle of the RX ring at all times";
  // sungem's gem_post_rxds (LH@2.4.16, unchanged in 2.6) kicks the end of the last cluster it gave
  // back, which equals RXDMA_DONE whenever gem_rx consumed up to a cluster boundary: the chip keeps
  // receiving only if it already holds the next cluster. A descriptor fetched while it was before
  // KICK stays usable (the OWN bit is advisory: the chip does not re-check it).
  if (!rx_fetch_busy_ && rxd_.size() < 4 && rx_fetch_next_ != rx_kick_ && (reg(RXDMA_CFG) & RXDMA_CFG_ENABLE))
    rx_fetch(rx_fetch_next_);
}

void Gmac::rx_frame_done(JourneyId j) {
  // RXDMA_BLANK: RX_DONE after IPKTS frames or ITIME x 2048 PCI clocks since the previous RX_DONE.
  const uint32_t blank = reg(RXDMA_BLANK);
  const unsigned ipkts = blank & RXDMA_BLANK_IPKTS;
  const unsigned itime = (blank & RXDMA_BLANK_ITIME) >> RXDMA_BLANK_ITIME_SHIFT;
  ++rx_pkts_since_;
  if (j) rx_await_.push_back(j);
  const sc_time lim = rx_blank_time(pci_clk_, itime);
  const bool by_pkts = ipkts == 0 || rx_pkts_since_ >= ipkts;
  const bool by_time = itime == 0 || (p_.rx_blank_time_from == RxBlankFrom::previous_rx_done && now() >= last_rx_done_ + lim);
  if (by_pkts || by_time) {
    count(by_pkts ? c_rx_done_pkts_ : c_rx_done_time_);
    rx_pkts_since_ = 0;
    last_rx_done_ = now();
    blank_ev_.cancel();
    blank_armed_ = false;
    latch(GREG_STAT_RXDONE);
    return;
  }
  if (j) sim().journeys.mark(j, now(), "moderation wait", name(), "RXDMA_BLANK");
  if (!blank_armed_) {
    const sc_time at = p_.rx_blank_time_from == RxBlankFrom::previous_rx_done ? last_rx_done_ + lim : now() + lim;
    blank_ev_.notify(at > now() ? at - now() : SC_ZERO_TIME);
    blank_armed_ = true;
  }
}

void Gmac::rx_blank_fire() {
  blank_armed_ = false;
  if (rx_pkts_since_ == 0) return;
  count(c_rx_done_time_);
  rx_pkts_since_ = 0;
  last_rx_done_ = now();
  latch(GREG_STAT_RXDONE);
}

// ---------------------------------------------------------------- 802.3x flow control
void Gmac::pause_received(const EthFrame& f) {
  if (!is_pause_frame(f.bytes)) {
    count(c_rx_mac_ctrl_);
    if (f.journey) sim().journeys.mark(f.journey, now(), "dropped", name(), "MAC Control frame (consumed)");
    return;
  }
  const uint16_t q = pause_time_quanta(f.bytes);
  count(c_rx_pause_rcvd_);
  // MAC_CSTAT: "Pause Received" with the pause_time in bits 31:16; Paused / Not Paused state.
  cstat_ = (cstat_ & 0xffff) | (uint32_t(q) << 16) | MAC_CSTAT_PRCV;
  if (reg(MAC_MCCFG) & MAC_MCCFG_RPE) {  // "Receive Pause Enable": obey it
    cstat_ |= q ? MAC_CSTAT_PS : MAC_CSTAT_NPS;
    mac_tx_->pause(q);
  }
  sync_irq();
  if (f.journey) sim().journeys.mark(f.journey, now(), "dropped", name(), "802.3x PAUSE (consumed)");
}

void Gmac::flow_control_check() {
  // RXDMA_PTHRESH (sungem.h): XOFF "emitted w/FIFO > OFF", XON "emitted w/FIFO < ON", in 64 B units;
  // MAC_MCCFG_SPE "Send Pause Enable"; the XOFF's pause_time is MAC_SNDPAUSE's (gmac.h GM_RX_PTH).
  if (!(reg(MAC_MCCFG) & MAC_MCCFG_SPE)) return;
  const uint32_t th = reg(RXDMA_PTHRESH);
  const size_t off = size_t(th & RXDMA_PTHRESH_OFF) * 64, on = size_t((th & RXDMA_PTHRESH_ON) >> 12) * 64;
  if (!xoff_sent_ && rx_fifo_used_ > off) {
    send_pause(uint16_t(reg(MAC_SNDPAUSE) & MAC_SNDPAUSE_TS));
    count(c_tx_xoff_sent_);
    xoff_sent_ = true;
  } else if (xoff_sent_ && rx_fifo_used_ < on) {
    send_pause(0);
    count(c_tx_xon_sent_);
    xoff_sent_ = false;
  }
}

void Gmac::send_pause(uint16_t quanta) {
  count(c_tx_pause_sent_);
  mac_tx_->queue_control(make_pause_frame(mac_, quanta), {});
}

std::optional<FrameTally> Gmac::tally() const {
  FrameTally t;
  // tx_frames counts a frame when it enters the TX FIFO; those the MAC still holds (no link, or
  // waiting for the wire at the end) are not on the link yet, and those a TX reset dropped never.
  t.sent = *c_tx_frames_ + *c_tx_pause_sent_ - mac_tx_->queued() - *c_tx_dropped_reset_;
  const uint64_t held = rx_fifo_.size() + (rx_busy_ ? 1 : 0);
  const uint64_t gone = held + *c_rx_dropped_reset_;
  t.accepted = *c_rx_frames_ - std::min<uint64_t>(*c_rx_frames_, gone);
  t.held = {{"in the MAC receive pipeline", rx_pipe_->held()}, {"in the RX FIFO", held}};
  t.consumed = {{"802.3x PAUSE (rx_pause_rcvd)", *c_rx_pause_rcvd_}, {"other MAC Control (rx_mac_ctrl_rcvd)", *c_rx_mac_ctrl_}};
  t.dropped = {{"address filter (rx_filtered)", *c_rx_filtered_},
               {"receiver disabled (rx_mac_disabled)", *c_rx_mac_disabled_},
               {"RX FIFO full (rx_overflow)", *c_rx_overflow_}};
  if (*c_rx_fcs_errors_) t.dropped.push_back({"bad FCS (MAC_FCSERR)", *c_rx_fcs_errors_});
  if (*c_rx_dropped_link_down_) t.dropped.push_back({"PHY link down (rx_dropped_link_down)", *c_rx_dropped_link_down_});
  if (*c_rx_dropped_reset_) t.dropped.push_back({"RX reset (rx_dropped_reset)", *c_rx_dropped_reset_});
  return t;
}

// ============================================================================================
// Registry
// ============================================================================================

namespace {
Registrar<DeviceEntry> reg{[] {
  DeviceEntry e;
  e.name = "GMAC";
  e.summary = "Apple UniNorth GMAC (Sun GEM core) 10/100/1000 MAC: LE descriptor rings, RXDMA_BLANK, read-to-clear GREG_STAT";
  e.params = GemParams::schema();
  e.info = gmac_info();
  e.ports = 1;
  e.check = [](const ParamValues& pv) {
    std::vector<ParamProblem> out = nic_param_problems(pv);
    for (const char* k : {"rx_fifo_bytes", "tx_fifo_bytes"})
      if (pv.i(k) % 64) out.push_back({k, fmt::format("{} bytes is not a multiple of 64 (RXDMA_FSZ/TXDMA_FSZ count 64 B units)", pv.i(k))});
    return out;
  };
  e.create = [](const std::string& inst, const ParamValues& pv) -> std::unique_ptr<PciDevice> {
    GemParams p = GemParams::from(pv);
    p.draw_clock_offset(inst);
    return std::make_unique<Gmac>(inst.c_str(), p);
  };
  e.hardware_json = [](const PciDevice& dev) {
    auto* nic = dynamic_cast<const Gmac*>(&dev);
    return nic ? nlohmann::json{{"clock_ppm", nic->pci_clock().ppm()}, {"pci_mhz", nic->params().pci_mhz}}
               : nlohmann::json::object();
  };
  return e;
}()};
}  // namespace

}  // namespace nicsim::gem
