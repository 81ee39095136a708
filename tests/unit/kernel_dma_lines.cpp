// Kernel::load_dma_lines: the CPU's cache misses on memory a device wrote by DMA. A device write
// (reported by the chipset's snoop, HostHw::set_dma_write_observer) invalidates the lines in every
// CPU; a load then fills each such line over the FSB once per CPU, stalled and not preemptible; a
// CPU store makes the line that CPU's own. The FSB answers here with a fixed delay (FakeMch), so the
// stall arithmetic is exact; the real fill latency is tested in chipset_e7500_line_fill.cpp.
#include "drivers-sim/net/inet.h"
#include "kernel_fake_host.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace kernel_dma_lines_test {
using namespace nicsim;
using namespace nicsim::test;

namespace {
struct SnoopingHost : FakeHost {
  std::function<void(uint64_t, size_t)> observer;
  void set_dma_write_observer(std::function<void(uint64_t, size_t)> o) override { observer = std::move(o); }
};
}  // namespace

TEST_CASE("kernel: DMA'd lines miss once per line and CPU, stall for the line fill, and a store owns the line",
          "[kernel][dma]") {
  SnoopingHost hw;
  hw.mch.read_delay = ns(180);
  Kernel k(hw, bench_params(2));
  REQUIRE(hw.observer);
  const uint64_t base = 0x10000;  // line 1024 (64-byte lines)
  unsigned m1 = 99, m2 = 99, m3 = 99, m4 = 99;
  sc_time t1, t2, t3, stall_start;
  unsigned miss_cpu1_before = 0, miss_cpu0_after_store = 0, miss_cpu1_after_store = 0;
  IrqStamp stamp;
  JourneyId j = sim().journeys.begin("test frame", SC_ZERO_TIME, "sent");
  k.request_irq(0x41, [&](unsigned) -> Task<void> {
    stamp = *k.current_irq();
    co_return;
  }, SA_SHIRQ, "eth1");
  auto pmain = [&]() -> Task<void> {
    // The device wrote 100 bytes at base+10: lines base and base+64.
    hw.observer(base + 10, 100);
    k.mark(j, "driver rx");
    stall_start = now();
    m1 = co_await k.load_dma_lines(base, 128, j);
    t1 = now();
    m2 = co_await k.load_dma_lines(base, 128, j);  // now cached in CPU0
    t2 = now();
    miss_cpu1_before = k.dma_lines_missing(1, base, 128);  // CPU1 never loaded them
    hw.observer(base, 128);                                // written again: both lines invalid
    k.mem_write(base, "x", 1);                             // CPU0 stores into the first one
    miss_cpu0_after_store = k.dma_lines_missing(0, base, 128);
    miss_cpu1_after_store = k.dma_lines_missing(1, base, 128);
    k.cpu(0).apic_message(0x41, ns(50));  // arrives during the next stall: waits for the line fill
    m3 = co_await k.load_dma_lines(base + 64, 1);  // the second line still misses
    t3 = now();
    m4 = co_await k.load_dma_lines(0x20000, 64);  // never written by a device: cached, free
  };
  k.spawn_process("reader", 0, pmain());
  sc_core::sc_start(us(20));

  CHECK(m1 == 2);
  CHECK(t1 - stall_start == ns(360));  // two line fills, one after the other
  CHECK(m2 == 0);
  CHECK(t2 == t1);
  CHECK(miss_cpu1_before == 2);
  CHECK(miss_cpu0_after_store == 1);
  CHECK(miss_cpu1_after_store == 2);
  CHECK(m3 == 1);
  CHECK(t3 - t2 >= ns(180));  // the fill, then the interrupt taken at the instruction boundary
  CHECK(m4 == 0);
  CHECK(sim().counters.at("alpha.cpu0.dma_line_misses") == 3);
  CHECK(sim().counters.at("alpha.cpu0.dma_line_stall_ns") == 540);
  CHECK(sim().counters.at("alpha.cpu1.dma_line_misses") == 0);
  // The interrupt waited for the stall (an x86 load retires only with its data).
  CHECK(stamp.arrived == t2 + ns(50));
  CHECK(stamp.accepted == t2 + ns(180));
  CHECK(stamp.wait_cause == "cache miss: process reader");
  // The journey was in the miss stage during the stalls, then back in "driver rx".
  const Journey* jr = sim().journeys.find(j);
  REQUIRE(jr);
  bool saw_miss = false, back = false;
  for (auto& m : jr->marks) {
    if (m.stage == Kernel::kDmaMissStage && m.t == stall_start) saw_miss = true;
    if (saw_miss && m.stage == "driver rx" && m.t > stall_start) back = true;
  }
  CHECK(saw_miss);
  CHECK(back);
}

