// Process creation of the kernel model (Linux 2.4.20 kernel/fork.c do_fork; see kernel.h for the
// other files).
//
//   Linux                                         here
//   do_fork + wake_up_process(child)              Kernel::spawn_process(name, main): the child
//                                                 starts on its parent's CPU (p->processor
//                                                 inherited), which is busy forking, so
//                                                 reschedule_idle (sched.cpp) sends it to an idle
//                                                 other CPU
//   kernel_thread + set_cpus_allowed (a bound     Kernel::spawn_process(name, cpu, main, nice)
//     thread, taskset)
//   copy_process's task_struct setup              Kernel::install_process
#include "drivers-sim/kernel/kernel.h"
#include "core/sim_context.h"
#include <stdexcept>

namespace nicsim {

using State = ExecContext::State;

namespace {
std::unique_ptr<Process> new_process(Kernel& k, const std::string& name, unsigned cpu, Task<void>& main, int nice) {
  if (!main.valid()) throw std::invalid_argument("spawn_process: empty task");
  return std::make_unique<Process>(k, name, cpu, nice);
}
}  // namespace

Process& Kernel::spawn_process(const std::string& name, unsigned cpu, Task<void> main, int nice) {
  if (cpu >= p_.cpus) throw std::invalid_argument("spawn_process: CPU " + std::to_string(cpu) + " does not exist");
  auto p = new_process(*this, name, cpu, main, nice);
  p->cpus_allowed_ = uint64_t(1) << cpu;
  Process& ref = *p;
  install_process(std::move(p), std::move(main));
  Cpu* rc = Cpu::running_cpu_or_null();
  try_to_wake_up(ref, 0, rc ? static_cast<int>(rc->index()) : -1);
  return ref;
}

Process& Kernel::spawn_process(const std::string& name, Task<void> main) {
  // do_fork: the child starts on the parent's CPU (p->processor inherited) with its cpus_allowed
  // (here the scenario's affinity), and wake_up_process(child) runs reschedule_idle while the
  // parent is running there, so an idle other CPU takes it.
  Cpu* rc = Cpu::running_cpu_or_null();
  const unsigned parent = rc ? rc->index() : 0;
  const uint64_t allowed = p_.cpus_allowed & all_cpus_mask();
  if (!allowed) throw std::invalid_argument("spawn_process: cpus_allowed names no existing CPU");
  unsigned first = parent;
  if (!(allowed >> parent & 1)) first = static_cast<unsigned>(__builtin_ctzll(allowed));
  auto p = new_process(*this, name, first, main, 0);
  p->cpus_allowed_ = allowed;
  Process& ref = *p;
  install_process(std::move(p), std::move(main));
  if (rc) {
    try_to_wake_up(ref, 0, static_cast<int>(parent));
  } else {
    // The shell forking at elaboration is busy on CPU `parent`, then waits for its child: that
    // CPU runs schedule() (wait4 sleeps), which may pick the child up if nothing else did.
    // reschedule_idle placed it elsewhere, or (nowhere) it waits for the parent's schedule().
    try_to_wake_up(ref, 0, -1, false, static_cast<int>(parent));
    if (!ref.placed_) {
      percpu_[parent].need_resched = true;
      percpu_[parent].cpu->kick();
    }
  }
  return ref;
}

void Kernel::install_process(std::unique_ptr<Process> p, Task<void> main) {
  p->prof_ctx = context_tag("process " + p->name);
  p->main_ = std::move(main);
  p->root = p->main_.handle();
  p->resume_at = p->root;
  p->state = State::Blocked;  // not on a CPU until schedule() installs it
  p->pstate_ = Process::PState::Sleeping;
  p->time_on_.assign(p_.cpus, SC_ZERO_TIME);
  if (p_.cpus > 1) {
    p->uaddr_ = smp_object(1024);  // task_struct: the fields schedule/wakeup touch are in its first lines
    p->migrations_ctr_ = &sim().counters.at(p_.host + ".proc." + p->name + ".migrations");
  }
  procs_.push_back(std::move(p));
}

}  // namespace nicsim
