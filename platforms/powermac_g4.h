// Apple Power Mac G4 with built-in gigabit Ethernet, 2001 (Digital Audio / QuickSilver): the seed-001
// boxes (research seeds-001-004-platforms-drivers.md §1.1). Registered as PlatformEntry "powermac-g4".
//
//   MPC7450 ─ MaxBus 133 MHz ─ UniNorth ─ PC133 SDRAM
//                                       ─ internal PCI host bridge (f4000000): GMAC (onboard, OpenPIC 41)
//                                       ─ PCI host bridge (f2000000): slots 1-4, 64-bit 33 MHz
// The host is a ChipsetHost (platforms/chipset_host.h) built from UniNorth's blocks
// (models/chipset/uninorth.h); its describe() tree is its own (MPX bus, SDRAM, PCI host bridges).
#pragma once
#include "core/params.h"
#include "platforms/chipset_host.h"

namespace nicsim {

inline constexpr const char* kPowerMacG4Name = "powermac-g4";
/// The part at the built-in Ethernet position (a DeviceEntry name: models/nic/gem).
inline constexpr const char* kPowerMacOnboardNic = "GMAC";
/// The board's kernel and CPU profiles: Linux 2.4.16 on PowerPC, the 2.4.13-2.4.16 era
/// (drivers-sim/kernel/profile_linux_2_4_16_ppc.cpp), and the MPC7450 (profile_ppc7450.cpp, cost
/// table linux-2.4-ppc7450 in costs_linux_2_4_ppc7450.cpp).
inline constexpr const char* kPowerMacKernelProfile = "linux-2.4.16-ppc";
inline constexpr const char* kPowerMacCpuProfile = "ppc7450";
/// OpenPIC source of the built-in Ethernet: research seeds §1.1 ("41: ... OpenPIC Level eth0").
inline constexpr unsigned kPowerMacGmacIrq = 41;

ParamSchema powermac_g4_param_schema();
/// The board from resolved parameters `v` (powermac_g4_param_schema names; missing ones default).
ChipsetBoardSpec powermac_g4_board(const ParamValues& v);
std::vector<SlotSpec> powermac_g4_slots();
/// The topology tree for `nicsim describe powermac-g4` (without the profile lines).
std::string describe_powermac_g4(const ParamValues& v);

}  // namespace nicsim
