// Optional questions a workload may ask a host about its slots (a HostHw implementation can
// also derive from this; workloads dynamic_cast to it and cope when it is absent).
#pragma once
#include "models/bus/pci.h"
#include <string>

namespace nicsim {

/// What two slots' devices share on their way to memory.
struct SlotSharing {
  enum class Level {
    segment,       ///< the same bus segment
    bridge_link,   ///< two segments of one bridge: its link to the north bridge
    north_bridge,  ///< two bridges, each on its own link: only the north bridge and memory
  };
  Level level = Level::segment;
  std::string text;  ///< one line for a report, e.g. "same segment: the two share the bus"
  std::string link;  ///< the link(s) to the north bridge, e.g. "the IMBus imb0" (report notes)
};

struct SlotIntrospection {
  virtual ~SlotIntrospection() = default;
  /// The device in slot `slot` (attached or built in), or nullptr.
  virtual PciDevice* device_in(const std::string& slot) const = 0;
  /// The bus behind slot `slot` in one line, e.g. "P64H2 segment B: PCI-X 100 MHz, 64-bit,
  /// peak 800 MB/s" (call after every device is attached: it fixes the segment's mode).
  virtual std::string slot_bus(const std::string& slot) const = 0;
  /// What slots `a` and `b` share (throws std::invalid_argument for an unknown slot).
  virtual SlotSharing sharing(const std::string& a, const std::string& b) const = 0;
};

/// The host's interrupt controller, for the kernel's /proc/interrupts.
struct IrqIntrospection {
  virtual ~IrqIntrospection() = default;
  /// The controller the device lines go through, by its hardware name ("OpenPIC", "IO-APIC"); the
  /// kernel's PIC driver turns it into its typename column (platforms/proc_interrupts.h).
  virtual std::string irq_chip() const = 0;
};

}  // namespace nicsim
