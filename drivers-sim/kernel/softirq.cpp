// Softirqs and ksoftirqd of the kernel model (Linux 2.4.20 kernel/softirq.c; see kernel.h for the
// other files). What do_softirq does and when it runs: interrupt.h. do_IRQ's irq_exit (irq.cpp) and
// local_bh_enable run it as a softirq context stacked on the current one (run_softirq_child),
// interruptible.
//
//   Linux                                   here
//   open_softirq()                          Kernel::open_softirq
//   raise_softirq(), cpu_raise_softirq()    Kernel::raise_softirq, raise_softirq_on
//   wakeup_softirqd()                       Kernel::wakeup_softirqd
//   do_softirq()                            Kernel::do_softirq (run as a context: run_softirq_child)
//   ksoftirqd()                             Kernel::ksoftirqd_main (the thread: kernel.cpp's Kernel())
//   local_bh_disable/enable (asm/softirq.h) Kernel::local_bh_disable, local_bh_enable,
//                                           softirq_bh_count
//
// ksoftirqd is the same in 2.4 and 2.6 (one nice-19 thread per CPU, woken when do_softirq leaves
// work or a softirq is raised outside interrupt context); a kernel whose softirq rules differ would
// be a KernelProfile field read here (as KernelParams::napi chooses net_rx_action's loop), not a
// version test.
#include "drivers-sim/kernel/kernel.h"
#include "drivers-sim/kernel/kernel_internal.h"
#include <stdexcept>

namespace nicsim {

namespace {
struct RunChild {
  Cpu* cpu;
  ExecContext* child;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) const { cpu->run_child(h, child); }
  void await_resume() const noexcept {}
};
}  // namespace

int Kernel::softirq_bh_count(unsigned cpu) const { return percpu_.at(cpu).bh_count; }

void Kernel::open_softirq(unsigned nr, SoftirqAction action) {
  if (nr >= kNrSoftirqs) throw std::invalid_argument("open_softirq: bad softirq number");
  softirq_vec_[nr] = std::move(action);
}

void Kernel::raise_softirq(unsigned nr) { raise_softirq_on(Cpu::running_cpu().index(), nr); }

void Kernel::raise_softirq_on(unsigned cpu, unsigned nr) {
  percpu_.at(cpu).pending |= 1u << nr;
  if (!in_interrupt_on(cpu)) wakeup_softirqd(cpu);  // cpu_raise_softirq
}

void Kernel::wakeup_softirqd(unsigned cpu) {
  Process* k = percpu_.at(cpu).ksoftirqd;
  Cpu* rc = Cpu::running_cpu_or_null();
  if (k && k->pstate_ == Process::PState::Sleeping) try_to_wake_up(*k, 0, rc ? static_cast<int>(rc->index()) : -1);
}

void Kernel::local_bh_disable() { ++pc().bh_count; }

Task<void> Kernel::local_bh_enable() {
  unsigned c = smp_processor_id();
  PerCpu& q = percpu_[c];
  if (q.bh_count <= 0) throw std::logic_error("local_bh_enable without local_bh_disable");
  --q.bh_count;
  if (q.bh_count == 0 && q.pending && !in_interrupt_on(c)) co_await run_softirq_child(c);
}

Task<void> Kernel::run_softirq_child(unsigned c) {
  auto k = std::make_unique<KCtx>(ExecLevel::Softirq, "do_softirq");
  k->prof_ctx = softirq_ctx_[kNrSoftirqs];
  k->irqs_enabled = true;
  k->task = do_softirq(c);
  k->root = k->task.handle();
  KCtx* raw = k.get();
  percpu_[c].live.push_back(std::move(k));
  co_await RunChild{percpu_[c].cpu, raw};
}

Task<void> Kernel::do_softirq(unsigned c) {
  PerCpu& q = percpu_[c];
  if (!q.pending) co_return;
  ExecContext* self = q.cpu->running();  // this softirq context: its profile row follows the vector
  co_await cost(CostId::softirq_entry);
  uint32_t pending = q.pending;
  uint32_t mask = ~pending;
  for (;;) {
    q.pending = 0;
    for (unsigned nr = 0; pending; ++nr, pending >>= 1)
      if ((pending & 1) && softirq_vec_[nr]) {
        SoftirqAction a = softirq_vec_[nr];
        self->prof_ctx = softirq_ctx_[nr];
        co_await a(c);
        self->prof_ctx = softirq_ctx_[kNrSoftirqs];
      }
    pending = q.pending;
    if (pending & mask) {  // raised meanwhile and not yet run in this invocation: restart
      mask &= ~pending;
      continue;
    }
    break;
  }
  if (pending) wakeup_softirqd(c);
}

Task<void> Kernel::ksoftirqd_main(unsigned c) {
  PerCpu& q = percpu_[c];
  for (;;) {
    if (!q.pending) co_await q.ksoftirqd_wq.wait();
    while (q.pending) {
      co_await run_softirq_child(c);
      co_await cond_resched();
    }
  }
}

}  // namespace nicsim
