// Kernel: wakeup + context switch, cross-CPU wakeup by IPI, goodness-based wakeup preemption,
// timers at the right jiffy, coroutine nesting with values and exceptions, pure helpers.
#include "kernel_fake_host.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace kernel_sched_test {
using namespace nicsim;
using namespace nicsim::test;

namespace {
}  // namespace

TEST_CASE("kernel: pure helpers (tick period, NICE_TO_TICKS, goodness, prio2band, costs)", "[kernel]") {
  // LATCH = (1193180 + 50) / 100 = 11932 PIT clocks of 1/1193180 s.
  CHECK(tick_period(100) == sc_time(11932.0 / 1193180.0, sc_core::SC_SEC));
  CHECK(to_us(tick_period(100)) == Approx(10000.1676193).epsilon(1e-9));
  CHECK(nice_to_ticks(0) == 6);
  CHECK(nice_to_ticks(19) == 1);
  CHECK(nice_to_ticks(-20) == 11);
  CHECK(goodness(6, 0) == 26);
  CHECK(goodness(0, -20) == 0);
  CHECK(goodness(1, 19) == 2);
  CHECK(prio2band(0) == 1);  // TC_PRIO_BESTEFFORT
  CHECK(prio2band(6) == 0);  // TC_PRIO_INTERACTIVE
  CHECK(prio2band(2) == 2);  // TC_PRIO_BULK
  const CostProfile& p = cost_profile("linux-2.4.20-p4xeon");
  CHECK(p.at(CostId::syscall_entry).cycles_per_call + p.at(CostId::syscall_exit).cycles_per_call == 1608);  // lmbench null syscall
  // memory-bound copy: 1448 B at 3.2 cycles/B at 2.4 GHz -> 1.2 GHz takes half the cycles (same ns).
  CHECK(p.cycles(CostId::copy_user_uncached, 1448, 2400) == Approx(50 + 1448 * 3.2));
  CHECK(p.cycles(CostId::copy_user_uncached, 1448, 1200) == Approx(50 + 1448 * 1.6));
  CHECK(p.cycles(CostId::ip_rcv, 1448, 1200) == p.at(CostId::ip_rcv).cycles_per_call);
  CHECK(cpu_cycles(1761, 2400) == sc_time(733750, sc_core::SC_PS));
  CHECK_THROWS_AS(cost_profile("linux-9.9"), std::invalid_argument);
  for (size_t i = 0; i < kCostCount; ++i) CHECK(std::string(p.entries[i].source).size() > 0);
  // The schema's defaults give back the KernelParams defaults.
  KernelParams d, q = kernel_params_from(ParamValues(kernel_param_schema()), "h", 2, 2200);
  CHECK(q.irq_dest_cpu == d.irq_dest_cpu);
  CHECK(q.hz == 100);
  CHECK(q.halt_exit_latency == d.halt_exit_latency);
  CHECK(q.ipi_latency == d.ipi_latency);
  CHECK(q.netdev_max_backlog == 300);
  CHECK(q.cpus == 2);
}

TEST_CASE("kernel: softirq wakeup of a sleeping process costs wakeup + context switch", "[kernel]") {
  FakeHost hw;
  KernelParams kp = bench_params();
  kp.halt_exit_latency = us(1);
  Kernel k(hw, kp);
  WaitQueue wq;
  const double H = 3000, S2 = 4000;
  sc_time t_woke, t_wake_call;
  JourneyId j = sim().journeys.begin("test message", SC_ZERO_TIME, "sent");
  k.request_irq(0x41, [&](unsigned) -> Task<void> {
    co_await cpu_work(H);
    k.raise_softirq(TASKLET_SOFTIRQ);
  }, SA_SHIRQ, "eth1");
  k.open_softirq(TASKLET_SOFTIRQ, [&](unsigned) -> Task<void> {
    co_await k.wake_up(wq, j);
    t_wake_call = now();
    co_await cpu_work(S2);
  });
  auto pmain = [&]() -> Task<void> {
    co_await wq.wait();
    t_woke = now();
  };
  Process& p = k.spawn_process("reader", 0, pmain());
  k.cpu(0).apic_message(0x41, us(20));
  sc_core::sc_start(us(60));

  const sc_time acc = us(20) + us(1);  // CPU halted since the reader slept: HLT exit
  const sc_time wake = acc + C(k, CostId::irq_entry) + k.cpu(0).cycles(H) + C(k, CostId::apic_eoi) +
                       C(k, CostId::softirq_entry) + C(k, CostId::wakeup);
  CHECK(t_wake_call == wake);
  const sc_time sw = wake + k.cpu(0).cycles(S2) + C(k, CostId::irq_return);
  CHECK(t_woke == sw + C(k, CostId::context_switch));
  CHECK(k.context_switches(0) == 4);  // idle->reader, reader->idle (sleep), idle->reader, reader->idle (exit)
  CHECK(p.nvcsw() == 1);
  CHECK(p.exited());
  sim().journeys.finish(j, t_woke);
  REQUIRE(sim().journeys.finished().size() == 1);
  const auto& m = sim().journeys.finished()[0].marks;
  REQUIRE(m.size() == 3);
  CHECK(m[1].stage == "run queue");
  CHECK(m[1].t == wake);
  CHECK(m[1].cause == "CPU busy: softirq do_softirq");
  CHECK(m[2].stage == "context switch");
  CHECK(m[2].t == sw);
}

