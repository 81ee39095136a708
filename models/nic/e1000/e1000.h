// Intel 8254x gigabit Ethernet controller (82544GC/EI, 82540EM, 82545EM, 82546EB) as a PCI/PCI-X
// device: register file (regs.h), variant table (variants.h), interrupt moderation (moderation.h),
// and here the module: MMIO dispatch, the descriptor and data DMA engines, the on-chip packet buffer
// (RX/TX FIFOs), the MAC with 802.3x flow control, statistics registers.
//
// Behaviour (SDM = PCI/PCI-X Family of GbE Controllers Software Developer's Manual):
//  * One bus interface per device: one `pci_target` (MMIO, BAR-decoded per function by address) and
//    one `dma_initiator` (bus master). All DMA of all functions and both directions goes through one
//    FIFO engine, one burst at a time; each burst is a b_transport with a PciTxnExt (command, journey,
//    what). The engine is event driven: one activation per burst.
//  * Descriptors are read from and written to host memory as real 16-byte legacy descriptors
//    (regs.h encode/decode). Fetch (SDM §3.2.4 p=39): when the on-chip cache is empty, as soon as the
//    tail makes descriptors available; otherwise when the cache holds < PTHRESH and the host has
//    ≥ HTHRESH (GRAN=0: cache lines of `cache_line_bytes`/16 descriptors). Never beyond the tail.
//    RX write-back (SDM §3.2.5.1 p=40): when WTHRESH used descriptors accumulated, on RDTR/RADV
//    expiry, on FPD; WTHRESH = 0 (reset value, SDM p=320) writes each descriptor back as soon as it is
//    used. TX write-back: descriptors with RS (82544: RS or RPS) only; WTHRESH likewise (SDM p=316/317).
//  * RX: a frame that passes the address filter is stored in the RX packet buffer (PBA.RXA KB,
//    48 KB at reset, SDM p=288) and counted (GPRC/GORC/TPR/...: a packet counts as received once it is
//    in the packet buffer, SDM §13.7). No room → dropped, ICR.RXO and MPC (SDM §3.2.7.4 p=45). Arriving
//    while no descriptor is available → RNBC, kept in the FIFO. Data is written with bursts into the
//    buffers (RCTL.BSIZE), FCS included (RCTL.SECRC strips it), then the descriptor is used (DD, EOP),
//    the moderation timers see the packet, the buffer address is tagged with the frame's journey.
//  * TX: a data descriptor is serviced only when the TX packet buffer (64 − RXA KB) has room for all
//    its data (SDM p=332 TSPMT); the frame is sent when its EOP data is in the buffer.
//  * MAC: MAC+PHY pipeline latency, then the wire (EthLinkEnd). 802.3x: received PAUSE frames stop
//    data frames for pause_time × 512 bit times when CTRL.RFCE (SDM §13.4.1); XOFF (FCTTV) is sent
//    when the RX FIFO fill reaches FCRTH and XON when it falls to FCRTL (FCRTL.XONE) when CTRL.TFCE.
//  * Interrupts: per function, a level INTx (irq_out(fn)) driven by the Moderation decision.
//  * Journeys: every wait is marked with its cause: "descriptor fetch", "data DMA", "TX FIFO full",
//    "MAC TX" (+"PAUSE"/"wire busy"), "MAC RX", "RX FIFO" (+"no RX descriptors"), "RX DMA",
//    "write-back", "moderation wait" (RDTR/RADV/FPD/ITR), "interrupt"; DMA queueing behind other
//    traffic of the same bus interface is marked with cause "bus interface busy".
//    TIDV/TADV do not delay a frame (they delay the TX-complete interrupt that frees buffers): they
//    are counted (counters <port>.moderation.TIDV / .TADV), not marked on the frame's journey.
//  * Speed (E1000Params::closed_form_rx_drops): a dropped frame from a tester's train holds the
//    train at the link (models/ether/frame.h EthRxFeed); the held frames are counted in closed form
//    when anything of the port happens (register access, DMA completion, timer, MAC transmit), when
//    the run's counters are read, or at tally(); frames still in the PHY/MAC pipeline then go on one
//    by one. Exact: the drop verdict depends only on state those events change.
#pragma once
#include "core/clock.h"
#include "core/dma_tags.h"
#include "models/bus/dma_engine.h"
#include "core/params.h"
#include "core/units.h"
#include "models/bus/pci.h"
#include "models/ether/frame.h"
#include "models/ether/nic_params.h"
#include "models/nic/e1000/moderation.h"
#include "models/nic/e1000/regs.h"
#include "models/nic/e1000/variants.h"
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

