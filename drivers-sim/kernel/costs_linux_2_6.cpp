// Cost table "linux-2.6-p4xeon": Linux 2.6.11 / 2.6.14 kernel paths on a Pentium 4 Xeon (NetBurst).
//
// The forwarding path's entries come from the one published per-function profile of 2.6 forwarding
// (research/linux26-forwarding-costs.md §A1: K. Desler, LKML 2004-12-06, readprofile over 60 s,
// Linux 2.6.10-rc3, e1000 5.5.4-k2-NAPI, dual 1.8 GHz Opteron 244, 250 kpps forwarded in total).
// readprofile gives flat self time in ticks; at HZ 1000 one tick is 1 ms of one 1.8 GHz CPU and the
// 60 s moved 15.0 M packets, so one tick is 0.12 cycles per forwarded packet (§A1 "Conversion").
// Each entry below is the sum of its functions' ticks times that factor (the tick counts are in
// kDesler2004Ticks, so tests/unit/kernel_costs_2_6.cpp checks each sum against the note's table).
//
// What is taken as it is, and what is not:
//  * Cycles on the Opteron are charged as cycles on the Xeon times one factor for every entry taken
//    from the profile, the kernel parameter linux26_profile_cost_scale (cost group
//    kDesler2004Group; estimate, default 1, bounds argued in linux26_profile_cost_group, fitted only
//    by `nicsim calibrate`). Two effects pull in opposite directions and neither is measured:
//    NetBurst runs branchy kernel code at a lower IPC than K8 (more cycles on the Xeon), while the
//    profile's skb entries carry the cost of allocating on one CPU and freeing on the other (§A1
//    caveat, P. Brady) that seed 003's single-CPU router does not pay (fewer).
//  * LOCK-prefixed instructions keep their separate charge (smp_locked_ops x the calibrated NetBurst
//    locked op, costs_linux_2_4_20_p4xeon.cpp): K8 executes a locked op in tens of cycles, inside the
//    self times here; NetBurst's ~243 are not, so the counts below add what the Xeon pays on top.
//    The explicit spin_locks (dev->queue_lock, the tx lock) are Kernel::spin_lock's, as on 2.4; the
//    profile's _spin_lock / _spin_unlock_irqrestore ("other locks", 557 cycles, inflated by samples
//    deferred out of IRQ-off regions, §A1 caveat) are those, and are not added here again.
//  * What the model charges as hardware time is taken out: a CPU load of a line the NIC wrote by DMA
//    is Kernel::load_dma_lines (a fill through the chipset and DRAM models), so the profile's
//    first-touch misses (eth_type_trans's header line, the descriptors' status lines) are subtracted
//    in the driver's entries (drivers-sim/drivers/e1000/e1000_costs.cpp), at §A3's 155 ns miss.
//  * Not on a single-flow router's path and left out: netfilter and its rwlock (the seed loads no
//    iptables), the 100k-flow route-cache thrashing (ip_route_input's 10,700 ticks; the seed has two
//    flows: a cache hit, an estimate below).
// Entries the profile does not cover (syscalls, TCP/UDP, timers, interrupts, the copy routines)
// keep the 2.4.20 table's values, each still marked there with its own source or estimate; no 2.6
// scenario runs a socket path.
//
// 2.4 -> 2.6 changes read in source (research/linux26-forwarding-costs.md §C) and where they land:
//  C1 netif_rx no longer timestamps every packet (net_timestamp only when a socket asked):
//     netif_rx loses the 2.4 entry's do_gettimeofday share. C2 the skb head pool is gone: skb_alloc /
//     skb_free are the profile's slab paths. C3 RCU route-cache lookups: ip_rcv takes no bucket
//     read lock (1 locked op, dst_hold, not 3). C4 LLTX: one tx lock (Kernel::qdisc_run's, the
//     driver's tx_lock trylock). C5 NAPI: netif_receive_skb per packet is net_rx_action's entry.
//     C6 HZ: the kernel profiles (profile_linux_2_6.cpp).
#include "drivers-sim/kernel/costs_linux_2_6.h"
#include "core/registry.h"
#include "drivers-sim/kernel/cpu_time.h"

