// The scheduler and wakeups of the kernel model (Linux 2.4.20 kernel/sched.c; see kernel.h for the
// other files).
//
// The policy (one global run queue, goodness, reschedule_idle's placement, need_resched, no
// kernel preemption): sched.h.
//
//   Linux                                   here
//   schedule(), goodness()                  Kernel::schedule, goodness_on, goodness
//   reschedule_idle(), try_to_wake_up()     Kernel::reschedule_idle, try_to_wake_up
//   smp_send_reschedule()                   Kernel::send_resched
//   __wake_up(), wake_up_process()          Kernel::wake_up, wake_up_process (+ wakeup_lines, SMP)
//   schedule_timeout(), cond_resched()      Kernel::schedule_timeout, cond_resched
//   ret_from_intr's need_resched test       Kernel::resched_check
//   the idle loop (cpu_idle)                Kernel::idle; Kernel::blocked (prev slept)
//   task_release_cpu, the task's CPU time   Kernel::process_off_cpu
//   add_wait_queue / remove_wait_queue,     WaitQueue::link / unlink, WaitQueue::Awaiter
//     interruptible_sleep_on
//   current                                 Kernel::current
//   NICE_TO_TICKS, task_struct              nice_to_ticks, Process
//
// A kernel with another scheduler (2.6's O(1) runqueues) is not modelled: it would be a second
// scheduler path the kernel profile names, beside this one, not a version test in it.
#include "drivers-sim/kernel/kernel.h"
#include "core/sim_context.h"
#include "drivers-sim/kernel/cpu_time.h"
#include <algorithm>
#include <stdexcept>

namespace nicsim {

using State = ExecContext::State;

namespace {
struct Yield {
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) const { Cpu::running_cpu().block(h); }
  void await_resume() const noexcept {}
};
}  // namespace

// ---------------------------------------------------------------------------------------------
// goodness (kernel/sched.c)

int nice_to_ticks(int nice) { return ((20 - nice) >> 2) + 1; }

int goodness(int counter, int nice) { return counter <= 0 ? 0 : counter + 20 - nice; }

int Kernel::goodness_on(const Process& p, unsigned cpu, const Process* prev) const {
  // kernel/sched.c 2.4.20 goodness(p, this_cpu, this_mm), SCHED_OTHER.
  int w = goodness(p.counter_, p.nice_);
  if (w == 0) return 0;
  if (p_.cpus > 1 && p.cpu_ == cpu) w += PROC_CHANGE_PENALTY;  // #ifdef CONFIG_SMP
  if (&p == prev || p.kthread_) w += 1;                          // p->mm == this_mm || !p->mm
  return w;
}

// ---------------------------------------------------------------------------------------------
// task_struct and wait queues (include/linux/sched.h, include/linux/wait.h)

Process::Process(Kernel& k, std::string name, unsigned cpu, int nice)
    : ExecContext(ExecLevel::Process, std::move(name)), kernel_(&k), cpu_(cpu), nice_(nice),
      counter_(nice_to_ticks(nice)) {}

sc_time Process::time_on(unsigned cpu) const {
  sc_time t = cpu < time_on_.size() ? time_on_[cpu] : SC_ZERO_TIME;
  if (has_cpu_ && cpu == cpu_) t += now() - on_cpu_since_;
  return t;
}

Process::~Process() {
  // Off the queue first: the queue may outlive the process (a socket's, a driver's).
  if (waiting_on_) waiting_on_->unlink(*this);
}

WaitQueue::~WaitQueue() {
  // The sleepers may outlive the queue (it can sit in a frame or object destroyed before them).
  for (Process* p : waiters_) p->waiting_on_ = nullptr;
}

void WaitQueue::link(Process& p) {
  if (p.waiting_on_) throw std::logic_error(p.name + ": already on a wait queue");
  p.waiting_on_ = this;
  waiters_.push_back(&p);
}

void WaitQueue::unlink(Process& p) {
  if (p.waiting_on_ != this) return;
  waiters_.erase(std::remove(waiters_.begin(), waiters_.end(), &p), waiters_.end());
  p.waiting_on_ = nullptr;
}

