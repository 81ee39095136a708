// Apple UniNorth ("Uni-N") system controller of the 2001 Power Mac G4 (Digital Audio, QuickSilver):
// the MaxBus (MPX) interface to the MPC7450s, the PC133 SDRAM controller, and its PCI host bridges
// ("It contains 3 controllers in one ASIC": Linux 2.4 arch/ppc/kernel/pmac_pci.c): the one at
// 0xf2000000 that carries the PCI slots and KeyLargo ("We 'know' that the bridge at f2000000 has the
// PCI slots", setup_uninorth), the internal one at 0xf4000000 whose bus carries the on-die Ethernet
// MAC, /pci@f4000000/ethernet@f (device 15; pmac_pci_enable_device_hook: a "gmac" child of
// "uni-north"), and the AGP bridge at 0xf0000000 (not modelled). Research: seeds-001-004 §1.1,
// tg3-bonding-tcp-gmac-formats.md §3.
//
// No UniNorth datasheet was found. Each block is an existing model with parameters, and every value
// says where it came from:
//  * the system controller = HostBridge (models/chipset/host_bridge.h) on the 133 MHz 64-bit MPX bus;
//  * the path from its memory/CPU core to each PCI host bridge = HubLink (models/bus/hub_link.h) as an
//    on-die port (wide, short crossing);
//  * each PCI host bridge = PcixBridge (models/bridge/pcix_bridge.h) in conventional-PCI mode with one
//    segment used: inbound reads are delayed transactions with the bridge's prefetch, writes posted;
//  * the interrupt controller, KeyLargo's OpenPIC (MPIC), as IoxApic (models/chipset/ioxapic.h), whose
//    level rule is the OpenPIC's for a level source: delivered when asserted and not in service, in
//    service until the EOI, delivered again at the EOI while still asserted (Linux 2.4
//    arch/ppc/kernel/open_pic.c: level sources are acknowledged by openpic_eoi at the end of the
//    handler). Each host bridge carries its own instance; their sources are distinct;
//  * memory = Dram (models/mem/dram.h) as PC133 SDRAM, one 64-bit channel, not interleaved.
#pragma once
#include "models/bridge/pcix_bridge.h"
#include "models/bus/hub_link.h"
#include "models/chipset/host_bridge.h"
#include "models/chipset/ioxapic.h"
#include "models/mem/dram.h"
#include <string>

namespace nicsim {

/// The MPX bus clock of the 2001 Power Mac G4s: 133 MHz (research seeds §1.1: CNN/Macworld
/// 2001-01-12, Apple TIL 58763), i.e. 400/3 MHz.
inline constexpr double kUniNorthBusMhz = 400.0 / 3.0;

/// The system controller: ports "pci-internal" (0xf4000000) and "pci-slots" (0xf2000000), the MPX
/// bus at `bus_mhz`; the protocol constants are estimates (see uninorth.cpp).
HostBridgeParams uninorth_params(double bus_mhz = kUniNorthBusMhz);
/// UniNorth's on-die port to one of its PCI host bridges (estimates).
HubLinkParams uninorth_pci_port_params(double bus_mhz = kUniNorthBusMhz);
/// One PCI host bridge; `mr_fetch_bytes` / `mrm_prefetch_bytes`: what it reads from SDRAM for a
/// device's Memory Read / Memory Read Multiple (estimates, platform parameters; the GMAC reads with
/// Memory Read unless the driver sets GREG_CFG bit 11, models/nic/gem). `wait_states`: a read whose
/// first data can reach the bus within PCI 2.2's 16-clock initial latency is held with wait states
/// (true) or every read is a delayed transaction (false, the default reading); see uninorth.cpp.
PcixBridgeParams uninorth_pci_bridge_params(uint32_t mr_fetch_bytes, uint32_t mrm_prefetch_bytes,
                                            bool wait_states = false);
/// A conventional PCI bus of `width_bits` (32 or 64) at most `max_mhz` (33 or 66), 32-byte cache
/// lines, latency timer 16 (what Linux/PPC 2.4 programs into UniNorth's internal devices).
PciSegmentParams uninorth_pci_bus_params(const std::string& label, unsigned width_bits, unsigned max_mhz);
/// The OpenPIC: 64 sources (estimate), level-triggered inputs; the GMAC is source 41.
IoxApicParams openpic_params();
/// PC133 SDRAM of `bytes`, CAS latency `tcl` clocks (2 or 3), one 64-bit channel, 32-byte lines.
DramParams pc133_sdram_params(uint64_t bytes, double tcl);

}  // namespace nicsim
