// Broadcom BCM5701 (Tigon3) Gigabit Ethernet controller as a 64-bit PCI-X device: register file
// (regs.h, tg3.h names), NIC SRAM behind the 32 KB window, mailboxes, send BDs in NIC SRAM written
// by PIO, the standard receive producer ring and the receive return ring in host memory, the
// status block with its Updated bit, the host coalescing engine (coalescing.h), statistics block
// DMA, the DMA engine (models/bus/dma_engine.h) with DMA_RWCTRL's PCI commands, MAC and PHY.
//
// Sources: Linux tg3.h/tg3.c 0.99 (LH@2.4.19) and 1.0 (RH 2.4.18-14, oct-month/linux-kernel-2.4.18
// drivers/net/tg3.{c,h}: tg3_setup_flow_control, the BUFMGR_MB_* watermarks, struct tg3_hw_stats),
// IEEE 802.3 clause 31 and Annex 31B (PAUSE), research/tg3-bonding-tcp-gmac-formats.md §1 and
// research/seeds-001-004-platforms-drivers.md §4.3.
//
// Behaviour:
//  * BAR0 is 64 KB: 0x0000-0x00ff mirror PCI configuration space (TG3PCI_MISC_HOST_CTRL,
//    TG3PCI_DMA_RW_CTRL, TG3PCI_PCISTATE, TG3PCI_MEM_WIN_BASE_ADDR), 0x0200-0x03ff the mailboxes,
//    0x0400-0x7fff the registers, 0x8000-0xffff a window on NIC SRAM at TG3PCI_MEM_WIN_BASE_ADDR.
//    32-bit accesses only (tg3 uses readl/writel).
//  * Interrupts: INTA# is asserted while an interrupt is pending and MISC_HOST_CTRL_MASK_PCI_INT is
//    clear. A status block update makes an interrupt pending only when Interrupt Mailbox 0
//    (MAILBOX_INTERRUPT_0 + 4) is zero; otherwise it counts nic_avoided_irqs. Any write to the
//    mailbox clears the pending interrupt; MISC_HOST_CTRL_CLEAR_INT and GRC_LCLCTRL_CLEARINT clear
//    it, GRC_LCLCTRL_SETINT sets it (tg3_enable_ints / tg3_restart_ints force one that way).
//  * Host coalescing (HOSTCC_MODE_ENABLE): coalescing.h decides; an update DMA-writes the status
//    block (32 B with HOSTCC_MODE_32BYTE, 64 B with 64BYTE, else TG3_HW_STATUS_SIZE) to
//    HOSTCC_STATUS_BLK_HOST_ADDR: status = SD_STATUS_UPDATED, rx_consumer (std ring BDs taken),
//    idx[0].rx_producer (return ring), idx[0].tx_consumer (send BDs whose data has been read).
//    HOSTCC_MODE_NOW forces one. The statistics block (TG3_HW_STATS_SIZE bytes, tg3_stat64_t
//    {high, low}) is DMA'd to HOSTCC_STATS_BLK_HOST_ADDR every HOSTCC_STAT_COAL_TICKS µs.
//  * Send: a write of MAILBOX_SNDNIC_PROD_IDX_0 + 4 starts the send engine on the BDs between its
//    consumer index and the new producer; BDs are read from NIC SRAM at the send RCB's NIC address
//    (NIC_SRAM_SEND_RCB + TG3_BDINFO_NIC_ADDR, tg3: NIC_SRAM_TX_BUFFER_DESC), 512 entries; each
//    BD's buffer is read by DMA; a frame ends at TXD_FLAG_END; when its data is in, the consumer
//    index advances by its BDs (a coalescing TX event) and the frame goes to the MAC.
//  * Receive: the standard ring's host address and size come from RCVDBDI_STD_BD (BDINFO); a
//    write of MAILBOX_RCV_STD_PROD_IDX + 4 makes the chip DMA-read the new std BDs (32 B each) into
//    its SRAM copy. A frame that passes the address filter (MAC_ADDR_0, broadcast, multicast,
//    RX_MODE_PROMISC) waits in the RX mbuf pool for a fetched std BD, is DMA-written with its 4
//    FCS bytes at the BD's address, then its return BD (idx_len = std index << 16 | length incl.
//    FCS, RXD_FLAG_END, RXD_FLAG_TCPUDP_CSUM with ip_tcp_csum 0xffff for TCP/UDP over IPv4, opaque
//    = RXD_OPAQUE_RING_STD | index) at the return ring (RCB at NIC_SRAM_RCV_RET_RCB) producer slot:
//    a coalescing RX event. Return ring full (producer + 1 == MAILBOX_RCVRET_CON_IDX_0) or mbuf pool
//    full: the frame is dropped (rx_discards); no std BD: it waits (rxbds_empty counted once).
//  * PHY at MII address 1 through MAC_MI_COM: link up at 1000 Mb/s full duplex after
//    auto-negotiation (BMSR link + AN complete, MII_TG3_AUX_STAT 1000FULL) when the port is
//    cabled (attach_link) and the PHY has link; without (uncabled, or link lost) it reads no link
//    (BMSR link and AN-complete bits clear, no partner in LPA / STAT1000, MII_TG3_AUX_STAT without
//    speed). Each MI frame takes `mi_frame` (MI_COM_BUSY until then).
//  * Link (docs/faults.md; research/link-faults-failover.md §A1, §A3): the PHY's link monitor is
//    the shared EthPhy (models/ether/phy.h: link fail 750 ms MASTER / 350 ms SLAVE after the
//    signal goes, auto-negotiation + training after it returns). A link change sets
//    MII_TG3_INT_LINKCHG in MII_TG3_ISTAT (clear on read) and MAC_STATUS_LNKSTATE_CHANGED (the
//    driver clears MAC_STATUS bits by writing them as 1); MAC_STATUS_MI_INTERRUPT reads set while
//    ISTAT has a bit MII_TG3_IMASK does not mask (the PHY's interrupt output; IMASK resets to all
//    unmasked, an estimate). BMSR_LSTATUS is latched low (IEEE 802.3 22.2.4.2.13): after a failure
//    it reads 0 once even if the link is back, which is why tg3 reads BMSR twice. With
//    MAC_EVENT_LNKSTATE_CHANGED set, a link change also sets SD_STATUS_LINK_CHG in the next status
//    block and forces an update (HOSTCC_MODE_NOW's path), the interrupt tg3 takes on non-Dell
//    copper boards (estimate: the attention path's timing is not documented; tg3 1.2
//    tg3_interrupt_main_work only says the bit arrives there). PCI_SUBSYSTEM_VENDOR_ID reads
//    `subsystem_vendor_id` (tg3 chooses timer polling for Dell boards); the same value is the
//    module's SystemC attribute "PCI_SUBSYSTEM_VENDOR_ID", what the PCI core found at enumeration.
//  * TX without link: the MAC starts no frame while the PHY has no link (frames wait in the MAC
//    queue and the send ring, and leave when the link returns). estimate: the 5701's rule was not
//    found (research §A3 "unverified"); taken as the 8254x's ("indication that the link is not up
//    disables MAC operation", SDM §8.6.5.2). Until the PHY declares the loss, frames go into the
//    dead line and the link counts them lost on the wire. RX: a frame arriving while the PHY has no
//    link (training after a replug) is dropped (rx_dropped_link_down).
//  * FCS: a frame with a bad FCS (a link's frame error rate) goes through the receive pipeline and
//    is dropped by the MAC, counted in rx_fcs_errors (tg3_hw_stats, in the statistics block; the
//    Ethernet MIB's dot3StatsFCSErrors, counted before the address filter: estimate, the 5701's
//    order is not documented) and, with MII_TG3_TEST1_CRC_EN set in PHY register 0x1e, in the
//    PHY's count at register 0x14 (clear on read), which tg3's calc_crc_errors reads on 5700/5701
//    copper instead of rx_fcs_errors.
//  * 802.3x flow control (the MAC Control frame helpers of models/ether/pause.h, the pause of
//    MacTxQueue): a MAC Control frame (type 0x8808) is consumed by the MAC whatever MAC_RX_MODE
//    says; a PAUSE (to 01-80-C2-00-00-01, opcode 0x0001) counts rx_xoff_pause_rcvd (pause_time > 0)
//    or rx_xon_pause_rcvd (0), any other rx_mac_ctrl_rcvd. With RX_MODE_FLOW_CTRL_ENABLE (tg3 1.0
//    tg3_setup_flow_control: TG3_FLAG_RX_PAUSE) the PAUSE stops data frames from starting for
//    pause_time × 512 bit times (802.3 Annex 31B.3; a frame on the wire completes; 0 resumes at
//    once; journey cause "PAUSE"); an XOFF that stops a running transmitter counts rx_xoff_entered.
//    With TX_MODE_FLOW_CTRL_ENABLE (TG3_FLAG_TX_PAUSE) the MAC sends an XOFF (kXoffPauseQuanta)
//    when the free mbufs of the RX pool (rx_buffer_bytes in kMbufBytes units) fall below
//    BUFMGR_MB_MACRX_LOW_WATER and an XON when they are back at BUFMGR_MB_HIGH_WATER (both reset to
//    tg3's DEFAULT_MB_MACRX_LOW_WATER 0x20 and DEFAULT_MB_HIGH_WATER 0x60, which tg3_reset_hw
//    writes); counted tx_xoff_sent / tx_xon_sent. PAUSE frames go ahead of queued data and ignore a
//    received pause (802.3 §31.5.3). The rule and the XOFF's pause_time are estimates (see
//    kMbufBytes, kXoffPauseQuanta). Note: tg3 0.99/1.0 set the FLOW_CTRL bits only in tp->rx_mode /
//    tp->tx_mode after writing the registers (drivers-sim/drivers/tg3/tg3.h), so with those
//    drivers the chip neither obeys nor sends PAUSE.
//  * DMA: one bus master, FIFO (DmaEngine). Read bursts up to the PCI-X MMRBC (info().mmrbc_bytes),
//    write bursts up to dma_write_burst_bytes, never across 4 KB; the PCI command from DMA_RWCTRL:
//    read code 0x6 (Memory Read) or MRM with DMA_RWCTRL_USE_MEM_READ_MULT, 0xC MRM, 0xE MRL; write
//    code 0x7 (Memory Write), 0xF MWI.
//  * Counters (under the instance name, tg3_hw_stats names): rx_octets, rx_ucast_packets,
//    rx_mcast_packets, rx_bcast_packets, rx_fcs_errors, rx_xon_pause_rcvd, rx_xoff_pause_rcvd, rx_mac_ctrl_rcvd,
//    rx_xoff_entered, tx_octets, tx_xon_sent, tx_xoff_sent (all in the statistics block at their
//    tg3_hw_stats offsets), tx_ucast_packets, tx_mcast_packets, tx_bcast_packets (data frames
//    only, as tx_octets), rxbds_empty, rx_discards,
//    ring_status_update, nic_irqs, nic_avoided_irqs; and interrupts (INTA assertions), rx_filtered,
//    rx_mac_disabled, rx_dropped_link_down, hostcc.<cause> (coalescing.h UpdateCause names). Journeys: "descriptor fetch",
//    "data DMA", "MAC TX" (+"wire busy"/"PAUSE"), "MAC RX", "RX FIFO", "RX DMA", "write-back", "moderation wait" (cause:
//    the HOSTCC register that will end it), "interrupt".
//
// Approximations: the RX mbuf pool is one byte budget (rx_buffer_bytes; the flow-control
// watermarks count it in 128-byte mbufs, but frames are not rounded up to whole mbufs, and
// BUFMGR_MB_RDMA_LOW_WATER is stored, not acted on); the MAC sends one XOFF per crossing (no
// refresh before its pause_time runs out) and TX_MODE_LONG_PAUSE_ENABLE is not modelled; the send side's
// read-ahead is bounded by tx_buffer_bytes; the jumbo and mini rings, tagged status, MSI, the
// on-chip CPUs and firmware, and VLAN tags are not modelled; TXD_FLAG checksum bits are accepted
// (the frame's checksums are not recomputed: the sender's stack fills them).
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
#include "models/nic/tg3/coalescing.h"
#include "models/nic/tg3/regs.h"
#include <array>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

