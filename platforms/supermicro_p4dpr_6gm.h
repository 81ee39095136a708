// SuperMicro P4DPR-6GM+ (1U, dual Xeon, Intel E7500): the seed-000 box
// (research/e7500-p64h2-pcix.md §1 "SuperMicro P4DPR-6GM+"). Registered as PlatformEntry
// "supermicro-p4dpr-6gm+".
//
//   E7500 MCH ── HI_C (HI 2.0, 1 GB/s) ── P64H2
//     segment A: PCI 66 MHz (onboard): 82544GC position (32-bit PCI 66) + AIC-7899 SCSI (PCI 64/66)
//     segment B: one 64-bit PCI-X 100 MHz slot
#pragma once
#include "core/params.h"
#include "platforms/e7500_host.h"

namespace nicsim {

inline constexpr const char* kP4dprName = "supermicro-p4dpr-6gm+";

/// The platform's parameters (cpu_mhz, cpus, dram_mb, ...), each with unit and source.
ParamSchema p4dpr_param_schema();
/// The board definition for parameter values `v` (defaults for anything `v` lacks).
E7500BoardSpec p4dpr_board(const ParamValues& v);
/// Slot list as the scenario loader sees it.
std::vector<SlotSpec> p4dpr_slots();

}  // namespace nicsim