TEST_CASE("kernel: waking a process on another idle CPU goes through a reschedule IPI", "[kernel]") {
  FakeHost hw;
  KernelParams kp = bench_params(2);
  kp.halt_exit_latency = us(1);
  kp.ipi_latency = ns(500);
  Kernel k(hw, kp);
  WaitQueue wq;
  sc_time t_woke, t_wake;
  k.request_irq(0x41, [&](unsigned) -> Task<void> {
    co_await k.wake_up(wq);
    t_wake = now();
  }, SA_SHIRQ, "eth1");
  auto pmain = [&]() -> Task<void> {
    co_await wq.wait();
    t_woke = now();
  };
  k.spawn_process("reader", 1, pmain());
  k.cpus().apic_message(0x41, us(20));  // as the chipset does: routed to CPU0
  sc_core::sc_start(us(60));
  CHECK(k.irq_count(0, 0x41) == 1);
  CHECK(k.irq_count(1, 0x41) == 0);
  // SMP: try_to_wake_up takes runqueue_lock and writes the reader's task_struct (two
  // lines), all three modified on CPU1 when the reader switched in there: three HITM transfers
  // (the FakeMch line read + hitm_snoop_stall each) plus the locked op; __wake_up's own wait-queue
  // lock is one more locked op (and irq_entry's cost includes do_IRQ's two).
  const sc_time hitm = hw.mch.read_delay + kp.hitm_snoop_stall;
  CHECK(t_wake == us(21) + C(k, CostId::irq_entry) + C(k, CostId::locked_op) + C(k, CostId::wakeup) +
                      C(k, CostId::spin_lock) + 3 * hitm);
  // CPU1 is halted: IPI flight, HLT exit, reschedule interrupt (EOI at entry, no handler), switch
  // (with runqueue_lock, and the three lines back from CPU0).
  CHECK(t_woke == t_wake + ns(500) + us(1) + C(k, CostId::irq_entry) + C(k, CostId::apic_eoi) +
                      C(k, CostId::irq_return) + C(k, CostId::context_switch) + C(k, CostId::spin_lock) + 3 * hitm);
  CHECK(k.irq_count(1, RESCHEDULE_VECTOR) == 1);
  CHECK(k.context_switches(1) == 4);  // in, out (sleep), in, out (exit)
}

TEST_CASE("kernel: a woken task preempts a user-mode task only with better goodness", "[kernel]") {
  FakeHost hw;
  Kernel k(hw, bench_params());
  WaitQueue wq_hi, wq_lo;
  const double W = 100000;  // 50 us of user-mode work
  sc_time hog_end, hi_woke, lo_woke;
  k.request_irq(0x41, [&](unsigned) -> Task<void> {
    co_await k.wake_up(wq_hi);  // nice 0: goodness 26 > hog's 13 -> preempts at irq return
    co_await k.wake_up(wq_lo);  // nice 19: goodness 2 < 13 -> waits
  }, SA_SHIRQ, "eth1");
  auto hi = [&]() -> Task<void> {
    co_await wq_hi.wait();
    hi_woke = now();
  };
  auto lo = [&]() -> Task<void> {
    co_await wq_lo.wait();
    lo_woke = now();
  };
  auto hog = [&]() -> Task<void> {
    co_await cpu_work(W);
    hog_end = now();
  };
  const sc_time cs = C(k, CostId::context_switch);
  k.spawn_process("hi", 0, hi(), 0);
  k.spawn_process("lo", 0, lo(), 19);
  // The hog starts after both sleepers went to sleep (three switches in, spawned at time 0).
  sc_core::sc_start(3 * cs);
  k.spawn_process("hog", 0, hog(), 10);
  k.cpu(0).kick();
  k.cpu(0).apic_message(0x41, us(30));
  sc_core::sc_start(us(200));

  const sc_time hog_start = 3 * cs;  // idle->hog switch at 3cs (switch cost counted below)
  const sc_time irq = C(k, CostId::irq_entry) + 2 * C(k, CostId::wakeup) + C(k, CostId::apic_eoi) + C(k, CostId::irq_return);
  const sc_time t_irq = hog_start + us(30);
  CHECK(hi_woke == t_irq + irq + cs);
  // hi exits; schedule picks the hog (13) before lo (2): the hog resumes and finishes its work.
  const sc_time done_before = cs + k.cpu(0).cycles(W);  // hog's own switch-in + work
  CHECK(hog_end == hog_start + done_before + irq + cs /*hi in*/ + cs /*hog back*/);
  CHECK(lo_woke == hog_end + cs);
}

