// A front-side-bus north bridge: FSB target, memory controller, N downstream packet-link ports to
// I/O bridges, interrupt delivery. One model, two parts, differing only in parameters:
//  - Intel E7500 MCH ("Plumas"): three Hub Interface 2.0 ports HI_B/HI_C/HI_D
//    (research/e7500-p64h2-pcix.md §1, §4); the defaults below are its values (models/chipset/e7500_mch.h).
//  - ServerWorks CMIC (GC-LE): two IMBus ports to CIOB-X2 bridges (models/chipset/serverworks_cmic.h).
//
// Posted trains (PostedTrainExt, models/bus/stream_timing.h) from a hub port: each piece is an
// inbound write at its own arrival time (counted as one); DRAM gets the train in one call.
// Address decode: [0, dram_bytes) is DRAM; each hub port has MMIO windows (the P64H2 segments'
// bridge windows); FEE0_0000-FEEF_FFFF upstream writes are interrupt messages from I/OxAPICs.
// CPU side (fsb_target): a read stalls the CPU for the whole round trip (the returned delay);
// a write is posted: the CPU is released once the FSB request and data phases are done while the
// write continues downstream with its full latency. Interrupt messages become FSB interrupt
// transactions and leave on apic_out; EOIs from the CPUs (eoi_if) are broadcast down every hub
// port that has a bridge bound.
//
// I/O space (CPU IN/OUT: transactions with a PciSpaceExt saying PciSpace::Io, models/bus/pci.h):
// each hub port's Host-HI bridge has an I/O base/limit window (IOBASE/IOLIMIT at 1Ch/1Dh of
// devices 2–4, 4 KB granularity: the layout of the E7505 MCH datasheet §3.3 "HI_B", the E7500's
// direct successor; the E7500 page itself was not read); ports inside a window go down that hub
// port. I/O elsewhere goes to HI_A (the ICH3) on the real part, which is not modelled: here it
// master-aborts (reads all ones, TLM_ADDRESS_ERROR_RESPONSE). An I/O write is not posted: the MCH
// defers the FSB transaction and the CPU's OUT completes only with the hub completion (Intel SDM
// vol. 1 chapter "Input/Output", section "Ordering I/O" (§19.6 in current editions): the
// processor does not post I/O writes and completes OUT only when the bus cycle has completed;
// PCI 2.2 §3.2.5), so both directions return the full round trip.
#pragma once
#include "core/interval_resource.h"
#include "core/units.h"
#include "models/bus/irq.h"
#include "models/bus/stream_timing.h"
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

namespace nicsim {

/// Defaults are the E7500 MCH's (each field's source); serverworks_cmic_params() gives the CMIC's.
struct HostBridgeParams {
  /// Names of the downstream ports (their count is the port count): E7500 HI_B, HI_C, HI_D [S2].
  std::vector<std::string> port_names = {"HI_B", "HI_C", "HI_D"};
  double fsb_mhz = 100.0;                ///< 400 MT/s quad-pumped bus, 100 MHz clock [S1][S4] §1
  unsigned fsb_bytes_per_clock = 32;     ///< 64 bits × 4 transfers per clock [D] §1
  double fsb_request_clocks = 6;         ///< estimate: arbitration, request (2), error and snoop phases before the MCH acts
  /// CPU cacheable memory read (a line fill): clocks from the CPU's request until the MCH issues the
  /// DRAM read. estimate: arbitration (1, the bus is usually parked on a CPU) + the 2-clock request
  /// phase; the MCH starts the read speculatively, ahead of the snoop phase (a HITM would replace
  /// the data). Calibrated once vs research §1/§7 load-to-use 150–200 ns (S33: ~155 ns): with the
  /// DDR200 model a page hit/empty line fill is 160/190 ns (tests/unit/chipset_e7500_line_fill.cpp).
  double fsb_mem_read_request_clocks = 3;
  double fsb_response_clocks = 2;        ///< estimate: response phase ahead of the data phase
  double mmio_decode_ns = 40;            ///< estimate: MCH decode + HI port queue; calibrated once vs CPU MMIO read 0.7–0.9 µs (§4)
  double hub_completion_ns = 40;         ///< estimate: HI completion into the FSB response
  double inbound_decode_ns = 30;         ///< estimate: HI request to the memory scheduler, incl. the FSB snoop of inbound accesses; calibrated vs PCI-X DMA read ~60 clocks (§4 [S31])
  double interrupt_fsb_clocks = 6;       ///< estimate: FSB interrupt transaction (arbitration, request, data) from the HI message
  double eoi_ns = 20;                    ///< estimate: CPU EOI into the HI EOI special cycle
  uint64_t interrupt_base = 0xFEE00000;  ///< interrupt message window (Intel SDM vol. 3: FEEx_xxxx)
  uint64_t interrupt_size = 0x100000;
};

class HostBridge : public sc_core::sc_module, public eoi_if {
 public:
  unsigned hub_ports() const { return static_cast<unsigned>(p_.port_names.size()); }

