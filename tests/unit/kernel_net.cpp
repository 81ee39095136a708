// Kernel network core, bottom halves, sockets and DMA memory.
#include "kernel_fake_host.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace kernel_net_test {
using namespace nicsim;
using namespace nicsim::test;

namespace {

/// A device whose "ring" holds `ring_size` frames; it stops the queue when the ring fills.
struct FakeDev : NetDevice {
  size_t ring_size = 2;
  std::vector<SkbPtr> ring;
  std::vector<int> sent_ids;
  FakeDev(Kernel& k, std::string n) : NetDevice(k, std::move(n)) { dev_addr = {0, 2, 0xb3, 1, 2, 3}; }
  Task<int> open() override {
    netif_start_queue();
    co_return 0;
  }
  Task<int> hard_start_xmit(SkbPtr& skb) override {
    if (ring.size() >= ring_size) co_return 1;
    sent_ids.push_back(skb->data()[20]);
    ring.push_back(std::move(skb));
    if (ring.size() >= ring_size) netif_stop_queue();
    co_return 0;
  }
};

/// Build an Ethernet/IPv4-typed frame of 60 bytes addressed to `dev`, tagged with `id`.
SkbPtr frame(Kernel& k, NetDevice& dev, int id) {
  SkbPtr s = k.make_skb(64);
  uint8_t* p = s->put(60);
  std::copy(dev.dev_addr.begin(), dev.dev_addr.end(), p);
  p[12] = 0x08;
  p[13] = 0x00;
  p[20] = static_cast<uint8_t>(id);
  return s;
}
}  // namespace

TEST_CASE("kernel: netif_rx backlog, NET_RX delivery to the ip_rcv hook, max_backlog and throttle", "[kernel]") {
  FakeHost hw;
  KernelParams kp = bench_params();
  kp.halt_exit_latency = us(1);
  Kernel k(hw, kp);
  FakeDev dev(k, "eth1");
  k.register_netdev(dev);
  std::vector<int> got;
  sc_time first_rx;
  int drops = 0;
  auto ip_rcv = [&](SkbPtr skb, NetDevice* d) -> Task<int> {
    if (got.empty()) first_rx = now();
    CHECK(d == &dev);
    CHECK(skb->protocol == ETH_P_IP);
    CHECK(skb->len == 46);
    CHECK(skb->pkt_type == PACKET_HOST);
    got.push_back(skb->data()[6]);  // byte 20 of the frame, after the 14-byte header
    co_await k.kfree_skb(std::move(skb));
    co_return NET_RX_SUCCESS;
  };
  k.dev_add_pack(ETH_P_IP, ip_rcv);
  const int N = 305;
  k.request_irq(0x41, dev, [&](unsigned) -> Task<void> {
    for (int i = 0; i < N; ++i) {
      SkbPtr s = frame(k, dev, i);
      k.eth_type_trans(*s, dev);
      if (co_await k.netif_rx(std::move(s)) == NET_RX_DROP) ++drops;
    }
  });
  k.cpu(0).apic_message(0x41, us(10));
  sc_core::sc_start(ms(2));

  // netif_rx accepts while qlen <= netdev_max_backlog (300): 301 frames; then throttles.
  CHECK(drops == 4);
  REQUIRE(got.size() == 301);
  for (int i = 0; i < 301; ++i) CHECK(got[i] == (i & 0xff));  // the tag byte wraps
  CHECK(sim().counters.get("alpha.softnet.CPU0.total") == 305);
  CHECK(sim().counters.get("alpha.softnet.CPU0.dropped") == 4);
  CHECK(sim().counters.get("alpha.softnet.CPU0.throttled") == 1);
  CHECK(sim().counters.get("alpha.softnet.CPU0.time_squeeze") == 0);
  CHECK(sim().counters.get("alpha.interrupts.CPU0.eth1") == 1);
  CHECK(k.backlog_len(0) == 0);
  // First delivery: HLT exit, entry, 305 netif_rx + 4 drop frees, EOI, do_softirq, one dequeue.
  CHECK(first_rx == us(11) + C(k, CostId::irq_entry) + N * C(k, CostId::netif_rx) + 4 * C(k, CostId::skb_free) +
                        C(k, CostId::apic_eoi) + C(k, CostId::softirq_entry) + C(k, CostId::net_rx_action));
}

