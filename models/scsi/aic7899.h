// Adaptec AIC-7899-class dual-channel Ultra160 SCSI controller, as soldered on the SuperMicro
// P4DPR-6GM+ (research/e7500-p64h2-pcix.md §1 [S10]; the exact part is an estimate). Only its bus
// interface is modelled: a conventional-PCI 64-bit 66 MHz master (no PCI-X), which is why the
// onboard P64H2 segment runs in PCI 66 mode [S9]. It is idle unless a scenario or workload gives
// its DMA engine a job (PciDmaMaster::start), e.g. to load the segment while a NIC runs.
#pragma once
#include "models/bus/pci_dma_master.h"

namespace nicsim {

/// Bus-interface facts of the AIC-7899 (conventional PCI 64/66, two functions = two channels).
PciDmaMasterParams aic7899_params();

class Aic7899 : public PciDmaMaster {
 public:
  explicit Aic7899(sc_core::sc_module_name name) : PciDmaMaster(name, aic7899_params()) {}
};

}  // namespace nicsim