namespace nicsim {

const Desler2004Ticks& desler2004_ticks() {
  // research/linux26-forwarding-costs.md §A1 "Per group, self time only": the readprofile ticks.
  static const Desler2004Ticks t{};
  return t;
}

double desler2004_cycles(double ticks) { return ticks * kDesler2004CyclesPerTick; }

CostGroup linux26_profile_cost_group() {
  return CostGroup{
      kDesler2004Group,
      "linux26_profile_cost_scale",
      "NetBurst cycles per cycle of the 2.6.10 Opteron forwarding profile, for every cost entry taken from it "
      "(skb alloc/free, netif_receive_skb, IP receive and forward, dev_queue_xmit and the qdisc, e1000's "
      "clean_rx/clean_tx/alloc_rx_buffers)",
      "estimate: 1, the Opteron's cycles charged as the Xeon's. Two unmeasured effects pull apart: NetBurst runs "
      "branchy kernel code at a lower IPC than K8 (more cycles), and the profile's skb entries carry the cost of "
      "allocating on one CPU and freeing on the other, which a one-CPU router does not pay (fewer) "
      "(research/linux26-forwarding-costs.md §A1 caveats)",
      0.5,
      "the Xeon cannot run the same code in fewer cycles than K8 (a lower IPC), so the factor falls below 1 only "
      "by the cross-CPU skb effect, which is at most the whole of the profile's skb alloc + free: 1,531 of the "
      "group's 3,236 cycles per packet (47 %), leaving 0.53; 0.5 leaves room for the route-cache hit estimate",
      2.0,
      "NetBurst's branch mispredict costs about twice K8's (a 20-stage against a 12-stage pipeline to the "
      "resolving execute stage) and both dispatch 3 operations per clock: code limited by either runs in at most "
      "about twice the cycles; its locked operations, NetBurst's real outlier, are charged separately",
      "the CPU time per forwarded packet of the Linux 2.6 forwarding path on a NetBurst Xeon (seed 003's router): "
      "every entry converted from the Opteron readprofile",
      {"xeon-prestonia", "xeon-prestonia-ht"}};
}

namespace {

CostProfile linux_2_6_p4xeon() {
  const Desler2004Ticks& t = desler2004_ticks();
  CostProfile p = linux_2_4_20_p4xeon_costs();  // entries the 2.6 profile does not cover (see above)
  p.name = "linux-2.6-p4xeon";
  p.summary = "Linux 2.6.11/2.6.14 kernel paths on a Pentium 4 Xeon: forwarding path from the 2.6.10 readprofile "
              "of K. Desler (LKML 2004-12-06), the rest as Linux 2.4.20";
  // C1: 2.4.20's netif_rx entry (800 before the x0.73 lmbench scale) holds ~650 cycles of
  // do_gettimeofday; 2.6 calls it only when netstamp_needed.
  p.set(CostId::netif_rx, 584 - 650 * 0.73, 0, false,
        "2.4.20 entry (584) less its do_gettimeofday share (650 x the table's 0.73 scale): 2.6 net/core/dev.c "
        "netif_rx timestamps through net_timestamp only if netstamp_needed (research/linux26-forwarding-costs.md "
        "§C1); backlog enqueue only, not on a NAPI driver's path");
  p.set(CostId::net_rx_action, desler2004_cycles(t.netif_receive_skb), 0, false,
        "research/linux26-forwarding-costs.md §A1: netif_receive_skb 905 ticks x 0.12 cycles/pkt/tick (self time, "
        "2.6.10 e1000 NAPI forwarding on a 1.8 GHz Opteron; cycles taken as NetBurst cycles, an estimate)");
  // ip_route_input's cache hit: the profile's 10,700 ticks are a 100k-flow cache thrashing (§A1
  // item 3); the hash is measured per packet whatever the hit rate.
  constexpr double kRouteCacheHit = 100;
  p.set(CostId::ip_rcv, desler2004_cycles(t.ip_rcv + t.ip_rcv_finish + t.rt_hash_code) + kRouteCacheHit, 0, false,
        "research/linux26-forwarding-costs.md §A1: ip_rcv 489 + ip_rcv_finish 536 + rt_hash_code 282 ticks x 0.12 "
        "cycles/pkt/tick, plus estimate: ip_route_input's cache hit 100 cycles (one chain entry's key compares on "
        "one line, dst_hold, lastuse/__use; RCU, no bucket lock, §C3) for the profile's 100k-flow thrashing "
        "lookup, which a two-flow router does not do");
  p.set(CostId::ip_forward,
        desler2004_cycles(t.ip_forward + t.ip_forward_finish + t.ip_output + t.ip_finish_output2), 0, false,
        "research/linux26-forwarding-costs.md §A1: ip_forward 1198 + ip_forward_finish 228 + ip_output 230 + "
        "ip_finish_output2 910 ticks x 0.12 cycles/pkt/tick (self times; cycles taken as NetBurst cycles, an "
        "estimate)");
  p.set(CostId::dev_queue_xmit,
        desler2004_cycles(t.dev_queue_xmit + t.qdisc_restart + t.pfifo_fast_dequeue + t.pfifo_fast_enqueue), 0, false,
        "research/linux26-forwarding-costs.md §A1: dev_queue_xmit 1657 + qdisc_restart 401 + pfifo_fast_dequeue 357 "
        "+ pfifo_fast_enqueue 286 ticks x 0.12 cycles/pkt/tick (locks are Kernel::spin_lock's)");
  p.set(CostId::skb_alloc, desler2004_cycles(t.alloc_skb + t.kmalloc + t.kmem_cache_alloc + t.memset), 0, false,
        "research/linux26-forwarding-costs.md §A1: alloc_skb 4554 + __kmalloc 1063 + kmem_cache_alloc 425 + memset "
        "15 ticks x 0.12 cycles/pkt/tick (2.6 slab, no skb head pool, §C2); includes the profile's cross-CPU "
        "allocation effect (allocated on one CPU, freed on the other), an upper bound for a one-CPU router");
  p.set(CostId::skb_free,
        desler2004_cycles(t.kfree_skb + t.skb_release_data + t.kfree + t.kmem_cache_free + t.kfree_skbmem), 0, false,
        "research/linux26-forwarding-costs.md §A1: __kfree_skb 4013 + skb_release_data 1605 + kfree 701 + "
        "kmem_cache_free 346 + kfree_skbmem 33 ticks x 0.12 cycles/pkt/tick; cross-CPU effect as skb_alloc");
  for (CostId id : {CostId::net_rx_action, CostId::ip_rcv, CostId::ip_forward, CostId::dev_queue_xmit,
                    CostId::skb_alloc, CostId::skb_free})
    p.set_group(id, kDesler2004Group);
  // SMP locked ops that 2.6 no longer takes on these paths: RCU replaced the 2.4 read locks.
  p.set_smp_locked_ops(CostId::net_rx_action, 0,
      "net/core/dev.c 2.6.11 netif_receive_skb: rcu_read_lock (no LOCK prefix) instead of 2.4's "
      "br_read_lock(BR_NETPROTO_LOCK); the last (here only) ptype handler is called without atomic_inc(&skb->users)");
  p.set_smp_locked_ops(CostId::ip_rcv, 1,
      "net/ipv4/route.c 2.6.11 ip_route_input cache hit: rcu_read_lock + dst_hold (atomic_inc) + rcu_read_unlock "
      "instead of 2.4's read_lock/dst_hold/read_unlock of the hash bucket");
  set_what_tags(p);
  return p;
}

Registrar<CostProfile> reg_costs_2_6_p4xeon{linux_2_6_p4xeon()};

}  // namespace
}  // namespace nicsim
