// Linux 2.6.11 and 2.6.14 (i386 SMP), the kernels of seed 003 (research/seeds-001-004-platforms-drivers.md
// §3.4: LH@1274fcd685 = 2.6.11). What the model reads of them is data; the paths that differ from 2.4
// (NAPI's poll_list, the backlog device, the separate netdev_budget) are the kernel model's NAPI code
// (dev.cpp: net_rx_action_napi, BacklogDev), chosen by these fields, never by a version test.
//
// What differs between the two, from the source:
//  * HZ: 2.6.11 include/asm-i386/param.h `# define HZ 1000`; 2.6.13 made it a choice (kernel/Kconfig.hz,
//    added for 2.6.12-rc4 by the "Timer Interrupt Frequency Configuration" patch) whose default is
//    HZ_250, so a default 2.6.14 build ticks at 250 Hz. net_rx_action's one-jiffy time limit is
//    therefore 1 ms on 2.6.11 and 4 ms on 2.6.14. (Seed 003 does not give the .config: the default
//    is taken, an assumption a scenario can override with `hz`.)
//  * net_rx_action's budget: 2.6.11 `int budget = netdev_max_backlog;` with netdev_max_backlog 300;
//    2.6.12+ `int budget = netdev_budget;` with `int netdev_max_backlog = 1000; int netdev_budget = 300;`
//    (net/core/dev.c, the 2.6.12+ declarations read in a stored 2.6 dev.c; research §3.4 for 2.6.11).
//  * Both: weight_p 64 (the backlog device), dev->tx_queue_len 1000 in ether_setup (net/ethernet/eth.c
//    2.6; research §3.4), pfifo_fast, the one-jiffy softnet_break, all IRQs to CPU0 (no irqbalance:
//    the seed's "All load goes onto CPU#0").
#include "core/registry.h"
#include "drivers-sim/kernel/profiles.h"

