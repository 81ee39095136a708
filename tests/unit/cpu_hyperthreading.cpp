// Hyper-threading (Cpu::set_sibling, Cpu::Params::smt_shared_speed; KernelParams::threads_per_core):
// two logical CPUs of one core share its execution time and its caches. A burn runs at
// smt_shared_speed of the core while the sibling is not halted and at full speed while it is halted
// (HLT gives the core back: single-task mode, Intel Technology Journal 6(1), 2002); a burn under way
// is re-timed the moment the sibling halts or wakes; a line one sibling loaded the other hits.
// Expected times are derived from those rules and the cost table, never copied from a run.
#include "kernel_fake_host.h"
#include "drivers-sim/kernel/kernel_params.h"
#include "drivers-sim/kernel/profiles.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace cpu_hyperthreading_test {
using namespace nicsim;
using namespace nicsim::test;

namespace {
// `cores` cores x 2 threads at 2000 MHz, a sibling that runs halves the speed (exact arithmetic).
KernelParams ht_params(unsigned cores) {
  KernelParams p = bench_params(2 * cores);
  p.threads_per_core = 2;
  p.smt_shared_speed = 0.5;
  return p;
}
// Equal to within a picosecond per re-timing (sc_time is integer picoseconds).
bool near(const sc_time& a, const sc_time& b) {
  const double d = a.to_double() - b.to_double();
  return d > -4 && d < 4;
}
}  // namespace

TEST_CASE("hyper-threading: a sibling that runs slows a burn to smt_shared_speed, its halt gives the core back "
          "mid-burn",
          "[cpu][smt]") {
  FakeHost hw;
  Kernel k(hw, ht_params(1));  // logical CPUs 0 and 1: the two threads of one core
  REQUIRE(k.cpu(0).sibling() == &k.cpu(1));
  REQUIRE(k.cpu(1).sibling() == &k.cpu(0));
  const double WA = 40000, WB = 4000;  // cycles: 20 us and 2 us at the core's full speed
  sc_time a_end, b_end;
  auto pa = [&]() -> Task<void> {
    co_await cpu_work(WA);
    a_end = now();
  };
  auto pb = [&]() -> Task<void> {
    co_await cpu_work(WB);
    b_end = now();
  };
  k.spawn_process("A", 0, pa());
  k.spawn_process("B", 1, pb());
  sc_core::sc_start(us(100));

  // Each switch-in on this SMP kernel takes runqueue_lock (a spin_lock) besides context_switch.
  const sc_time cs = C(k, CostId::context_switch) + C(k, CostId::spin_lock);
  // Both threads busy from t = 0: each at half speed.
  CHECK(near(b_end, 2 * (cs + k.cpu(1).cycles(WB))));
  // B exits, CPU1 halts at h (it stays halted: idle_time counts from there to the end); A did
  // h/2 of its work by then and the rest at full speed: A ends at (cs + WA) + h/2.
  const sc_time h = us(100) - k.cpu(1).idle_time();
  CHECK(h >= b_end);
  CHECK(h - b_end < us(1));
  CHECK(near(a_end, cs + k.cpu(0).cycles(WA) + h / 2));
  CHECK(a_end > cs + k.cpu(0).cycles(WA));  // slower than alone on the core
  CHECK(k.cpu(0).speed() == 1.0);           // the sibling is halted
}

TEST_CASE("hyper-threading: a sibling woken by an interrupt slows the burn under way for exactly the time it runs",
          "[cpu][smt]") {
  FakeHost hw;
  Kernel k(hw, ht_params(1));
  const double WA = 40000, H = 2000;  // cycles
  const sc_time tau = us(5);
  sc_time a_end, h_end;
  k.request_irq(0x41, [&](unsigned) -> Task<void> {
    co_await cpu_work(H);
    h_end = now();
  }, SA_SHIRQ, "eth1");
  auto pa = [&]() -> Task<void> {
    co_await cpu_work(WA);
    a_end = now();
  };
  k.spawn_process("A", 0, pa());
  k.cpu(1).apic_message(0x41, tau);
  sc_core::sc_start(us(100));

  const sc_time cs = C(k, CostId::context_switch) + C(k, CostId::spin_lock);  // switch-in with runqueue_lock
  const sc_time entry = C(k, CostId::irq_entry);
  const sc_time eoi = C(k, CostId::apic_eoi), ret = C(k, CostId::irq_return);
  const sc_time L = k.params().halt_exit_latency;
  // CPU1 leaves HLT when the interrupt arrives: the core is back in two-thread mode from then, so A
  // runs at half speed through the exit latency too; CPU1's interrupt path runs at half speed
  // beside A; A loses half of the time CPU1 is awake.
  CHECK(near(h_end, tau + L + 2 * (entry + k.cpu(1).cycles(H))));
  const sc_time awake = L + 2 * (entry + k.cpu(1).cycles(H) + eoi + ret);
  CHECK(near(a_end, cs + k.cpu(0).cycles(WA) + awake / 2));
  CHECK(k.cpu(1).busy(ExecLevel::Hardirq) == 2 * (entry + k.cpu(1).cycles(H) + eoi + ret));
}

