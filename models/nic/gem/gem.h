// Apple UniNorth GMAC (Sun GEM core) gigabit MAC as a PCI device: register file (regs.h, sungem.h
// names), the three-level interrupt gating (sub-block status -> MAC mask -> GREG_IMASK -> INTA#),
// TX DMA from a ring of little-endian descriptors (TXDMA_KICK / TXDMA_TXDONE), RX DMA into a ring
// (RXDMA_KICK / RXDMA_DONE) with RX_DONE blanking (RXDMA_BLANK), the TX and RX FIFOs, 802.3x PAUSE,
// the MAC statistics counters, the MIF (MDIO frame mode) and a gigabit PHY. The contract a driver
// sees is models/nic/gem/README.md.
//
// Sources: Linux drivers/net/sungem.h ($Id 1.8 2001/10/17) and sungem.c v0.95, drivers/net/gmac.h
// and gmac.c v1.5k4 (2.4.16: liexusong/Linux-2.4.16), NetBSD/FreeBSD gemreg.h (Horvath 2001) as a
// third reading where the two disagree; IEEE 802.3 clause 31 / Annex 31B (PAUSE);
// research/seeds-001-004-platforms-drivers.md §1.2-1.4.
//
// Timing: every DMA goes through one bus master (models/bus/dma_engine.h, FIFO order); the
// descriptor fetches, buffer reads and writes, status write-backs are real bus transactions on the
// segment the device is plugged into. RX_DONE's ITIME counts PCI clocks (2048 per unit) of a clock
// at `pci_mhz` with the device's crystal offset. MAC/PHY latencies and the TX FIFO size are
// estimates (GemParams).
//
// Approximations (also in README "Not modelled"): RX DMA starts when a whole frame is in the RX
// FIFO (RXDMA_CFG_FTHRESH is stored, cut-through is not modelled); one frame's DMA at a time per
// direction; the MAC's IPG/slot/preamble registers are stored, the link's 802.3 timing applies;
// PAUSE sends one XOFF per crossing of the OFF threshold.
//
// Link (docs/faults.md; research/link-faults-failover.md §A1, §A4): the PHY's link monitor is the
// shared EthPhy (models/ether/phy.h: link fail 750 ms MASTER / 350 ms SLAVE after the signal goes,
// auto-negotiation + training after it returns). What the MIF reads of the PHY follows it:
// without link BMSR has LSTATUS and ANEGCOMPLETE clear and the partner's pages (LPA, 1000BASE-T
// status, the BCM5411's AUXSTATUS) read 0; BMSR_LSTATUS is latched low (IEEE 802.3 22.2.4.2.13):
// after a failure it reads 0 once even if the link is back (sungem's gem_link_timer reads BMSR
// once per run). BMCR writes (BMCR_ANRESTART included) do not move the link monitor: a restart of
// auto-negotiation on a live link (the drivers write it at open) would take the link down for
// the whole link-up time, which no shipped scenario without faults shows (not modelled).
//  * MIF poll mode (MIF_CFG_POLL, gmac's GM_MIF_CFGPE): the MIF reads register MIF_CFG_PRADDR of
//    PHY MIF_CFG_PPADDR over and over; MIF_STATUS holds the last value read (MIF_STATUS_DATA) and
//    the bits that changed since the poll before (MIF_STATUS_STAT, cleared when MIF_STATUS is read,
//    and when polling is turned off: see mif_poll_write); a changed bit MIF_MASK lets through
//    (0 = unmasked, gmac writes 0xffc0) sets GREG_STAT_MIF. The poll reads the PHY, so it consumes
//    BMSR's latch. estimate: one poll per MIF frame time (mif_frame, back to back): the interval is
//    not documented (research §A4, (C) "Apple GMAC MIF autopoll interval"); gmac's mii_poll_start
//    waits GM_MIF_POLL_DELAY = 200 µs "Let the bits set" before unmasking, so a poll completes
//    well within 200 µs. The first poll after polling is turned on sets the image without change
//    bits (estimate). Polls are not simulated one by one: a change of the PHY is seen at the next
//    poll instant of the schedule that started when polling was turned on.
//  * TX without link: the MAC starts no frame while the PHY has no link (frames wait in the MAC
//    and the ring, and leave when the link returns). estimate: no GEM document says whether the
//    MAC holds or drops (sungem.c never relies on either: on link loss its gem_reset_task resets
//    the TX DMA and MAC, GREG_SWRST, which drops what the chip holds, counted tx_dropped_reset);
//    taken as the 8254x's "indication that the link is not up disables MAC operation" (SDM
//    §8.6.5.2). Until the PHY declares the loss, frames go into the dead line and the link counts
//    them lost on the wire. RX: a frame arriving while the PHY has no link is dropped
//    (rx_dropped_link_down).
//  * FCS: a frame with a bad FCS (a link's frame error rate) is dropped by the MAC and counted in
//    MAC_FCSERR ("FCS Error Counter", sungem.h; 16 bits, MAC_RXSTAT_CCE "CRC Error Cntr Expire" when
//    it wraps), which sungem's gem_get_stats adds to rx_crc_errors and gmac's gmac_stats to
//    rx_crc_errors. estimate: counted only for frames that pass the address filter and while the
//    receiver is enabled (the 8254x CRCERRS rule, SDM §13.7; no GEM wording found).
#pragma once
#include "core/clock.h"
#include "core/dma_tags.h"
#include "core/params.h"
#include "core/units.h"
#include "models/ether/one_port_nic.h"
#include "models/bus/dma_engine.h"
#include "models/bus/pci.h"
#include "models/ether/frame.h"
#include "models/ether/mac_tx.h"
#include "models/ether/nic_params.h"
#include "models/ether/phy.h"
#include "models/nic/gem/regs.h"
#include <array>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