namespace nicsim::e1000 {

/// The 8254x's parameters. clock_ppm / clock_ppm_spread (25 MHz crystal) and the MAC/PHY
/// latencies are the shared NicTimingParams (models/ether/nic_params.h), with these defaults.
struct E1000Params : NicTimingParams {
  E1000Params()
      : NicTimingParams{
            .clock_ppm = 0.0,          // crystal offset; IEEE 802.3 allows ±100 ppm (DESIGN.md "Clocks drift")
            .clock_ppm_spread = 15.0,  // estimate: commodity crystals sit within a few tens of ppm of nominal
            .mac_tx_latency = ns(200),  // estimate: MAC TX pipeline (packet buffer → GMII); no SDM figure,
                                        // to calibrate with phy_* against the 28 µs 82544GC NetPIPE half-RTT
            .phy_tx_latency = ns(100),  // estimate: 1000BASE-T PHY transmit path (GMII → MDI)
            .phy_rx_latency = ns(300),  // estimate: 1000BASE-T PHY receive path (MDI → GMII, DSP/decoder)
            .mac_rx_latency = ns(200),  // estimate: MAC RX pipeline (GMII → packet buffer, filters, CRC check)
        } {}
  double clock_mhz = 25.0;  ///< reference crystal: 25 MHz (8254x datasheets, XTAL1/XTAL2)
  unsigned dma_read_burst_bytes = 512;  ///< PCI-X default max memory read byte count 512 B
                                        ///< (research/e7500-p64h2-pcix.md §"PCI-X" [S28])
  unsigned dma_write_burst_bytes = 256; ///< estimate: write burst size the MAC's DMA unit issues
  unsigned cache_line_bytes = 64;       ///< PCI cache line size register (2.4.20 on P4: 64 B,
                                        ///< research/e7500-p64h2-pcix.md [S10]); GRAN=0 unit, MRL/MWI choice
  bool mwi_enable = false;  ///< PCI command register Memory Write and Invalidate enable (BIOS/driver)
  /// What-if (default off): RX descriptor packing with WTHRESH = 0. SDM §3.2.5 ("Receive Descriptor
  /// Write-Back", p=40) says used RX descriptors "accumulate" and are written out as a cache line
  /// when WTHRESH of them are used, when the receive timer (RDTR/RADV; on the 82544GC/EI RDTR, "to
  /// force timely write-back") expires, or on an explicit FPD flush; §3.2.8 (p=45, 82544GC/EI) adds
  /// that RDTR's expiry "flushes any accumulated descriptors" and that FPD flushes "any partial cache
  /// lines". The SDM does not say what WTHRESH = 0 (reset value; e1000 4.x never writes RXDCTL)
  /// does. Off (the shipped reading, as TXDCTL's "default 0b forces immediate write-back", SDM
  /// p=68): each descriptor is written back as soon as it is used. On: a descriptor is written back
  /// when it completes a cache line (cache_line_bytes / 16 descriptors, ring-aligned); a partial
  /// line waits for the receive timer or FPD, so until then the driver sees no DD (seed 002 e1000
  /// what-if, scenarios/seed002/e1000-82544gc-pci66-rxpack.full.toml). RDTR = 0 still writes back at once.
  bool rx_desc_line_packing = false;
  /// What-if (default off): on a part whose RDTR is absolute (82544GC/EI, Variant::rdtr_absolute,
  /// SDM §3.2.8 p=45 "since the first packet received after the hardware timer was written"),
  /// restart it on every packet instead, as the 82540 and later do (SDM §13.4.30 p=305). The
  /// seed-002 e1000 RTT rises above the MSS as if the wait began at a message's last frame
  /// (scenarios/seed002/e1000-82544gc-pci66-rdtrpkt.full.toml).
  bool rdtr_per_packet = false;
  std::string mac_address;  ///< "00:02:b3:xx:xx:xx"; empty: Intel OUI 00:02:B3 + hash of the device name
  std::string dma_space;    ///< DmaTags space name; empty: the device's full SystemC name
  /// Speed only, results unchanged: while a port drops every frame (a drop verdict that no event
  /// can change before the port's next register access, DMA completion or timer), the frames a
  /// periodic sender (tester train, EthRxFeed) offers meanwhile are counted in closed form
  /// (TPR, TORL, RNBC, MPC, ... as the per-frame path counts them) instead of one event each.
  /// false: every frame through the per-frame path (the reference the fast path is tested against).
  bool closed_form_rx_drops = true;