TEST_CASE("hyper-threading: siblings share their core's cache lines, the other core does not", "[cpu][smt][dma]") {
  struct SnoopingHost : FakeHost {
    std::function<void(uint64_t, size_t)> observer;
    void set_dma_write_observer(std::function<void(uint64_t, size_t)> o) override { observer = std::move(o); }
  } hw;
  hw.mch.read_delay = ns(180);
  Kernel k(hw, ht_params(2));  // 4 logical CPUs: core 0 = CPUs 0 and 2, core 1 = CPUs 1 and 3
  REQUIRE(k.cpu(0).sibling() == &k.cpu(2));
  REQUIRE(k.cpu(1).sibling() == &k.cpu(3));
  REQUIRE(hw.observer);
  const uint64_t base = 0x10000;
  unsigned m0 = 99, m2 = 99, miss1 = 99, miss3 = 99, miss2 = 99;
  auto p0 = [&]() -> Task<void> {
    hw.observer(base, 128);  // the NIC wrote two lines
    m0 = co_await k.load_dma_lines(base, 128);
    miss2 = k.dma_lines_missing(2, base, 128);
    miss1 = k.dma_lines_missing(1, base, 128);
    miss3 = k.dma_lines_missing(3, base, 128);
  };
  k.spawn_process("reader", 0, p0());
  auto p2 = [&]() -> Task<void> {
    co_await cpu_work(20000);  // after CPU0 has loaded them
    m2 = co_await k.load_dma_lines(base, 128);
  };
  k.spawn_process("sibling", 2, p2());
  sc_core::sc_start(us(40));

  CHECK(m0 == 2);
  CHECK(miss2 == 0);  // the sibling's cache is CPU0's
  CHECK(miss1 == 2);  // the other core's is not
  CHECK(miss3 == 2);
  CHECK(m2 == 0);
  CHECK(sim().counters.at("alpha.cpu0.dma_line_misses") == 2);
  CHECK(sim().counters.get("alpha.cpu2.dma_line_misses") == 0);
}

TEST_CASE("hyper-threading: the kernel refuses threads_per_core and smt_shared_speed it cannot model, a scenario "
          "cannot ask a profile without it for two threads",
          "[cpu][smt][validation]") {
  FakeHost hw;
  KernelParams p = ht_params(1);
  p.cpus = 3;  // not a multiple of 2 threads
  CHECK_THROWS_WITH(Kernel(hw, p), Catch::Contains("threads_per_core"));
  p = ht_params(1);
  p.threads_per_core = 3;
  CHECK_THROWS_WITH(Kernel(hw, p), Catch::Contains("threads_per_core"));
  p = ht_params(1);
  p.smt_shared_speed = 0;
  CHECK_THROWS_WITH(Kernel(hw, p), Catch::Contains("smt_shared_speed"));
  p.smt_shared_speed = 1.5;
  CHECK_THROWS_WITH(Kernel(hw, p), Catch::Contains("smt_shared_speed"));

  // The HT profile gives 2 threads per core; the same profile with threads_per_core = 1 is HT off.
  CHECK(cpu_profile("xeon-prestonia-ht").threads_per_core == 2);
  CHECK(cpu_profile("xeon-prestonia-ht").smt_shared_speed > 0);
  CHECK(cpu_profile("xeon-prestonia-ht").smt_shared_speed < 1);
  CHECK(cpu_profile("xeon-prestonia").threads_per_core == 1);
}

}  // namespace cpu_hyperthreading_test
