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
}  // namespace nicsim