namespace nicsim::gem {

/// Where the headers disagree (regs.h header comment): which reading the model follows.
enum class BifcfgReading { gmac, sungem };     ///< M66EN at 0x08 (gmac.h, NetBSD) or 0x04 (sungem.h)
enum class Gcfg0Reading { infinite, bytes64 };  ///< GREG_CFG bit 0 set = infinite burst (sungem.h) / 64 B (gmac.h)
enum class TxAllReading { sungem, gmac };      ///< TXDMA_CFG pacing bit and meaning (see GemParams)
enum class RxBlankFrom { previous_rx_done, first_packet };  ///< where RXDMA_BLANK's ITIME counts from

/// The GMAC's parameters. clock_ppm / clock_ppm_spread (of the PCI clock it counts) and the
/// MAC/PHY latencies are the shared NicTimingParams (models/ether/nic_params.h), with these defaults.
struct GemParams : NicTimingParams {
  GemParams()
      : NicTimingParams{
            .clock_ppm = 0.0,          // offset of the PCI clock as the device counts it (802.3/PCI ±100 ppm)
            .clock_ppm_spread = 15.0,  // σ of the seeded offset (estimate, as the other NIC entries)
            .mac_tx_latency = ns(200),  // estimate: MAC TX pipeline, as the 8254x model
            .phy_tx_latency = ns(100),  // estimate: 1000BASE-T PHY transmit path, as the 8254x model
            .phy_rx_latency = ns(300),  // estimate: 1000BASE-T PHY receive path, as the 8254x model
            .mac_rx_latency = ns(200),  // estimate: MAC RX pipeline, as the 8254x model
        } {}
  /// Clock of the PCI bus (M66EN and RXDMA_BLANK's unit follow it). The segment sets it when its
  /// mode is resolved (bus_mode); this value holds on a bench without a segment.
  double pci_mhz = 200.0 / 3.0;
  BifcfgReading bifcfg_reading = BifcfgReading::gmac;
  Gcfg0Reading gcfg_bit0_reading = Gcfg0Reading::infinite;
  /// sungem: TXDMA_CFG_PMODE (bit 21) set = TX_ALL when the TX FIFO has drained, clear = when the
  /// ring is done (TXDMA_TXDONE == TXDMA_KICK). gmac: GM_TX_CONF_PACED_MODE (bit 20) set = when
  /// the ring is done, clear = when the TX FIFO has drained.
  TxAllReading tx_all_reading = TxAllReading::sungem;
  unsigned rx_csum_start_unit_bytes = 2;  ///< RXDMA_CFG_CSUMOFF unit: 2 (sungem: 14/2) or 1 (gmac.h, NetBSD)
  RxBlankFrom rx_blank_time_from = RxBlankFrom::previous_rx_done;
  unsigned rx_fifo_bytes = 20 * 1024;  ///< gmac.h GM_RX_FIFO_SIZE: "The value read is 0x140, indicating a 20kbyte RX FIFO"
  unsigned tx_fifo_bytes = 8 * 1024;   ///< estimate: no source for the GMAC's TX FIFO (TXDMA_FSZ); ≥ 5 full frames
  sc_time mif_frame = us(25.6);        ///< one MIF frame: 64 bits at the 802.3 §22.2.2.11 MDC limit 2.5 MHz (estimate)
  unsigned phy_addr = 0;               ///< estimate: MII address of the built-in PHY on MDIO0
  unsigned cache_line_bytes = 32;      ///< PCI cache line size (PowerPC 74xx: 32-byte lines)
  std::string mac_address;             ///< empty: Apple OUI 00:03:93 + hash of the instance name
  std::string dma_space;               ///< DmaTags space; empty: the SystemC name

