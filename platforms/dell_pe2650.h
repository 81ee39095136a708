// Dell PowerEdge 2650 (2U, dual Xeon, ServerWorks GC-LE): the seed-004 box (research
// seeds-001-004-platforms-drivers.md §4.2, tg3-bonding-tcp-gmac-formats.md §1.3). Registered as
// PlatformEntry "dell-pe2650".
//
//   CMIC-LE ─ IMB0 ─ CIOB-X2 ciob0: segment A = PCI bus 1 (riser slots 1, 2), B = bus 2 (riser slot 3)
//           ─ IMB1 ─ CIOB-X2 ciob1: segment A = PCI bus 3 (onboard BCM5701 × 2, devices 06/08, IRQ 28/29),
//                                   segment B = bus 4 (Intel 80303 → AIC-7899 on bus 05: not modelled)
#pragma once
#include "core/params.h"
#include "platforms/chipset_host.h"

namespace nicsim {

inline constexpr const char* kPe2650Name = "dell-pe2650";
/// The part soldered at the two onboard NIC positions (a DeviceEntry name).
inline constexpr const char* kPe2650OnboardNic = "BCM5701";

/// The platform's parameters (cpu_mhz, cpus, dram_mb, onboard_nics, riser_bus1_mhz, ...).
ParamSchema pe2650_param_schema();
/// The board for parameter values `v`; `slot1_used`: a device sits in riser slot 1 (the manual:
/// bus 1 runs ≤100 MHz with slots 1 and 2, 133 MHz with slot 2 alone).
ChipsetBoardSpec pe2650_board(const ParamValues& v, bool slot1_used);
/// Slot list as the scenario loader sees it.
std::vector<SlotSpec> pe2650_slots();

}  // namespace nicsim
