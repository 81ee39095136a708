// Red Hat Linux 8.0's kernel 2.4.18-14 (Sep 2002): 2.4.18 with the NAPI backport, the kernel tg3 1.0
// shipped in (research/tg3-bonding-tcp-gmac-formats.md §1.2, RH = oct-month/linux-kernel-2.4.18@375b865).
// Its net/core/dev.c net_rx_action serves the per-CPU poll_list as the NAPI model does: quota refilled
// from dev->weight, a device with work left re-queued at the tail, softnet_break after one jiffy.
#include "core/registry.h"
#include "drivers-sim/kernel/profiles.h"

namespace nicsim {
namespace {

KernelProfile linux_2_4_18_14_rh() {
  KernelProfile k;
  k.name = "linux-2.4.18-14-rh";
  k.summary = "Red Hat 8.0 Linux 2.4.18-14 i386 SMP, HZ=100, NAPI backport in net_rx_action, pfifo_fast txqueuelen 100";
  k.version = "2.4.18";
  k.arch = "i386";
  k.hz = 100;                                  // include/asm-i386/param.h (2.4)
  k.napi = true;                               // RH net/core/dev.c net_rx_action: the poll_list loop
  k.rx_budget = RxBudget::netdev_max_backlog;  // estimate: as 2.6.11 (budget = netdev_max_backlog); not re-read
  k.netdev_max_backlog = 300;                  // net/core/dev.c 2.4: int netdev_max_backlog = 300
  k.netdev_budget = 300;                       // unused with rx_budget = netdev_max_backlog
  k.weight_p = 64;                             // backlog device weight, as 2.6 (estimate: not re-read in RH)
  k.rx_time_limit_jiffies = 1;                 // net_rx_action: jiffies - start_time > 1 -> softnet_break
  k.tx_queue_len = 100;                        // drivers/net/net_init.c ether_setup 2.4
  k.qdisc = "pfifo_fast";
  k.copy_routine = "copy_{to,from}_user (arch/i386/lib/usercopy.c): cost entries copy_user_cached / copy_user_uncached, "
                   "as linux-2.4.20-i386";
  k.csum_routine = "csum_partial (arch/i386/lib/checksum.S), as linux-2.4.20-i386";
  k.irq_policy = IrqPolicy::single_cpu;  // as linux-2.4.20-i386 (2.4 P4 SMP kernels sent all IRQs to CPU0)
  k.source = "oct-month/linux-kernel-2.4.18@375b865 net/core/dev.c net_rx_action; other fields as linux-2.4.20-i386";
  return k;
}

Registrar<KernelProfile> reg_kernel_2_4_18_rh{linux_2_4_18_14_rh()};

}  // namespace
}  // namespace nicsim
