// Linux 2.4.16 on 32-bit PowerPC (arch/ppc, a Power Mac "Core99" machine: UniNorth, KeyLargo's
// OpenPIC), the kernel of seed 001's era (2.4.13-2.4.16, Nov 2001; research
// seeds-001-004-platforms-drivers.md §1.1). Every field is read from tag 2.4.16 of
// MaximeChretien/linux-history (cited LH@2.4.16:PATH). Its paths are charged from the cost table the
// CPU profile names (ppc7450 -> "linux-2.4-ppc7450", costs_linux_2_4_ppc7450.cpp).
#include "core/registry.h"
#include "drivers-sim/kernel/profiles.h"

namespace nicsim {
namespace {

KernelProfile linux_2_4_16_ppc() {
  KernelProfile k;
  k.name = "linux-2.4.16-ppc";
  k.summary = "Linux 2.4.16 PowerPC (Power Mac, OpenPIC), HZ=100, non-NAPI net_rx_action, pfifo_fast txqueuelen 100";
  k.version = "2.4.16";
  k.arch = "ppc";
  k.hz = 100;  // LH@2.4.16:include/asm-ppc/param.h: HZ 100 (research seeds §1.1)
  // LH@2.4.16:net/core/dev.c: no poll_list; netif_rx queues on softnet_data's input_pkt_queue and
  // net_rx_action drains it (both seed-001 drivers call netif_rx from their ISR).
  k.napi = false;
  k.rx_budget = RxBudget::netdev_max_backlog;  // LH@2.4.16:net/core/dev.c net_rx_action: bugdet = netdev_max_backlog
  k.netdev_max_backlog = 300;                  // LH@2.4.16:net/core/dev.c: int netdev_max_backlog = 300
  k.netdev_budget = 300;                       // unused with rx_budget = netdev_max_backlog (no such sysctl in 2.4.16)
  k.weight_p = 64;                             // unused without NAPI (2.4.16 has no weight_p)
  k.rx_time_limit_jiffies = 1;                 // LH@2.4.16:net/core/dev.c net_rx_action: jiffies - start_time > 1
  k.tx_queue_len = 100;                        // LH@2.4.16:drivers/net/net_init.c ether_setup: tx_queue_len = 100
  k.qdisc = "pfifo_fast";                      // LH@2.4.16:net/sched/sch_generic.c dev_activate: qdisc_create_dflt(pfifo_fast_ops)
  // LH@2.4.16:arch/ppc/lib/string.S __copy_tofrom_user: aligns the destination to a 32-byte line
  // (L1_CACHE_LINE_SIZE 32, include/asm-ppc/cache.h), then per whole line a dcbt of the source one
  // line ahead (MAX_L1_COPY_PREFETCH is not defined in 2.4.16, so the one-line branch) and a dcbz
  // of the destination line (no read of a line about to be overwritten), four lwz/stw pairs each.
  k.copy_routine = "__copy_tofrom_user (arch/ppc/lib/string.S: 32-byte lines, dcbt one line ahead, dcbz on the "
                   "destination): cost entries copy_user_cached (from the user) and copy_user_uncached (to the "
                   "user, of just-DMA'd data)";
  // LH@2.4.16:arch/ppc/lib/checksum.S csum_partial: one lwzu + adde per word (a bdnz loop, not
  // unrolled), csum_partial_copy_generic for the copy-and-checksum variants (include/asm-ppc/checksum.h).
  k.csum_routine = "csum_partial (arch/ppc/lib/checksum.S: lwzu/adde per 32-bit word): cost entry csum_partial over "
                   "received TCP data without CHECKSUM_UNNECESSARY; the transmit checksum is not charged (see "
                   "docs/developers.md \"Checksum offload\")";
  // LH@2.4.16:arch/ppc/kernel/open_pic.c openpic_init: every source openpic_mapirq(i, 1<<0), i.e. to
  // processor 0 (an SMP kernel can change irq_affinity from /proc; nothing in the era's setup did).
  k.irq_policy = IrqPolicy::single_cpu;
  k.source = "Linux 2.4.16 (MaximeChretien/linux-history tag 2.4.16): include/asm-ppc/param.h, net/core/dev.c, "
             "drivers/net/net_init.c, net/sched/sch_generic.c, arch/ppc/lib/string.S, arch/ppc/lib/checksum.S, "
             "arch/ppc/kernel/open_pic.c";
  return k;
}

Registrar<KernelProfile> reg_kernel_2_4_16_ppc{linux_2_4_16_ppc()};

}  // namespace
}  // namespace nicsim
