// ServerWorks Grand Champion LE (GC-LE) north bridge, the CMIC-LE (lspci: "CMIC-WS Host Bridge
// (GC-LE chipset)", research tg3-bonding-tcp-gmac-formats.md §1.3), and its IMBus links to the
// CIOB-X2 I/O bridges. No GC-LE datasheet timing was found (research seeds-001-004 §4.2, Gaps 4):
// the CMIC is the HostBridge model (models/chipset/host_bridge.h) with the FSB the board has and
// the E7500's bridge latencies as estimates, and the IMBus is the HubLink packet-link model
// (models/bus/hub_link.h) at the IMBus width and clock. Every value below says where it came from.
#pragma once
#include "models/bus/hub_link.h"
#include "models/chipset/host_bridge.h"

namespace nicsim {

/// The CMIC's parameters: ports "IMB0" and "IMB1" (one IMBus per CIOB-X2; the thin IMB to the
/// CSB5 south bridge is not modelled), a 400 MT/s FSB, the rest estimates.
HostBridgeParams serverworks_cmic_params();

/// One IMBus link: 2 bytes wide at 400 MT/s per direction, full duplex (1.6 GB/s both ways
/// together); packet header, payload size and crossing time are estimates (HI 2.0's values).
HubLinkParams imbus_link_params();

}  // namespace nicsim