namespace nicsim::tg3 {

/// estimate: the BCM570x mbuf is 128 bytes (Broadcom's 570X programmer's guide, not in hand; tg3.h
/// gives the watermarks in mbufs and the pool as NIC_SRAM_MBUF_POOL_SIZE bytes only). The RX mbuf
/// pool (rx_buffer_bytes) is counted in these units for BUFMGR_MB_MACRX_LOW_WATER/_HIGH_WATER.
inline constexpr unsigned kMbufBytes = 128;
/// estimate: pause_time of the XOFF the MAC sends (TX_MODE_FLOW_CTRL_ENABLE). tg3.h has no pause
/// time register (only TX_MODE_LONG_PAUSE_ENABLE, not modelled); set as the 8254x's FCTTV that e1000
/// programs (E1000_FC_PAUSE_TIME 0x0680, 852 µs at 1 Gb/s). The chip ends its XOFF with an XON
/// when the pool drains, so the value only bounds the wait when no XON follows.
inline constexpr uint16_t kXoffPauseQuanta = 0x0680;

/// The BCM5701's parameters. clock_ppm / clock_ppm_spread (core clock crystal) and the MAC/PHY
/// latencies are the shared NicTimingParams (models/ether/nic_params.h), with these defaults.
struct Tg3Params : NicTimingParams {
  Tg3Params()
      : NicTimingParams{
            .clock_ppm = 0.0,          // core clock crystal offset (IEEE 802.3 ±100 ppm); the coalescing ticks run from it
            .clock_ppm_spread = 15.0,  // σ of the seeded offset (estimate, as the 8254x/8255x entries)
            .mac_tx_latency = ns(200),  // estimate: MAC TX pipeline, as the 8254x model (no Broadcom figure)
            .phy_tx_latency = ns(100),  // estimate: 1000BASE-T PHY transmit path, as the 8254x model
            .phy_rx_latency = ns(300),  // estimate: 1000BASE-T PHY receive path, as the 8254x model
            .mac_rx_latency = ns(200),  // estimate: MAC RX pipeline (filters, CRC), as the 8254x model
        } {}
  sc_time mi_frame = us(25.6);       ///< one MI (MDIO) frame: 64 bits at the 802.3 clause 22 MDC limit of 2.5 MHz (estimate: the BCM5701's MDC divider is not known)
  unsigned dma_write_burst_bytes = 256;  ///< estimate: write burst (tg3 leaves DMA_RWCTRL's write boundary off on x86); as the 8254x model
  unsigned cache_line_bytes = 64;    ///< PCI cache line size register (2.4.20 on P4: 64 B)
  unsigned rx_buffer_bytes = 64 * 1024;  ///< estimate: the part of the 96 KB mbuf pool (NIC_SRAM_MBUF_POOL_SIZE) frames wait in
  unsigned tx_buffer_bytes = 32 * 1024;  ///< estimate: send data read ahead of the MAC
  uint32_t mmrbc_bytes = 512;        ///< PCI-X MMRBC as BIOS left it (PCI-X default 512; tg3 0.99 does not change it)
  /// PCI subsystem vendor ID the board's NIC EEPROM gives (PCI_SUBSYSTEM_VENDOR_ID): Broadcom's
  /// own 0x14e4 on an add-in card; the platform sets the board maker's on an onboard position
  /// (Dell 0x1028 on the PE2650), which tg3 reads to choose how it polls the link.
  uint32_t subsystem_vendor_id = 0x14e4;
  std::string mac_address;           ///< empty: Broadcom OUI 00:10:18 + hash of the instance name
  std::string dma_space;             ///< DmaTags space; empty: the SystemC name

