// NAPI in the network core (Kernel::net_rx_action on a kernel profile with napi = true): the
// per-CPU poll_list, netif_rx_schedule, the budget and per-device quota/weight, re-queueing at the
// tail, netif_rx_complete, the jiffy time limit, and the backlog device for netif_rx. Linux 2.6.11
// net/core/dev.c as research/seeds-001-004-platforms-drivers.md §3.4 reads it. No real driver.
#include "kernel_fake_host.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace kernel_napi_test {
using namespace nicsim;
using namespace nicsim::test;

namespace {

struct Poll {
  std::string dev;
  int delivered;
};

/// A NAPI device with `pending` frames in its "ring": poll() delivers min(budget, quota, pending)
/// through netif_receive_skb, burning `per_packet` each, as e1000_clean does with clean_rx.
struct NapiDev : NetDevice {
  int pending = 0;
  sc_time per_packet = SC_ZERO_TIME;
  bool irq_enabled = true;
  std::vector<Poll>* log;
  NapiDev(Kernel& k, std::string n, int w, std::vector<Poll>* l) : NetDevice(k, std::move(n)), log(l) {
    weight = w;
    dev_addr = {0, 2, 0xb3, 1, 2, 3};
  }
  Task<int> open() override { co_return 0; }
  Task<int> hard_start_xmit(SkbPtr&) override { co_return 1; }
  Task<bool> poll(int& budget) override {
    const int n = std::min({pending, budget, quota});
    for (int i = 0; i < n; ++i) {
      SkbPtr s = kernel().make_skb(64);
      uint8_t* p = s->put(60);
      std::copy(dev_addr.begin(), dev_addr.end(), p);
      p[12] = 0x08;
      p[13] = 0x00;
      kernel().eth_type_trans(*s, *this);
      (void)co_await kernel().netif_receive_skb(std::move(s));
      if (per_packet > SC_ZERO_TIME) co_await CpuBurn{per_packet};
    }
    pending -= n;
    budget -= n;
    quota -= n;
    log->push_back({name(), n});
    if (pending > 0) co_return true;
    kernel().netif_rx_complete(*this);
    irq_enabled = true;
    co_return false;
  }
};

KernelParams kernel_napi_params(bool tick = false) {
  KernelParams p = bench_params(1, tick);
  p.napi = true;
  return p;
}

/// Counts IPv4 packets delivered by netif_receive_skb.
struct NapiSink {
  int got = 0;
  explicit NapiSink(Kernel& k) {
    k.dev_add_pack(ETH_P_IP, [this, &k](SkbPtr skb, NetDevice*) -> Task<int> {
      ++got;
      co_await k.kfree_skb(std::move(skb));
      co_return NET_RX_SUCCESS;
    });
  }
};

/// An interrupt on vector 0x41 at 10 µs whose handler schedules `devs` (masking their interrupts).
void irq_schedules(Kernel& k, NetDevice& owner, std::vector<NapiDev*> devs, std::vector<bool>* first = nullptr) {
  k.request_irq(0x41, owner, [&k, devs, first](unsigned) -> Task<void> {
    for (NapiDev* d : devs) {
      d->irq_enabled = false;
      bool now_scheduled = k.netif_rx_schedule(*d);
      bool again = k.netif_rx_schedule(*d);  // already on the poll_list (RX_SCHED)
      if (first) {
        first->push_back(now_scheduled);
        first->push_back(again);
      }
    }
    co_return;
  });
  k.cpu(0).apic_message(0x41, us(10));
}

bool same(const std::vector<Poll>& a, const std::vector<Poll>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].dev != b[i].dev || a[i].delivered != b[i].delivered) return false;
  return true;
}
std::string show(const std::vector<Poll>& v) {
  std::string s;
  for (auto& p : v) s += p.dev + ":" + std::to_string(p.delivered) + " ";
  return s;
}

}  // namespace

TEST_CASE("napi: quota = weight per round, a device with more work goes to the poll_list tail, netif_rx_complete "
          "takes it off",
          "[kernel][napi]") {
  FakeHost hw;
  Kernel k(hw, kernel_napi_params());
  NapiSink sink(k);
  std::vector<Poll> log;
  NapiDev a(k, "eth1", 4, &log), b(k, "eth2", 4, &log);
  a.pending = 10;
  b.pending = 3;
  std::vector<bool> first;
  irq_schedules(k, a, {&a, &b}, &first);
  sc_core::sc_start(us(500));
  INFO(show(log));
  // Round robin by weight: eth1 4 (more: tail), eth2 3 (done: complete), eth1 4, eth1 2 (done).
  CHECK(same(log, {{"eth1", 4}, {"eth2", 3}, {"eth1", 4}, {"eth1", 2}}));
  CHECK(first == std::vector<bool>{true, false, true, false});
  CHECK(sink.got == 13);
  CHECK(k.poll_list(0).empty());
  CHECK(a.irq_enabled);
  CHECK(b.irq_enabled);
  CHECK(a.quota == 2);  // refilled to weight 4 before its last poll, which delivered 2
  CHECK(sim().counters.get("alpha.softnet.CPU0.time_squeeze") == 0);
}