TEST_CASE("kernel: dev_queue_xmit with pfifo_fast, stopped queue, netif_wake_queue and NET_TX", "[kernel]") {
  FakeHost hw;
  Kernel k(hw, bench_params());
  FakeDev dev(k, "eth1");
  k.register_netdev(dev);
  std::vector<int> rcs;
  size_t qlen_after = 99;
  auto pmain = [&]() -> Task<void> {
    CHECK(co_await k.dev_open(dev) == 0);
    for (int i = 0; i < 5; ++i) {
      SkbPtr s = co_await k.alloc_skb(64);
      s->put(60)[20] = static_cast<uint8_t>(i);
      s->dev = &dev;
      rcs.push_back(co_await k.dev_queue_xmit(std::move(s)));
    }
    qlen_after = dev.qdisc_len();
  };
  k.spawn_process("sender", 0, pmain());
  // "TX complete" interrupts: the driver frees its ring from hard IRQ and wakes the queue.
  k.request_irq(0x41, dev, [&](unsigned) -> Task<void> {
    for (auto& s : dev.ring) k.dev_kfree_skb_irq(std::move(s));
    dev.ring.clear();
    dev.netif_wake_queue();
    co_return;
  });
  k.cpu(0).apic_message(0x41, us(50));
  k.cpu(0).apic_message(0x41, us(100));
  sc_core::sc_start(us(150));
  CHECK(rcs == std::vector<int>{0, 0, 0, 0, 0});
  CHECK(qlen_after == 3);
  CHECK(dev.sent_ids == std::vector<int>{0, 1, 2, 3, 4});
  CHECK(dev.qdisc_len() == 0);
  CHECK(dev.up);
}

TEST_CASE("kernel: pfifo_fast drops beyond txqueuelen", "[kernel]") {
  FakeHost hw;
  Kernel k(hw, bench_params());
  FakeDev dev(k, "eth1");
  dev.tx_queue_len = 1;
  dev.netif_stop_queue();
  std::vector<int> rcs;
  auto pmain = [&]() -> Task<void> {
    for (int i = 0; i < 3; ++i) {
      SkbPtr s = frame(k, dev, i);
      s->dev = &dev;
      rcs.push_back(co_await k.dev_queue_xmit(std::move(s)));
    }
  };
  k.spawn_process("sender", 0, pmain());
  sc_core::sc_start(us(50));
  // pfifo_fast_enqueue accepts while qlen <= tx_queue_len.
  CHECK(rcs == std::vector<int>{NET_XMIT_SUCCESS, NET_XMIT_SUCCESS, NET_XMIT_DROP});
  CHECK(dev.qdisc_len() == 2);
}

TEST_CASE("kernel: local_bh_enable runs softirqs in process context, else ksoftirqd does", "[kernel]") {
  FakeHost hw;
  Kernel k(hw, bench_params());
  const double A = 3000, B = 1000;
  std::vector<sc_time> action_start;
  std::vector<bool> action_in_interrupt;
  sc_time t_before, t_after, p_exit;
  k.open_softirq(TASKLET_SOFTIRQ, [&](unsigned) -> Task<void> {
    action_start.push_back(now());
    action_in_interrupt.push_back(k.in_interrupt() && k.current() == nullptr);
    co_await cpu_work(A);
  });
  auto pmain = [&]() -> Task<void> {
    k.local_bh_disable();
    k.raise_softirq(TASKLET_SOFTIRQ);  // bottom halves off: stays pending
    t_before = now();
    co_await k.local_bh_enable();      // runs it here, as a softirq context
    t_after = now();
    k.raise_softirq(TASKLET_SOFTIRQ);  // process context: wakes ksoftirqd (nice 19, no preemption)
    co_await cpu_work(B);
    p_exit = now();
  };
  k.spawn_process("P", 0, pmain());
  sc_core::sc_start(us(50));
  const sc_time cs = C(k, CostId::context_switch), se = C(k, CostId::softirq_entry);
  REQUIRE(action_start.size() == 2);
  CHECK(action_start[0] == t_before + se);
  CHECK(t_after == t_before + se + k.cpu(0).cycles(A));
  CHECK(p_exit == t_after + k.cpu(0).cycles(B));
  CHECK(action_start[1] == p_exit + cs + se);  // ksoftirqd_CPU0 runs once P exits
  CHECK(action_in_interrupt == std::vector<bool>{true, true});
  CHECK(k.cpu(0).busy(ExecLevel::Softirq) == 2 * (se + k.cpu(0).cycles(A)));
}

namespace {
struct FakeOps : SockOps {
  Kernel* k;
  double send_cycles = 5000;
  bool data = false;
  JourneyId data_journey = 0;
  Task<long> sendmsg(Socket&, size_t len, JourneyId j) override {
    k->mark(j, "proto send");
    co_await cpu_work(send_cycles);
    co_return static_cast<long>(len);
  }
  Task<long> recvmsg(Socket& s, size_t len, int) override {
    while (!data) co_await s.wait.wait();
    data = false;
    s.rx_journey = data_journey;
    co_return static_cast<long>(len);
  }
};
}  // namespace