void WaitQueue::Awaiter::await_suspend(std::coroutine_handle<> h) {
  Cpu& c = Cpu::running_cpu();
  ExecContext* r = c.running();
  if (!r || r->level != ExecLevel::Process || r != c.process())
    throw std::logic_error("wait queue sleep outside process context");
  auto* p = static_cast<Process*>(r);
  if (p->kernel().softirq_bh_count(c.index()) > 0)
    throw std::logic_error(p->name + ": sleeping with bottom halves disabled");
  p->pstate_ = Process::PState::Sleeping;
  p->journey = 0;  // asleep it works for no message; a wakeup names the next one
  wq->link(*p);
  c.block(h);
}

Process* Kernel::current() const {
  Cpu* c = Cpu::running_cpu_or_null();
  if (!c) return nullptr;
  ExecContext* r = c->running();
  return r && r->level == ExecLevel::Process ? static_cast<Process*>(r) : nullptr;
}

// ---------------------------------------------------------------------------------------------
// wakeups

bool Kernel::try_to_wake_up(Process& p, JourneyId j, int waker_cpu, bool sync, int busy_parent_cpu) {
  if (p.pstate_ != Process::PState::Sleeping) return false;
  if (p.waiting_on_) p.waiting_on_->unlink(p);
  p.pstate_ = Process::PState::Runnable;
  runqueue_.push_front(&p);  // add_to_runqueue: at the head
  if (j) p.wake_journey_ = j;
  // try_to_wake_up(p, synchronous): reschedule_idle unless a synchronous wakeup may run it here.
  if (!sync || waker_cpu < 0 || !(p.cpus_allowed_ >> waker_cpu & 1)) reschedule_idle(p, waker_cpu, busy_parent_cpu);
  if (j) {
    // The CPU it will most likely run on: the one told to reschedule for it, else its last.
    unsigned c = p.cpu_;
    for (unsigned i = 0; i < p_.cpus; ++i)
      if (percpu_[i].need_resched && can_schedule(p, i) && (i == p.cpu_ || !percpu_[p.cpu_].need_resched)) {
        c = i;
        break;
      }
    sim().journeys.mark(j, now(), "run queue", where(c), percpu_[c].cpu->busy_cause());
  }
  return true;
}

void Kernel::send_resched(unsigned cpu, int this_cpu, bool idle_target) {
  PerCpu& t = percpu_[cpu];
  const bool was = t.need_resched;
  t.need_resched = true;
  if (this_cpu < 0) t.cpu->kick();
  else if (static_cast<unsigned>(this_cpu) != cpu && !(idle_target && was))
    t.cpu->raise_local(RESCHEDULE_VECTOR, p_.ipi_latency);  // smp_send_reschedule
}

void Kernel::reschedule_idle(Process& p, int this_cpu, int busy_parent_cpu) {
  // kernel/sched.c 2.4.20 reschedule_idle (SMP; with one CPU it reduces to the UP version).
  auto is_idle = [&](unsigned c) { return !percpu_[c].current && static_cast<int>(c) != busy_parent_cpu; };
  const unsigned best = p.cpu_;
  if (can_schedule(p, best) && is_idle(best)) {  // shortcut: its last CPU is idle
    send_resched(best, this_cpu, true);
    p.placed_ = false;  // (placed_: sent to a CPU other than its last)
    return;
  }
  // The least recently active idle CPU, else the running task it beats by the most.
  int target = -1;
  bool target_idle = false;
  sc_time oldest = SC_ZERO_TIME;
  int max_prio = 0;
  for (unsigned c = 0; c < p_.cpus; ++c) {
    if (!can_schedule(p, c)) continue;
    if (is_idle(c)) {
      if (!target_idle || percpu_[c].last_schedule < oldest) {
        oldest = percpu_[c].last_schedule;
        target = static_cast<int>(c);
        target_idle = true;
      }
    } else if (!target_idle && static_cast<int>(c) != busy_parent_cpu) {
      const Process* t = percpu_[c].current;
      const int prio = goodness_on(p, c, t) - goodness_on(*t, c, t);  // preemption_goodness
      if (prio > max_prio) {
        max_prio = prio;
        target = static_cast<int>(c);
      }
    }
  }
  if (target >= 0) send_resched(static_cast<unsigned>(target), this_cpu, target_idle);
  p.placed_ = target >= 0 && static_cast<unsigned>(target) != p.cpu_;
}