namespace nicsim {
namespace {

KernelProfile linux_2_6(const char* name, const char* version, unsigned hz, RxBudget budget, unsigned max_backlog,
                        const char* summary, const char* source) {
  KernelProfile k;
  k.name = name;
  k.summary = summary;
  k.version = version;
  k.arch = "i386";
  k.hz = hz;
  k.napi = true;  // net/core/dev.c 2.6: net_rx_action serves softnet_data.poll_list (research §3.4 step 2)
  k.rx_budget = budget;
  k.netdev_max_backlog = max_backlog;
  k.netdev_budget = 300;  // 2.6.12+ net/core/dev.c: int netdev_budget = 300 (unused on 2.6.11)
  k.weight_p = 64;        // net/core/dev.c 2.6: int weight_p = 64
  k.rx_time_limit_jiffies = 1;  // net_rx_action: if (budget <= 0 || jiffies - start_time > 1) goto softnet_break
  k.tx_queue_len = 1000;        // net/ethernet/eth.c 2.6 ether_setup: dev->tx_queue_len = 1000 (research §3.4 step 6)
  k.qdisc = "pfifo_fast";       // net/sched/sch_generic.c: the default of every device
  k.copy_routine = "copy_{to,from}_user (arch/i386/lib/usercopy.c __copy_user_intel), cost entries copy_user_*; "
                   "not on the forwarding path";
  k.csum_routine = "csum_partial (arch/i386/lib/checksum.S); forwarding only updates the IP header checksum "
                   "(ip_decrease_ttl's incremental update, part of the ip_forward entry)";
  k.irq_policy = IrqPolicy::single_cpu;  // no irqbalance, every IRQ to CPU0 (seed 003: "All load goes onto CPU#0")
  k.source = source;
  return k;
}

Registrar<KernelProfile> reg_2611{linux_2_6(
    "linux-2.6.11-i386", "2.6.11", 1000, RxBudget::netdev_max_backlog, 300,
    "Linux 2.6.11 i386 SMP, HZ=1000, NAPI (budget = netdev_max_backlog 300, weight 64, 1-jiffy limit), "
    "pfifo_fast txqueuelen 1000",
    "LH@1274fcd685 (2.6.11) include/asm-i386/param.h HZ 1000, net/core/dev.c net_rx_action budget = "
    "netdev_max_backlog (300), net/ethernet/eth.c tx_queue_len 1000; research/seeds-001-004-platforms-drivers.md §3.4")};

Registrar<KernelProfile> reg_2614{linux_2_6(
    "linux-2.6.14-i386", "2.6.14", 250, RxBudget::netdev_budget, 1000,
    "Linux 2.6.14 i386 SMP, HZ=250 (Kconfig default), NAPI (budget = netdev_budget 300, weight 64, 1-jiffy limit), "
    "netdev_max_backlog 1000, pfifo_fast txqueuelen 1000",
    "kernel/Kconfig.hz (2.6.13+: default HZ_250), net/core/dev.c 2.6.12+ (netdev_max_backlog 1000, netdev_budget "
    "300, net_rx_action budget = netdev_budget), net/ethernet/eth.c tx_queue_len 1000; research §3.4")};

// Seed 003's CPU: "a 2Ghz dual Xeon hyperthreading (shows up as 4 processors) ... 512 KB L2 Cache":
// the same Prestonia core as xeon-prestonia (profile_linux_2_4_20.cpp), run under Linux 2.6, so its
// kernel paths are charged from the 2.6 table (costs_linux_2_6.cpp). Hyper-threading: two logical
// processors per core (the kernel sees 4 CPUs on the dual board), siblings sharing the core's caches
// and execution time; the seed's load is on one logical CPU (IRQs and softirqs on CPU0, research §3.4).
CpuProfile xeon_prestonia_ht() {
  CpuProfile c;
  c.name = "xeon-prestonia-ht";
  c.summary = "Intel Xeon DP (Prestonia, NetBurst, hyper-threading, 512 KB L2, 400 MT/s FSB), 1.8-2.8 GHz, "
              "under Linux 2.6 (cost table linux-2.6-p4xeon)";
  c.isa = "IA-32 (i686, SSE2)";
  // research/seeds-001-004-platforms-drivers.md (seed 001 platform table): Xeon DP (Prestonia,
  // 512 KB L2), 1.8-2.8 GHz at 400 FSB; seed 003: 2 GHz, 512 KB L2.
  c.min_mhz = 1800;
  c.max_mhz = 2800;
  c.cache_line_bytes = 64;  // as xeon-prestonia (research/e7500-p64h2-pcix.md §2/§7)
  c.read_sector_bytes = 128;  // as xeon-prestonia (NetBurst's read sector, profile_linux_2_4_20.cpp)
  c.l1d_kb = 8;             // estimate: as xeon-prestonia
  c.l2_kb = 512;            // seed 003: "512 KB L2 Cache"
  // Two logical processors per core: "Hyper-Threading Technology makes a single physical processor
  // appear as two logical processors" (Marr et al., Intel Technology Journal 6(1), Feb 2002); seed
  // 003: "shows up as 4 processors" on the dual board.
  c.threads_per_core = 2;
  // estimate: each thread's share of the core while both execute. The same paper reports up to 30 %
  // more throughput from the two threads together on server workloads, so each runs at about
  // 1.3 / 2 = 0.65 of the core; a halted sibling gives all of it back (single-task mode).
  c.smt_shared_speed = 0.65;
  c.cost_profile = "linux-2.6-p4xeon";  // drivers-sim/kernel/costs_linux_2_6.cpp
  c.source = "research/seeds-001-004-platforms-drivers.md (Xeon DP Prestonia row; seed 003 configuration)";
  return c;
}

Registrar<CpuProfile> reg_cpu_ht{xeon_prestonia_ht()};

}  // namespace
}  // namespace nicsim
