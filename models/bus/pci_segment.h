// A PCI / PCI-X bus segment below a bridge (one P64H2 segment): arbitration among masters, the
// phases of each tenure at the segment's clock (pci_timing.h), BAR decode of CPU MMIO, and the
// hand-off of inbound DMA to the bridge that hosts the segment.
//
// The segment is one shared resource (an IntervalResource): every tenure (a master's burst, a
// retry, a split response, the bridge's split completion or MMIO access) occupies it, so
// contention between masters emerges. Arbitration costs `arbitration_clocks` on an idle bus; it
// is hidden behind the current tenure when the bus is busy, and free when the bus is parked on
// the requesting master (the P64H2 parks on the last agent, research §2 [S14]).
//
// Mode: chosen from what sits on it (resolve_segment_mode): any conventional-PCI device puts the
// segment in PCI mode at min(max_mhz); otherwise PCI-X at min(max_mhz, the board's limit).
//
// Sockets:
//   dma_target  (multi)  <- each device's dma_initiator(); the binding index is the master number
//   upstream             -> the bridge's inbound target (carries a PciRequesterExt)
//   mmio_target          <- the bridge's outbound path (CPU MMIO and, with a PciSpaceExt saying
//                           PciSpace::Io, CPU I/O cycles: decoded against the devices' I/O BARs)
//   to_devices  (multi)  -> each device's pci_target()
#pragma once
#include "core/interval_resource.h"
#include "core/journey.h"
#include "core/units.h"
#include "models/bus/pci.h"
#include "models/bus/pci_timing.h"
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

namespace nicsim {

struct PciSegmentParams {
  std::string label = "A";                 ///< "A" / "B" (P64H2 segment names)
  unsigned width_bits = 64;                ///< P64H2 segments are 64-bit [S1][S4] research §2
  unsigned max_pcix_mhz = 133;             ///< P64H2 PCI-X 66/100/133 [S1]; the board's slot loading may lower it [S9]
  unsigned max_pci_mhz = 66;               ///< P64H2 PCI 33/66 [S1]
  unsigned arbitration_clocks = 2;         ///< estimate: research §3 worked example: REQ#->GNT#->FRAME# on an idle bus
  bool park_on_last_master = true;         ///< P64H2 arbiter parks the bus on the last agent [S14] §2
  unsigned target_decode_clocks = 2;       ///< device DEVSEL#: PCI medium = 2 [S24]; PCI-X decode B (estimate: research §3)
  unsigned bridge_decode_clocks = 1;       ///< P64H2 claims with fast DEVSEL (1) [S13]; PCI-X decode A (estimate: research §3)
  unsigned pcix_register_clocks = 1;       ///< PCI-X register-to-register signalling: one clock of decode [S27]
  unsigned turnaround_clocks = 1;          ///< one idle clock between transactions [S26]
  unsigned read_turnaround_clocks = 1;     ///< AD turnaround after a read's address phase (PCI spec; §3)
  unsigned termination_clocks = 1;         ///< Retry / Split Response signalled in one clock (PCI 2.2 / PCI-X: STOP#/DEVSEL# pattern); estimate
  unsigned master_abort_clocks = 5;        ///< no DEVSEL# by clock 6 after the address -> master abort [S24][S30]
  unsigned latency_timer_clocks = 64;      ///< Linux 2.4 pcibios_set_master() sets 64 when the BIOS left <16; estimate for the BIOS value
  uint32_t cache_line_bytes = 64;          ///< Linux 2.4.20 expects 16 DW on this board [S10] §2
  uint32_t adb_bytes = 128;                ///< PCI-X allowable disconnect boundary [S29][S30]
  unsigned master_retry_interval_clocks = 8;  ///< estimate: clocks a retried master waits before it requests again
};

/// Attached by the segment to every inbound (DMA) transaction it forwards upstream.
struct PciRequesterExt : tlm::tlm_extension<PciRequesterExt> {
  unsigned master = 0;                ///< index on the segment (dma_target binding order)
  const PciDeviceInfo* info = nullptr;
  tlm::tlm_extension_base* clone() const override { return new PciRequesterExt(*this); }
  void copy_from(const tlm::tlm_extension_base& o) override { *this = static_cast<const PciRequesterExt&>(o); }
};

class PciSegment : public sc_core::sc_module {
 public:
  static constexpr unsigned kBridge = 0xFFFF;  ///< master number of the bridge itself

  tlm_utils::multi_passthrough_target_socket_optional<PciSegment> dma_target;
  tlm_utils::simple_initiator_socket<PciSegment> upstream;
  tlm_utils::simple_target_socket<PciSegment> mmio_target;
  tlm_utils::multi_passthrough_initiator_socket_optional<PciSegment> to_devices;

  PciSegment(sc_core::sc_module_name name, const PciSegmentParams& p = {});
  /// Resolves the mode: every device has been plugged by then.
  void end_of_elaboration() override { (void)mode(); }

