// The e1000 driver's NAPI paths (CONFIG_E1000_NAPI) of the 2.6 drivers: 5.6.10.1-k2 (Linux 2.6.11),
// 6.0.60-k2 (Linux 2.6.14) and 6.2.15 (seed 003). Where the versions share source they share code
// here and in e1000_main.cpp (e1000_clean_rx_irq, e1000_clean_tx_irq, e1000_alloc_rx_buffers); where
// it differs, a DriverProfile field says how (e1000.h).
//
// Read in the stored sources:
//  * 5.6.10.1-k2: cgm88s/linux-2.6.11.12-cn drivers/net/e1000/e1000_main.c (2.6.11.12 ships the
//    2.6.11 driver). e1000_intr: icr = ICR; !icr -> IRQ_NONE; RXSEQ/LSC -> watchdog now; then
//    `if (netif_rx_schedule_prep(netdev)) { atomic_inc(&irq_sem); E1000_WRITE_REG(hw, IMC, ~0);
//    __netif_rx_schedule(netdev); }` ("The flush of the posted write is intentionally left out").
//    e1000_clean: work_to_do = min(*budget, netdev->quota); tx_cleaned = e1000_clean_tx_irq;
//    e1000_clean_rx_irq(&work_done, work_to_do); budget and quota -= work_done; leave polling
//    `if (!tx_cleaned || (work_done < work_to_do) || !netif_running(netdev))` (netif_rx_complete +
//    e1000_irq_enable, return 0), else return (work_done >= work_to_do). The 5.7.0 changelog of the
//    next driver: "include fix to the condition that determines when to quit NAPI - Robert Olsson".
//  * 6.0.60-k2: a stored e1000_main.c with DRV_VERSION "6.0.60-k2": the same e1000_intr; e1000_clean
//    leaves polling `if ((!tx_cleaned && (work_done == 0)) || !netif_running(netdev))`, else returns
//    1. e1000_clean_rx_irq (legacy descriptors) is 5.6.10.1's: no prefetch, no copybreak.
//  * 6.2.15: not public (research/seeds-001-004-platforms-drivers.md §3.1: J. Brandeburg, Jan 2006,
//    says 6.2.15 has a leak "not in the code submitted to the kernel" and points users to 6.3.9). The
//    nearest public releases are 6.3.9-k2 (2.6.16, Feb 2006) and 7.0.33-k2 (RHEL4 42.EL). Taken from
//    them: e1000_clean as 6.0.60 (unchanged in 6.3.9), the copybreak block of e1000_clean_rx_irq
//    (`if (length < E1000_CB_LENGTH)` 256: dev_alloc_skb(length + NET_IP_ALIGN), skb_reserve,
//    memcpy(new->data - NET_IP_ALIGN, skb->data - NET_IP_ALIGN, length + NET_IP_ALIGN), the old skb
//    kept in buffer_info for e1000_alloc_rx_buffers to re-map; the 2.6.16 patch "e1000: Added copy
//    break code"), the prefetches (prefetch(skb->data - NET_IP_ALIGN), prefetch(next_rxd); 7.0.33's
//    third, prefetch(next_skb->data - NET_IP_ALIGN), came with its next_buffer rework and is left
//    out) and hw.original_fc = hw.fc in e1000_check_options (7.0.x; research §3.2 Finding D). The
//    seed itself says 6.2.15 "comes turned on ... with 802 tx and receive flow control", which
//    agrees with the 7.0.x behaviour. Choice argued: 6.3.9 is what Intel submitted from the same
//    tree six weeks later and is the closest public code; 7.0.33 only where 6.3.9 is not stored.
//
// LLTX (NETIF_F_LLTX, 5.6.2's changelog "LLTX support"): e1000_xmit_frame takes adapter->tx_lock
// with spin_trylock and qdisc_restart does not take dev->xmit_lock. On the modelled SMP kernel the
// two are the same one locked op on one line (Kernel::qdisc_run's "dev->xmit_lock" spin_lock); the
// trylock never fails here because every IRQ and softirq runs on CPU0 (research §3.4, seed 003).
#include "core/sim_context.h"
#include "drivers-sim/drivers/e1000/e1000.h"
#include <algorithm>
#include <cstring>

namespace nicsim::e1000drv {

Task<void> Adapter::intr_napi() {
  Kernel& k = kernel();
  co_await k.cost(costs_[Path::e1000_intr]);
  ++*c_intr_;
  const uint32_t icr = co_await rd(E1000_ICR);
  ++*c_icr_reads_;
  ++isr_reads_[1];
  if (!icr) {  // not our interrupt (IRQ_NONE)
    ++*c_icr_zero_;
    co_return;
  }
  if (icr & (E1000_ICR_RXSEQ | E1000_ICR_LSC)) {
    get_link_status_ = true;
    k.mod_timer(watchdog_timer_, k.jiffies());
  }
  // netif_rx_schedule_prep + atomic_inc(&irq_sem) + IMC + __netif_rx_schedule. Kernel::
  // netif_rx_schedule is prep and schedule in one (false when already on a poll_list); NET_RX only
  // runs after this handler returns, so masking after queueing is the same order as the driver's.
  if (k.netif_rx_schedule(*this)) {
    ++irq_sem_;                   // atomic_inc(&adapter->irq_sem)
    co_await wr(E1000_IMC, ~0u);  // no flush: "intentionally left out"
  }
}

Task<bool> Adapter::poll(int& budget) {
  Kernel& k = kernel();
  co_await k.cost(costs_[Path::e1000_clean]);
  ++*c_polls_;
  const int work_to_do = std::min(budget, quota);
  int work_done = 0;
  const bool tx_cleaned = co_await clean_tx_irq();
  (void)co_await clean_rx_irq(now(), &work_done, work_to_do);
  budget -= work_done;
  quota -= work_done;
  const bool leave = profile_->napi_exit == DriverProfile::NapiExit::tx_idle_or_rx_short
                         ? (!tx_cleaned || work_done < work_to_do || !NetDevice::up)
                         : ((!tx_cleaned && work_done == 0) || !NetDevice::up);
  if (leave) {
    ++*c_poll_exits_;
    k.netif_rx_complete(*this);
    co_await irq_enable();
    co_return false;
  }
  co_return true;
}


Task<SkbPtr> Adapter::rx_copybreak(Buffer& b, SkbPtr skb, uint32_t length, JourneyId j) {
  Kernel& k = kernel();
  constexpr uint32_t kNetIpAlign = 2;  // NET_IP_ALIGN (include/linux/skbuff.h)
  SkbPtr n = co_await k.dev_alloc_skb(length + kNetIpAlign);
  n->reserve(kNetIpAlign);
  n->dev = this;
  // memcpy(new_skb->data - NET_IP_ALIGN, skb->data - NET_IP_ALIGN, length + NET_IP_ALIGN): reads the
  // frame's lines the NIC just wrote (misses), writes the new skb's (cache-resident: the slab hands
  // out a recently freed object).
  co_await k.load_dma_lines(skb->data_phys() - kNetIpAlign, length + kNetIpAlign, j, "RX frame (copybreak)");
  co_await k.cost(costs_[Path::e1000_rx_copybreak], length + kNetIpAlign);
  std::memcpy(n->put(length), skb->data(), length);
  ++*c_copybreak_;
  b.skb = std::move(skb);  // "save the skb in buffer_info as good": the ring keeps its buffer
  co_return n;
}

}  // namespace nicsim::e1000drv