  static ParamSchema schema();
  /// From validated values of schema(). Throws std::out_of_range for a missing name.
  static GemParams from(const ParamValues& v);
};

/// The GMAC's PCI facts: Apple 106b:0021, 64-bit capable, 66 MHz capable, one function, 2 MB BAR0.
PciDeviceInfo gmac_info();

/// Pure rules, unit-tested without SystemC.
/// The 16-bit ones-complement sum of `b[from..)` as big-endian words (an odd last byte is the high
/// half), folded: what the chip's TCPCSUM adds up (sungem gem_rx: skb->csum = field ^ 0xffff).
uint16_t csum16_be(const uint8_t* b, size_t n);
/// RX_DONE's ITIME limit: `units` × 2048 clocks of `clk`.
inline sc_time rx_blank_time(const ClockDomain& clk, unsigned units) { return clk.cycles(double(units) * kRxBlankClocksPerUnit); }

class Gmac : public OnePortNic, public EthLineSide {
 public:
  tlm_utils::simple_target_socket<Gmac> pci_target_socket;        ///< "pci_target"
  tlm_utils::simple_initiator_socket<Gmac> dma_initiator_socket;  ///< "dma_initiator"
  sc_core::sc_port<irq_if> irq;                                   ///< "irq_out_0": INTA#

  Gmac(sc_core::sc_module_name name, const GemParams& p = {});
  ~Gmac() override;

  // PciDevice
  const PciDeviceInfo& info() const override { return info_; }
  tlm::tlm_target_socket<>& pci_target() override { return pci_target_socket; }
  tlm::tlm_initiator_socket<>& dma_initiator() override { return dma_initiator_socket; }
  sc_core::sc_port<irq_if>& irq_out(unsigned fn) override;
  void set_bar(unsigned fn, uint64_t base) override;
  uint64_t bar(unsigned fn) const override { return fn == 0 ? bar_ : 0; }
  /// The segment's clock: M66EN reads set above 33 MHz, RXDMA_BLANK counts this clock.
  void bus_mode(bool pcix, unsigned mhz) override;

  // EthPort (the port list, cable and name: OnePortNic)
  void attach_link(EthLinkEnd* end) override;
  void frame_received(const EthFrame& f) override;
  // EthLineSide (models/ether/phy.h): the PHY hears the line; frames with a bad FCS.
  void line_signal(const LineSignal& s) override;
  void frame_received_bad_fcs(const EthFrame& f) override;
  /// The PHY's link status now (a cable and no link-fail since, or training done).
  bool phy_link_up() const { return cabled_ && phy_mon_->link_up(); }
  std::optional<FrameTally> tally() const override;