  static ParamSchema schema();
  /// From validated values of schema(). Throws std::out_of_range for a missing name.
  static Tg3Params from(const ParamValues& v);
};

/// The BCM5701's PCI facts: 64-bit, PCI-X capable up to 133 MHz, one function, BAR0 64 KB.
PciDeviceInfo bcm5701_info(const Tg3Params& p = {});

class Tg3 : public OnePortNic, public EthLineSide {
 public:
  tlm_utils::simple_target_socket<Tg3> pci_target_socket;        ///< "pci_target"
  tlm_utils::simple_initiator_socket<Tg3> dma_initiator_socket;  ///< "dma_initiator"
  sc_core::sc_port<irq_if> irq;                                  ///< "irq_out_0": INTA#

  Tg3(sc_core::sc_module_name name, const Tg3Params& p = {});
  ~Tg3() override;

  // PciDevice
  const PciDeviceInfo& info() const override { return info_; }
  tlm::tlm_target_socket<>& pci_target() override { return pci_target_socket; }
  tlm::tlm_initiator_socket<>& dma_initiator() override { return dma_initiator_socket; }
  sc_core::sc_port<irq_if>& irq_out(unsigned fn) override;
  void set_bar(unsigned fn, uint64_t base) override;
  uint64_t bar(unsigned fn) const override { return fn == 0 ? bar_ : 0; }

