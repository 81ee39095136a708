// What a PCI/PCI-X device tells its segment, and the per-transaction extension it attaches.
//
// Devices are TLM-2.0 modules: a `pci_target` socket (MMIO from the CPU, BAR-decoded by the
// segment) and a `dma_initiator` socket (bus-master DMA to host memory). Blocking transport with
// annotated delay: a transaction issued with delay d happens at sc_time_stamp()+d, and the returned
// delay is when it completed (for a posted write: when the initiator is released).
//
// Address spaces: a transaction is a memory-space cycle unless it carries a PciSpaceExt saying
// PciSpace::Io (x86 IN/OUT: PCI I/O Read / I/O Write, PCI 2.2 §3.1.1). Every model on the CPU
// path (CPU, MCH, hub link, bridge, segment, device) passes the extension through and decodes I/O
// addresses only against I/O windows and I/O BARs, memory addresses only against memory ones.
// I/O writes are never posted (PCI 2.2 §3.2.5: only memory writes may be posted): each hop
// returns the delay to the write's completion, as for a read.
#pragma once
#include "core/journey.h"
#include <cstdint>
#include <stdexcept>
#include <string>
#include "models/bus/irq.h"
#include "models/ether/frame.h"
#include <tlm>

namespace nicsim {

/// PCI bus commands a master can use for memory (PCI Local Bus 2.2 §3.1.1; PCI-X 1.0 §2.3).
enum class PciCommand { MemRead, MemReadLine, MemReadMultiple, MemWrite, MemWriteInvalidate };
const char* pci_command_name(PciCommand c);  ///< "MR", "MRL", "MRM", "MW", "MWI"

/// PCI address spaces a CPU-side transaction can address (configuration space is not modelled).
enum class PciSpace { Memory, Io };
const char* pci_space_name(PciSpace s);  ///< "memory", "I/O"

/// Marks a transaction as an I/O-space cycle (PciSpace::Io): the address is an x86 I/O port
/// (0..0xFFFF, 16-bit decode as on the E7500 / P64H2), the length 1, 2 or 4 bytes. Absent (or
/// PciSpace::Memory): a memory cycle. Initiators attach it; every hop leaves it in place.
struct PciSpaceExt : tlm::tlm_extension<PciSpaceExt> {
  PciSpace space = PciSpace::Io;
  tlm::tlm_extension_base* clone() const override { return new PciSpaceExt(*this); }
  void copy_from(const tlm::tlm_extension_base& o) override { *this = static_cast<const PciSpaceExt&>(o); }
};
/// The address space of `t`: PciSpace::Io when it carries a PciSpaceExt saying so, else memory.
inline PciSpace pci_space(const tlm::tlm_generic_payload& t) {
  auto* e = t.get_extension<PciSpaceExt>();
  return e ? e->space : PciSpace::Memory;
}
inline bool is_io_space(const tlm::tlm_generic_payload& t) { return pci_space(t) == PciSpace::Io; }
/// x86 I/O ports: 16 address bits (Intel SDM vol. 1 chapter "Input/Output", "I/O Port Addressing": 64 K 8-bit ports).
inline constexpr uint64_t kIoSpaceBytes = 0x10000;

/// Static facts about a device, given to the segment when it is plugged in.
struct PciDeviceInfo {
  std::string name;           ///< e.g. "82546EB"
  unsigned width_bits = 64;   ///< AD bus width the device drives: 32 or 64
  bool pcix_capable = false;  ///< can run in PCI-X mode (else forces the segment to PCI mode)
  unsigned max_mhz = 66;      ///< fastest clock it supports in its best mode (33, 66, 100, 133)
  uint64_t bar_size = 128 * 1024;  ///< memory BAR0 size in bytes (8254x: 128 KB register space)
  /// I/O BAR size in bytes per function (a power of two, 4..256, PCI 2.2 §6.2.5.1); 0: the
  /// function has no I/O BAR (the 8254x models decode memory space only).
  uint32_t io_bar_size = 0;
  unsigned functions = 1;     ///< PCI functions (the 82546EB has two MACs behind one interface)
  /// PCI-X Command register as BIOS/driver left it: Maximum Memory Read Byte Count (512, 1024,
  /// 2048, 4096; default 512) and Maximum Outstanding Split Transactions (1..32; default 1).
  /// Used only when the segment runs in PCI-X mode (PCI-X 1.0 §7.2; research §3 [S28]).
  uint32_t mmrbc_bytes = 512;
  unsigned max_outstanding_splits = 1;
};

/// Extension a DMA master attaches to say which command to use and whom the traffic serves, so
/// the segment can record bus waits in the right journey. Optional: without it the segment uses
/// MR/MRM by length for reads and MW for writes.
struct PciTxnExt : tlm::tlm_extension<PciTxnExt> {
  PciCommand cmd = PciCommand::MemWrite;
  JourneyId journey = 0;
  const char* what = "";  ///< e.g. "RX data", "TX desc fetch"
  tlm::tlm_extension_base* clone() const override { return new PciTxnExt(*this); }
  void copy_from(const tlm::tlm_extension_base& o) override { *this = static_cast<const PciTxnExt&>(o); }
};

/// A device that plugs into a PCI/PCI-X segment. One bus interface (one target socket, one master
/// socket, so one arbitration requester) carrying `info().functions` PCI functions, each with its
/// own memory BAR and its own INTx pin (the 82546EB: two MACs, INTA# and INTB#).
class PciDevice {
 public:
  virtual ~PciDevice() = default;
  virtual const PciDeviceInfo& info() const = 0;
  /// MMIO target; the segment forwards accesses whose address falls in any function's BAR, with
  /// the absolute bus address left in the payload.
  virtual tlm::tlm_target_socket<>& pci_target() = 0;
  /// Bus-master socket for DMA to host memory.
  virtual tlm::tlm_initiator_socket<>& dma_initiator() = 0;
  /// INTx pin of function `fn`.
  virtual sc_core::sc_port<irq_if>& irq_out(unsigned fn) = 0;
  /// The platform assigns function `fn`'s BAR0 base (bus address) at elaboration.
  virtual void set_bar(unsigned fn, uint64_t base) = 0;
  virtual uint64_t bar(unsigned fn) const = 0;
  /// The platform (like a BIOS) assigns function `fn`'s I/O BAR base (an I/O port, aligned to
  /// info().io_bar_size) at elaboration. Default: a device without I/O BARs throws
  /// std::logic_error. The segment forwards an I/O cycle whose port falls in
  /// [io_bar(fn), io_bar(fn) + io_bar_size) to pci_target() with the port left in the payload.
  virtual void set_io_bar(unsigned fn, uint64_t base);
  /// Function `fn`'s I/O BAR base; 0 = unassigned (or no I/O BAR).
  virtual uint64_t io_bar(unsigned fn) const { return 0; }
  /// The segment's mode, told to each device it carries when the mode is resolved (at the end of
  /// elaboration at the latest): what a device samples at reset on M66EN (PCI 2.2 §7.5.1: 66 MHz
  /// when high) and PCIXCAP / the PCI-X initialization pattern (PCI-X 1.0 §6.2). `mhz`: 33, 66,
  /// 100 or 133. Default: ignored (a device whose registers do not show the bus mode).
  virtual void bus_mode(bool pcix, unsigned mhz) {
    (void)pcix;
    (void)mhz;
  }
  /// Ethernet ports (NICs): count and the MAC side of port `i`.
  virtual unsigned eth_ports() const { return 0; }
  virtual EthPort* eth_port(unsigned i) { return nullptr; }
};

}  // namespace nicsim
