// Intel E7500 Memory Controller Hub ("Plumas"): the HostBridge model (models/chipset/host_bridge.h)
// with its default parameters, which are the E7500's (research/e7500-p64h2-pcix.md §1, §4): a
// 400 MT/s FSB, three Hub Interface 2.0 ports HI_B, HI_C, HI_D.
#pragma once
#include "models/chipset/host_bridge.h"

namespace nicsim {

using E7500MchParams = HostBridgeParams;
using E7500Mch = HostBridge;

}  // namespace nicsim