  /// Plug a device in (before sc_start): binds its dma_initiator and pci_target. Its master
  /// number is the plug order. Throws std::logic_error once the mode has been resolved.
  unsigned plug(PciDevice& dev);
  /// The mode the devices plugged so far give, without fixing it (mode() once resolved). For
  /// reports: it never stops a later plug.
  PciSegmentMode current_mode() const;
  /// The mode, resolved from the plugged devices on first use (at the end of elaboration at the
  /// latest); resolving it tells each device (PciDevice::bus_mode).
  const PciSegmentMode& mode() const;
  const PciSegmentParams& params() const { return p_; }
  sc_time clock_period() const;
  sc_time clocks(double n) const { return clock_period() * n; }
  /// First clock edge at or after absolute time `t`.
  sc_time align(const sc_time& t) const;
  double peak_mb_per_s() const { return pci_peak_mb_per_s(p_.width_bits, mode().mhz); }
  size_t device_count() const { return devs_.size(); }
  PciDevice& device(unsigned i) const { return *devs_.at(i); }
  /// Static facts of master `m` (kBridge -> the bridge: 64-bit, PCI-X capable).
  const PciDeviceInfo& master_info(unsigned m) const;
  /// One-line summary, e.g. "segment B: PCI-X 100 MHz, 64-bit, peak 800 MB/s".
  std::string summary() const;

  /// A burst spec for `master` with the segment's phase parameters. `target_is_bridge`: the
  /// P64H2 claims it (fast decode) rather than a device (target_decode_clocks). Data phases run
  /// at min(bus, master) width (for the bridge as master, at the target device's width:
  /// pass that as `width_bits`, 0 = the master's own width).
  PciBurstSpec burst_spec(unsigned master, PciCommand cmd, uint64_t addr, uint32_t bytes, bool target_is_bridge,
                          unsigned width_bits = 0) const;
  /// Pure arithmetic for the segment's current mode.
  PciBurstTiming burst_clocks(const PciBurstSpec& s) const;

  /// When `master` would win the bus for a tenure at or after absolute `earliest`. No reservation.
  struct Plan {
    unsigned master = 0;
    sc_time earliest;   ///< aligned request time
    sc_time start;      ///< tenure start (arbitration included when charged)
    unsigned arbitration = 0;
    bool waited = false;     ///< the bus was busy: arbitration hidden behind another tenure
    bool contended = false;  ///< another master used the bus recently: the latency timer applies
  };
  Plan plan(unsigned master, const sc_time& earliest, unsigned clocks_without_arbitration) const;
  /// plan(master, earliest, n).contended without placing a tenure: another master used the bus
  /// within a latency timer of the aligned `earliest`, so the latency timer applies.
  bool contended(unsigned master, const sc_time& earliest) const;
  /// Reserve a planned tenure with its final phase list (arbitration must equal plan.arbitration)
  /// that moved `data_bytes`. Records counters and, when the master waited, a "bus arbitration"
  /// journey mark.
  Grant commit(const Plan& plan, const PciPhaseList& phases, JourneyId j = 0, const char* what = "",
               uint32_t data_bytes = 0);

  struct Occupied {
    sc_time start;       ///< first tenure's start
    sc_time first_data;  ///< first data phase
    sc_time end;         ///< last tenure's end (after its turnaround)
    PciBurstTiming timing;  ///< as charged (arbitration per tenure as it happened)
  };
  /// Run a whole burst for `master` starting no earlier than `earliest`: each tenure of the burst
  /// is planned and reserved in turn (others may slip in between after a disconnect).
  Occupied occupy(unsigned master, const sc_time& earliest, PciBurstSpec spec, JourneyId j = 0,
                  const char* what = "");
  /// One tenure that ends without data (Retry or Split Response).
  /// `wait_clocks`: wait states the target inserts before it signals the termination (a host
  /// bridge that held the master hoping for its data, PCI 2.2 §3.5.1.1); 0 for an immediate one.
  Grant occupy_termination(unsigned master, const sc_time& earliest, bool read, uint64_t addr, PciTermination term,
                           bool target_is_bridge, JourneyId j = 0, const char* what = "", unsigned wait_clocks = 0);

  const IntervalResource& bus() const { return bus_; }
  /// Counter path prefix, e.g. "alpha.p64h2.segB".
  const std::string& counter_prefix() const { return prefix_; }

 private:
  void b_dma(int index, tlm::tlm_generic_payload& trans, sc_time& delay);
  /// Debug transport of a master's memory access (fast mode, models/bus/dma_engine.h): to the bridge.
  unsigned dbg_dma(int index, tlm::tlm_generic_payload& trans);
  bool contended_at(unsigned master, const sc_time& aligned) const;
  void b_mmio(tlm::tlm_generic_payload& trans, sc_time& delay);
  int decode(uint64_t addr, unsigned len) const;

 public:
  /// The device (plug index) whose BAR in `space` claims [addr, addr+len), or -1 (nobody: the
  /// cycle master-aborts). Memory: the functions' memory BARs; I/O: their I/O BARs (PCI 2.2
  /// §6.2.5.1 positive decode, a BAR of 0 is unassigned).
  int decode(PciSpace space, uint64_t addr, unsigned len) const;

 private:

  PciSegmentParams p_;
  std::string prefix_;
  std::vector<PciDevice*> devs_;
  std::vector<PciDeviceInfo> infos_;
  mutable bool resolved_ = false;
  mutable PciSegmentMode mode_;
  mutable sc_time period_;  ///< clock period of mode_, set when the mode is resolved
  PciDeviceInfo bridge_info_;
  IntervalResource bus_;
  unsigned last_owner_ = kBridge;
  std::vector<sc_time> last_end_;  ///< per master (kBridge at the back)
  uint64_t &c_tenures_, &c_arb_wait_ns_, &c_data_bytes_, &c_mmio_reads_, &c_mmio_writes_, &c_master_aborts_, &c_io_reads_, &c_io_writes_;
  /// Time the bus was occupied (every tenure, its arbitration, overhead phases and turnaround
  /// included), as counter `<prefix>.busy_ns` (rounded from busy_ns_).
  uint64_t& c_busy_ns_;
  double busy_ns_ = 0;
};

}  // namespace nicsim