  // EthPort (the port list, cable and name: OnePortNic)
  void attach_link(EthLinkEnd* end) override;
  void frame_received(const EthFrame& f) override;
  std::optional<FrameTally> tally() const override;
  // EthLineSide (models/ether/phy.h): the copper PHY hears the line; frames with a bad FCS.
  void line_signal(const LineSignal& s) override;
  void frame_received_bad_fcs(const EthFrame& f) override;
  /// The PHY's link status now (the PHY link monitor: a cable and no link-fail since, or training done).
  bool phy_link_up() const { return cabled_ && phy_mon_->link_up(); }

  const Tg3Params& params() const { return p_; }
  const ClockDomain& clock() const { return clk_; }
  std::array<uint8_t, 6> mac_address() const { return mac_; }
  DmaTags::Space dma_space() const { return space_; }
  bool irq_level() const { return line_; }
  const HostCoalescing& coalescing() const { return hc_; }
  /// Register at BAR0 offset `off` as a read would return it, without side effects.
  uint32_t peek(uint32_t off) const;
  /// NIC SRAM word at `addr` (little-endian, as the window shows it).
  uint32_t sram32(uint32_t addr) const;
  /// PHY (MII) register `reg` as stored, without the uncabled view or side effects.
  uint16_t phy_reg(unsigned reg) const { return phy_[reg & 31]; }
  uint16_t tx_consumer() const { return tx_cons_; }
  uint16_t rx_return_producer() const { return ret_prod_; }
  uint16_t std_consumer() const { return std_cons_; }

