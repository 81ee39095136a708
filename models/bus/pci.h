// What a PCI/PCI-X device tells its segment, and the per-transaction extension it attaches.
//
// Devices are TLM-2.0 modules: a `pci_target` socket (MMIO from the CPU, BAR-decoded by the
// segment) and a `dma_initiator` socket (bus-master DMA to host memory). Blocking transport with
// annotated delay: a transaction issued with delay d happens at sc_time_stamp()+d, and the returned
// delay is when it completed (for a posted write: when the initiator is released).
#pragma once
#include "core/journey.h"
#include <cstdint>
#include <string>
#include "models/bus/irq.h"
#include "models/ether/frame.h"
#include <tlm>

namespace nicsim {

/// PCI bus commands a master can use for memory (PCI Local Bus 2.2 §3.1.1; PCI-X 1.0 §2.3).
enum class PciCommand { MemRead, MemReadLine, MemReadMultiple, MemWrite, MemWriteInvalidate };
const char* pci_command_name(PciCommand c);  ///< "MR", "MRL", "MRM", "MW", "MWI"

/// Static facts about a device, given to the segment when it is plugged in.
struct PciDeviceInfo {
  std::string name;           ///< e.g. "82546EB"
  unsigned width_bits = 64;   ///< AD bus width the device drives: 32 or 64
  bool pcix_capable = false;  ///< can run in PCI-X mode (else forces the segment to PCI mode)
  unsigned max_mhz = 66;      ///< fastest clock it supports in its best mode (33, 66, 100, 133)
  uint64_t bar_size = 128 * 1024;  ///< memory BAR0 size in bytes (8254x: 128 KB register space)
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
  /// Ethernet ports (NICs): count and the MAC side of port `i`.
  virtual unsigned eth_ports() const { return 0; }
  virtual EthPort* eth_port(unsigned i) { return nullptr; }
};

}  // namespace nicsim