Task<void> Kernel::wake_up(WaitQueue& wq, JourneyId j, bool sync) {
  // __wake_up: wq_read_lock_irqsave(&q->lock), a spin_lock on i386 (include/linux/wait.h 2.4.20:
  // USE_RW_WAIT_QUEUE_SPINLOCK 0), taken whether or not anyone sleeps; the release is a plain store.
  co_await locked_ops(1);
  std::vector<Process*> ws = wq.waiters_;
  for (Process* p : ws) {
    co_await cost(CostId::wakeup);
    if (p_.cpus > 1) co_await wakeup_lines(*p, j);
    try_to_wake_up(*p, j, static_cast<int>(smp_processor_id()), sync);
  }
}

Task<void> Kernel::wakeup_lines(Process& p, JourneyId j) {
  // try_to_wake_up on SMP: runqueue_lock (its line with runqueue_head) and p->state, p->run_list.
  co_await spin_lock(rq_addr_, "runqueue_lock", j);
  co_await touch_lines(p.uaddr_, 128, LineAccess::Rmw, "task_struct", j);
}

Task<void> Kernel::wake_up_process(Process& p, JourneyId j) {
  if (p.pstate_ != Process::PState::Sleeping) co_return;
  co_await cost(CostId::wakeup);
  if (p_.cpus > 1) co_await wakeup_lines(p, j);
  try_to_wake_up(p, j, static_cast<int>(smp_processor_id()));
}

Task<void> Kernel::cond_resched() {
  Process* p = current();
  if (!p) throw std::logic_error("cond_resched outside process context");
  if (!percpu_[p->cpu_].need_resched) co_return;
  co_await Yield{};  // stays Runnable; blocked() keeps it queued and schedule() picks
}

Task<long> Kernel::schedule_timeout(WaitQueue& wq, long timeout) {
  Process* p = current();
  if (!p) throw std::logic_error("schedule_timeout outside process context");
  TimerList t;
  t.expires = jiffies_ + static_cast<uint64_t>(timeout > 0 ? timeout : 0);
  t.function = [this, p]() -> Task<void> { co_await wake_up_process(*p); };
  add_timer(t);
  co_await wq.wait();
  del_timer(t);
  long rem = static_cast<long>(t.expires) - static_cast<long>(jiffies_);
  co_return rem > 0 ? rem : 0;
}

// ---------------------------------------------------------------------------------------------
// schedule()

void Kernel::blocked(Cpu& cpu, ExecContext* ctx) {
  (void)cpu;
  auto* p = static_cast<Process*>(ctx);
  if (p->pstate_ == Process::PState::Sleeping)
    runqueue_.erase(std::remove(runqueue_.begin(), runqueue_.end(), p), runqueue_.end());
  // The CPU calls idle() next (no process installed): schedule() picks the successor.
}

void Kernel::idle(Cpu& cpu) {
  PerCpu& q = percpu_[cpu.index()];
  // The process that ran here slept or exited (its schedule()), or the idle loop saw
  // need_resched; otherwise the idle task stays in hlt.
  if (q.current || q.need_resched) schedule(cpu.index());
}

void Kernel::resched_check(unsigned c) {
  PerCpu& q = percpu_[c];
  if (!q.need_resched) return;
  Process* cur = q.current;
  if (!cur || q.cpu->process() != cur) return;  // idle: the idle loop schedules
  if (cur->in_kernel_) return;                  // no kernel preemption in 2.4
  schedule(c);
}

void Kernel::process_off_cpu(Process& p, unsigned c) {
  p.has_cpu_ = false;  // task_release_cpu
  const sc_time ran = now() - p.on_cpu_since_;
  p.time_on_[c] += ran;
  // result.json: where each process ran (SMP only), nanoseconds as a CPU's current process.
  if (p_.cpus > 1 && !p.kthread_)
    sim().counters.at(p_.host + ".proc." + p.name + ".cpu" + std::to_string(c) + "_ns") +=
        static_cast<uint64_t>(ran.value() / 1000);
}

