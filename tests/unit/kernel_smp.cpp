// SMP mechanisms of the kernel model: cache lines with an owner (Kernel::touch_lines:
// a line modified on one CPU and loaded on the other is one HITM transfer, a line loaded twice is
// one), and 2.4.20 placement (kernel/fork.c do_fork + kernel/sched.c reschedule_idle): the child
// of a busy parent goes to the idle CPU with a reschedule IPI; a woken task returns to its idle
// last CPU, with an IPI from the waker's CPU; cpus_allowed keeps a task where it is told.
// The FSB answers with a fixed delay (FakeMch), so the stall arithmetic is exact.
#include "kernel_fake_host.h"
#include "drivers-sim/kernel/pipe.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace kernel_smp_test {
using namespace nicsim;
using namespace nicsim::test;


TEST_CASE("kernel smp: a line written on CPU0 and read on CPU1 costs one transfer, read twice still one",
          "[kernel][smp]") {
  FakeHost hw;
  hw.mch.read_delay = ns(180);
  KernelParams kp = bench_params(2);
  Kernel k(hw, kp);
  const uint64_t obj = k.smp_object(64);
  REQUIRE(obj != 0);
  unsigned w0 = 99, r1 = 99, r2 = 99, r0 = 99;
  sc_time t_before, t_after1, t_after2;
  WaitQueue go;
  auto writer = [&]() -> Task<void> {
    w0 = co_await k.touch_lines(obj, 64, Kernel::LineAccess::Store, "test object");
    co_await k.wake_up(go);
  };
  auto reader = [&]() -> Task<void> {
    co_await go.wait();
    t_before = now();
    r1 = co_await k.touch_lines(obj, 64, Kernel::LineAccess::Load, "test object");
    t_after1 = now();
    r2 = co_await k.touch_lines(obj, 64, Kernel::LineAccess::Load, "test object");  // now shared
    t_after2 = now();
  };
  k.spawn_process("reader", 1, reader());
  sc_core::sc_start(us(5));  // the reader sleeps first
  k.spawn_process("writer", 0, writer());
  k.cpu(0).kick();
  sc_core::sc_start(us(50));
  CHECK(w0 == 0);  // a plain store: the RFO is hidden by the store buffer
  CHECK(r1 == 1);
  CHECK(r2 == 0);
  CHECK(t_after1 - t_before == ns(180) + kp.hitm_snoop_stall);  // FSB line read + snoop stall
  CHECK(t_after2 == t_after1);
  CHECK(sim().counters.at("alpha.cpu1.xcpu_line_transfers") >= 1);
  // Shared and clean in both caches: CPU0 loads it for free.
  CHECK(k.lines_modified_elsewhere(0, obj, 64) == 0);
  auto again = [&]() -> Task<void> { r0 = co_await k.touch_lines(obj, 64, Kernel::LineAccess::Load, "test object"); };
  k.spawn_process("again", 0, again());
  k.cpu(0).kick();
  sc_core::sc_start(us(20));
  CHECK(r0 == 0);
}

TEST_CASE("kernel smp: one CPU has no line tracking, no locks and no transfers", "[kernel][smp]") {
  FakeHost hw;
  Kernel k(hw, bench_params(1));
  CHECK(k.smp_object(64) == 0);
  CHECK(k.runqueue_addr() == 0);
  unsigned r = 99;
  sc_time t0, t1;
  auto p = [&]() -> Task<void> {
    t0 = now();
    r = co_await k.touch_lines(0x40000, 64, Kernel::LineAccess::Rmw, "x");
    co_await k.spin_lock(0x40000, "x");
    t1 = now();
  };
  k.spawn_process("p", 0, p());
  sc_core::sc_start(us(10));
  CHECK(r == 0);
  CHECK(t1 == t0);
}

