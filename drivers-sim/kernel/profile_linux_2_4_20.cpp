// The first kernel and CPU profiles: Linux 2.4.20 i386 on a Pentium 4 Xeon (Prestonia), the seed-000
// hosts. Together they are what the model ran before profiles were data ("linux-2.4.20-p4xeon").
#include "core/registry.h"
#include "drivers-sim/kernel/profiles.h"

namespace nicsim {
namespace {

KernelProfile linux_2_4_20_i386() {
  KernelProfile k;
  k.name = "linux-2.4.20-i386";
  k.summary = "Linux 2.4.20 i386 SMP, HZ=100, non-NAPI net_rx_action, pfifo_fast txqueuelen 100";
  k.version = "2.4.20";
  k.arch = "i386";
  k.hz = 100;  // tg3-bonding-tcp-gmac-formats.md §2.3: HZ = 100 on i386 (include/asm-i386/param.h)
  // Seed 000's drivers hand frames to netif_rx from the ISR; the modelled net_rx_action drains the
  // backlog itself (research/seeds-001-004-platforms-drivers.md §2: "netif_rx() in hard-IRQ context;
  // no NAPI (2.4)").
  k.napi = false;
  k.rx_budget = RxBudget::netdev_max_backlog;  // net/core/dev.c 2.4: budget = netdev_max_backlog
  k.netdev_max_backlog = 300;                  // net/core/dev.c 2.4: int netdev_max_backlog = 300
  k.netdev_budget = 300;                       // unused with rx_budget = netdev_max_backlog
  k.weight_p = 64;                             // net/core/dev.c: int weight_p = 64 (unused without NAPI)
  k.rx_time_limit_jiffies = 1;                 // net_rx_action: jiffies - start_time > 1 -> softnet_break
  k.tx_queue_len = 100;                        // drivers/net/net_init.c ether_setup 2.4: tx_queue_len = 100
  k.qdisc = "pfifo_fast";                      // net/sched/sch_generic.c: the default of every device
  k.copy_routine = "copy_{to,from}_user (arch/i386/lib/usercopy.c __copy_user): cost entries copy_user_cached "
                   "(from the user) and copy_user_uncached (to the user, of just-DMA'd data)";
  k.csum_routine = "csum_partial (arch/i386/lib/checksum.S): cost entry csum_partial over received TCP data "
                   "without CHECKSUM_UNNECESSARY; the transmit checksum is not charged (see docs/developers.md "
                   "\"Checksum offload\")";
  k.irq_policy = IrqPolicy::single_cpu;  // linux24-smp-network-costs.md: clean 2.4.20 sends all IRQs to CPU0
  k.source = "net/core/dev.c, drivers/net/net_init.c, include/asm-i386/param.h (Linux 2.4.20); research notes as cited";
  return k;
}

CpuProfile xeon_prestonia() {
  CpuProfile c;
  c.name = "xeon-prestonia";
  c.summary = "Intel Xeon (Prestonia, NetBurst, 0.13 µm, 512 KB L2, 400 MT/s FSB), 2.0-2.4 GHz";
  c.isa = "IA-32 (i686, SSE2)";
  // research/e7500-p64h2-pcix.md S3 (Xeon 2.20 GHz, 512K cache, 400 MHz FSB) and §5 [S38] (2.4 GHz);
  // linux24-smp-network-costs.md: P4DPR-6GM+ fielded with 2.00 GHz Xeons.
  c.min_mhz = 2000;
  c.max_mhz = 2400;
  // research/e7500-p64h2-pcix.md §2/§7: 64-byte lines (the 128-byte L2 lines are two 64-byte sectors).
  c.cache_line_bytes = 64;
  // NetBurst's read sector: a miss or a prefetch brings two adjacent 64-byte lines (IA-32 Intel
  // Architecture Optimization Reference Manual, 248966, Table 1-1 note 1; "adjacent cache line
  // prefetch", ch. 1); a write is 64 bytes.
  c.read_sector_bytes = 128;
  c.l1d_kb = 8;    // estimate: NetBurst 8 KB L1 data cache (not in the research notes; unused by the model)
  c.l2_kb = 512;   // research/e7500-p64h2-pcix.md S3: 512K cache
  c.byte_order = ByteOrder::little;  // IA-32 is little-endian (include/asm-i386/byteorder.h: little_endian.h)
  c.cost_profile = "linux-2.4.20-p4xeon";  // drivers-sim/kernel/costs_linux_2_4_20_p4xeon.cpp
  c.source = "research/e7500-p64h2-pcix.md §2, §5, §7, S3";
  return c;
}

Registrar<KernelProfile> reg_kernel_2_4_20{linux_2_4_20_i386()};
Registrar<CpuProfile> reg_cpu_xeon_prestonia{xeon_prestonia()};

}  // namespace
}  // namespace nicsim