  const GemParams& params() const { return p_; }
  const ClockDomain& pci_clock() const { return pci_clk_; }
  std::array<uint8_t, 6> mac_address() const { return mac_; }
  DmaTags::Space dma_space() const { return space_; }
  bool irq_level() const { return line_; }
  /// The 32-bit register at BAR0 offset `off` (a multiple of 4) as a read would return it,
  /// without side effects (GREG_STAT is not cleared, MAC status registers are not cleared).
  uint32_t peek(uint32_t off) const;
  uint16_t phy_reg(unsigned reg) const { return phy_[reg & 31]; }
  unsigned tx_ring_entries() const { return ring_entries(reg(TXDMA_CFG)); }
  unsigned rx_ring_entries() const { return ring_entries(reg(RXDMA_CFG)); }
  size_t rx_fifo_used() const { return rx_fifo_used_; }
  size_t tx_fifo_used() const { return tx_fifo_used_; }

 private:
  uint32_t reg(uint32_t off) const { return off / 4 < regs_.size() ? regs_[off / 4] : 0; }
  uint32_t& regw(uint32_t off) { return regs_[off / 4]; }
  void b_transport(tlm::tlm_generic_payload& trans, sc_time& delay);
  uint32_t read_reg(uint32_t off);
  void write_reg(uint32_t off, uint32_t v, const sc_time& delay);
  void reset_tx();
  void reset_rx();
  void power_on();
  DmaBurst dma_burst(bool write, uint64_t addr, size_t left) const;
  std::unique_ptr<DmaRequest> make_req(bool write, uint64_t addr, size_t n, const char* what, const char* stage,
                                       JourneyId j = 0) const;
  void submit(std::unique_ptr<DmaRequest> r);
  // interrupts
  uint32_t status() const;  ///< GREG_STAT as composed now
  void latch(uint32_t bits);
  void sync_irq();
  // TX
  uint64_t tx_ring() const { return (uint64_t(reg(TXDMA_DBHI)) << 32 | reg(TXDMA_DBLOW)) & ~uint64_t(0x7ff); }
  bool tx_paced_bit() const;
  bool tx_all_on_fifo_empty() const;
  void tx_run();
  void tx_frame_in_fifo(unsigned last_plus_one, bool intme, std::vector<uint8_t> bytes, JourneyId j);
  void tx_mac_done(size_t bytes);
  void tx_check_all();
  // RX
  uint64_t rx_ring() const { return (uint64_t(reg(RXDMA_DBHI)) << 32 | reg(RXDMA_DBLOW)) & ~uint64_t(0x7ff); }
  void accept_frame(const EthFrame& f);
  bool address_match(const std::vector<uint8_t>& b) const;
  void rx_run();
  void rx_fetch(unsigned from);
  void rx_prefetch();
  void rx_frame_done(JourneyId j);
  void rx_blank_fire();
  void count_rx_frame_ctr();
  // 802.3x
  void pause_received(const EthFrame& f);
  void flow_control_check();
  void send_pause(uint16_t quanta);
  // MIF and PHY
  void mif_done();
  /// PHY register `r` as an MDIO read returns it now; `consume` clears BMSR's latched-low link bit.
  uint16_t phy_read(unsigned r, bool consume);
  void mif_poll_write(uint32_t old_cfg, uint32_t cfg);
  void mif_poll_schedule();
  void mif_poll_fire();
  void on_phy_change(bool up);
  void accept_bad_fcs(const EthFrame& f);
  void count(uint64_t* c, uint64_t n = 1) { *c += n; }

  GemParams p_;
  PciDeviceInfo info_;
  ClockDomain pci_clk_;
  DmaTags::Space space_;
  std::array<uint8_t, 6> mac_{};
  uint64_t bar_ = 0;
  std::unique_ptr<DmaEngine> dma_;
  std::vector<uint32_t> regs_;  ///< BAR0 0x0000-0x9fff, one word per 4 bytes