TEST_CASE("kernel: socket syscalls charge int 0x80 entry/exit around SockOps and block on the socket", "[kernel]") {
  FakeHost hw;
  KernelParams kp = bench_params();
  kp.halt_exit_latency = us(1);
  Kernel k(hw, kp);
  FakeOps ops;
  ops.k = &k;
  Socket sock;
  sock.ops = &ops;
  long wr = 0, rd = 0;
  sc_time t0, t_w, t_r;
  JourneyId jw = sim().journeys.begin("msg", SC_ZERO_TIME, "app");
  JourneyId jr = 77;
  auto pmain = [&]() -> Task<void> {
    t0 = now();
    wr = co_await k.sys_write(sock, 100, jw);
    t_w = now();
    rd = co_await k.sys_read(sock, 50);  // sleeps in recvmsg until the interrupt wakes it
    t_r = now();
  };
  k.spawn_process("app", 0, pmain());
  k.request_irq(0x41, [&](unsigned) -> Task<void> {
    ops.data = true;
    ops.data_journey = jr;
    co_await k.wake_up(sock.wait);
  }, SA_SHIRQ, "eth1");
  k.cpu(0).apic_message(0x41, us(40));
  sc_core::sc_start(us(100));
  const sc_time ent = C(k, CostId::syscall_entry), ex = C(k, CostId::syscall_exit);
  CHECK(wr == 100);
  CHECK(t_w == t0 + ent + k.cpu(0).cycles(5000) + ex);
  CHECK(ent + ex == k.cpu(0).cycles(1608));  // lmbench null syscall, 0.67 us at 2.4 GHz
  CHECK(rd == 50);
  CHECK(sock.rx_journey == jr);
  const sc_time woke = us(40) + us(1) + C(k, CostId::irq_entry) + C(k, CostId::wakeup) + C(k, CostId::apic_eoi) +
                       C(k, CostId::irq_return) + C(k, CostId::context_switch);
  CHECK(t_r == woke + ex);
  sim().journeys.finish(jw, t_w);
  const auto& m = sim().journeys.finished().at(0).marks;
  REQUIRE(m.size() == 3);
  CHECK(m[1].stage == "write syscall");
  CHECK(m[1].t == t0 + ent);
  CHECK(m[2].stage == "proto send");
}

TEST_CASE("kernel: DMA allocator and DRAM-backed skbs", "[kernel]") {
  FakeHost hw;
  Kernel k(hw, bench_params());
  uint64_t a = k.dma_alloc(1000, 4096);
  uint64_t b = k.dma_alloc(16 * 80, 128);  // an 80-descriptor ring
  CHECK(a % 4096 == 0);
  CHECK(a >= k.params().dma_base);
  CHECK(b % 128 == 0);
  CHECK(b >= a + 1000);
  k.dma_free(a);
  CHECK(k.dma_alloc(1000, 4096) == a);  // same size class and alignment: reused
  CHECK_THROWS_AS(k.dma_alloc(64u << 20), std::runtime_error);
  CHECK_THROWS_AS(k.dma_free(12345), std::logic_error);

  uint64_t head;
  {
    SkbPtr s = k.make_skb(2048 + 16 + 2);  // e1000 rx_buffer_len + dev_alloc_skb headroom + reserve 2
    s->reserve(16 + 2);
    head = s->head_phys;
    CHECK(head % 64 == 0);
    uint8_t* p = s->put(4);
    p[0] = 1; p[1] = 2; p[2] = 3; p[3] = 4;
    uint64_t bus = k.pci_map_single(*s, DmaDir::ToDevice);
    CHECK(bus == head + 18);
    CHECK(hw.dram[bus] == 1);
    CHECK(hw.dram[bus + 3] == 4);
    // The "NIC" writes 3 bytes; unmapping for receive copies them into the skb.
    hw.dram[bus] = 9; hw.dram[bus + 1] = 8; hw.dram[bus + 2] = 7;
    s->trim(0);
    k.pci_unmap_single(*s, 3, DmaDir::FromDevice);
    s->put(3);
    CHECK(s->data()[0] == 9);
    CHECK(s->data()[2] == 7);
    CHECK_THROWS_AS(s->push(100), std::logic_error);
  }
  SkbPtr s2 = k.make_skb(2048 + 16 + 2);
  CHECK(s2->head_phys == head);  // the freed buffer returned to the allocator
}

