// Kernel network core (Linux 2.4 net/core/dev.c, net/sched/sch_generic.c), skbs and the
// protocol-agnostic socket system calls (see kernel.h).
#include "core/sim_context.h"
#include "drivers-sim/kernel/kernel.h"
#include "drivers-sim/kernel/rx_batches.h"
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <unordered_map>

namespace nicsim {

NetDevice::NetDevice(Kernel& k, std::string name)
    : tx_queue_len(k.params().tx_queue_len), kernel_(&k), name_(std::move(name)) {}

Task<int> NetDevice::set_mac_address(std::array<uint8_t, 6> addr) {
  if (up) co_return -16;  // eth_mac_addr: if (netif_running(dev)) return -EBUSY
  dev_addr = addr;
  co_return 0;
}

void NetDevice::netif_wake_queue() {
  bool was = xoff_;
  xoff_ = false;
  if (was) kernel_->netif_schedule(*this);
}

// ---------------------------------------------------------------------------------------------
// skbs

namespace {
/// kmalloc size classes are powers of two from 32 bytes (mm/slab.c cache_sizes).
size_t kmalloc_class(size_t n) {
  size_t c = 32;
  while (c < n) c <<= 1;
  return c;
}
// estimate: sizeof(struct skb_shared_info) and sizeof(struct sk_buff) on 2.4 i386.
constexpr uint32_t kSharedInfoBytes = 64;
constexpr uint32_t kSkbStructBytes = 160;
}  // namespace

SkbPtr Kernel::make_skb(uint32_t size) {
  uint32_t data = (size + 15u) & ~15u;  // SKB_DATA_ALIGN
  auto* s = new Skb;
  s->buf.assign(data, 0);
  try {
    s->head_phys = dma_alloc(kmalloc_class(data + kSharedInfoBytes), 64);
  } catch (...) {
    delete s;
    throw;
  }
  s->truesize = data + kSkbStructBytes;
  return SkbPtr(s, SkbDeleter{this});
}

void Kernel::skb_release(Skb* s) {
  if (s->head_phys) dma_free(s->head_phys);
  delete s;
}

Task<SkbPtr> Kernel::alloc_skb(uint32_t size) {
  co_await cost(CostId::skb_alloc);
  co_return make_skb(size);
}

Task<SkbPtr> Kernel::dev_alloc_skb(uint32_t len) {
  SkbPtr s = co_await alloc_skb(len + 16);
  s->reserve(16);
  co_return s;
}

SkbPtr Kernel::skb_copy(const Skb& s) {
  SkbPtr n = make_skb(static_cast<uint32_t>(s.buf.size()));
  uint64_t phys = n->head_phys;
  uint32_t truesize = n->truesize;
  *n = s;  // copies bytes and metadata
  n->head_phys = phys;
  n->truesize = truesize;
  return n;
}

Task<void> Kernel::kfree_skb(SkbPtr skb) {
  co_await cost(CostId::skb_free);
  skb.reset();
}

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

uint16_t Kernel::eth_type_trans(Skb& skb, NetDevice& dev) {
  if (skb.len < ETH_HLEN) throw std::invalid_argument("eth_type_trans: frame shorter than an Ethernet header");
  skb.dev = &dev;
  skb.mac_off = skb.data_off;
  const uint8_t* h = skb.data();
  if (h[0] & 1) {
    static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    skb.pkt_type = std::memcmp(h, bcast, 6) == 0 ? PACKET_BROADCAST : PACKET_MULTICAST;
  } else {
    skb.pkt_type = std::memcmp(h, dev.dev_addr.data(), 6) == 0 ? PACKET_HOST : PACKET_OTHERHOST;
  }
  uint16_t proto = static_cast<uint16_t>(h[12] << 8 | h[13]);
  skb.pull(ETH_HLEN);
  skb.protocol = proto >= 1536 ? proto : 0x0001;  // ETH_P_802_3 for length fields
  return skb.protocol;
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

// ---------------------------------------------------------------------------------------------
// sockets

Task<long> Kernel::sys_write(Socket& sock, size_t len, JourneyId journey) {
  Process* p = current();
  if (!p) throw std::logic_error("sys_write outside process context");
  if (!sock.ops) throw std::logic_error("sys_write on a socket without protocol operations");
  p->in_kernel_ = true;
  co_await cost(CostId::syscall_entry);
  co_await locked_ops(kVfsRwLockedOps);
  mark(journey, "write syscall");
  long r = co_await sock.ops->sendmsg(sock, len, journey);
  co_await cost(CostId::syscall_exit);
  p->in_kernel_ = false;
  co_await cond_resched();  // ret_from_sys_call: need_resched -> schedule
  co_return r;
}

Task<long> Kernel::sys_read(Socket& sock, size_t len) { return socket_read(sock, len, 0, kVfsRwLockedOps); }

Task<long> Kernel::sys_recv(Socket& sock, size_t len, int flags) {
  return socket_read(sock, len, flags, kSockfdLockedOps);
}

Task<long> Kernel::socket_read(Socket& sock, size_t len, int flags, unsigned vfs_locked_ops) {
  Process* p = current();
  if (!p) throw std::logic_error("sys_recv outside process context");
  if (!sock.ops) throw std::logic_error("sys_recv on a socket without protocol operations");
  p->in_kernel_ = true;
  co_await cost(CostId::syscall_entry);
  co_await locked_ops(vfs_locked_ops);
  long r = co_await sock.ops->recvmsg(sock, len, flags);
  co_await cost(CostId::syscall_exit);
  p->in_kernel_ = false;
  co_await cond_resched();
  co_return r;
}

}  // namespace nicsim