void Kernel::schedule(unsigned c) {
  PerCpu& q = percpu_[c];
  q.need_resched = false;
  Process* prev = q.current;
  Process* next = nullptr;
  const bool prev_runs = prev && prev->pstate_ == Process::PState::Runnable && (prev->cpus_allowed_ >> c & 1);
  for (;;) {
    // kernel/sched.c 2.4.20 schedule(): prev first (still_running), then the run queue.
    int best = -1000;
    next = nullptr;
    if (prev_runs) {
      next = prev;
      best = goodness_on(*prev, c, prev);
    }
    for (Process* p : runqueue_) {
      if (p == prev || !can_schedule(*p, c)) continue;
      // A child reschedule_idle sent away from its busy parent's CPU is not taken there before it
      // first runs: the parent keeps that CPU (fork returns, exec, the shell's wait4) for longer
      // than the IPI takes. Matters at elaboration, where boot tasks and the workload all start
      // at t=0 and a boot task's wakeup on the parent's CPU would otherwise run schedule() there.
      if (p->placed_ && p->cpu_ == c && p->nvcsw_ + p->nivcsw_ + p->migrations_ == 0 && p_.cpus > 1) continue;
      int g = goodness_on(*p, c, prev);
      if (g > best) {
        best = g;
        next = p;
      }
    }
    if (next && best == 0) {  // every runnable slice used up: recalculate (all tasks)
      for (auto& p : procs_) p->counter_ = (p->counter_ >> 1) + nice_to_ticks(p->nice_);
      continue;
    }
    break;
  }
  q.current = next;
  q.last_schedule = now();
  if (next != prev) {
    ++*q.ctx_switches;
    if (prev) {
      if (prev->pstate_ == Process::PState::Runnable) ++prev->nivcsw_;
      else if (prev->pstate_ == Process::PState::Sleeping) ++prev->nvcsw_;
      process_off_cpu(*prev, c);
    }
    if (next) {
      if (next->cpu_ != c) {
        ++next->migrations_;
        if (next->migrations_ctr_) ++*next->migrations_ctr_;
      }
      next->cpu_ = c;
      next->has_cpu_ = true;
      next->on_cpu_since_ = now();
    }
  }
  if (!next) {
    // SMP: schedule() took spin_lock_irq(&runqueue_lock) here too (also when a reschedule IPI finds
    // nothing to run): the line is now this CPU's, and the next wakeup or schedule() on another CPU
    // fetches it. No one waits on an idle CPU's schedule(): its time is not charged.
    if (p_.cpus > 1) (void)lines_now(c, rq_addr_, p_.cache_line_bytes, LineAccess::Rmw, false);
    q.cpu->set_process(nullptr);
  } else {
    if (next->state == State::Blocked) next->state = State::Ready;
    if (next != prev) {  // the incoming task pays switch_to and the TLB/cache refill
      sc_time cs = q.cpu->cycles(entry_cycles(costs_->at(CostId::context_switch), 0, q.cpu->mhz()));
      // SMP: schedule() takes runqueue_lock and reads the run queue; switch_to loads the incoming
      // task_struct and kernel stack. Lines the other CPU modified come over the FSB (HITM),
      // folded into the switch (schedule() is not a context that can stall on its own).
      if (p_.cpus > 1)
        cs += q.cpu->cycles(costs_->cycles(CostId::spin_lock, 0, q.cpu->mhz())) +
              lines_now(c, rq_addr_, p_.cache_line_bytes, LineAccess::Rmw) +
              lines_now(c, next->uaddr_, 128, LineAccess::Rmw);
      if (next->state == State::Preempted) {
        next->remaining += cs;
      } else if (next->state == State::Ready) {
        next->state = State::Preempted;
        next->remaining = cs;
        next->prof_what = what_tag(CostId::context_switch);  // (added to a split burn it counts as that burn's entry)
      }
      if (next->wake_journey_) {
        next->journey = next->wake_journey_;
        next->stage = "context switch";
        next->wake_journey_ = 0;
      }
    }
    q.cpu->set_process(next);
  }
  // __schedule_tail: a preempted prev still runnable goes through reschedule_idle (an idle CPU
  // may take it: migration).
  if (prev && prev != next && prev->pstate_ == Process::PState::Runnable && p_.cpus > 1)
    reschedule_idle(*prev, static_cast<int>(c));
}

}  // namespace nicsim