TEST_CASE("ip_tcp_header_bytes: IHL×4 plus the TCP data offset×4 or the UDP header, clamped to the packet", "[net][dma]") {
  uint8_t p[80] = {};
  p[0] = 0x45;  // IPv4, IHL 5
  p[9] = 6;     // TCP
  p[20 + 12] = 8 << 4;  // data offset 8 words: 20-byte header + 12 bytes of timestamp option
  CHECK(ip_tcp_header_bytes(p, 80) == 20 + 32);
  CHECK(ip_tcp_header_bytes(p, 40) == 40);  // truncated: clamped
  p[0] = 0x46;                              // IHL 6 (one option word): TCP header moves by 4
  p[24 + 12] = 5 << 4;
  CHECK(ip_tcp_header_bytes(p, 80) == 24 + 20);
  p[9] = 17;  // UDP: the IP header and udp_rcv's 8-byte UDP header
  CHECK(ip_tcp_header_bytes(p, 80) == 24 + 8);
  p[7] = 185;  // a later fragment (offset 1480): no UDP header in it, only the IP header is read
  CHECK(ip_tcp_header_bytes(p, 80) == 24);
  p[9] = 1;  // another protocol: only the IP header
  p[7] = 0;
  CHECK(ip_tcp_header_bytes(p, 80) == 24);
  CHECK(ip_tcp_header_bytes(p, 10) == 10);
}

TEST_CASE("kernel: a prefetch starts the line fill at once and a later load waits only for what is left of it",
          "[kernel][dma][prefetch]") {
  SnoopingHost hw;
  hw.mch.read_delay = ns(180);
  Kernel k(hw, bench_params(1));
  const uint64_t base = 0x10000;  // lines 1024 and 1025
  unsigned m_early = 99, m_late = 99, m_stale = 99, m_held = 99;
  sc_time t0, t_early, t1, t_late, t2, t_stale, t3, t_held;
  auto pmain = [&]() -> Task<void> {
    hw.observer(base, 128);  // the NIC wrote both lines
    t0 = now();
    k.prefetch(base + 2);      // prefetch(skb->data - NET_IP_ALIGN): the line holding base + 2
    co_await cpu_work(200);    // 100 ns of other work
    m_early = co_await k.load_dma_lines(base, 14);  // the fill is 80 ns from done: waits for that
    t_early = now();
    t1 = now();
    k.prefetch(base + 64);
    co_await cpu_work(600);  // 300 ns: the fill has arrived
    m_late = co_await k.load_dma_lines(base + 64, 64);
    t_late = now();
    // Written again by DMA after the prefetch and before the load: the fill brought stale data.
    hw.observer(base, 64);
    t2 = now();
    k.prefetch(base);
    hw.observer(base, 64);
    m_stale = co_await k.load_dma_lines(base, 64);
    t_stale = now();
    // A line the CPU holds: the prefetch starts no fill.
    t3 = now();
    k.prefetch(base);
    m_held = co_await k.load_dma_lines(base, 64);
    t_held = now();
  };
  k.spawn_process("reader", 0, pmain());
  sc_core::sc_start(us(20));

  CHECK(m_early == 0);  // not a miss: the line is the CPU's from the prefetch on
  CHECK(t_early - t0 == ns(180));  // 100 ns of work + the 80 ns left of the fill, not 100 + 180
  CHECK(m_late == 0);
  CHECK(t_late - t1 == ns(300));  // the fill hidden entirely
  CHECK(m_stale == 1);
  CHECK(t_stale - t2 == ns(180));  // a full demand miss
  CHECK(m_held == 0);
  CHECK(t_held == t3);
  CHECK(sim().counters.at("alpha.cpu0.prefetches") == 3);  // the held line started none
  CHECK(sim().counters.at("alpha.cpu0.prefetch_wait_ns") == 80);
  CHECK(sim().counters.at("alpha.cpu0.dma_line_misses") == 1);
  CHECK(sim().counters.at("alpha.cpu0.dma_line_stall_ns") == 180);
}