 private:
  DmaBurst dma_burst(bool write, uint64_t addr, size_t left) const;
  void b_transport(tlm::tlm_generic_payload& trans, sc_time& delay);
  void write_reg(uint32_t off, uint32_t v, const sc_time& delay);
  uint32_t read_reg(uint32_t off);
  void sync_irq();
  /// GRC_MISC_CFG_CORECLK_RESET (tg3_chip_reset): the register file back to its power-on values
  /// (station address and chip revision kept, as the boot code reloads them), rings, indices,
  /// on-chip BD copies, the RX FIFO and the coalescing engine cleared. NIC SRAM keeps its contents.
  /// A reset while a DMA is still in flight is not modelled (the driver resets a quiesced chip:
  /// tg3_halt after tg3_disable_ints and the MAC stopped); it is counted as core_resets_busy.
  void core_reset();
  void set_pending(bool p);
  CoalRegs coal_regs() const;
  // host coalescing
  void hc_event(UpdateCause c);  ///< a max-BD trip or NOW: update now, else re-arm the tick timer
  void hc_rearm();
  void hc_tick();
  void status_update(UpdateCause c);
  void stats_tick();
  // 802.3x flow control
  void pause_received(const EthFrame& f);
  void flow_control_check();  ///< XOFF/XON on the RX mbuf pool's watermarks (TX_MODE_FLOW_CTRL_ENABLE)
  void send_pause(uint16_t quanta);
  // send
  void tx_kick();
  void tx_mac_done(size_t bytes);
  // receive
  void std_fetch();
  void accept_frame(const EthFrame& f);
  bool address_match(const std::vector<uint8_t>& b) const;
  void rx_process();
  void mi_done();
  void on_phy_change(bool up);
  void accept_bad_fcs(const EthFrame& f);
  void count(uint64_t* c, uint64_t n = 1) { *c += n; }
  void submit(std::unique_ptr<DmaRequest> r);
  std::unique_ptr<DmaRequest> make_req(bool write, uint64_t addr, size_t n, const char* what, const char* stage,
                                       JourneyId j = 0) const;
  template <typename F>
  void spawn(const char* what, sc_core::sc_event* ev, F f);
  uint64_t bdinfo_host(uint32_t reg) const;  ///< a TG3_BDINFO_HOST_ADDR in the register file
  uint64_t ret_ring_host() const;            ///< the return ring RCB's host address (NIC SRAM)
  unsigned ret_ring_size() const;

