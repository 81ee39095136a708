// struct task_struct of the kernel model (Linux 2.4 include/linux/sched.h) and the pure pieces of
// kernel/sched.c's policy (NICE_TO_TICKS, goodness, PROC_CHANGE_PENALTY). The scheduler itself is
// sched.cpp, process creation fork.cpp. The policy (kernel/sched.c, kernel/fork.c 2.4.20):
//  * One global run queue (runqueue_head) of
//    runnable tasks, the running ones included. schedule() on a CPU picks, among the tasks that
//    can_schedule() there (not running on another CPU, the CPU in cpus_allowed), the best
//    goodness(): counter + 20 - nice (0 when the time slice is used up), + PROC_CHANGE_PENALTY
//    (15, include/asm-i386/smp.h) on the task's last CPU, + 1 for the same mm (or a kernel
//    thread); the previous task if still runnable is the first candidate, others must beat it.
//    When every candidate has 0 the counters are recalculated (counter/2 + NICE_TO_TICKS).
//    Wakeup (try_to_wake_up -> reschedule_idle, SMP): the task's last CPU if its current is the
//    idle task (a reschedule IPI when that is not the waker's CPU); else the idle CPU that
//    scheduled least recently; else the CPU whose running task it beats by the most
//    (preemption_goodness > 0; the PROC_CHANGE_PENALTY is the margin on another CPU). A
//    synchronous wakeup (wake_up_sync) skips reschedule_idle when the waker's CPU is allowed.
//    A preempted task goes through reschedule_idle again (__schedule_tail), so it moves to an
//    idle CPU: migration emerges from these rules. fork (spawn_process without a CPU): the child
//    starts on its parent's CPU, which is busy forking, so reschedule_idle sends it to an idle
//    other CPU. Idle is hlt: an idle CPU runs schedule() only when need_resched is set.
//    need_resched takes effect when the CPU returns to a process in user mode (ret_from_intr), at
//    system call exit, when the running process sleeps, or in the idle loop; no kernel
//    preemption. The context-switch cost is charged to the incoming task.
#pragma once
#include "core/journey.h"
#include "drivers-sim/kernel/task.h"
#include "drivers-sim/kernel/wait.h"
#include "models/cpu/cpu.h"
#include <cstdint>
#include <string>
#include <vector>

namespace nicsim {

class Kernel;

/// NICE_TO_TICKS(nice) for HZ < 200 (kernel/sched.c 2.4): ((20 - nice) >> 2) + 1 ticks.
int nice_to_ticks(int nice);
/// goodness() for SCHED_OTHER on the task's own CPU: 0 when counter == 0, else counter + 20 - nice.
int goodness(int counter, int nice);
/// PROC_CHANGE_PENALTY (include/asm-i386/smp.h 2.4.20): goodness bonus of a task on its last CPU.
constexpr int PROC_CHANGE_PENALTY = 15;

/// A process (task_struct): an application or kernel thread, one root coroutine.
///
/// Ownership: the Kernel owns its processes (Kernel::processes()); a process owns its root
/// coroutine and, through it, every frame of its call chain with their locals (awaiters, timers,
/// skbs, wait queues). CPUs, run queues and wait queues hold non-owning pointers. ~Kernel destroys
/// every process (and so every suspended coroutine) first, while the rest of the kernel is whole,
/// so frame destructors that call back into it (an skb's free, a timer's del_timer) find it
/// alive; ~Process first takes the process off the wait queue it sleeps on.
class Process : public ExecContext {
 public:
  enum class PState { Runnable, Sleeping, Zombie };
  Process(Kernel& k, std::string name, unsigned cpu, int nice);
  ~Process() override;
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  /// The wait queue this process sleeps on, nullptr when none (running, runnable, woken, or its
  /// queue was destroyed while it slept).
  const WaitQueue* wait_queue() const { return waiting_on_; }
  Kernel& kernel() const { return *kernel_; }
  /// The CPU it runs on, or last ran on (task_struct.processor).
  unsigned cpu() const { return cpu_; }
  /// task_struct.cpus_allowed: bit n = CPU n may run it.
  uint64_t cpus_allowed() const { return cpus_allowed_; }
  /// Running on a CPU now (2.4.20 task_has_cpu: cpus_runnable != ~0).
  bool has_cpu() const { return has_cpu_; }
  /// Times schedule() installed it on a CPU other than the one it last ran on.
  uint64_t migrations() const { return migrations_; }
  /// Time it has been a CPU's current process on `cpu` so far (interrupts taken meanwhile included).
  sc_time time_on(unsigned cpu) const;
  int nice() const { return nice_; }
  int counter() const { return counter_; }
  PState pstate() const { return pstate_; }
  bool in_kernel() const { return in_kernel_; }
  /// CPU time charged to it by the tick, in jiffies (task_struct times.tms_utime / tms_stime, what
  /// getrusage(RUSAGE_SELF) and times() return, × 1/HZ s). Linux 2.4 kernel/timer.c
  /// update_process_times(user_tick): the task current at each timer tick gets the whole tick, as
  /// user time when the tick interrupted user mode, else as system time; work done while another
  /// task (or the idle task) was current is not charged to it.
  uint64_t utime_ticks() const { return utime_ticks_; }
  uint64_t stime_ticks() const { return stime_ticks_; }
  uint64_t nvcsw() const { return nvcsw_; }    ///< voluntary switches (slept)
  uint64_t nivcsw() const { return nivcsw_; }  ///< involuntary switches (preempted)
  bool exited() const { return pstate_ == PState::Zombie; }

 private:
  friend class Kernel;
  friend class WaitQueue;
  Kernel* kernel_;
  unsigned cpu_;
  uint64_t cpus_allowed_ = ~uint64_t(0);
  bool has_cpu_ = false;
  uint64_t migrations_ = 0;
  sc_time on_cpu_since_ = SC_ZERO_TIME;
  std::vector<sc_time> time_on_;  ///< per CPU, while not current there now
  uint64_t* migrations_ctr_ = nullptr;
  uint64_t uaddr_ = 0;  ///< DRAM address of its task_struct (SMP line tracking)
  bool placed_ = false;  ///< the last reschedule_idle told a CPU to schedule for it
  int nice_;
  int counter_;
  PState pstate_ = PState::Runnable;
  bool in_kernel_ = false;  ///< inside a system call (or a kernel thread): not preempted
  bool kthread_ = false;
  WaitQueue* waiting_on_ = nullptr;
  JourneyId wake_journey_ = 0;
  uint64_t nvcsw_ = 0, nivcsw_ = 0;
  uint64_t utime_ticks_ = 0, stime_ticks_ = 0;
  Task<void> main_;
};

}  // namespace nicsim