TEST_CASE("kernel: a freed skb is reused with fresh fields and its data bytes as they were", "[kernel]") {
  // alloc_skb initialises the sk_buff but does not clear the data buffer (2.4.20 alloc_skb:
  // kmalloc'd memory); the model reuses freed skbs the same way and must not leak any field.
  FakeHost hw;
  Kernel k(hw, bench_params());
  Skb* first = nullptr;
  uint64_t phys = 0;
  {
    SkbPtr s = k.make_skb(2048 + 16);
    first = s.get();
    phys = s->head_phys;
    s->reserve(18);
    uint8_t* p = s->put(4);
    p[0] = 0xAB;
    p[3] = 0xCD;
    s->protocol = ETH_P_IP;
    s->pkt_type = PACKET_OTHERHOST;
    s->ip_summed = CHECKSUM_HW;
    s->csum = 77;
    s->priority = 6;
    s->journey = 42;
    s->mac_off = s->nh_off = s->h_off = 3;
    s->cb[0] = 1;
    s->sk = s.get();
    s->stamp = us(5);
  }
  SkbPtr t = k.make_skb(2000);  // the same kmalloc class (2048 + 64 B shared info -> 4096)
#ifndef NICSIM_FRAME_POOL_BYPASS  // under AddressSanitizer every skb is new (core/frame_pool.h)
  CHECK(t.get() == first);        // the freed skb, not a new one
#endif
  CHECK(t->head_phys == phys);  // and its DRAM block (dma_alloc's last-freed-first)
  CHECK(t->buf.size() == 2000);
  CHECK(t->data_off == 0);
  CHECK(t->len == 0);
  CHECK(t->truesize == 2000 + 160);
  CHECK(t->protocol == 0);
  CHECK(t->pkt_type == PACKET_HOST);
  CHECK(t->ip_summed == CHECKSUM_NONE);
  CHECK(t->csum == 0);
  CHECK(t->priority == 0);
  CHECK(t->dev == nullptr);
  CHECK(t->journey == 0);
  CHECK(t->stamp == SC_ZERO_TIME);
  CHECK(t->mac_off == 0);
  CHECK(t->nh_off == 0);
  CHECK(t->h_off == 0);
  CHECK(t->cb[0] == 0);
  CHECK(t->sk == nullptr);
#ifndef NICSIM_FRAME_POOL_BYPASS
  CHECK(t->buf[18] == 0xAB);  // not cleared: what kmalloc'd memory holds
  CHECK(t->buf[21] == 0xCD);
#else
  (void)first;
#endif
  SkbPtr u = k.make_skb(100);  // another size class: a new skb
  CHECK(u.get() != first);
  CHECK(u->buf.size() == 112);
}

TEST_CASE("kernel: a new testbed's skbs hold none of the bytes an earlier testbed in the process wrote", "[kernel]") {
  // The skb reuse cache keeps a freed buffer's bytes for the same run (what kmalloc'd memory
  // holds); a second testbed in one process must start from fresh memory, as in its own process,
  // so a model reading bytes nobody wrote sees zeros, not an earlier test's packet.
  {
    FakeHost hw;
    Kernel k(hw, bench_params());
    SkbPtr s = k.make_skb(1500);
    std::fill(s->buf.begin(), s->buf.end(), uint8_t(0xA5));
  }  // the skb is freed while its kernel lives (into the cache), then the testbed goes
  FakeHost hw;
  Kernel k(hw, bench_params());
  SkbPtr t = k.make_skb(1500);  // the same kmalloc class as the skb above
  REQUIRE(t->buf.size() == 1504);
  size_t poisoned = 0;
  for (uint8_t b : t->buf) poisoned += b != 0;
  CHECK(poisoned == 0);
}

TEST_CASE("kernel: freeing a cloned skb pays the dataref decrement, one that is not skips it", "[kernel]") {
  // 2.4.20 / 2.6 net/core/skbuff.c skb_release_data: if (!skb->cloned || atomic_dec_and_test(dataref)).
  // On an SMP kernel the skb_free entry's LOCK-prefixed count (2: dst_release, dataref) is a cloned
  // skb's; a forwarded or received skb, never cloned, pays one fewer.
  FakeHost hw;
  Kernel k(hw, bench_params(2));
  sc_time plain, cloned;
  auto pmain = [&]() -> Task<void> {
    SkbPtr a = k.make_skb(64), b = k.make_skb(64);
    b->cloned = true;
    const sc_time t0 = now();
    co_await k.kfree_skb(std::move(a));
    const sc_time t1 = now();
    co_await k.kfree_skb(std::move(b));
    plain = t1 - t0;
    cloned = now() - t1;
  };
  k.spawn_process("freer", 0, pmain());
  sc_core::sc_start(ms(1));
  REQUIRE(k.costs().at(CostId::skb_free).smp_locked_ops == 2);
  CHECK(cloned == C(k, CostId::skb_free));  // the entry as counted: both locked ops
  CHECK(cloned - plain == k.cpu(0).cycles(k.costs().at(CostId::locked_op).cycles_per_call));
}

}  // namespace kernel_net_test