  Tg3Params p_;
  PciDeviceInfo info_;
  ClockDomain clk_, tick_clk_;
  DmaTags::Space space_;
  std::array<uint8_t, 6> mac_{};
  uint64_t bar_ = 0;
  std::unique_ptr<DmaEngine> dma_;

  std::vector<uint32_t> regs_;   ///< BAR0 0x0000-0x7fff, one word per 4 bytes
  std::vector<uint8_t> sram_;    ///< NIC SRAM (kSramBytes)
  bool line_ = false, pending_ = false;
  sc_time line_since_ = SC_ZERO_TIME;

  HostCoalescing hc_;
  bool update_busy_ = false, update_again_ = false;
  UpdateCause again_cause_ = UpdateCause::None;
  std::vector<JourneyId> rx_await_;  ///< frames in the return ring whose update has not been made
  sc_core::sc_event hc_ev_, stats_ev_, mi_ev_;

  // send
  uint16_t tx_prod_ = 0, tx_cons_ = 0, tx_read_ = 0;  ///< mailbox, completed (status block), BDs read
  bool tx_busy_ = false;
  size_t tx_inflight_bytes_ = 0;

  // receive
  uint16_t std_prod_ = 0, std_fetched_ = 0, std_cons_ = 0, ret_prod_ = 0, ret_cons_ = 0;
  bool std_fetch_busy_ = false, rx_busy_ = false, rx_starved_ = false;
  std::vector<std::array<uint8_t, RXD_SIZE>> std_bds_;  ///< the chip's copy of the std ring
  struct RxFrame { std::vector<uint8_t> bytes; JourneyId j; };
  std::deque<RxFrame> rx_fifo_;
  size_t rx_fifo_used_ = 0;
  bool xoff_sent_ = false;  ///< an XOFF went out and no XON since (flow_control_check)

  // PHY
  std::array<uint16_t, 32> phy_{};
  uint32_t mi_com_ = 0;
  std::unique_ptr<EthPhy> phy_mon_;  ///< the link monitor's timers (models/ether/phy.h)
  EthLinkEnd* link_end_ = nullptr;
  bool bmsr_link_latched_low_ = false;  ///< BMSR_LSTATUS latched low since a link failure (802.3 22.2.4.2.13)
  uint16_t phy_istat_ = 0;              ///< MII_TG3_ISTAT (clear on read)
  uint16_t phy_crc_count_ = 0;          ///< MII_TG3_RXR_COUNTERS: CRC errors since the last read
  bool link_chg_attn_ = false;
  sc_core::sc_attribute<uint32_t> subsys_attr_{"PCI_SUBSYSTEM_VENDOR_ID", 0};          ///< SD_STATUS_LINK_CHG for the next status block (MAC_EVENT_LNKSTATE_CHANGED)

  // counters (tg3_hw_stats names) and their running values for the statistics block
  uint64_t *c_rx_octets_, *c_rx_ucast_, *c_rx_mcast_, *c_rx_bcast_, *c_rx_xon_, *c_rx_xoff_, *c_tx_octets_,
      *c_tx_ucast_, *c_tx_mcast_, *c_tx_bcast_, *c_rxbds_empty_, *c_rx_discards_, *c_status_update_, *c_nic_irqs_,
      *c_nic_avoided_, *c_interrupts_, *c_rx_filtered_, *c_rx_mac_disabled_, *c_core_resets_, *c_core_resets_busy_,
      *c_rx_mac_ctrl_, *c_rx_xoff_entered_, *c_tx_xon_sent_, *c_tx_xoff_sent_, *c_rx_fcs_errors_,
      *c_rx_dropped_link_down_;
};

}  // namespace nicsim::tg3
