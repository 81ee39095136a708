#include "models/scsi/aic7899.h"

namespace nicsim {

PciDmaMasterParams aic7899_params() {
  PciDmaMasterParams p;
  p.device_name = "AIC-7899";
  p.width_bits = 64;    // 64-bit PCI (estimate: AIC-7899-class part, research §1)
  p.pcix = false;       // conventional PCI only: forces segment A to PCI mode [S9]
  p.max_mhz = 66;       // PCI 66 [S9]
  p.bar_size = 4096;    // estimate: 4 KB register window per function
  p.functions = 2;      // dual channel: two PCI functions, INTA# and INTB# [S10 "dual Ultra160"]
  p.register_access_ns = 60.0;  // estimate: not measured; nothing in the bench reads it
  return p;
}

}  // namespace nicsim