TEST_CASE("napi: the budget ends a NET_RX run (softnet_break, time_squeeze) and the next run resumes in poll_list order",
          "[kernel][napi]") {
  FakeHost hw;
  KernelParams kp = kernel_napi_params();
  kp.rx_budget = RxBudget::netdev_budget;  // the profile's budget field is what is read
  kp.netdev_budget = 6;
  kp.netdev_max_backlog = 300;
  Kernel k(hw, kp);
  NapiSink sink(k);
  std::vector<Poll> log;
  NapiDev a(k, "eth1", 4, &log), b(k, "eth2", 4, &log);
  a.pending = 10;
  b.pending = 3;
  irq_schedules(k, a, {&a, &b});
  sc_core::sc_start(us(500));
  INFO(show(log));
  // Run 1 (budget 6): eth1 4, eth2 min(3, budget 2) = 2, budget 0 -> break. Run 2 (ksoftirqd, budget 6):
  // eth1 4, eth2 1 (done), eth1 min(2, budget 1) = 1, budget 0 -> break. Run 3: eth1 1 (done).
  CHECK(same(log, {{"eth1", 4}, {"eth2", 2}, {"eth1", 4}, {"eth2", 1}, {"eth1", 1}, {"eth1", 1}}));
  CHECK(sim().counters.get("alpha.softnet.CPU0.time_squeeze") == 2);
  CHECK(sink.got == 13);
  CHECK(k.poll_list(0).empty());
}

TEST_CASE("napi: net_rx_action stops after the jiffy time limit with budget left", "[kernel][napi]") {
  FakeHost hw;
  KernelParams kp = kernel_napi_params(true);
  kp.hz = 1000;  // 1 ms jiffies; the poll below runs 64 × 0.1 ms = 6.4 ms
  Kernel k(hw, kp);
  NapiSink sink(k);
  std::vector<Poll> log;
  NapiDev a(k, "eth1", 64, &log), b(k, "eth2", 64, &log);
  a.pending = 100;
  a.per_packet = us(100);
  b.pending = 1;
  irq_schedules(k, a, {&a, &b});
  sc_core::sc_start(ms(30));
  INFO(show(log));
  // eth1 delivers its quota of 64 (budget 300 left 236) taking > 1 jiffy: the next loop check breaks
  // before eth2 is polled; the next run serves eth2, then eth1's remaining 36.
  REQUIRE(log.size() >= 2);
  CHECK(log[0].dev == "eth1");
  CHECK(log[0].delivered == 64);
  CHECK(log[1].dev == "eth2");
  CHECK(sim().counters.get("alpha.softnet.CPU0.time_squeeze") >= 1);
  CHECK(same(log, {{"eth1", 64}, {"eth2", 1}, {"eth1", 36}}));
  CHECK(sink.got == 101);
}

TEST_CASE("napi: netif_rx on a NAPI kernel queues to the backlog device, polled with weight_p", "[kernel][napi]") {
  FakeHost hw;
  KernelParams kp = kernel_napi_params();
  kp.weight_p = 4;
  Kernel k(hw, kp);
  NapiSink sink(k);
  std::vector<Poll> log;
  NapiDev a(k, "eth1", 4, &log);  // only its name and address: it hands frames to netif_rx like a 2.4 driver
  std::vector<std::string> seen;
  k.request_irq(0x41, a, [&](unsigned) -> Task<void> {
    for (int i = 0; i < 10; ++i) {
      SkbPtr s = k.make_skb(64);
      uint8_t* p = s->put(60);
      std::copy(a.dev_addr.begin(), a.dev_addr.end(), p);
      p[12] = 0x08;
      p[13] = 0x00;
      k.eth_type_trans(*s, a);
      (void)co_await k.netif_rx(std::move(s));
      if (i == 0)
        for (auto* d : k.poll_list(0)) seen.push_back(d->name());
    }
  });
  k.cpu(0).apic_message(0x41, us(10));
  sc_core::sc_start(us(500));
  CHECK(seen == std::vector<std::string>{"backlog"});  // netif_rx scheduled the backlog device
  CHECK(sink.got == 10);
  CHECK(k.backlog_len(0) == 0);
  CHECK(k.poll_list(0).empty());  // process_backlog completed when the queue ran empty
}

TEST_CASE("napi: netif_rx_schedule needs a NAPI kernel profile and a weight", "[kernel][napi]") {
  FakeHost hw;
  Kernel k(hw, bench_params());  // linux-2.4.20-i386: no NAPI
  std::vector<Poll> log;
  NapiDev a(k, "eth1", 4, &log);
  std::string err;
  k.request_irq(0x41, a, [&](unsigned) -> Task<void> {
    try {
      k.netif_rx_schedule(a);
    } catch (const std::logic_error& e) {
      err = e.what();
    }
    co_return;
  });
  k.cpu(0).apic_message(0x41, us(10));
  sc_core::sc_start(us(100));
  CHECK(err.find("no NAPI") != std::string::npos);
  CHECK(err.find("linux-2.4.20-i386") != std::string::npos);
}

}  // namespace kernel_napi_test