TEST_CASE("kernel smp: fork places the child of a busy parent on the idle CPU with an IPI", "[kernel][smp]") {
  FakeHost hw;
  Kernel k(hw, bench_params(2));
  Process* child = nullptr;
  bool child_ran = false;
  unsigned child_cpu = 99;
  auto cmain = [&]() -> Task<void> {
    child_ran = true;
    child_cpu = k.smp_processor_id();
    co_await cpu_work(1000);
  };
  auto parent = [&]() -> Task<void> {
    co_await cpu_work(2000);
    child = &k.spawn_process("child", cmain());  // do_fork + wake_up_process, parent stays busy
    co_await cpu_work(200000);                   // 100 us: CPU0 stays busy
  };
  k.spawn_process("parent", 0, parent());
  sc_core::sc_start(us(50));
  REQUIRE(child);
  CHECK(child_ran);
  CHECK(child_cpu == 1);
  CHECK(k.irq_count(1, RESCHEDULE_VECTOR) == 1);  // sent by CPU0, where the parent forked
  CHECK(child->migrations() == 1);                // started on the parent's CPU, ran on CPU1
  CHECK(child->time_on(0) == SC_ZERO_TIME);
  CHECK(child->time_on(1) > SC_ZERO_TIME);
}

TEST_CASE("kernel smp: fork with cpus_allowed of the parent's CPU only waits for the parent", "[kernel][smp]") {
  FakeHost hw;
  KernelParams kp = bench_params(2);
  kp.cpus_allowed = 0x1;  // taskset 0x1
  Kernel k(hw, kp);
  unsigned child_cpu = 99;
  sc_time child_start, parent_end;
  auto cmain = [&]() -> Task<void> {
    child_start = now();
    child_cpu = k.smp_processor_id();
    co_return;
  };
  auto parent = [&]() -> Task<void> {
    k.spawn_process("child", cmain());
    co_await cpu_work(20000);
    parent_end = now();
  };
  k.spawn_process("parent", 0, parent());
  sc_core::sc_start(us(100));
  CHECK(child_cpu == 0);
  CHECK(child_start > parent_end);  // the parent is not preempted: it runs on till it exits
  CHECK(k.irq_count(1, RESCHEDULE_VECTOR) == 0);
}

TEST_CASE("kernel smp: a woken task returns to its idle last CPU, with an IPI from the waker's CPU",
          "[kernel][smp]") {
  FakeHost hw;
  KernelParams kp = bench_params(2);
  kp.ipi_latency = ns(500);
  Kernel k(hw, kp);
  WaitQueue wq;
  unsigned woke_on = 99, first_on = 99;
  k.request_irq(0x41, [&](unsigned) -> Task<void> { co_await k.wake_up(wq); }, SA_SHIRQ, "eth1");
  Process* reader = nullptr;
  auto rmain = [&]() -> Task<void> {
    first_on = k.smp_processor_id();
    co_await wq.wait();
    woke_on = k.smp_processor_id();
  };
  // Started at elaboration by a shell on CPU0 (busy forking): the reader goes to CPU1.
  reader = &k.spawn_process("reader", rmain());
  sc_core::sc_start(us(10));
  REQUIRE(first_on == 1);
  k.cpus().apic_message(0x41, us(5));  // routed to CPU0 (irq_dest_cpu)
  sc_core::sc_start(us(60));
  CHECK(k.irq_count(0, 0x41) == 1);
  CHECK(woke_on == 1);                                // its last CPU, idle: back there
  CHECK(k.irq_count(1, RESCHEDULE_VECTOR) == 1);      // the waker (CPU0's IRQ) sent the IPI
  CHECK(reader->time_on(0) == SC_ZERO_TIME);
  CHECK(reader->migrations() == 1);                   // only the fork placement
  // The waker touched the reader's task_struct, modified on CPU1 at its switch-in: a transfer.
  CHECK(sim().counters.at("alpha.cpu0.xcpu_line_transfers") >= 1);
}

