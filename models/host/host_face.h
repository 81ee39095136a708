// HostFace: what software running on a host reaches of its hardware, and nothing more.
//
// A kernel model (drivers-sim/kernel) binds its CPU complex to these and reads/writes physical
// memory through them; it never sees slots, bridges or how the host was assembled. A platform's
// host (platforms/testbed.h HostHw) implements this face plus the assembly operations.
#pragma once
#include "models/bus/irq.h"
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <systemc>
#include <tlm>

namespace nicsim {

class HostFace {
 public:
  virtual ~HostFace() = default;
  /// The host's name as the scenario spells it (e.g. "alpha").
  virtual const std::string& name() const = 0;
  /// The north bridge's front-side-bus target: CPU MMIO and memory accesses go here.
  virtual tlm::tlm_target_socket<>& fsb_target() = 0;
  /// Interrupt messages to CPUs leave here; bind to the CPU complex's local APICs.
  virtual sc_core::sc_port<apic_msg_if>& apic_out() = 0;
  /// Local APIC EOIs come in here.
  virtual eoi_if& eoi_in() = 0;
  /// Functional (zero-time) access to host DRAM for software models: descriptor rings and packet
  /// buffers are written and read by the driver through this; timing is charged by the caller.
  /// Addresses are physical bus addresses in bytes; the range must lie inside [0, dram_bytes()).
  virtual void mem_write(uint64_t addr, const void* src, size_t len) = 0;
  virtual void mem_read(uint64_t addr, void* dst, size_t len) const = 0;
  /// Bytes of DRAM (addresses [0, dram_bytes) are memory; MMIO lives above).
  virtual uint64_t dram_bytes() const = 0;
  /// Call `observer(addr, len)` (bytes) for every device (DMA) write to DRAM the chipset snoops:
  /// the CPUs' cached copies of those bytes are invalid from then on (the kernel model charges the
  /// cache misses when software reads them). An empty function removes it. Default: a platform
  /// without a snooping chipset model never calls it (software then sees no DMA cache misses).
  virtual void set_dma_write_observer(std::function<void(uint64_t addr, size_t len)> observer) { (void)observer; }
};

}  // namespace nicsim
