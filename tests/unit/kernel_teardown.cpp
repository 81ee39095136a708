// Kernel teardown: wait queues, processes and timers are linked without owning each other, so any
// order of destruction is safe (a bug this test keeps out: ~WaitQueue wrote into a destroyed ksoftirqd). The checks
// below fail on dangling links in any build; the sanitizer build (.ci/run) also catches any write
// into freed memory while these objects go away.
#include "kernel_fake_host.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace kernel_teardown_test {
using namespace nicsim;
using namespace nicsim::test;


TEST_CASE("kernel: teardown in any order leaves no link to a destroyed process, queue or kernel", "[kernel]") {
  FakeHost hw;
  WaitQueue outer;                              // outlives the kernel and its sleeper
  auto inner = std::make_unique<WaitQueue>();   // destroyed while its sleeper lives on
  TimerList outer_timer;                        // pending when the kernel goes
  bool woke_after_queue_died = false;
  {
    Kernel k(hw, bench_params(2));
    auto on_outer = [&]() -> Task<void> { co_await outer.wait(); };
    auto on_inner = [&]() -> Task<void> {
      co_await inner->wait();
      woke_after_queue_died = true;
    };
    // A queue in the sleeper's own coroutine frame, with schedule_timeout's pending timer there too.
    auto on_own = [&]() -> Task<void> {
      WaitQueue mine;
      co_await k.schedule_timeout(mine, 1000);
    };
    Process& pa = k.spawn_process("a", 0, on_outer());
    Process& pb = k.spawn_process("b", 1, on_inner());
    Process& pc = k.spawn_process("c", 0, on_own());
    outer_timer.expires = 1000;
    outer_timer.function = []() -> Task<void> { co_return; };
    k.add_timer(outer_timer);
    sc_core::sc_start(us(50));

    REQUIRE(outer.size() == 1);
    REQUIRE(inner->size() == 1);
    CHECK(pa.wait_queue() == &outer);
    CHECK(pb.wait_queue() == inner.get());
    REQUIRE(pc.wait_queue() != nullptr);
    CHECK(pc.pstate() == Process::PState::Sleeping);
    unsigned ksoftirqds = 0;
    for (auto& p : k.processes())
      if (p->name.rfind("ksoftirqd_CPU", 0) == 0) {
        ++ksoftirqds;
        CHECK(p->wait_queue() != nullptr);  // asleep on its per-CPU queue, inside the kernel
      }
    CHECK(ksoftirqds == 2);

    // The queue dies first: its sleeper forgets it, stays asleep, and can still be woken.
    inner.reset();
    CHECK(pb.wait_queue() == nullptr);
    CHECK(pb.pstate() == Process::PState::Sleeping);
    k.request_irq(0x41, [&](unsigned) -> Task<void> { co_await k.wake_up_process(pb); }, SA_SHIRQ, "eth1");
    k.cpus().apic_message(0x41, us(1));
    sc_core::sc_start(us(50));
    CHECK(woke_after_queue_died);
    CHECK(pb.exited());
    CHECK(outer_timer.pending());
  }  // the kernel dies with a, c and both ksoftirqds asleep and outer_timer pending
  CHECK(outer.empty());  // a took itself off the queue that outlived it
  CHECK_FALSE(outer_timer.pending());
  // outer's and outer_timer's destructors now run against nothing of the dead kernel.
}

}  // namespace kernel_teardown_test