  /// Parameter schema a scenario can set (names as above; times in ns).
  static ParamSchema schema();
  /// Parameters from validated values of schema(). Throws std::out_of_range for a missing name.
  static E1000Params from(const ParamValues& v);
};

/// The PCI facts of a variant (what a DeviceEntry advertises).
PciDeviceInfo device_info(const Variant& v);

class E1000 : public sc_core::sc_module, public PciDevice {
 public:
  tlm_utils::simple_target_socket<E1000> pci_target_socket;        ///< named "pci_target"
  tlm_utils::simple_initiator_socket<E1000> dma_initiator_socket;  ///< named "dma_initiator"
  sc_core::sc_vector<sc_core::sc_port<irq_if>> irq;                ///< "irq_out_<fn>": INTA#, INTB#

  /// A device of variant `v` named `name`. BARs are unassigned (0) until set_bar().
  E1000(sc_core::sc_module_name name, const Variant& v, const E1000Params& p = {});
  ~E1000() override;

  // PciDevice
  const PciDeviceInfo& info() const override { return info_; }
  tlm::tlm_target_socket<>& pci_target() override { return pci_target_socket; }
  tlm::tlm_initiator_socket<>& dma_initiator() override { return dma_initiator_socket; }
  sc_core::sc_port<irq_if>& irq_out(unsigned fn) override { return irq.at(fn); }
  void set_bar(unsigned fn, uint64_t base) override;
  uint64_t bar(unsigned fn) const override;
  unsigned eth_ports() const override;
  EthPort* eth_port(unsigned i) override;

  const Variant& variant() const { return v_; }
  const E1000Params& params() const { return p_; }
  /// The DmaTags space of this device (DmaTags::space_of(dma_space or name())).
  DmaTags::Space dma_space() const { return space_; }
  /// The bus mode the platform configured (reported in STATUS.PCIX_MODE/BUS64/PCI66). Default: the
  /// variant's best mode.
  void set_bus_status(bool pcix_mode, bool m66, bool bus64);
  /// Register `offset` of function `fn` without read side effects (tests, debugging).
  uint32_t peek(unsigned fn, uint32_t offset) const;
  /// Function `fn`'s interrupt moderation state (read only).
  const Moderation& moderation(unsigned fn) const;
  /// The clock the timers tick from.
  const ClockDomain& clock() const { return clk_; }
  /// Port `fn`'s station MAC address (from the EEPROM image; port B has bit 0 of byte 5 flipped,
  /// e1000_hw.c e1000_read_mac_addr).
  std::array<uint8_t, 6> mac_address(unsigned fn) const;

 private:
  struct Port;
  friend struct Port;
  void b_transport(tlm::tlm_generic_payload& trans, sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& trans);

  const Variant& v_;
  E1000Params p_;
  PciDeviceInfo info_;
  ClockDomain clk_;
  DmaTags::Space space_;
  std::array<uint8_t, 6> mac_{};
  std::vector<uint64_t> bars_;
  std::unique_ptr<DmaEngine> dma_;
  std::vector<std::unique_ptr<Port>> ports_;
  bool status_pcix_ = false, status_m66_ = false, status_bus64_ = false;
};

}  // namespace nicsim::e1000
