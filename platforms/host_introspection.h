// Optional questions a workload may ask a host about its slots (a HostHw implementation can
// also derive from this; workloads dynamic_cast to it and cope when it is absent).
#pragma once
#include "models/bus/pci.h"
#include <string>

namespace nicsim {

struct SlotIntrospection {
  virtual ~SlotIntrospection() = default;
  /// The device in slot `slot` (attached or built in), or nullptr.
  virtual PciDevice* device_in(const std::string& slot) const = 0;
  /// The bus behind slot `slot` in one line, e.g. "P64H2 segment B: PCI-X 100 MHz, 64-bit,
  /// peak 800 MB/s" (call after every device is attached: it fixes the segment's mode).
  virtual std::string slot_bus(const std::string& slot) const = 0;
  /// Slots sharing a bus segment with `slot` (itself included).
  virtual bool same_segment(const std::string& a, const std::string& b) const = 0;
};

/// The host's interrupt controller, for the kernel's /proc/interrupts.
struct IrqIntrospection {
  virtual ~IrqIntrospection() = default;
  /// The controller the device lines go through, by its hardware name ("OpenPIC", "IO-APIC"); the
  /// kernel's PIC driver turns it into its typename column (platforms/proc_interrupts.h).
  virtual std::string irq_chip() const = 0;
};

}  // namespace nicsim