TEST_CASE("kernel: timers run in TIMER_BH at the first tick with jiffies >= expires", "[kernel]") {
  FakeHost hw;
  KernelParams kp = bench_params(1, true);
  kp.halt_exit_latency = us(1);
  Kernel k(hw, kp);
  TimerList t_past, t3, t_mod, t_del;
  std::vector<std::pair<std::string, uint64_t>> fired;
  sc_time t3_at;
  t_past.function = [&]() -> Task<void> { fired.push_back({"past", k.jiffies()}); co_return; };
  t3.function = [&]() -> Task<void> { t3_at = now(); fired.push_back({"t3", k.jiffies()}); co_return; };
  t_mod.function = [&]() -> Task<void> { fired.push_back({"mod", k.jiffies()}); co_return; };
  t_del.function = [&]() -> Task<void> { fired.push_back({"del", k.jiffies()}); co_return; };
  auto pmain = [&]() -> Task<void> {
    t_past.expires = 0;  // already due: runs at the next tick (jiffies 1)
    k.add_timer(t_past);
    t3.expires = k.jiffies() + 3;
    k.add_timer(t3);
    t_mod.expires = 2;
    k.add_timer(t_mod);
    CHECK(k.mod_timer(t_mod, 5) == 1);
    t_del.expires = 4;
    k.add_timer(t_del);
    CHECK(k.del_timer(t_del) == 1);
    CHECK(k.del_timer(t_del) == 0);
    co_return;
  };
  k.spawn_process("arm", 0, pmain());
  const sc_time period = tick_period(100);
  sc_core::sc_start(period * 7);
  REQUIRE(fired.size() == 3);
  CHECK(fired[0] == std::make_pair(std::string("past"), uint64_t(1)));
  CHECK(fired[1] == std::make_pair(std::string("t3"), uint64_t(3)));
  CHECK(fired[2] == std::make_pair(std::string("mod"), uint64_t(5)));
  // Tick 3 at 3·period: HLT exit, LOC interrupt, IRQ0 (jiffies=3), TIMER_BH in HI_SOFTIRQ.
  const sc_time loc = C(k, CostId::irq_entry) + C(k, CostId::apic_eoi) + C(k, CostId::local_timer) + C(k, CostId::irq_return);
  CHECK(t3_at == period * 3 + us(1) + loc + C(k, CostId::irq_entry) + C(k, CostId::apic_eoi) +
                     C(k, CostId::timer_interrupt) + C(k, CostId::softirq_entry) + C(k, CostId::run_timer_list) +
                     C(k, CostId::timer_callback));
  CHECK_FALSE(t3.pending());
}

namespace {
Task<int> leaf(int x) {
  co_await cpu_work(100);
  co_return x * 2;
}
Task<int> mid(int x) {
  int a = co_await leaf(x);
  int b = co_await leaf(a);
  co_return a + b;
}
Task<std::string> top_level(int x) {
  int v = co_await mid(x);
  co_return "v=" + std::to_string(v);
}
Task<int> thrower() {
  co_await cpu_work(10);
  throw std::runtime_error("boom");
}
Task<void> no_cpu_time(int& n) {
  ++n;
  co_return;
}
}  // namespace

TEST_CASE("kernel: coroutines nest with values, exceptions and zero-time calls", "[kernel]") {
  FakeHost hw;
  Kernel k(hw, bench_params());
  std::string s;
  std::string caught;
  int n = 0;
  sc_time end;
  auto pmain = [&]() -> Task<void> {
    s = co_await top_level(3);  // leaf(3) = 6, leaf(6) = 12: 6 + 12 = 18, two 100-cycle leaves
    try {
      co_await thrower();
    } catch (const std::runtime_error& e) {
      caught = e.what();
    }
    for (int i = 0; i < 1000; ++i) co_await no_cpu_time(n);
    end = now();
  };
  k.spawn_process("nest", 0, pmain());
  sc_core::sc_start(us(20));
  CHECK(s == "v=18");
  CHECK(caught == "boom");
  CHECK(n == 1000);
  CHECK(end == C(k, CostId::context_switch) + k.cpu(0).cycles(2 * 100 + 10));
}

}  // namespace kernel_sched_test
