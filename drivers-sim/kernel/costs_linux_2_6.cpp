// Cost table "linux-2.6-p4xeon": Linux 2.6.11 / 2.6.14 kernel paths on a Pentium 4 Xeon (NetBurst),
// cycles at 2.4 GHz like the 2.4.20 table it starts from (costs_linux_2_4_20_p4xeon.cpp).
//
// Calibration (once, not on seed 003): the paths a 2.6 forwarder runs are the same functions, on the
// same CPU, as the 2.4.20 paths that table calibrated on lmbench (lat_syscall, lat_ctx, lat_pipe,
// lat_tcp/lat_udp over loopback; research/linux24-smp-network-costs.md §1.2) and BYTE's SMP
// differences (the locked op). No published per-function 2.6 cycle profile of forwarding on NetBurst
// was found (research/seeds-001-004-platforms-drivers.md "Gaps" 3: "Published per-function cycle
// costs for 2.6 forwarding"), so each 2.6 entry keeps its 2.4.20 value -- an estimate that the
// code path costs the same -- except where 2.6 runs different code, listed here:
//  * netif_rx is not on a NAPI driver's path; net_rx_action (the per-packet entry charged by
//    netif_receive_skb) keeps its 2.4.20 value: 2.6.11 netif_receive_skb walks ptype_all and the
//    ptype_base hash bucket as 2.4.20's net_rx_action did.
//  * The IPv4 forwarding path (ip_forward .. ip_finish_output2) keeps the 2.4.20 table's ip_forward
//    entry (the same functions). The slab's per-CPU array refill/flush (mm/slab.c 2.6.14
//    cache_alloc_refill / cache_flusharray, every batchcount objects) is not a cost of its own: it is
//    inside skb_alloc / skb_free as in the 2.4.20 table (a known simplification; seed 003's
//    copybreak reference says what it would move).
#include "core/registry.h"
#include "drivers-sim/kernel/costs.h"
#include "drivers-sim/kernel/cpu_time.h"

namespace nicsim {
namespace {

CostProfile linux_2_6_p4xeon() {
  CostProfile p = linux_2_4_20_p4xeon_costs();  // the calibrated 2.4.20 entries (see above)
  p.name = "linux-2.6-p4xeon";
  p.summary = "Linux 2.6.11/2.6.14 kernel paths (2.4.20 entries, RCU locking on receive) on a Pentium 4 Xeon, cycles at 2.4 GHz";
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

Registrar<CostProfile> reg{linux_2_6_p4xeon()};

}  // namespace
}  // namespace nicsim
