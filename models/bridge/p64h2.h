// Intel 82870P2 (P64H2) PCI/PCI-X bridge: the PcixBridge model (models/bridge/pcix_bridge.h) with
// its default parameters, which are the P64H2's (research/e7500-p64h2-pcix.md §2): two 64-bit
// segments sharing one Hub Interface 2.0 link, one I/OxAPIC per segment.
#pragma once
#include "models/bridge/pcix_bridge.h"

namespace nicsim {

using P64H2Params = PcixBridgeParams;
using P64H2 = PcixBridge;

}  // namespace nicsim
