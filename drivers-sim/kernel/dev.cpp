// The network device core of the kernel model (Linux 2.4.20 net/core/dev.c, and 2.6.11's for the
// NAPI paths; see kernel.h for the other files).
//
// Receive without NAPI (KernelParams::napi false, 2.4.20): a driver's ISR hands each frame to
// netif_rx, which queues it on the CPU's backlog (input_pkt_queue, netdev_max_backlog, throttle)
// and raises NET_RX_SOFTIRQ; net_rx_action drains the backlog within the budget and the jiffy time
// limit. With NAPI (2.6.11 semantics; also the Red Hat 2.4.18 backport): the per-CPU poll_list,
// each device's quota refilled from its weight and re-queued at the tail while it has work,
// netif_receive_skb, and netif_rx queueing to the per-CPU backlog device (process_backlog,
// weight_p). Transmit: dev_queue_xmit enqueues on the device's qdisc (sch_generic.cpp) and runs
// it; net_tx_action frees the completion queue and reruns the output queue's qdiscs.
//
//   Linux                                          here
//   register_netdevice(), dev_get(), dev_open()    Kernel::register_netdev, dev_get, dev_open
//   dev_add_pack()                                 Kernel::dev_add_pack
//   netif_rx()                                     Kernel::netif_rx
//   net_rx_action() (2.4: the backlog loop)        Kernel::net_rx_action
//   net_rx_action() (2.6.11: the poll_list loop)   Kernel::net_rx_action_napi
//   netif_receive_skb()                            Kernel::netif_receive_skb
//   netif_rx_schedule(), netif_rx_complete()       Kernel::netif_rx_schedule, netif_rx_complete
//   process_backlog(), softnet_data.backlog_dev    Kernel::BacklogDev::poll, backlog_dev
//   dev_queue_xmit() (qdisc and noqueue paths)     Kernel::dev_queue_xmit, dev_xmit_noqueue
//   __netif_schedule(), netif_wake_queue()         Kernel::netif_schedule, NetDevice::netif_wake_queue
//   net_tx_action(), dev_kfree_skb_irq()           Kernel::net_tx_action, dev_kfree_skb_irq
//   (interrupts and polls per frame, rx_batches.h) rx_batches, rx_batches_*
//
// Per-version differences here are KernelParams fields set from the kernel profile: napi (which
// net_rx_action loop), rx_budget / netdev_budget / netdev_max_backlog (the budget), weight_p (the
// backlog device's quota), rx_time_limit_jiffies (the time limit). No code tests a version.
#include "drivers-sim/kernel/kernel.h"
#include "core/sim_context.h"
#include "drivers-sim/kernel/rx_batches.h"
#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace nicsim {

void NetDevice::netif_wake_queue() {
  bool was = xoff_;
  xoff_ = false;
  if (was) kernel_->netif_schedule(*this);
}

// ---------------------------------------------------------------------------------------------
// skbs

void Kernel::dev_kfree_skb_irq(SkbPtr skb) {
  pc().completion_queue.push_back(std::move(skb));
  raise_softirq(NET_TX_SOFTIRQ);
}

// ---------------------------------------------------------------------------------------------
// devices, receive

void Kernel::register_netdev(NetDevice& dev) {
  if (&dev.kernel() != this) throw std::invalid_argument("register_netdev: device belongs to another kernel");
  devs_[dev.name()] = &dev;
  if (p_.cpus > 1 && !dev_lines_.count(&dev)) dev_lines_[&dev] = smp_object(2 * p_.cache_line_bytes);
  rx_batches_reset(dev);
}

namespace {
struct RxBatchState {
  uint64_t frames = 0;
  RxBatches b;
};
std::unordered_map<const NetDevice*, RxBatchState>& rx_batch_table() {
  static std::unordered_map<const NetDevice*, RxBatchState> t;
  return t;
}
void count_batch(std::vector<uint64_t>& h, uint64_t n) {
  if (h.size() <= n) h.resize(size_t(n) + 1, 0);
  ++h[size_t(n)];
}
}  // namespace