namespace {
/// Times, on a bench with `cpus` CPUs, sys_getppid and then a 1-byte write + read of a pipe in
/// one process (lat_ctx's overhead loop), both on CPU0.
struct SyscallTimes {
  sc_time getppid, pipe_pair;
};
SyscallTimes time_getppid_and_pipe(unsigned cpus) {
  FakeHost hw;
  Kernel k(hw, bench_params(cpus));
  Pipe pipe("p");
  SyscallTimes t;
  auto p = [&]() -> Task<void> {
    uint8_t c = 1;
    const sc_time t0 = now();
    co_await k.sys_getppid();
    const sc_time t1 = now();
    co_await k.sys_write(pipe, &c, 1);
    co_await k.sys_read(pipe, &c, 1);
    t.getppid = t1 - t0;
    t.pipe_pair = now() - t1;
  };
  k.spawn_process("p", 0, p());
  sc_core::sc_start(us(50));
  return t;
}

/// The times from the cost table (without SMP locked ops) plus `locked` × (1, 16) locked ops.
SyscallTimes expected_times(double locked_getppid, double locked_pipe) {
  const CostProfile& costs = cost_profile(bench_params().cost_profile);
  const double mhz = bench_params().cpu_mhz;
  auto c = [&](CostId id, size_t bytes = 0) { return costs.cycles(id, bytes, mhz); };
  const double lock = costs.at(CostId::locked_op).cycles_per_call;
  const double sys = c(CostId::syscall_entry) + c(CostId::syscall_exit);
  const double pair = 2 * sys + 2 * c(CostId::pipe_rw) + 2 * c(CostId::copy_user_cached, 1);
  auto us_of = [&](double cyc) { return sc_time(cyc / mhz, sc_core::SC_US); };
  return {us_of(sys + locked_getppid * lock), us_of(pair + locked_pipe * lock)};
}
}  // namespace

TEST_CASE("kernel smp: getppid and a pipe write and read pay their locked operations on the SMP kernel",
          "[kernel][smp]") {
  const SyscallTimes smp = time_getppid_and_pipe(2);
  // sys_getppid's SMP loop: one mb() (lock; addl $0,0(%esp)). A write + read with no sleeper: each
  // pipe_rw's 7 (fget 3, dnotify_parent 1, fput 1, PIPE_SEM down 1 and up 1) and __wake_up's queue
  // lock: 16.
  CHECK(cost_profile(bench_params().cost_profile).at(CostId::pipe_rw).smp_locked_ops == 7);
  const SyscallTimes want = expected_times(1, 2 * 7 + 2 * 1);
  CHECK(smp.getppid == want.getppid);
  CHECK(smp.pipe_pair == want.pipe_pair);
}

TEST_CASE("kernel smp: on a UP kernel getppid and a pipe write and read take no locked operation", "[kernel][smp]") {
  const SyscallTimes up = time_getppid_and_pipe(1);
  const SyscallTimes want = expected_times(0, 0);
  CHECK(up.getppid == want.getppid);
  CHECK(up.pipe_pair == want.pipe_pair);
}

namespace {
/// A reader forked at elaboration (placed on CPU1, asleep there) is woken by a process on CPU0
/// that works 10 us more and then sleeps.
struct WakeBench {
  FakeHost hw;
  Kernel k{hw, bench_params(2)};
  WaitQueue wq, never;
  unsigned first_on = 99, woke_on = 99;
  /// Runs the bench; returns the CPU the reader woke on.
  unsigned run(bool sync) {
    auto rmain = [this]() -> Task<void> {
      first_on = k.smp_processor_id();
      co_await wq.wait();
      woke_on = k.smp_processor_id();
    };
    k.spawn_process("reader", rmain());
    sc_core::sc_start(us(10));
    REQUIRE(first_on == 1);
    auto wmain = [this, sync]() -> Task<void> {
      co_await k.wake_up(wq, 0, sync);
      co_await cpu_work(20000);  // 10 us on CPU0 before it sleeps
      co_await never.wait();
    };
    k.spawn_process("waker", 0, wmain());
    k.cpu(0).kick();
    sc_core::sc_start(us(50));
    return woke_on;
  }
};
}  // namespace

TEST_CASE("kernel smp: a sync wakeup keeps the wakee off its idle last CPU and sends no IPI", "[kernel][smp]") {
  // try_to_wake_up(p, synchronous = 1) skips reschedule_idle when the waker's CPU is allowed: the
  // reader waits for CPU0, which runs it when the waker sleeps (pipe_read's "we know we are going
  // to sleep" wake_up_interruptible_sync).
  WakeBench b;
  CHECK(b.run(true) == 0);
  CHECK(b.k.irq_count(1, RESCHEDULE_VECTOR) == 0);
}

TEST_CASE("kernel smp: a plain wakeup sends the wakee to its idle last CPU with an IPI", "[kernel][smp]") {
  WakeBench b;
  CHECK(b.run(false) == 1);
  CHECK(b.k.irq_count(1, RESCHEDULE_VECTOR) == 1);
}

}  // namespace kernel_smp_test
