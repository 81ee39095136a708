#include "models/bus/pci.h"

namespace nicsim {
const char* pci_command_name(PciCommand c) {
  switch (c) {
    case PciCommand::MemRead: return "MR";
    case PciCommand::MemReadLine: return "MRL";
    case PciCommand::MemReadMultiple: return "MRM";
    case PciCommand::MemWrite: return "MW";
    case PciCommand::MemWriteInvalidate: return "MWI";
  }
  return "?";
}
const char* pci_space_name(PciSpace s) { return s == PciSpace::Io ? "I/O" : "memory"; }
void PciDevice::set_io_bar(unsigned fn, uint64_t base) {
  throw std::logic_error("PCI device " + info().name + " has no I/O BAR (function " + std::to_string(fn) + ")");
}
}  // namespace nicsim