const RxBatches& rx_batches(const NetDevice& dev) {
  static const RxBatches none;
  auto it = rx_batch_table().find(&dev);
  return it == rx_batch_table().end() ? none : it->second.b;
}
void rx_batches_reset(const NetDevice& dev) { rx_batch_table()[&dev] = RxBatchState{}; }
void rx_batches_frame(const NetDevice& dev) { ++rx_batch_table()[&dev].frames; }
uint64_t rx_batches_frames(const NetDevice& dev) {
  auto it = rx_batch_table().find(&dev);
  return it == rx_batch_table().end() ? 0 : it->second.frames;
}
void rx_batches_irq(const NetDevice& dev, uint64_t frames) { count_batch(rx_batch_table()[&dev].b.per_irq, frames); }
void rx_batches_poll(const NetDevice& dev, uint64_t frames) { count_batch(rx_batch_table()[&dev].b.per_poll, frames); }

NetDevice* Kernel::dev_get(const std::string& name) const {
  auto it = devs_.find(name);
  return it == devs_.end() ? nullptr : it->second;
}

Task<int> Kernel::dev_open(NetDevice& dev) {
  int r = co_await dev.open();
  if (r == 0) dev.up = true;
  co_return r;
}

Task<int> Kernel::netif_rx(SkbPtr skb) {
  unsigned c = smp_processor_id();
  PerCpu& q = percpu_[c];
  co_await cost(CostId::netif_rx);
  if (skb->dev) rx_batches_frame(*skb->dev);
  if (skb->stamp == SC_ZERO_TIME) skb->stamp = now();
  ++*q.rx_total;
  if (q.backlog.size() <= p_.netdev_max_backlog) {
    if (!q.backlog.empty()) {
      if (!q.throttle) {
        mark(skb->journey, "backlog", q.cpu->busy_cause());
        q.backlog.push_back(std::move(skb));
        co_return NET_RX_SUCCESS;
      }
    } else {
      q.throttle = false;
      if (p_.napi) netif_rx_schedule(backlog_dev(c));  // 2.6.11 netif_rx: the backlog device polls the queue
      else raise_softirq_on(c, NET_RX_SOFTIRQ);
      mark(skb->journey, "backlog", q.cpu->busy_cause());
      q.backlog.push_back(std::move(skb));
      co_return NET_RX_SUCCESS;
    }
  } else if (!q.throttle) {
    q.throttle = true;
    ++*q.rx_throttled;
  }
  ++*q.rx_dropped;
  co_await kfree_skb(std::move(skb));
  co_return NET_RX_DROP;
}

void Kernel::dev_add_pack(uint16_t type, PacketHandler handler) { ptypes_[type].push_back(std::move(handler)); }

Task<int> Kernel::netif_receive_skb(SkbPtr skb) {
  co_await cost(CostId::net_rx_action);
  // 2.6 net/core/dev.c netif_receive_skb: __get_cpu_var(netdev_rx_stat).total++ (2.6 counts a
  // non-NAPI driver's packet twice, here and in netif_rx, as the real code does; 2.4 only in netif_rx).
  if (p_.napi) ++*percpu_[smp_processor_id()].rx_total;
  mark(skb->journey, "NET_RX softirq");
  skb->nh_off = skb->h_off = skb->data_off;
  if (skb->dev && skb->dev->master) skb->dev = skb->dev->master;  // skb_bond (2.4.20 net/core/dev.c)
  NetDevice* dev = skb->dev;
  auto it = ptypes_.find(skb->protocol);
  if (it == ptypes_.end() || it->second.empty()) {
    co_await kfree_skb(std::move(skb));
    co_return NET_RX_DROP;
  }
  std::vector<PacketHandler> hs = it->second;  // handlers may register more while running
  for (size_t i = 0; i + 1 < hs.size(); ++i) co_await hs[i](skb_copy(*skb), dev);
  co_await hs.back()(std::move(skb), dev);
  co_return NET_RX_SUCCESS;
}

long Kernel::rx_budget() const {
  return p_.rx_budget == RxBudget::netdev_max_backlog ? long(p_.netdev_max_backlog) : long(p_.netdev_budget);
}

