// The published 2.6 forwarding profile the linux-2.6-p4xeon cost table and the e1000 driver's 2.6
// entries are built from (costs_linux_2_6.cpp): K. Desler, LKML 2004-12-06
// <20041206205305.GA11970@soohrt.org>, readprofile over 60 s of Linux 2.6.10-rc3 forwarding 250 kpps
// with e1000 5.5.4-k2-NAPI on a dual 1.8 GHz Opteron 244 (research/linux26-forwarding-costs.md §A1).
#pragma once
#include "drivers-sim/kernel/costs.h"

namespace nicsim {

/// §A1 "Conversion": one tick is 1 ms of one 1.8 GHz CPU = 1.8e6 cycles, over the 60 s's 15.0 M
/// forwarded packets: 0.12 cycles per forwarded packet.
constexpr double kDesler2004CyclesPerTick = 1.8e6 / 15.0e6;
/// §A3: an L2 miss (load-to-use) of ~155 ns (herjulf/mmio_test, Olsson & Welte, 2005), the only
/// measured miss latency of the era in the notes, in cycles of the profile's 1.8 GHz Opteron: what
/// the profile's first touch of a line the NIC wrote costs, taken out of the entries whose misses
/// the model charges itself (Kernel::load_dma_lines).
constexpr double kDesler2004DmaMissCycles = 155 * 1.8;

/// The profile's self-time ticks of the functions on a plain forwarding path (§A1's table).
struct Desler2004Ticks {
  // skb alloc
  double alloc_skb = 4554, kmalloc = 1063, kmem_cache_alloc = 425, memset = 15;
  // skb free
  double kfree_skb = 4013, skb_release_data = 1605, kfree = 701, kmem_cache_free = 346, kfree_skbmem = 33;
  // e1000 5.5.4-k2-NAPI
  double e1000_clean_tx_irq = 3100, e1000_clean_rx_irq = 2852, e1000_alloc_rx_buffers = 674,
         e1000_irq_enable = 250, e1000_intr = 248, e1000_rx_checksum = 70;
  double eth_type_trans = 2692;  ///< the first touch of the DMA'd header (§A1 [I])
  double netif_receive_skb = 905;
  // IP
  double ip_forward = 1198, ip_finish_output2 = 910, ip_rcv_finish = 536, ip_rcv = 489, ip_output = 230,
         ip_forward_finish = 228;
  double rt_hash_code = 282;  ///< the route-cache hash, once per packet
  // qdisc / xmit
  double dev_queue_xmit = 1657, qdisc_restart = 401, pfifo_fast_dequeue = 357, pfifo_fast_enqueue = 286;
};
const Desler2004Ticks& desler2004_ticks();
/// ticks x kDesler2004CyclesPerTick.
double desler2004_cycles(double ticks);

/// The cost group of every entry taken from the profile (the kernel's here, e1000's in its folder):
/// their cycles are the Opteron's, charged on a NetBurst Xeon through one unmeasured factor, the
/// kernel parameter `linux26_profile_cost_scale` (cost_groups(), costs.h).
constexpr const char* kDesler2004Group = "linux-2.6.10-profile";
CostGroup linux26_profile_cost_group();

}  // namespace nicsim