TEST_CASE("kernel: with a 128-byte read sector a miss fetches the adjacent line behind it without stalling for it",
          "[kernel][dma][prefetch]") {
  SnoopingHost hw;
  hw.mch.read_delay = ns(180);
  KernelParams kp = bench_params(1);
  kp.read_sector_bytes = 128;  // NetBurst (CpuProfile xeon-prestonia)
  Kernel k(hw, kp);
  const uint64_t base = 0x20000;  // a 128-byte sector: lines 2048 and 2049; 2050 the next sector
  unsigned m_first = 99, m_adjacent = 99, m_next_sector = 99, m_prefetched = 99;
  sc_time t0, t_first, t_adjacent, t_next, t1, t_prefetched;
  auto pmain = [&]() -> Task<void> {
    hw.observer(base, 192);  // the NIC wrote three lines
    t0 = now();
    // A copybreak memcpy of 64 bytes from data - 2 = line offset 16: it spans both lines of the
    // sector; the second is on its way behind the first and has arrived when the first has.
    m_first = co_await k.load_dma_lines(base + 16, 64);
    t_first = now();
    m_adjacent = co_await k.load_dma_lines(base + 64, 64);  // already fetched with the sector
    t_adjacent = now();
    m_next_sector = co_await k.load_dma_lines(base + 128, 64);  // another sector: a miss of its own
    t_next = now();
    // A prefetch fetches the sector too: both lines of a freshly written sector are on their way.
    hw.observer(base, 128);
    t1 = now();
    k.prefetch(base);
    co_await cpu_work(400);  // 200 ns: both fills have arrived
    m_prefetched = co_await k.load_dma_lines(base, 128);
    t_prefetched = now();
  };
  k.spawn_process("reader", 0, pmain());
  sc_core::sc_start(us(20));

  CHECK(m_first == 1);  // one demand miss for the two lines the copy reads
  CHECK(t_first - t0 == ns(180));
  CHECK(m_adjacent == 0);
  CHECK(t_adjacent == t_first);
  CHECK(m_next_sector == 1);  // line 2050 was not fetched with 2048/2049
  CHECK(t_next - t_adjacent == ns(180));
  CHECK(m_prefetched == 0);
  CHECK(t_prefetched - t1 == ns(200));
  CHECK(sim().counters.at("alpha.cpu0.dma_line_misses") == 2);
  CHECK(sim().counters.at("alpha.cpu0.adjacent_line_fills") == 2);  // 2049 with the miss and with the prefetch
  CHECK(sim().counters.at("alpha.cpu0.prefetches") == 1);
}

TEST_CASE("kernel: read_sector_bytes must be 0 or a power of two from the line size", "[kernel][dma]") {
  FakeHost hw;
  KernelParams kp = bench_params(1);
  kp.read_sector_bytes = 96;
  CHECK_THROWS_WITH(Kernel(hw, kp), Catch::Contains("read_sector_bytes must be 0 or a power of two"));
  kp.read_sector_bytes = 32;  // below the 64-byte line
  CHECK_THROWS_WITH(Kernel(hw, kp), Catch::Contains("read_sector_bytes"));
}

}  // namespace kernel_dma_lines_test
