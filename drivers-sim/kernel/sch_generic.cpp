// The default queueing discipline of the kernel model (Linux 2.4.20 net/sched/sch_generic.c,
// include/net/pkt_sched.h; see kernel.h for the other files). pfifo_fast's three bands live in the
// NetDevice (netdevice.h); dev_queue_xmit (dev.cpp) enqueues, qdisc_run dequeues.
//
//   Linux                                           here
//   qdisc_run() -> qdisc_restart() (xmit_lock,      Kernel::qdisc_run
//     hard_start_xmit, requeue on busy)
//   prio2band[] (pfifo_fast)                        prio2band
#include "drivers-sim/kernel/kernel.h"
#include <stdexcept>

namespace nicsim {

unsigned prio2band(uint32_t priority) {
  static const unsigned map[16] = {1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};
  return map[priority & 15];
}

Task<void> Kernel::qdisc_run(NetDevice& dev) {
  const int c = static_cast<int>(smp_processor_id());
  while (!dev.xoff_) {
    SkbPtr skb;
    for (auto& b : dev.band_)
      if (!b.empty()) {
        skb = std::move(b.front());
        b.pop_front();
        break;
      }
    if (!skb) break;
    if (dev.xmit_lock_owner_ >= 0) {  // another CPU holds dev->xmit_lock: requeue, retry later
      dev.band_[prio2band(skb->priority)].push_front(std::move(skb));
      ++dev.qdisc_requeues_;
      netif_schedule(dev);
      break;
    }
    dev.xmit_lock_owner_ = c;
    mark(skb->journey, "driver xmit");
    if (p_.cpus > 1) co_await spin_lock(dev_line(dev, 1), "dev->xmit_lock", skb->journey);
    int rc = co_await dev.hard_start_xmit(skb);
    dev.xmit_lock_owner_ = -1;
    if (rc == 0) continue;
    if (!skb) throw std::logic_error(dev.name() + ": hard_start_xmit returned busy but took the skb");
    mark(skb->journey, "qdisc requeue", "driver busy");
    dev.band_[prio2band(skb->priority)].push_front(std::move(skb));
    ++dev.qdisc_requeues_;
    netif_schedule(dev);
    break;
  }
}

}  // namespace nicsim