  /// CPU memory and MMIO accesses (HostHw::fsb_target()).
  tlm_utils::simple_target_socket<HostBridge> fsb_target;
  /// The memory controller's path to DRAM.
  tlm_utils::simple_initiator_socket<HostBridge> mem_initiator;
  /// Downstream per hub port (bind to HubLink::down_target); unused ports may stay unbound.
  std::vector<std::unique_ptr<tlm_utils::simple_initiator_socket_optional<HostBridge>>> hub_down;
  /// Upstream per hub port (bind HubLink::up_initiator here).
  std::vector<std::unique_ptr<tlm_utils::simple_target_socket_tagged_optional<HostBridge>>> hub_up;
  /// Interrupt messages to the CPUs' local APICs.
  sc_core::sc_port<apic_msg_if> apic_out;
  /// EOI broadcast, one binding per hub link that carries I/OxAPICs.
  sc_core::sc_port<eoi_if, 0, sc_core::SC_ZERO_OR_MORE_BOUND> eoi_down;

  HostBridge(sc_core::sc_module_name name, const HostBridgeParams& p, uint64_t dram_bytes);

  /// CPU MMIO in [base, base+size) goes down hub port `port` (index into params().port_names).
  void map_hub_window(unsigned port, uint64_t base, uint64_t size);
  /// CPU I/O to ports in [base, base+size) goes down hub port `port` (its Host-HI bridge's
  /// IOBASE/IOLIMIT). `base` and `size` must be multiples of kIoWindowGranularity inside the
  /// 64 KB I/O space; throws std::invalid_argument / std::out_of_range otherwise.
  void map_hub_io_window(unsigned port, uint64_t base, uint64_t size);
  static constexpr uint64_t kIoWindowGranularity = 0x1000;  ///< IOBASE/IOLIMIT hold A[15:12]
  uint64_t dram_bytes() const { return dram_bytes_; }
  /// [addr, addr + len) lies in DRAM (below dram_bytes()); overflow-safe.
  bool in_dram(uint64_t addr, uint64_t len) const { return addr < dram_bytes_ && len <= dram_bytes_ - addr; }
  const HostBridgeParams& params() const { return p_; }
  sc_time fsb_clocks(double n) const { return sec(n / (p_.fsb_mhz * 1e6)); }

  /// Local APIC EOI from a CPU (HostHw::eoi_in()).
  void eoi(unsigned vector, const sc_core::sc_time& delay) override;

  /// Snoop of inbound writes: the MCH snoops the FSB for every upstream (device) write to DRAM (the
  /// snoop time is part of inbound_decode_ns), which invalidates the processors' cached copies of
  /// the lines written: x86 DMA is cache coherent. `observer(addr, len)` is called for each such
  /// write as the MCH accepts it (at the simulation time of the request; its annotated delay is not
  /// waited), once for a posted train's contiguous pieces together (PostedTrainExt). An empty
  /// function removes the observer.
  void set_inbound_write_observer(std::function<void(uint64_t addr, size_t len)> observer) {
    inbound_write_observer_ = std::move(observer);
  }

 private:
  void b_fsb(tlm::tlm_generic_payload& trans, sc_time& delay);
  void fsb_master_abort(tlm::tlm_generic_payload& trans, sc_time& delay, const sc_time& request_done);
  void b_hub_up(int port, tlm::tlm_generic_payload& trans, sc_time& delay);
  /// Debug transport of an inbound access (fast mode, models/bus/dma_engine.h): DRAM only (0 bytes
  /// for anything else); a write is snooped like an inbound write (the observer sees it).
  unsigned dbg_hub_up(int port, tlm::tlm_generic_payload& trans);
  /// A posted train (PostedTrainExt) that is not all DRAM: each piece as its own inbound write.
  void split_train(int port, tlm::tlm_generic_payload& trans, PostedTrainExt& train, sc_time& delay);
  int hub_port_of(uint64_t addr, unsigned len) const;
  int hub_io_port_of(uint64_t port, unsigned len) const;

  HostBridgeParams p_;
  uint64_t dram_bytes_;
  struct Window {
    unsigned port;
    uint64_t base, size;
  };
  std::vector<Window> windows_, io_windows_;
  IntervalResource fsb_data_;
  sc_time inbound_decode_;  ///< ns(p_.inbound_decode_ns), computed once
  std::function<void(uint64_t, size_t)> inbound_write_observer_;
  uint64_t &c_mmio_reads_, &c_mmio_writes_, &c_interrupts_, &c_eois_, &c_mem_reads_, &c_mem_writes_,
      &c_aborts_, &c_io_reads_, &c_io_writes_;
};

}  // namespace nicsim
