// The CPU profile of seed 001's Power Mac G4s: a Motorola MPC7450-class PowerPC ("G4", 2001).
// Its cost table is "linux-2.4-ppc7450" (costs_linux_2_4_ppc7450.cpp), the paths of the PowerPC
// Linux 2.4 kernel profile linux-2.4.16-ppc (profile_linux_2_4_16_ppc.cpp).
//
// Sources:
//  [FS]  Motorola MPC7450/MPC7451 fact sheet: separate 32 KB L1 instruction and data caches, 8-way;
//        256 KB on-chip L2, 8-way, 256-bit interface at the core clock; backside L3 with a 64-bit
//        data path; MPX bus up to 133 MHz.
//  [HS]  MPC7457 RISC Microprocessor Hardware Specifications (same core family), Features: 32-byte
//        (eight-word) L1 cache block, MESI data cache coherency.
//  [AN]  AN2203 MPC7450 RISC Microprocessor Family Software Optimization Guide §3.8.3-3.8.4: L3 of
//        1 MB (64-byte lines of two sectors) or 2 MB (128-byte lines, four sectors); a miss fetches
//        the 32-byte sector; the L2 is two-sectored (32-byte sectors).
//  [LX]  Linux 2.4 include/asm-ppc/cache.h: L1_CACHE_BYTES 32 (every 6xx/7xx/74xx); include/asm-ppc/
//        byteorder.h: big-endian, st_le32/ld_le32 are stwbrx/lwbrx.
//  [R]   research/seeds-001-004-platforms-drivers.md §1.1: the Power Mac G4 models with built-in
//        gigabit by Nov 2001 and their 7450 clocks (Digital Audio 667/733 MHz, QuickSilver 733 /
//        867 / dual 800 MHz), 133 MHz system bus, L3 by model.
#include "core/registry.h"
#include "drivers-sim/kernel/profiles.h"

namespace nicsim {
namespace {

CpuProfile ppc7450() {
  CpuProfile c;
  c.name = "ppc7450";
  c.summary = "Motorola MPC7450-class PowerPC G4 (7450/7451), 667-867 MHz, 32 KB L1 I/D, 256 KB on-die L2, "
              "133 MHz MPX bus (MaxBus), big-endian";
  c.isa = "PowerPC 32-bit (AltiVec), MPX bus ≤133 MHz";
  // [R]: the 7450 clocks of the 2001 Power Macs with built-in gigabit. The platform chooses the
  // clock (powermac-g4 cpu_mhz, default argued there); the cost table covers this range.
  c.min_mhz = 667;
  c.max_mhz = 867;
  // [HS][LX]: 32-byte L1 blocks, the unit of MESI coherency on the MPX bus (what a DMA write
  // invalidates and a miss fills); the L2's and L3's longer lines are sectored in 32-byte pieces
  // and filled a sector at a time [AN].
  c.cache_line_bytes = 32;
  c.l1d_kb = 32;   // [FS]
  c.l2_kb = 256;   // [FS] on-chip, at the core clock
  // The L3 is external and differs by model (1 MB at 3:1 on the Digital Audio 733, 2 MB at 4:1 on
  // the QuickSilver 867 / dual 800, none on the QuickSilver 733 [R]): the platform says which; the
  // profile's value is the chip without one (informational, as the other cache sizes).
  c.l3_kb = 0;
  c.byte_order = ByteOrder::big;  // [LX] __BIG_ENDIAN; research §1.1 "Byte order"
  c.cost_profile = "linux-2.4-ppc7450";
  c.source = "MPC7450/7451 fact sheet; MPC7457 HW spec (L1 block); AN2203 §3.8; Linux 2.4 asm-ppc/cache.h, "
             "byteorder.h; research/seeds-001-004-platforms-drivers.md §1.1";
  return c;
}

Registrar<CpuProfile> reg_cpu_ppc7450{ppc7450()};

}  // namespace
}  // namespace nicsim
