// ServerWorks CIOB-X2 PCI-X I/O bridge (GC-LE chipset): two 64-bit PCI-X segments behind one IMBus
// link (lspci shows each CIOB-X2 as two functions, 00:10.0/.2 and 00:11.0/.2; research
// tg3-bonding-tcp-gmac-formats.md §1.3). No CIOB-X2 datasheet timing was found (research
// seeds-001-004 §4.2, Gaps 4): it is the PcixBridge model (models/bridge/pcix_bridge.h), i.e. the
// PCI-X rules the P64H2 follows (split responses and completions, posted writes cut through per
// ADB, delayed reads in PCI mode, no outbound prefetch), with every constant an estimate set from
// the P64H2's and one I/OxAPIC for both segments.
#pragma once
#include "models/bridge/pcix_bridge.h"

namespace nicsim {

/// The CIOB-X2's bridge parameters (all estimates; the comment of each says from what).
PcixBridgeParams ciobx2_params();
/// Its I/OxAPIC: one per CIOB-X2, 16 inputs (estimate).
IoxApicParams ciobx2_ioxapic_params();
/// A CIOB-X2 segment: 64-bit, PCI-X ≤133 MHz / PCI ≤66 MHz; `label` "A" / "B".
PciSegmentParams ciobx2_segment_params(const std::string& label);

}  // namespace nicsim