Task<void> Kernel::net_rx_action(unsigned c) {
  if (p_.napi) {
    co_await net_rx_action_napi(c);
    co_return;
  }
  // 2.4 without NAPI: drain this CPU's backlog, stopping after the budget or the time limit.
  PerCpu& q = percpu_[c];
  long budget = rx_budget();
  const uint64_t start = jiffies_;
  for (;;) {
    if (q.backlog.empty()) break;
    SkbPtr skb = std::move(q.backlog.front());
    q.backlog.pop_front();
    (void)co_await netif_receive_skb(std::move(skb));
    if (budget-- < 0 || jiffies_ - start > p_.rx_time_limit_jiffies) {  // softnet_break
      ++*q.rx_time_squeeze;
      raise_softirq_on(c, NET_RX_SOFTIRQ);
      co_return;
    }
  }
  if (q.throttle) q.throttle = false;
}

// ---------------------------------------------------------------------------------------------
// NAPI (Linux 2.6.11 net/core/dev.c, as research/seeds-001-004-platforms-drivers.md §3.4 reads it)

/// softnet_data.backlog_dev: polls the CPU's input_pkt_queue for non-NAPI drivers (process_backlog).
class Kernel::BacklogDev : public NetDevice {
 public:
  BacklogDev(Kernel& k, unsigned cpu) : NetDevice(k, "backlog"), cpu_(cpu) { weight = int(k.p_.weight_p); }
  Task<int> open() override { co_return 0; }
  Task<int> hard_start_xmit(SkbPtr&) override { throw std::logic_error("the backlog device does not transmit"); }
  /// process_backlog: up to min(quota, budget) packets, or until the time limit.
  Task<bool> poll(int& budget) override {
    Kernel& k = kernel();
    PerCpu& q = k.percpu_[cpu_];
    const int limit = std::min(quota, budget);
    const uint64_t start = k.jiffies_;
    int work = 0;
    weight = int(k.p_.weight_p);
    for (;;) {
      if (q.backlog.empty()) {  // job_done
        quota -= work;
        budget -= work;
        k.netif_rx_complete(*this);
        if (q.throttle) q.throttle = false;
        co_return false;
      }
      SkbPtr skb = std::move(q.backlog.front());
      q.backlog.pop_front();
      (void)co_await k.netif_receive_skb(std::move(skb));
      ++work;
      if (work >= limit || k.jiffies_ - start > k.p_.rx_time_limit_jiffies) break;
    }
    quota -= work;
    budget -= work;
    co_return true;
  }

 private:
  unsigned cpu_;
};

NetDevice& Kernel::backlog_dev(unsigned c) {
  PerCpu& q = percpu_[c];
  if (!q.backlog_dev) q.backlog_dev = std::make_unique<BacklogDev>(*this, c);
  return *q.backlog_dev;
}

bool Kernel::netif_rx_schedule(NetDevice& dev) {
  if (!p_.napi)
    throw std::logic_error(dev.name() + ": netif_rx_schedule on kernel profile " + p_.kernel_profile + ", which has no NAPI");
  if (dev.weight <= 0) throw std::logic_error(dev.name() + ": netif_rx_schedule on a device without a NAPI weight");
  if (dev.rx_sched_) return false;  // netif_rx_schedule_prep: already on a poll_list
  dev.rx_sched_ = true;
  const unsigned c = smp_processor_id();
  percpu_[c].poll_list.push_back(&dev);  // list_add_tail(&dev->poll_list, &queue->poll_list)
  if (dev.quota < 0) dev.quota += dev.weight;
  else dev.quota = dev.weight;
  raise_softirq_on(c, NET_RX_SOFTIRQ);  // __raise_softirq_irqoff: the IRQ exit (or ksoftirqd) runs it
  return true;
}

void Kernel::netif_rx_complete(NetDevice& dev) {
  auto& pl = pc().poll_list;
  auto it = std::find(pl.begin(), pl.end(), &dev);
  if (it == pl.end()) throw std::logic_error(dev.name() + ": netif_rx_complete for a device not on this CPU's poll_list");
  pl.erase(it);
  dev.rx_sched_ = false;
}

std::vector<const NetDevice*> Kernel::poll_list(unsigned cpu) const {
  const auto& pl = percpu_.at(cpu).poll_list;
  return {pl.begin(), pl.end()};
}