  // interrupts
  uint32_t stat_latched_ = 0;        ///< GREG_STAT bits 0-6
  uint32_t txstat_ = 0, rxstat_ = 0, cstat_ = 0;  ///< MAC_TXSTAT / MAC_RXSTAT / MAC_CSTAT (read-clear)
  bool line_ = false;
  sc_time line_since_ = SC_ZERO_TIME;

  // TX
  unsigned tx_kick_ = 0, tx_done_ = 0, tx_fetch_ = 0;  ///< TXDMA_KICK, TXDMA_TXDONE, next descriptor to fetch
  struct TxDesc { unsigned idx; uint64_t ctrl, buf; };
  std::deque<TxDesc> txd_;   ///< fetched descriptors not yet used
  bool tx_fetch_busy_ = false, tx_data_busy_ = false;
  size_t tx_fifo_used_ = 0;
  unsigned tx_fifo_frames_ = 0;
  /// A frame has moved into the TX FIFO since the last TX_ALL: TX_ALL ("All TX frames
  /// transferred") is the event of the ring (or FIFO) draining, latched once per drain.
  bool tx_all_armed_ = false;

  // RX
  unsigned rx_fetch_next_ = 0;  ///< RX descriptor fetch pointer: the entry after the last fetched
  unsigned rx_kick_ = 0, rx_done_ = 0;  ///< RXDMA_KICK (rounded to 4), RXDMA_DONE
  struct RxDesc { unsigned idx; uint64_t status, buf; };
  std::deque<RxDesc> rxd_;  ///< fetched descriptors not yet used
  bool rx_fetch_busy_ = false, rx_busy_ = false, rx_nobuf_ = false;
  struct RxFrame { std::vector<uint8_t> bytes; JourneyId j; };
  std::deque<RxFrame> rx_fifo_;
  size_t rx_fifo_used_ = 0;
  bool xoff_sent_ = false;
  // RX_DONE blanking
  unsigned rx_pkts_since_ = 0;
  sc_time last_rx_done_ = SC_ZERO_TIME;
  bool blank_armed_ = false;
  std::vector<JourneyId> rx_await_;  ///< frames in host memory whose RX_DONE has not been raised
  sc_core::sc_event blank_ev_, mif_ev_;

  // MIF / PHY
  std::array<uint16_t, 32> phy_{};
  uint32_t mif_frame_ = 0;
  std::unique_ptr<EthPhy> phy_mon_;  ///< the link monitor's timers (models/ether/phy.h)
  EthLinkEnd* link_end_ = nullptr;
  bool bmsr_link_latched_low_ = false;  ///< BMSR_LSTATUS latched low since a link failure (802.3 22.2.4.2.13)
  uint16_t mif_image_ = 0;    ///< MIF_STATUS_DATA: the polled register's last value
  uint16_t mif_changed_ = 0;  ///< MIF_STATUS_STAT: bits changed since (read-clear)
  sc_time mif_poll_since_ = SC_ZERO_TIME;  ///< when polling was turned on (the poll schedule's phase)
  sc_core::sc_event mif_poll_ev_;

  uint64_t *c_tx_frames_, *c_tx_octets_, *c_rx_frames_, *c_rx_octets_, *c_rx_overflow_, *c_rx_filtered_,
      *c_rx_mac_disabled_, *c_rx_nobuf_, *c_rx_pause_rcvd_, *c_rx_mac_ctrl_, *c_tx_xoff_sent_, *c_tx_xon_sent_,
      *c_tx_pause_sent_, *c_interrupts_, *c_rx_done_pkts_, *c_rx_done_time_, *c_tx_all_, *c_tx_intme_,
      *c_tx_desc_fetches_, *c_rx_desc_fetches_, *c_rx_fcs_errors_, *c_rx_dropped_link_down_, *c_tx_dropped_reset_,
      *c_rx_dropped_reset_;
};

}  // namespace nicsim::gem
