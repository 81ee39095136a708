// Timers and the tick of the kernel model (Linux 2.4.20 kernel/timer.c, arch/i386/kernel/time.c;
// see kernel.h for the other files). The tick's rules: timer.h.
//
//   Linux                                         here
//   LATCH (include/linux/timex.h)                 tick_period
//   timer_interrupt -> do_timer, mark_bh          Kernel::timer_irq (IRQ0)
//   smp_local_timer_interrupt ->                  Kernel::local_timer_irq (LOC): the tick's
//     update_process_times, update_one_process    utime/stime and the time slice (counter)
//   run_timer_list (TIMER_BH)                     Kernel::run_timer_list
//   add_timer(), mod_timer(), del_timer()         Kernel::add_timer, mod_timer, del_timer
//   struct timer_list                             TimerList (timer.h)
//
// HZ is KernelParams::hz (the kernel profile's): a 2.6 kernel's HZ is its profile's value.
#include "drivers-sim/kernel/kernel.h"
#include <stdexcept>

namespace nicsim {

sc_time tick_period(unsigned hz) {
  const unsigned clock_tick_rate = 1193180;  // include/asm-i386/timex.h CLOCK_TICK_RATE
  unsigned latch = (clock_tick_rate + hz / 2) / hz;
  return sc_time(static_cast<double>(latch) / clock_tick_rate, sc_core::SC_SEC);
}

TimerList::~TimerList() {
  if (pending_ && kernel_) kernel_->del_timer(*this);  // ~Kernel unlinks what is still pending
}

Task<void> Kernel::timer_irq(unsigned c) {
  co_await cost(CostId::timer_interrupt);
  ++jiffies_;
  raise_softirq_on(c, HI_SOFTIRQ);  // mark_bh(TIMER_BH)
}

Task<void> Kernel::local_timer_irq(unsigned c) {
  co_await cost(CostId::local_timer);
  PerCpu& q = percpu_[c];
  Process* cur = q.current;  // update_process_times: the idle task (pid 0) is not charged
  if (!cur) co_return;
  // update_one_process(p, user_tick, system): user_mode(regs) of the tick is true only when it
  // interrupted the process itself outside a system call; this handler is the top of the CPU's
  // interrupt stack, so anything below it (another hardirq, a softirq) means kernel mode.
  const bool user_tick = !cur->in_kernel_ && q.cpu->irq_stack().size() <= 1;
  ++(user_tick ? cur->utime_ticks_ : cur->stime_ticks_);
  if (--cur->counter_ <= 0) {
    cur->counter_ = 0;
    q.need_resched = true;
  }
}

Task<void> Kernel::run_timer_list(unsigned c) {
  co_await cost(CostId::run_timer_list);
  while (!timers_.empty() && timers_.begin()->first <= jiffies_) {
    TimerList* t = timers_.begin()->second;
    timers_.erase(timers_.begin());
    t->pending_ = false;
    auto fn = t->function;  // the timer may be re-armed or destroyed by its own callback
    co_await cost(CostId::timer_callback);
    if (fn) co_await fn();
  }
}

void Kernel::add_timer(TimerList& t) {
  if (t.pending_) throw std::logic_error("add_timer: timer already pending");
  t.kernel_ = this;
  t.it_ = timers_.emplace(t.expires, &t);
  t.pending_ = true;
}

int Kernel::mod_timer(TimerList& t, uint64_t expires) {
  int was = del_timer(t);
  t.expires = expires;
  add_timer(t);
  return was;
}

int Kernel::del_timer(TimerList& t) {
  if (!t.pending_) return 0;
  timers_.erase(t.it_);
  t.pending_ = false;
  return 1;
}

}  // namespace nicsim