Task<void> Kernel::net_rx_action_napi(unsigned c) {
  PerCpu& q = percpu_[c];
  const uint64_t start = jiffies_;
  int budget = static_cast<int>(rx_budget());
  while (!q.poll_list.empty()) {
    if (budget <= 0 || jiffies_ - start > p_.rx_time_limit_jiffies) {  // softnet_break
      ++*q.rx_time_squeeze;
      raise_softirq_on(c, NET_RX_SOFTIRQ);
      co_return;
    }
    NetDevice* dev = q.poll_list.front();
    bool more = dev->quota <= 0;
    if (!more) {
      const int budget0 = budget;
      more = co_await dev->poll(budget);
      rx_batches_poll(*dev, uint64_t(budget0 - budget));  // poll() lowers budget by what it delivered
    }
    if (more) {  // list_move_tail; refill the quota for the next round
      auto it = std::find(q.poll_list.begin(), q.poll_list.end(), dev);
      if (it != q.poll_list.end()) q.poll_list.erase(it);
      q.poll_list.push_back(dev);
      if (dev->quota < 0) dev->quota += dev->weight;
      else dev->quota = dev->weight;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// transmit

void Kernel::netif_schedule(NetDevice& dev) {
  if (dev.scheduled_) return;
  dev.scheduled_ = true;
  pc().output_queue.push_back(&dev);
  raise_softirq(NET_TX_SOFTIRQ);
}

Task<int> Kernel::dev_queue_xmit(SkbPtr skb) {
  if (!skb || !skb->dev) throw std::logic_error("dev_queue_xmit: skb without a device");
  NetDevice& dev = *skb->dev;
  co_await cost(CostId::dev_queue_xmit);
  mark(skb->journey, "qdisc");
  local_bh_disable();  // spin_lock_bh(&dev->queue_lock)
  if (p_.cpus > 1) co_await spin_lock(dev_line(dev, 0), "dev->queue_lock", skb->journey);
  if (dev.tx_queue_len == 0) {  // noqueue_qdisc (dev_activate gives it to a device with txqueuelen 0)
    int r = co_await dev_xmit_noqueue(std::move(skb));
    co_await local_bh_enable();
    co_return r;
  }
  int rc = NET_XMIT_SUCCESS;
  auto& band = dev.band_[prio2band(skb->priority)];
  if (band.size() <= dev.tx_queue_len) {  // pfifo_fast_enqueue
    band.push_back(std::move(skb));
  } else {
    ++dev.qdisc_drops_;
    rc = NET_XMIT_DROP;
    co_await kfree_skb(std::move(skb));
  }
  co_await qdisc_run(dev);
  co_await local_bh_enable();
  co_return rc;
}

Task<int> Kernel::dev_xmit_noqueue(SkbPtr skb) {
  // 2.4.20 dev_queue_xmit, "The device has no queue" (virtual devices: bonding, tunnels): call
  // hard_start_xmit under xmit_lock; a virtual device that asks to queue, a recursion on the same
  // CPU or a device that is down loses the packet (-ENETDOWN).
  NetDevice& dev = *skb->dev;
  const int c = static_cast<int>(smp_processor_id());
  if (dev.up && dev.xmit_lock_owner_ != c) {
    if (!dev.xoff_) {
      dev.xmit_lock_owner_ = c;
      int rc = co_await dev.hard_start_xmit(skb);
      dev.xmit_lock_owner_ = -1;
      if (rc == 0) co_return 0;
    }
  }
  ++dev.qdisc_drops_;
  if (skb) co_await kfree_skb(std::move(skb));
  co_return -100;  // -ENETDOWN
}

Task<void> Kernel::net_tx_action(unsigned c) {
  PerCpu& q = percpu_[c];
  co_await cost(CostId::net_tx_action);
  std::vector<SkbPtr> done = std::move(q.completion_queue);
  q.completion_queue.clear();
  for (auto& s : done) co_await kfree_skb(std::move(s));
  std::deque<NetDevice*> out = std::move(q.output_queue);
  q.output_queue.clear();
  for (NetDevice* d : out) {
    d->scheduled_ = false;
    co_await qdisc_run(*d);
  }
}

}  // namespace nicsim
